/**
 * calibrate as a function: the CLI's --calibrate (runtime/calibration.ts) on a model file or a
 * model in memory. fp32 runs on several batches with every float32 value exposed and, under
 * emulated numerics (the default), the list-based rewrite too, to find where float16 overflows
 * start; then the nodes those figures keep fp32 (a rewrite, no run). Loads ONNX Runtime on first use.
 */
import { AmpError } from '../onnx/errors.js';
import { rewriteModel, type RewriteOptions } from '../passes/pipeline.js';
import { calibrate as calibrateRuns, DEFAULT_HEADROOM as HEADROOM } from '../runtime/calibration.js';
import { loadOrt } from '../runtime/ort.js';
import { batchesFor } from './batch-inputs.js';
import { checkBatchOptions, type BatchOptions } from './batches.js';
import { checkChoice, checkNumber, checkObject } from '../passes/option-checks.js';
import { checkInputOptions, modelOf, type ModelSource } from './execute.js';
import type { CalibrationFigures, Numerics } from './types.js';

/** The default headroom: a value above half of float16's max pins its nodes. */
export const DEFAULT_HEADROOM: number = HEADROOM;

export interface CalibrateOptions extends BatchOptions {
  /** 'emulate' (default) also runs the emulated float16 rewrite to find where overflows start; 'native' runs fp32 only. */
  numerics?: Numerics;
  /** A value at or above float16's max (65504) divided by this pins its nodes (default 2; at least 1). */
  headroom?: number;
  /** The rewrite whose emulated run is gathered (the options you will rewrite with). */
  rewrite?: RewriteOptions;
}

/** A node the calibration keeps fp32 in a float16 rewrite, and why. */
export interface CalibrationPin {
  node: string;
  op: string;
  reason: string;
}

/**
 * The largest magnitude each main-graph value reached, by name (the result is that Map, so it can
 * be passed as `activationRanges` as before), with the rest of what calibration found. Hand
 * `rewriteOptions` to `rewriteModel` or `ampRewrite` to apply the limit and the flush shares too.
 */
export interface Calibration extends Map<string, number>, Omit<CalibrationFigures, 'ranges'> {
  /** The same ranges, as a plain Map. */
  ranges: Map<string, number>;
  /**
   * The nodes the rewrite keeps fp32 because of these figures (their values reach the limit, or
   * mostly flush to zero) that the lists alone would convert: the audit's 'activation-out-of-range'
   * nodes of `rewriteModel(model, { ...rewrite, ...rewriteOptions })`. None in a bf16 rewrite.
   */
  pinned: CalibrationPin[];
  /** The inputs the figures hold for, in words. */
  holdsFor: string;
  rewriteOptions: { activationRanges: Map<string, number>; activationLimit: number; flushedShares: Map<string, number> };
}

/**
 * Calibrates a model (default: 2 batches of random inputs, emulated numerics, headroom 2, on the
 * CPU provider) and names the nodes whose values go beyond float16's range.
 */
export async function calibrate(source: ModelSource, options: CalibrateOptions = {}): Promise<Calibration> {
  const untyped = options as Record<string, unknown>;
  checkInputOptions(untyped);
  checkBatchOptions(untyped);
  checkChoice(untyped, 'numerics', ['emulate', 'native']);
  checkNumber(untyped, 'headroom', 1);
  checkObject(untyped, 'rewrite');
  if (untyped.ep !== undefined) throw new AmpError('BAD_OPTION', 'option ep: calibrate runs on the CPU provider (its figures are fp32 or emulated float16, not a device\'s)', { subject: 'ep' });
  const model = modelOf(source);
  const ort = await loadOrt();
  const { batches, holdsFor } = batchesFor(ort, model, options);
  const figures = await calibrateRuns(ort, model, batches, { numerics: options.numerics ?? 'emulate', headroom: options.headroom, ampOptions: options.rewrite });
  const rewriteOptions = { activationRanges: figures.ranges, activationLimit: figures.limit, flushedShares: figures.flushedShares };
  const { report } = rewriteModel(model, { ...options.rewrite, ...rewriteOptions });
  const pinned = report.amp.nodes.filter((n) => n.rule === 'activation-out-of-range').map((n) => ({ node: n.node, op: n.op, reason: n.reason }));
  return Object.assign(new Map(figures.ranges), { ...figures, pinned, holdsFor, rewriteOptions });
}
