/**
 * Graph attributes ONNX Runtime runs as sessions of their own (rules/session-graphs.json): the
 * generation drivers' encoder, decoder and init_decoder. Such a graph is checked as a main graph is,
 * and its inputs may reuse names of the graph that holds the driver.
 */
import { normalizeDomain } from './opsets.js';
import { ruleFile } from '../rules/rule-files.js';

interface SessionGraphRule {
  op: string;
  domain?: string;
  graphs: string[];
  reason: string;
}

let table: Map<string, ReadonlySet<string>> | undefined;

/** Whether attribute `attribute` of a node of `domain`/`op` holds a graph run as its own session. */
export function runsAsOwnSession(domain: string | null | undefined, op: string | null | undefined, attribute: string | null | undefined): boolean {
  table ??= new Map(
    ruleFile<{ ops: SessionGraphRule[] }>('session-graphs.json').ops.map((rule) => [
      `${normalizeDomain(rule.domain)}:${rule.op}`,
      new Set(rule.graphs),
    ]),
  );
  return table.get(`${normalizeDomain(domain)}:${op ?? ''}`)?.has(attribute ?? '') ?? false;
}
