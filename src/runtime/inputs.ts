/**
 * Model inputs for runs and comparisons: random tensors from the declared shapes and types
 * (symbolic dimensions given with --dim name=value), or tensors read from files: ONNX
 * TensorProto .pb (the format of ONNX's test data), NumPy .npy, or JSON.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Tensor } from 'onnxruntime-node';
import { seededRandom } from '../builder/graph-builder.js';
import { DataType, dataTypeName } from '../onnx/data-types.js';
import { AmpError } from '../onnx/errors.js';
import { longToNumber } from '../onnx/external-data.js';
import { float32ToFloat16Bits } from '../onnx/float16.js';
import type { onnx } from '../onnx/generated/onnx.js';
import type { Ort } from './ort.js';
import { decodeTensorProto, ortTypeOf, tensorProtoToOrt } from './tensors.js';

export type Feeds = Record<string, Tensor>;

/** Graph inputs that are not also initializers: what a caller must feed. */
export function requiredInputs(model: onnx.IModelProto): onnx.IValueInfoProto[] {
  const initializers = new Set((model.graph?.initializer ?? []).map((t) => t.name));
  return (model.graph?.input ?? []).filter((input) => !initializers.has(input.name));
}

/** How symbolic dimensions without a --dim get a size: `defaultDim` when given, each use noted in `notices`. */
export interface DimDefaults {
  defaultDim?: number;
  notices?: string[];
}

export function resolveShape(info: onnx.IValueInfoProto, dims: ReadonlyMap<string, number>, defaults: DimDefaults = {}): number[] {
  const shape = info.type?.tensor_type?.shape?.dim ?? [];
  return shape.map((d, i) => {
    if (d.dim_value != null && Object.hasOwn(d, 'dim_value')) return longToNumber(d.dim_value);
    const param = d.dim_param ?? '';
    const value = dims.get(param) ?? defaults.defaultDim;
    if (value !== undefined && !dims.has(param)) {
      const notice = `input '${info.name}' dimension ${i}${param ? ` ('${param}')` : ''} set to ${value}; give it with --dim ${param || 'name'}=<size>`;
      if (!defaults.notices?.includes(notice)) defaults.notices?.push(notice);
    }
    if (value === undefined) {
      throw new AmpError(
        'BAD_OPTION',
        `input '${info.name}' dimension ${i} is ${param ? `'${param}'` : 'unknown'}; give it with --dim ${param || 'name'}=<size>`,
        { subject: info.name ?? '' },
      );
    }
    return value;
  });
}

/** Random inputs: floats uniform in [-1, 1), integers in [0, 10), booleans; the same seed gives the same tensors. */
export function randomInputs(ort: Ort, model: onnx.IModelProto, options: { dims?: ReadonlyMap<string, number>; seed?: number } & DimDefaults = {}): Feeds {
  const random = seededRandom(options.seed ?? 0);
  const feeds: Feeds = {};
  for (const info of requiredInputs(model)) {
    const elemType = info.type?.tensor_type?.elem_type;
    if (!elemType) throw new AmpError('BAD_OPTION', `input '${info.name}' is not a tensor; pass it with --inputs`, { subject: info.name ?? '' });
    const shape = resolveShape(info, options.dims ?? new Map(), options);
    const count = shape.reduce((a, b) => a * b, 1);
    feeds[info.name ?? ''] = new ort.Tensor(ortTypeOf(elemType), randomValues(elemType, count, random) as never, shape);
  }
  return feeds;
}

function randomValues(elemType: number, count: number, random: () => number): ArrayBufferView | string[] {
  switch (elemType) {
    case DataType.FLOAT: return Float32Array.from({ length: count }, () => random() * 2 - 1);
    case DataType.DOUBLE: return Float64Array.from({ length: count }, () => random() * 2 - 1);
    case DataType.FLOAT16: return Uint16Array.from({ length: count }, () => float32ToFloat16Bits(random() * 2 - 1));
    case DataType.INT64: return BigInt64Array.from({ length: count }, () => BigInt(Math.floor(random() * 10)));
    case DataType.INT32: return Int32Array.from({ length: count }, () => Math.floor(random() * 10));
    case DataType.BOOL: return Uint8Array.from({ length: count }, () => (random() < 0.5 ? 1 : 0));
    case DataType.UINT8: return Uint8Array.from({ length: count }, () => Math.floor(random() * 256));
    case DataType.INT8: return Int8Array.from({ length: count }, () => Math.floor(random() * 256) - 128);
    default: throw new AmpError('BAD_OPTION', `cannot make random ${dataTypeName(elemType)} inputs; pass them with --inputs`);
  }
}

