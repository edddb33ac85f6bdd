/**
 * Comparing outputs of two runs (fp32 original vs mixed precision): per output the largest
 * absolute and relative error and the cosine similarity over the elements both runs computed
 * as finite numbers, NaN and inf counted beside them, and pass/fail against
 * |a - b| <= atol + rtol * |a| elementwise (a non-finite value passes only where the reference
 * has the same one). An output with no finite pair has no error figures (NaN; null in JSON).
 */
import { float16BitsToFloat32 } from '../onnx/float16.js';

/** The rule, in words, for --help and for every comparison printed. */
export const TOLERANCE_RULE =
  'an element passes when |candidate - reference| <= atol * max|reference| + rtol * |reference| ' +
  '(atol is a fraction of the output\'s largest finite reference magnitude); NaN or inf passes only where the reference has the same; ' +
  'error figures are over the elements finite in both, with the NaN/inf counts beside them';

export interface Tolerance {
  atol: number;
  rtol: number;
}

export interface OutputComparison {
  name: string;
  elements: number;
  maxAbsError: number;
  maxRelError: number;
  cosine: number;
  referenceNonFinite: number;
  candidateNonFinite: number;
  referenceNaN: number;
  candidateNaN: number;
  referenceInf: number;
  candidateInf: number;
  /** Elements finite in both runs: the error figures are over these. */
  finite: number;
  /** Elements outside atol + rtol * |reference|. */
  mismatched: number;
  pass: boolean;
  note?: string;
}

export interface ComparableTensor {
  type: string;
  dims: readonly number[];
  data: unknown;
}

/** Float values of a tensor as float64, whatever its type; undefined for non-numeric data. */
export function numericValues(tensor: ComparableTensor): Float64Array | undefined {
  const data = tensor.data;
  if (tensor.type === 'float16' && data instanceof Uint16Array) return Float64Array.from(data, float16BitsToFloat32);
  if (data instanceof BigInt64Array || data instanceof BigUint64Array) return Float64Array.from(data, (v) => Number(v));
  if (ArrayBuffer.isView(data) && !(data instanceof DataView)) return Float64Array.from(data as unknown as ArrayLike<number>);
  return undefined;
}

/** The largest finite magnitude in a tensor: the scale an absolute tolerance is relative to. */
export function largestMagnitude(tensor: ComparableTensor): number {
  let largest = 0;
  for (const v of numericValues(tensor) ?? []) if (Number.isFinite(v) && Math.abs(v) > largest) largest = Math.abs(v);
  return largest;
}

/** atol as a fraction of the reference's largest magnitude, rtol per element: compare's and bench's tolerance. */
export function scaledTolerance(reference: ComparableTensor, atol: number, rtol: number): Tolerance {
  return { atol: atol * largestMagnitude(reference), rtol };
}

export function compareOutput(name: string, reference: ComparableTensor, candidate: ComparableTensor, tolerance: Tolerance): OutputComparison {
  const base: OutputComparison = {
    name, elements: 0, maxAbsError: 0, maxRelError: 0, cosine: 1, referenceNonFinite: 0, candidateNonFinite: 0,
    referenceNaN: 0, candidateNaN: 0, referenceInf: 0, candidateInf: 0, finite: 0, mismatched: 0, pass: true,
  };
  if (reference.dims.join('x') !== candidate.dims.join('x')) {
    return { ...base, pass: false, note: `shape ${candidate.dims.join('x')} differs from ${reference.dims.join('x')}` };
  }
  const a = numericValues(reference);
  const b = numericValues(candidate);
  if (!a || !b) {
    const same = JSON.stringify(reference.data) === JSON.stringify(candidate.data);
    return { ...base, pass: same, note: same ? 'non-numeric, identical' : 'non-numeric values differ' };
  }
  let dot = 0;
  let normA = 0;
  let normB = 0;
  const result = { ...base, elements: a.length };
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    const finiteX = Number.isFinite(x);
    const finiteY = Number.isFinite(y);
    if (!finiteX) {
      result.referenceNonFinite++;
      if (Number.isNaN(x)) result.referenceNaN++;
      else result.referenceInf++;
    }
    if (!finiteY) {
      result.candidateNonFinite++;
      if (Number.isNaN(y)) result.candidateNaN++;
      else result.candidateInf++;
    }
    if (!finiteX || !finiteY) {
      // Both the same inf, or both NaN, agree; anything else is a mismatch.
      if (!(Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y)))) result.mismatched++;
      continue;
    }
    result.finite++;
    const error = Math.abs(x - y);
    result.maxAbsError = Math.max(result.maxAbsError, error);
    if (x !== 0) result.maxRelError = Math.max(result.maxRelError, error / Math.abs(x));
    if (error > tolerance.atol + tolerance.rtol * Math.abs(x)) result.mismatched++;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  if (result.finite === 0 && a.length > 0) {
    // Nothing to measure: no figure rather than a reassuring 0 error and cosine 1.
    Object.assign(result, { maxAbsError: NaN, maxRelError: NaN, cosine: NaN });
  } else result.cosine = normA === 0 && normB === 0 ? 1 : dot / Math.sqrt(normA * normB || 1);
  result.pass = result.mismatched === 0;
  return result;
}
