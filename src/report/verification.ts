/**
 * The verification's verdict in words: one line after the summary (and in the audit), saying what
 * ran (the inputs, the numerics, the provider and release), PASS or FAIL with the worst output,
 * and what was kept float32 and why; or why nothing could be verified.
 */
import { printable } from '../onnx/printable.js';
import type { OutputComparison } from '../runtime/compare.js';
import type { Verification } from '../runtime/result-types.js';

const figure = (n: number): string => (Number.isFinite(n) ? n.toPrecision(3) : String(n));

/** The output that decided the verdict: the first failing one, else the one nearest its bound. */
export function worstOutput(outputs: readonly OutputComparison[]): OutputComparison | undefined {
  return outputs.find((o) => !o.pass) ?? [...outputs].sort((a, b) => b.worstRatio - a.worstRatio)[0];
}

function whatRan(v: Verification, low: string): string {
  const batches = `${v.batches ?? 1} batch${v.batches === 1 || v.batches === undefined ? '' : 'es'}`;
  const inputs = v.inputs === 'files' ? `${batches} of --inputs` : `${batches} of random inputs (seed ${v.seed ?? 0})`;
  const numerics = v.numerics === 'emulate' ? `emulated ${low} numerics` : `native numerics`;
  return `${inputs}, ${numerics} on ${v.provider ?? 'cpu'} (${v.runtimeName ?? 'onnxruntime-node'} ${v.runtime ?? '?'})`;
}

function pinnedText(v: Verification): string {
  const pinned = v.pinned ?? [];
  if (!pinned.length) return '';
  const shown = pinned.slice(0, 3).map((p) => `'${printable(p.value, 120)}' ${p.overflowedInRound !== undefined ? `overflowed in round ${p.overflowedInRound}` : `reached ${figure(p.reached ?? 0)}`}`);
  const more = pinned.length > 3 ? `, and ${pinned.length - 3} more` : '';
  const limit = v.limit !== undefined && Number.isFinite(v.limit) ? ` at or beyond ${figure(v.limit)}` : '';
  return `; kept FP32 the nodes of ${pinned.length} value${pinned.length === 1 ? '' : 's'}${limit} or overflowing (${shown.join(', ')}${more})`;
}

function outputText(o: OutputComparison): string {
  if (o.pass) return `worst output '${printable(o.name, 120)}' at ${figure(o.worstRatio)} of its tolerance (max abs error ${figure(o.maxAbsError)})`;
  if (o.decidedBy === 'non-finite') return `output '${printable(o.name, 120)}' has ${o.candidateNonFinite} non-finite of ${o.elements} elements where float32 has ${o.referenceNonFinite}`;
  if (o.note) return `output '${printable(o.name, 120)}': ${printable(o.note, 200)}`;
  return `output '${printable(o.name, 120)}': ${o.mismatched} of ${o.elements} elements outside tolerance (max abs error ${figure(o.maxAbsError)}, ${figure(o.worstRatio)} times the allowance)`;
}

/** The verdict line, with its newline. */
export function renderVerification(v: Verification, mode: 'mixed_float16' | 'mixed_bfloat16'): string {
  const low = mode === 'mixed_bfloat16' ? 'bfloat16' : 'float16';
  if (v.status === 'not-verified') return `Not verified: ${printable(v.reason ?? 'unknown reason', 600)}\n`;
  const rounds = (v.rounds ?? 1) > 1 ? `, after ${v.rounds} rounds` : '';
  if (v.status === 'pass') {
    const worst = worstOutput(v.outputs ?? []);
    const result = worst ? outputText(worst) : 'nothing converted, the model is its own rewrite';
    return `Verified: PASS on ${whatRan(v, low)}: ${result}${pinnedText(v)}${rounds}\n`;
  }
  const worst = worstOutput(v.outputs ?? []);
  const why = v.candidateRefused ? `ONNX Runtime refused the rewritten model: ${printable(v.candidateRefused, 400)}` : worst ? outputText(worst) : 'no output could be judged';
  const written = v.modelWritten === false ? ' The model was not written.' : '';
  return `Verified: FAIL on ${v.provider ? whatRan(v, low) : 'ONNX Runtime'}: ${why}${pinnedText(v)}${rounds}.${written} Next: amp-rewrite tune finds the nodes to keep FP32 (or --no-verify writes the rewrite unverified)\n`;
}
