/**
 * Comparing outputs of two runs (fp32 original vs mixed precision): per output the largest
 * absolute and relative error and the cosine similarity over the elements both runs computed
 * as finite numbers, NaN and inf counted beside them, and pass/fail elementwise against
 * |c - r| <= max(atol * max|r|, atolFloor) + rtol * |r| (a non-finite value passes only where the
 * reference has the same one). An output with no finite pair has no error figures (NaN; null in JSON).
 *
 * The floor keeps an output whose values are all near zero (a sigmoid probability map below 1e-3)
 * from failing on errors far below float16's resolution there: atol * max|r| alone shrinks with
 * the output. `judgeTensors` is the one judgement compare, bench, tune and golden checks share.
 */
import { float16BitsToFloat32 } from '../onnx/float16.js';

/** The rule, in words, for --help and for every comparison printed. */
export const TOLERANCE_RULE =
  'an element passes when |candidate - reference| <= max(atol * max|reference|, atol-floor) + rtol * |reference| ' +
  '(atol is a fraction of the output\'s largest finite reference magnitude, atol-floor an absolute error always allowed); NaN or inf passes only where the reference has the same; ' +
  'error figures are over the elements finite in both, with the NaN/inf counts beside them';

/** The rule's parameters: atol a fraction of max|reference|, atolFloor absolute, rtol per element. */
export interface ToleranceRule {
  atol: number;
  rtol: number;
  atolFloor: number;
}

/** compare's defaults; 1e-5 is well below float16's spacing near 1 (9.8e-4) and far above float32 noise. */
export const DEFAULT_TOLERANCE: Readonly<ToleranceRule> = { atol: 1e-2, rtol: 1e-2, atolFloor: 1e-5 };

/** The absolute part of the allowance and which term set it, with rtol per element. */
export interface Tolerance {
  atol: number;
  rtol: number;
  /** Which term gave `atol`: the scaled atol (default) or the absolute floor. */
  absoluteFrom?: 'atol' | 'atol-floor';
}

/**
 * What decided an output's result: the term of the allowance that was largest at its worst
 * element (the one nearest to or furthest beyond its bound): 'atol' (atol * max|reference|),
 * 'atol-floor', 'rtol' (rtol * |reference|); or 'non-finite' (a NaN/inf where the reference has
 * none or another), 'shape', 'missing', 'non-numeric', 'exact' (nothing finite to judge).
 */
export type DecidedBy = 'atol' | 'atol-floor' | 'rtol' | 'non-finite' | 'shape' | 'missing' | 'non-numeric' | 'exact';

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
  /** Elements outside the allowance. */
  mismatched: number;
  /** The largest error / allowance over the finite elements: at most 1 passes (0 when equal). */
  worstRatio: number;
  decidedBy: DecidedBy;
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

/** atol as a fraction of the reference's largest magnitude, never below the floor; rtol per element. */
export function scaledTolerance(reference: ComparableTensor, atol: number, rtol: number, atolFloor = DEFAULT_TOLERANCE.atolFloor): Tolerance {
  const scaled = atol * largestMagnitude(reference);
  return scaled >= atolFloor ? { atol: scaled, rtol, absoluteFrom: 'atol' } : { atol: atolFloor, rtol, absoluteFrom: 'atol-floor' };
}

/**
 * The judgement every accuracy check shares: one output of the candidate (undefined when it lacks
 * it) against the reference's, under the rule.
 */
export function judgeTensors(name: string, reference: ComparableTensor, candidate: ComparableTensor | undefined, rule: ToleranceRule): OutputComparison {
  if (!candidate) return { ...compareOutput(name, reference, reference, { atol: 0, rtol: 0 }), pass: false, decidedBy: 'missing', note: 'missing in the candidate' };
  return compareOutput(name, reference, candidate, scaledTolerance(reference, rule.atol, rule.rtol, rule.atolFloor));
}

export function compareOutput(name: string, reference: ComparableTensor, candidate: ComparableTensor, tolerance: Tolerance): OutputComparison {
  const base: OutputComparison = {
    name, elements: 0, maxAbsError: 0, maxRelError: 0, cosine: 1, referenceNonFinite: 0, candidateNonFinite: 0,
    referenceNaN: 0, candidateNaN: 0, referenceInf: 0, candidateInf: 0, finite: 0, mismatched: 0, worstRatio: 0, decidedBy: 'exact', pass: true,
  };
  if (reference.dims.join('x') !== candidate.dims.join('x')) {
    return { ...base, pass: false, decidedBy: 'shape', note: `shape ${candidate.dims.join('x')} differs from ${reference.dims.join('x')}` };
  }
  const a = numericValues(reference);
  const b = numericValues(candidate);
  if (!a || !b) {
    const same = JSON.stringify(reference.data) === JSON.stringify(candidate.data);
    return { ...base, pass: same, decidedBy: 'non-numeric', note: same ? 'non-numeric, identical' : 'non-numeric values differ' };
  }
  let dot = 0;
  let normA = 0;
  let normB = 0;
  let nonFiniteMismatch = false;
  let worstTerm: DecidedBy = 'exact';
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
      if (!(Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y)))) {
        result.mismatched++;
        nonFiniteMismatch = true;
      }
      continue;
    }
    result.finite++;
    const error = Math.abs(x - y);
    result.maxAbsError = Math.max(result.maxAbsError, error);
    if (x !== 0) result.maxRelError = Math.max(result.maxRelError, error / Math.abs(x));
    const relative = tolerance.rtol * Math.abs(x);
    const allowance = tolerance.atol + relative;
    if (error > allowance) result.mismatched++;
    const ratio = error === 0 ? 0 : allowance === 0 ? Infinity : error / allowance;
    if (ratio > result.worstRatio || (worstTerm === 'exact' && error > 0)) {
      result.worstRatio = Math.max(result.worstRatio, ratio);
      worstTerm = relative > tolerance.atol ? 'rtol' : (tolerance.absoluteFrom ?? 'atol');
    }
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  if (result.finite === 0 && a.length > 0) {
    // Nothing to measure: no figure rather than a reassuring 0 error and cosine 1.
    Object.assign(result, { maxAbsError: NaN, maxRelError: NaN, cosine: NaN });
  } else result.cosine = normA === 0 && normB === 0 ? 1 : dot / Math.sqrt(normA * normB || 1);
  result.decidedBy = nonFiniteMismatch ? 'non-finite' : worstTerm;
  result.pass = result.mismatched === 0;
  return result;
}
