/**
 * Ops whose low-precision form a runtime can refuse although their schema allows it: their ONNX
 * function body adds float32 constants to the main type (rules/float32-function-bodies.json).
 */
import { readFileSync } from 'node:fs';
import { normalizeDomain } from '../../onnx/opsets.js';

interface BodyEntry {
  op: string;
  domain?: string;
  reason: string;
}

let table: Map<string, string> | undefined;

/** Why the op cannot run in a low-precision type although its schema says it can; undefined when it can. */
export function float32BodyReason(domain: string | null | undefined, op: string | null | undefined): string | undefined {
  if (!table) {
    const file = JSON.parse(readFileSync(new URL('../../../rules/float32-function-bodies.json', import.meta.url), 'utf8')) as { ops: BodyEntry[] };
    table = new Map(file.ops.map((e) => [`${normalizeDomain(e.domain)}:${e.op}`, e.reason]));
  }
  return table.get(`${normalizeDomain(domain)}:${op ?? ''}`);
}