/** Inputs from files: `name=file` pairs or bare files taken in input order; .pb, .npy or .json. */
export function inputsFromFiles(ort: Ort, model: onnx.IModelProto, specs: readonly string[]): Feeds {
  const required = requiredInputs(model);
  const feeds: Feeds = {};
  specs.forEach((spec, position) => {
    const at = spec.indexOf('=');
    const name = at > 0 ? spec.slice(0, at) : required[position]?.name;
    const file = at > 0 ? spec.slice(at + 1) : spec;
    const info = required.find((i) => i.name === name);
    if (!name || !info) throw new AmpError('BAD_OPTION', `--inputs ${spec}: the model has no input ${name ? `'${name}'` : `number ${position}`}`);
    feeds[name] = readTensorFile(ort, file, info);
  });
  for (const info of required) {
    if (!feeds[info.name ?? '']) throw new AmpError('BAD_OPTION', `no value for input '${info.name}': add it to --inputs`, { subject: info.name ?? '' });
  }
  return feeds;
}

function readBytes(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new AmpError('FILE_NOT_FOUND', `${file}: cannot read (${(error as NodeJS.ErrnoException).code})`, { subject: file });
  }
}

export function readTensorFile(ort: Ort, file: string, info: onnx.IValueInfoProto): Tensor {
  const extension = path.extname(file).toLowerCase();
  const bytes = readBytes(file);
  if (extension === '.pb') return tensorProtoToOrt(ort, decodeTensorProto(bytes, file));
  if (extension === '.npy') return readNpy(ort, bytes, file);
  if (extension === '.json') return readJson(ort, bytes, file, info);
  throw new AmpError('BAD_OPTION', `${file}: input files must be .pb (ONNX TensorProto), .npy or .json`, { subject: file });
}

const NPY_TYPES: Record<string, { type: string; array: { new (b: ArrayBuffer): ArrayBufferView } }> = {
  '<f4': { type: 'float32', array: Float32Array },
  '<f2': { type: 'float16', array: Uint16Array },
  '<f8': { type: 'float64', array: Float64Array },
  '<i8': { type: 'int64', array: BigInt64Array },
  '<i4': { type: 'int32', array: Int32Array },
  '|b1': { type: 'bool', array: Uint8Array },
  '|u1': { type: 'uint8', array: Uint8Array },
  '|i1': { type: 'int8', array: Int8Array },
};

function readNpy(ort: Ort, bytes: Buffer, file: string): Tensor {
  if (bytes.subarray(0, 6).toString('latin1') !== '\x93NUMPY') throw new AmpError('NOT_ONNX', `${file}: not a NumPy .npy file`, { subject: file });
  const major = bytes[6] as number;
  const headerLength = major >= 2 ? bytes.readUInt32LE(8) : bytes.readUInt16LE(8);
  const start = major >= 2 ? 12 : 10;
  const header = bytes.subarray(start, start + headerLength).toString('latin1');
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1] ?? '';
  const fortran = /'fortran_order':\s*True/.test(header);
  const shape = (/'shape':\s*\(([^)]*)\)/.exec(header)?.[1] ?? '').split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  const spec = NPY_TYPES[descr];
  if (!spec || fortran) throw new AmpError('BAD_OPTION', `${file}: unsupported .npy (dtype ${descr}${fortran ? ', Fortran order' : ''})`, { subject: file });
  const data = bytes.subarray(start + headerLength);
  const copy = new Uint8Array(data.length);
  copy.set(data);
  return new ort.Tensor(spec.type as never, new spec.array(copy.buffer) as never, shape);
}

function readJson(ort: Ort, bytes: Buffer, file: string, info: onnx.IValueInfoProto): Tensor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new AmpError('BAD_OPTION', `${file}: not JSON (${(error as Error).message})`, { subject: file });
  }
  // Either {"dims": [...], "data": [...]} or a nested array whose nesting gives the shape.
  let dims: number[];
  let flat: unknown[];
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && 'data' in parsed) {
    const object = parsed as { dims?: number[]; data: unknown[] };
    flat = (object.data as unknown[]).flat(Infinity);
    dims = object.dims ?? [flat.length];
  } else {
    dims = [];
    for (let level: unknown = parsed; Array.isArray(level); level = level[0]) dims.push(level.length);
    flat = Array.isArray(parsed) ? parsed.flat(Infinity) : [parsed];
  }
  const elemType = info.type?.tensor_type?.elem_type ?? DataType.FLOAT;
  const type = ortTypeOf(elemType);
  const values =
    elemType === DataType.INT64 ? BigInt64Array.from(flat, (v) => BigInt(v as number))
    : elemType === DataType.FLOAT16 ? Uint16Array.from(flat, (v) => float32ToFloat16Bits(Number(v)))
    : elemType === DataType.INT32 ? Int32Array.from(flat, Number)
    : elemType === DataType.BOOL ? Uint8Array.from(flat, (v) => (v ? 1 : 0))
    : elemType === DataType.DOUBLE ? Float64Array.from(flat, Number)
    : Float32Array.from(flat, Number);
  return new ort.Tensor(type, values as never, dims);
}
