/**
 * Tables in rules/ keyed by op (`{"ops": [{"op", "domain"?, …}]}`, or another key for a file that holds
 * several tables): read once, on first use, and looked up by the node's domain and op type.
 */
import { normalizeDomain } from '../../onnx/opsets.js';
import { ruleFile } from '../../rules/rule-files.js';

interface OpEntry {
  op: string;
  domain?: string;
}

/** The entries of rules/`file`'s table `key`, read once. */
const tables = new Map<string, unknown[]>();
export function opRuleEntries<E extends OpEntry>(file: string, key = 'ops'): readonly E[] {
  const id = `${file}#${key}`;
  let entries = tables.get(id);
  if (!entries) {
    entries = ruleFile<Record<string, E[]>>(file)[key] ?? [];
    tables.set(id, entries);
  }
  return entries as E[];
}

/** A lookup into rules/`file` (its table `key`): each entry's `value`, by domain and op; undefined for an op it does not list. */
export function opRuleTable<E extends OpEntry, V>(file: string, value: (entry: E) => V, key = 'ops'): (domain: string | null | undefined, op: string | null | undefined) => V | undefined {
  let table: Map<string, V> | undefined;
  return (domain, op) => {
    table ??= new Map(opRuleEntries<E>(file, key).map((entry) => [`${normalizeDomain(entry.domain)}:${entry.op}`, value(entry)]));
    return table.get(`${normalizeDomain(domain)}:${op ?? ''}`);
  };
}
