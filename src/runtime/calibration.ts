/**
 * Calibration that finds overflows (--calibrate): run the fp32 model on several batches of inputs
 * with every float32 value exposed, and (under emulated numerics) the list-based rewrite too, then
 * hand the AMP pass the largest magnitude each value reached, the values whose float16 copy first
 * became inf, and the share of each value's magnitude carried by elements float16 rounds to zero. A value at
 * or above float16's max divided by the headroom pins the nodes that read or write it.
 *
 * Random inputs respect the model (input-roles.ts): an integer input that indexes a Gather table
 * is drawn over the whole table (not [0, 10), which touches ten embedding rows), a mask is 0 or 1,
 * floats from a chosen distribution and scale. Inputs from files are better still: a folder holds one batch, or one sub-folder per batch.
 */
import type { ProgressListener } from './activity.js';
import { encodeModel } from '../onnx/codec.js';
import { AmpError } from '../onnx/errors.js';
import { FLOAT16_MAX } from '../onnx/float16.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph } from '../onnx/graph.js';
import { ampRewrite, type AmpOptions } from '../passes/amp.js';
import { FLOAT16_FLUSH_BELOW } from '../passes/amp/weight-range.js';
import { emulateNumerics } from '../passes/emulate-numerics.js';
import type { Feeds } from './inputs.js';
import { instrument } from './instrument.js';
import type { Numerics } from './numerics.js';
import { runtimeLogSeverity, type Ort } from './ort.js';
import { createSession } from './session.js';
import { addOverflowOrigins, hasNonFinite } from './overflow-origins.js';
import { DEFAULT_HEADROOM } from './verify-defaults.js';

export { addOverflowOrigins };
import type { CalibrationFigures } from './result-types.js';

/** Default headroom: a value above half of float16's max pins its nodes. */
export { DEFAULT_HEADROOM };

// Random inputs that respect the model are drawn in input-roles.ts, for every command.
export { gatherIndexInputs, modelAwareRandomInputs, type RandomInputOptions } from './input-roles.js';

export { inputBatches } from './input-folders.js';

export interface CalibrationOptions {
  numerics: Numerics;
  /** float16's max divided by this is where a value pins its nodes (default 2). */
  headroom?: number;
  /** The rewrite whose emulated run is gathered too (the list-based rewrite of the same options). */
  ampOptions?: AmpOptions;
  /** Told after each batch run (the fp32 runs, then the emulated ones). */
  onProgress?: ProgressListener;
}

/** What a calibration measured: declared once, ORT-free, with the public API's types. */
export type Calibration = CalibrationFigures;

interface Accumulator {
  largest: number;
  /** Sum of magnitudes, and the part of it carried by values float16 rounds to zero. */
  mass: number;
  flushed: number;
}

function accumulate(stats: Map<string, Accumulator>, name: string, data: Float32Array): void {
  const entry = stats.get(name) ?? { largest: 0, mass: 0, flushed: 0 };
  for (let i = 0; i < data.length; i++) {
    const v = Math.abs(data[i] as number);
    if (!Number.isFinite(v) || v === 0) continue;
    entry.mass += v;
    if (v > entry.largest) entry.largest = v;
    if (v < FLOAT16_FLUSH_BELOW) entry.flushed += v;
  }
  stats.set(name, entry);
}


export async function calibrate(ort: Ort, model: onnx.IModelProto, batches: readonly Feeds[], options: CalibrationOptions): Promise<Calibration> {
  const headroom = options.headroom ?? DEFAULT_HEADROOM;
  if (!(headroom >= 1)) throw new AmpError('BAD_OPTION', `--headroom ${headroom}: must be 1 or more`);
  if (!batches.length) throw new AmpError('BAD_OPTION', 'calibration needs at least one batch of inputs');
  const reference = instrument(model);
  const stats = new Map<string, Accumulator>();
  const nonFiniteInFp32 = new Set<string>();
  const session = await createSession(ort, encodeModel(reference.model), { logSeverityLevel: runtimeLogSeverity() });
  try {
    const total = batches.length * (options.numerics === 'emulate' ? 2 : 1);
    for (const [index, feeds] of batches.entries()) {
      const outputs = await session.run(feeds);
      options.onProgress?.({ phase: 'calibration batch', done: index + 1, total });
      for (const name of reference.watched) {
        const data = (outputs[name] ?? feeds[name])?.data as Float32Array | undefined;
        if (!data) continue;
        accumulate(stats, name, data);
        if (hasNonFinite(data)) nonFiniteInFp32.add(name);
      }
    }
  } finally {
    await session.release();
  }
  const overflowOrigins = options.numerics === 'emulate' ? await emulatedOverflows(ort, model, batches, reference.watched, nonFiniteInFp32, options.ampOptions ?? {}, options.onProgress) : [];
  const ranges = new Map<string, number>();
  const flushedShares = new Map<string, number>();
  for (const [name, entry] of stats) {
    ranges.set(name, entry.largest);
    if (entry.flushed) flushedShares.set(name, entry.flushed / entry.mass);
  }
  for (const name of overflowOrigins) ranges.set(name, Infinity);
  return { ranges, flushedShares, limit: FLOAT16_MAX / headroom, batches: batches.length, numerics: options.numerics, overflowOrigins };
}

/**
 * Runs the emulated list-based rewrite with the original values exposed and returns the values that
 * became non-finite there (finite in fp32) while every float input of their producer was finite:
 * where an overflow starts, not everything downstream of it.
 */
async function emulatedOverflows(
  ort: Ort,
  model: onnx.IModelProto,
  batches: readonly Feeds[],
  watched: readonly string[],
  nonFiniteInFp32: ReadonlySet<string>,
  ampOptions: AmpOptions,
  onProgress: ProgressListener | undefined,
): Promise<string[]> {
  const rewritten = ampRewrite(model, { ...ampOptions, activationRanges: undefined, flushedShares: undefined });
  if (!rewritten.modified) return [];
  const probe = instrument(emulateNumerics(rewritten.model).model, new Set(watched));
  const exposed = new Set(probe.watched);
  const origins = new Set<string>();
  const session = await createSession(ort, encodeModel(probe.model), { logSeverityLevel: runtimeLogSeverity() });
  const graph = new ModelGraph(model);
  try {
    for (const [index, feeds] of batches.entries()) {
      const outputs = await session.run(feeds);
      onProgress?.({ phase: 'calibration batch', done: batches.length + index + 1, total: 2 * batches.length });
      addOverflowOrigins(graph.main.currentNodes(), exposed, (name) => (outputs[name] ?? feeds[name])?.data, nonFiniteInFp32, origins);
    }
  } finally {
    await session.release();
  }
  return [...origins].sort();
}
