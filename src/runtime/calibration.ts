/**
 * Calibration that finds overflows (--calibrate): run the fp32 model on several batches of inputs
 * with every float32 value exposed, and (under emulated numerics) the list-based rewrite too, then
 * hand the AMP pass the largest magnitude each value reached, the values whose float16 copy first
 * became inf, and the share of each value's magnitude carried by elements float16 rounds to zero. A value at
 * or above float16's max divided by the headroom pins the nodes that read or write it.
 *
 * Random inputs respect the model: an integer input that indexes a Gather table is drawn over the
 * whole table (not [0, 10), which touches ten embedding rows), floats from a chosen distribution
 * and scale. Inputs from files are better still: a folder holds one batch, or one sub-folder per batch.
 */
import type { ProgressListener } from './activity.js';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Tensor } from 'onnxruntime-node';
import { seededRandom } from '../builder/graph-builder.js';
import { intAttribute } from '../onnx/attributes.js';
import { encodeModel } from '../onnx/codec.js';
import { DataType } from '../onnx/data-types.js';
import { AmpError } from '../onnx/errors.js';
import { longToNumber } from '../onnx/external-data.js';
import { FLOAT16_MAX } from '../onnx/float16.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph } from '../onnx/graph.js';
import { ampRewrite, type AmpOptions } from '../passes/amp.js';
import { FLOAT16_FLUSH_BELOW } from '../passes/amp/weight-range.js';
import { emulateNumerics } from '../passes/emulate-numerics.js';
import { inputsFromFiles, randomInputs, requiredInputs, type DimDefaults, type Feeds } from './inputs.js';
import { instrument } from './instrument.js';
import type { Numerics } from './numerics.js';
import { runtimeLogSeverity, type Ort } from './ort.js';
import { createSession } from './session.js';
import type { CalibrationFigures } from '../api/types.js';

/** Default headroom: a value above half of float16's max pins its nodes. */
export const DEFAULT_HEADROOM = 2;

export interface RandomInputOptions extends DimDefaults {
  seed?: number;
  dims?: ReadonlyMap<string, number>;
  /** Floats are drawn from [-scale, scale) (uniform) or with standard deviation `scale` (normal). */
  scale?: number;
  distribution?: 'uniform' | 'normal';
}

/** Ops that pass integer indices through unchanged in value. */
const INDEX_PASS_THROUGH = new Set(['Cast', 'Reshape', 'Unsqueeze', 'Squeeze', 'Flatten', 'Identity']);

/**
 * Integer graph inputs that end up as the indices of a Gather over an initializer table, with the
 * size of the smallest such table along its gather axis: random indices must stay below it.
 */
export function gatherIndexInputs(model: onnx.IModelProto): Map<string, number> {
  const graph = new ModelGraph(model);
  const scope = graph.main;
  const found = new Map<string, number>();
  for (const node of scope.currentNodes()) {
    if (node.domain || node.op_type !== 'Gather') continue;
    const table = scope.initializers.get(node.input?.[0] ?? '');
    if (!table?.dims?.length) continue;
    const rank = table.dims.length;
    const axis = ((intAttribute(node, 'axis') ?? 0) + rank) % rank;
    const rows = longToNumber(table.dims[axis] as number);
    let name = node.input?.[1] ?? '';
    for (let producer = scope.producerOf(name); producer && INDEX_PASS_THROUGH.has(producer.node.op_type ?? '') && !producer.node.domain; producer = scope.producerOf(name)) {
      name = producer.node.input?.[0] ?? '';
    }
    if (scope.inputs.has(name) && !scope.initializers.has(name)) found.set(name, Math.min(found.get(name) ?? rows, rows));
  }
  return found;
}

