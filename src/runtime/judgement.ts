/**
 * How runs are judged across batches and refusals, for compare and the verification alike: a
 * refusal that still lets an emulated run be judged, the notice that says so, and one row of
 * figures for an output over every batch. No runtime here: this runs in a browser too.
 */
import type { OutputComparison } from './compare.js';
import type { Numerics } from './numerics.js';
import type { Provider } from './session.js';

/** ONNX Runtime found the model valid but this provider lacks a kernel for some node. */
const KERNEL_MISSING = /Could not find an implementation for/;

/**
 * Whether a model ONNX Runtime refused as it is is judged all the same: only when the refusal is a
 * kernel the provider lacks (bfloat16 on cpu) and the numerics are emulated; then `refusalNotice` says so.
 */
export const judgedDespiteRefusal = (refused: string, numerics: Numerics): boolean => numerics === 'emulate' && KERNEL_MISSING.test(refused);

export const refusalNotice = (what: string, provider: Provider, refused: string): string =>
  `${what} does not run as it is on ${provider} (${refused}); under emulated numerics it is compared as a provider with those kernels would run it`;

/** One output's figures over several batches: counts summed, errors at their worst, the worst batch's decision. */
export function mergeBatches(rows: readonly OutputComparison[]): OutputComparison {
  const first = rows[0] as OutputComparison;
  if (rows.length === 1) return first;
  const worst = rows.reduce((w, r) => (Number(!r.pass) - Number(!w.pass) || r.worstRatio - w.worstRatio) > 0 ? r : w, first);
  const sum = (key: keyof OutputComparison) => rows.reduce((s, r) => s + (r[key] as number), 0);
  // The largest figure over the batches that have one; NaN (no figure) when none has.
  const max = (key: keyof OutputComparison) => {
    const largest = rows.reduce((m, r) => (Number.isNaN(r[key] as number) ? m : Math.max(m, r[key] as number)), -Infinity);
    return largest === -Infinity ? Number.NaN : largest;
  };
  const merged: OutputComparison = {
    ...worst,
    elements: sum('elements'),
    finite: sum('finite'),
    maxAbsError: max('maxAbsError'),
    maxRelError: max('maxRelError'),
    cosine: rows.reduce((m, r) => (Number.isNaN(r.cosine) ? m : Number.isNaN(m) ? r.cosine : Math.min(m, r.cosine)), Number.NaN),
    referenceNonFinite: sum('referenceNonFinite'),
    candidateNonFinite: sum('candidateNonFinite'),
    referenceNaN: sum('referenceNaN'),
    candidateNaN: sum('candidateNaN'),
    referenceInf: sum('referenceInf'),
    candidateInf: sum('candidateInf'),
    mismatched: sum('mismatched'),
    worstRatio: max('worstRatio'),
    pass: rows.every((r) => r.pass),
  };
  return merged;
}
