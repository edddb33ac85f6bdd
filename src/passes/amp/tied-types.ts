/** Type variables converted together with an op's main one (rules/tied-type-variables.json). */
import { readFileSync } from 'node:fs';
import { normalizeDomain } from '../../onnx/opsets.js';

interface TiedEntry {
  op: string;
  domain?: string;
  tied: string[];
  reason: string;
}

let table: Map<string, readonly string[]> | undefined;

export function tiedTypeVariables(domain: string | null | undefined, op: string | null | undefined): readonly string[] {
  if (!table) {
    const file = JSON.parse(readFileSync(new URL('../../../rules/tied-type-variables.json', import.meta.url), 'utf8')) as { ops: TiedEntry[] };
    table = new Map(file.ops.map((e) => [`${normalizeDomain(e.domain)}:${e.op}`, e.tied]));
  }
  return table.get(`${normalizeDomain(domain)}:${op ?? ''}`) ?? [];
}