/** Random inputs that respect the model: Gather indices over the whole table, floats at the chosen scale. */
export function modelAwareRandomInputs(ort: Ort, model: onnx.IModelProto, options: RandomInputOptions = {}): Feeds {
  const feeds = randomInputs(ort, model, options);
  const random = seededRandom(((options.seed ?? 0) * 7919 + 17) >>> 0);
  const scale = options.scale ?? 1;
  const indexed = gatherIndexInputs(model);
  for (const info of requiredInputs(model)) {
    const name = info.name ?? '';
    const tensor = feeds[name] as Tensor;
    const elemType = info.type?.tensor_type?.elem_type;
    const rows = indexed.get(name);
    if (rows !== undefined && elemType === DataType.INT64) {
      feeds[name] = new ort.Tensor('int64', BigInt64Array.from({ length: tensor.size }, () => BigInt(Math.floor(random() * rows))), tensor.dims);
    } else if (rows !== undefined && elemType === DataType.INT32) {
      feeds[name] = new ort.Tensor('int32', Int32Array.from({ length: tensor.size }, () => Math.floor(random() * rows)), tensor.dims);
    } else if (elemType === DataType.FLOAT && (scale !== 1 || options.distribution === 'normal')) {
      feeds[name] = new ort.Tensor('float32', Float32Array.from({ length: tensor.size }, () => draw(random, options.distribution ?? 'uniform') * scale), tensor.dims);
    }
  }
  return feeds;
}

function draw(random: () => number, distribution: 'uniform' | 'normal'): number {
  if (distribution === 'uniform') return random() * 2 - 1;
  return Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random());
}

const TENSOR_FILE = /\.(pb|npy|json)$/i;

/**
 * Batches from --inputs: files (one batch), a folder of files (one batch; a file is matched to the
 * input of its name, `input_<i>` to the i-th input, otherwise in sorted order), or a folder of
 * folders (one batch each, in sorted order, like ONNX's test_data_set_<n>).
 */
export function inputBatches(ort: Ort, model: onnx.IModelProto, specs: readonly string[]): Feeds[] {
  const isDir = (p: string): boolean => {
    try {
      return statSync(p).isDirectory();
    } catch {
      return false;
    }
  };
  if (specs.length !== 1 || !isDir(specs[0] as string)) return [inputsFromFiles(ort, model, specs)];
  const folder = specs[0] as string;
  const entries = readdirSync(folder).sort();
  const subfolders = entries.filter((e) => isDir(path.join(folder, e)));
  const batches = subfolders.length ? subfolders.map((e) => path.join(folder, e)) : [folder];
  return batches.map((dir) => inputsFromFiles(ort, model, filesOfBatch(model, dir)));
}

function filesOfBatch(model: onnx.IModelProto, dir: string): string[] {
  const files = readdirSync(dir).filter((f) => TENSOR_FILE.test(f)).sort();
  if (!files.length) throw new AmpError('BAD_OPTION', `--inputs ${dir}: no .pb, .npy or .json files`, { subject: dir });
  const names = requiredInputs(model).map((i) => i.name ?? '');
  const stem = (file: string): string => file.replace(TENSOR_FILE, '');
  if (files.every((f) => names.includes(stem(f)))) return files.map((f) => `${stem(f)}=${path.join(dir, f)}`);
  const numbered = files.map((f) => /^input_(\d+)$/.exec(stem(f)));
  if (numbered.every((m) => m && names[Number(m[1])] !== undefined)) return files.map((f, i) => `${names[Number(numbered[i]![1])]}=${path.join(dir, f)}`);
  return files.map((f) => path.join(dir, f));
}

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

const hasNonFinite = (data: Float32Array): boolean => data.some((v) => !Number.isFinite(v));

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
      const bad = (name: string): boolean => {
        const data = (outputs[name] ?? feeds[name])?.data;
        return data instanceof Float32Array && hasNonFinite(data);
      };
      for (const node of graph.main.currentNodes()) {
        const inputsFinite = (node.input ?? []).every((name) => !name || !exposed.has(name) || !bad(name));
        if (!inputsFinite) continue;
        for (const name of node.output ?? []) if (exposed.has(name) && !nonFiniteInFp32.has(name) && bad(name)) origins.add(name);
      }
    }
  } finally {
    await session.release();
  }
  return [...origins].sort();
}
