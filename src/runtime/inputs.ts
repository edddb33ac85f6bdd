/**
 * Model inputs for runs and comparisons: tensors read from files (ONNX TensorProto .pb, the format
 * of ONNX's test data, NumPy .npy, or JSON), and the random ones of random-inputs.ts.
 */
import { closeSync, constants as fsConstants, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import type { Tensor } from 'onnxruntime-node';
import { checkTensorData } from '../onnx/check-model.js';
import { DataType, bytesPerElement, dataTypeName } from '../onnx/data-types.js';
import { AmpError } from '../onnx/errors.js';
import { longToNumber } from '../onnx/external-data.js';
import { float32ToFloat16Bits } from '../onnx/float16.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { printable } from '../onnx/printable.js';
import { newTensor } from './float16-bits.js';
import type { Ort } from './ort.js';
import { decodeTensorProto, ortTypeOf, tensorProtoToOrt } from './tensors.js';

import { MAX_INPUT_BYTES, requiredInputs, type Feeds } from './random-inputs.js';

export { checkInputSize, MAX_INPUT_BYTES, randomInputs, requiredInputs, resolveShape, type DimDefaults, type Feeds } from './random-inputs.js';

/** Inputs from files: `name=file` pairs or bare files taken in input order; .pb, .npy or .json. */
export function inputsFromFiles(ort: Ort, model: onnx.IModelProto, specs: readonly string[]): Feeds {
  const required = requiredInputs(model);
  const feeds: Feeds = {};
  const symbolic = new Map<string, { size: number; input: string }>();
  specs.forEach((spec, position) => {
    const at = spec.indexOf('=');
    const name = at > 0 ? spec.slice(0, at) : required[position]?.name;
    const file = at > 0 ? spec.slice(at + 1) : spec;
    const info = required.find((i) => i.name === name);
    if (!name || !info) throw new AmpError('BAD_OPTION', `--inputs ${printable(spec, 400)}: the model has no input ${name ? `'${printable(name)}'` : `number ${position}`}`);
    const tensor = readTensorFile(ort, file, info);
    checkAgainstDeclared(tensor, info, file, symbolic);
    feeds[name] = tensor;
  });
  for (const info of required) {
    if (!feeds[info.name ?? '']) throw new AmpError('BAD_OPTION', `no value for input '${printable(info.name)}': add it to --inputs`, { subject: info.name ?? '' });
  }
  return feeds;
}

export function readTensorFile(ort: Ort, file: string, info: onnx.IValueInfoProto): Tensor {
  const extension = path.extname(file).toLowerCase();
  if (!['.pb', '.npy', '.json'].includes(extension)) {
    throw new AmpError('BAD_OPTION', `${printable(file, 400)}: input files must be .pb (ONNX TensorProto), .npy or .json`, { subject: file });
  }
  const bytes = readBoundedFile(file, byteCapFor(info, extension));
  if (extension === '.pb') {
    const proto = decodeTensorProto(bytes, file);
    try {
      checkTensorData(proto, printable(file, 400));
    } catch (error) {
      if (error instanceof AmpError) throw new AmpError('BAD_INPUT_TENSOR', error.message, { subject: file });
      throw error;
    }
    return tensorProtoToOrt(ort, proto);
  }
  if (extension === '.npy') return readNpy(ort, bytes, file);
  return readJson(ort, bytes, file, info);
}

/** Bytes of text per element a JSON file may spend ("-1.2345678901234567e-300, "). */
const JSON_BYTES_PER_ELEMENT = 32;
const HEADER_ALLOWANCE = 1 << 20;

/**
 * The most bytes an input file for `info` may have: its declared size (when every dimension is
 * fixed) plus room for headers, so that --inputs x=/dev/zero or a huge file is refused up front.
 */
export function byteCapFor(info: onnx.IValueInfoProto, extension: string): number {
  const dims = info.type?.tensor_type?.shape?.dim;
  const perElement = bytesPerElement(info.type?.tensor_type?.elem_type ?? DataType.FLOAT) ?? 8;
  const fixed = dims?.every((d) => d.dim_value != null && Object.hasOwn(d, 'dim_value'));
  if (!dims || !fixed) return MAX_INPUT_BYTES;
  const count = dims.reduce((a, d) => a * longToNumber(d.dim_value), 1);
  const cap = count * (extension === '.json' ? JSON_BYTES_PER_ELEMENT : Math.max(perElement, 1)) + HEADER_ALLOWANCE;
  return Math.min(cap, MAX_INPUT_BYTES);
}

/** A regular file, read only up to `cap` bytes: a FIFO, device or oversized file is refused before reading. */
function readBoundedFile(file: string, cap: number): Buffer {
  let fd: number;
  try {
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  } catch (error) {
    throw new AmpError('FILE_NOT_FOUND', `${printable(file, 400)}: cannot read (${(error as NodeJS.ErrnoException).code})`, { subject: file });
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new AmpError('BAD_INPUT_TENSOR', `${printable(file, 400)}: not a regular file (a FIFO, device or folder); inputs must be files`, { subject: file });
    if (stats.size > cap) {
      throw new AmpError('BAD_INPUT_TENSOR', `${printable(file, 400)}: ${stats.size} bytes, more than the ${cap} a tensor of the declared shape can take`, { subject: file });
    }
    const out = Buffer.allocUnsafe(stats.size);
    let done = 0;
    while (done < stats.size) {
      const n = readSync(fd, out, done, stats.size - done, done);
      if (n === 0) break;
      done += n;
    }
    return out.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

/**
 * The tensor read from a file must be what the model declares: the same element type, the same
 * rank, the same size for every fixed dimension, and one size per symbolic dimension across inputs.
 */
export function checkAgainstDeclared(tensor: Tensor, info: onnx.IValueInfoProto, file: string, symbolic: Map<string, { size: number; input: string }>): void {
  const name = printable(info.name);
  const shown = `${printable(file, 400)} for input '${name}'`;
  const declaredType = info.type?.tensor_type?.elem_type;
  if (declaredType) {
    const wanted = ortTypeOf(declaredType);
    if (tensor.type !== wanted) throw new AmpError('BAD_INPUT_TENSOR', `${shown}: holds ${tensor.type}, the model declares ${wanted}`, { subject: info.name ?? '' });
  }
  const dims = info.type?.tensor_type?.shape?.dim;
  if (!dims) return;
  const got = `[${tensor.dims.join(',')}]`;
  const want = `[${dims.map((d) => (d.dim_value != null && Object.hasOwn(d, 'dim_value') ? longToNumber(d.dim_value) : printable(d.dim_param || '?'))).join(',')}]`;
  if (tensor.dims.length !== dims.length) {
    throw new AmpError('BAD_INPUT_TENSOR', `${shown}: shape ${got} has rank ${tensor.dims.length}, the model declares ${want}`, { subject: info.name ?? '' });
  }
  dims.forEach((d, i) => {
    const size = tensor.dims[i] as number;
    if (d.dim_value != null && Object.hasOwn(d, 'dim_value')) {
      if (longToNumber(d.dim_value) !== size) throw new AmpError('BAD_INPUT_TENSOR', `${shown}: shape ${got}, the model declares ${want} (dimension ${i})`, { subject: info.name ?? '' });
    } else if (d.dim_param) {
      const seen = symbolic.get(d.dim_param);
      if (seen && seen.size !== size) {
        throw new AmpError(
          'BAD_INPUT_TENSOR',
          `${shown}: dimension '${printable(d.dim_param)}' is ${size} here but ${seen.size} in input '${printable(seen.input)}'`,
          { subject: info.name ?? '' },
        );
      }
      symbolic.set(d.dim_param, { size, input: info.name ?? '' });
    }
  });
}

const NPY_TYPES: Record<string, { type: string; array: { new (b: ArrayBuffer): ArrayBufferView; BYTES_PER_ELEMENT: number } }> = {
  '<f4': { type: 'float32', array: Float32Array },
  '<f2': { type: 'float16', array: Uint16Array },
  '<f8': { type: 'float64', array: Float64Array },
  '<i8': { type: 'int64', array: BigInt64Array },
  '<i4': { type: 'int32', array: Int32Array },
  '|b1': { type: 'bool', array: Uint8Array },
  '|u1': { type: 'uint8', array: Uint8Array },
  '|i1': { type: 'int8', array: Int8Array },
};

function badNpy(file: string, why: string): AmpError {
  return new AmpError('BAD_INPUT_TENSOR', `${printable(file, 400)}: not a valid .npy file (${why})`, { subject: file });
}

function readNpy(ort: Ort, bytes: Buffer, file: string): Tensor {
  if (bytes.length < 10 || bytes.subarray(0, 6).toString('latin1') !== '\x93NUMPY') throw badNpy(file, 'no \\x93NUMPY magic');
  const major = bytes[6] as number;
  if (major < 1 || major > 3) throw badNpy(file, `format version ${major}`);
  const start = major >= 2 ? 12 : 10;
  if (bytes.length < start) throw badNpy(file, 'the header is cut short');
  const headerLength = major >= 2 ? bytes.readUInt32LE(8) : bytes.readUInt16LE(8);
  if (start + headerLength > bytes.length) throw badNpy(file, `the header claims ${headerLength} bytes, the file has ${bytes.length - start} after it`);
  const header = bytes.subarray(start, start + headerLength).toString('latin1');
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || shapeText === undefined || !/'fortran_order':\s*(True|False)/.test(header)) throw badNpy(file, 'the header lacks descr, fortran_order or shape');
  const fortran = /'fortran_order':\s*True/.test(header);
  const parts = shapeText.split(',').map((part) => part.trim()).filter(Boolean);
  if (!parts.every((part) => /^\d{1,15}$/.test(part))) throw badNpy(file, `shape (${printable(shapeText, 80)}) is not a list of sizes`);
  const shape = parts.map(Number);
  const spec = NPY_TYPES[descr];
  if (!spec || fortran) throw new AmpError('BAD_INPUT_TENSOR', `${printable(file, 400)}: unsupported .npy (dtype ${printable(descr, 40)}${fortran ? ', Fortran order' : ''})`, { subject: file });
  const data = bytes.subarray(start + headerLength);
  const count = shape.reduce((a, b) => a * b, 1);
  if (data.length !== count * spec.array.BYTES_PER_ELEMENT) {
    throw badNpy(file, `shape (${shape.join(', ')}) of ${descr} needs ${count * spec.array.BYTES_PER_ELEMENT} bytes of data, the file has ${data.length}`);
  }
  const copy = new Uint8Array(data.length);
  copy.set(data);
  return newTensor(ort, spec.type as Tensor.Type, new spec.array(copy.buffer), shape);
}

/** Nesting deeper than this in a JSON input is refused (a tensor of rank 32 is already absurd). */
const MAX_JSON_DEPTH = 32;

function badJson(file: string, why: string): AmpError {
  return new AmpError('BAD_INPUT_TENSOR', `${printable(file, 400)}: ${why}`, { subject: file });
}

/** The shape and the flat values of nested arrays, checked to be rectangular and not too deep. */
function flattenRectangular(value: unknown, file: string): { dims: number[]; flat: unknown[] } {
  const dims: number[] = [];
  for (let level: unknown = value; Array.isArray(level); level = level[0]) {
    dims.push(level.length);
    if (dims.length > MAX_JSON_DEPTH) throw badJson(file, `arrays nested deeper than ${MAX_JSON_DEPTH} levels`);
    if (level.length === 0) break;
  }
  const flat: unknown[] = [];
  const visit = (item: unknown, depth: number): void => {
    if (depth === dims.length) {
      if (Array.isArray(item)) throw badJson(file, `ragged arrays: an array where a value belongs (depth ${depth})`);
      flat.push(item);
      return;
    }
    if (!Array.isArray(item) || item.length !== dims[depth]) throw badJson(file, `ragged arrays: the rows at depth ${depth} differ in length`);
    for (const child of item) visit(child, depth + 1);
  };
  visit(value, 0);
  return { dims, flat };
}

const INT_RANGES: Partial<Record<number, [number, number]>> = {
  [DataType.INT32]: [-(2 ** 31), 2 ** 31 - 1],
  [DataType.INT8]: [-128, 127],
  [DataType.UINT8]: [0, 255],
  [DataType.INT16]: [-32768, 32767],
  [DataType.UINT16]: [0, 65535],
  [DataType.UINT32]: [0, 2 ** 32 - 1],
};

/** Every value must be a number (a boolean for bool inputs) that the declared type holds exactly. */
function checkedValues(flat: unknown[], elemType: number, file: string): unknown[] {
  flat.forEach((v, i) => {
    if (elemType === DataType.BOOL) {
      if (typeof v !== 'boolean' && v !== 0 && v !== 1) throw badJson(file, `value ${i} (${printable(JSON.stringify(v), 40)}) is not a boolean`);
      return;
    }
    if (elemType === DataType.STRING) {
      if (typeof v !== 'string') throw badJson(file, `value ${i} is not a string`);
      return;
    }
    if (typeof v !== 'number') throw badJson(file, `value ${i} (${printable(JSON.stringify(v), 40)}) is not a number`);
    if (elemType === DataType.INT64 || elemType === DataType.UINT64) {
      if (!Number.isSafeInteger(v) || (elemType === DataType.UINT64 && v < 0)) {
        throw badJson(file, `value ${i} (${v}) is not an integer that ${dataTypeName(elemType)} holds exactly (JSON numbers are exact up to 2^53)`);
      }
    }
    const range = INT_RANGES[elemType];
    if (range && (!Number.isInteger(v) || v < range[0] || v > range[1])) throw badJson(file, `value ${i} (${v}) is not a ${dataTypeName(elemType)}`);
  });
  return flat;
}

function readJson(ort: Ort, bytes: Buffer, file: string, info: onnx.IValueInfoProto): Tensor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw badJson(file, `not JSON (${(error as Error).message})`);
  }
  // Either {"dims": [...], "data": [...]} or a nested array whose nesting gives the shape.
  let dims: number[];
  let flat: unknown[];
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const object = parsed as { dims?: unknown; data?: unknown };
    if (!Array.isArray(object.data)) throw badJson(file, `"data" must be an array of values`);
    flat = flattenRectangular(object.data, file).flat;
    if (object.dims === undefined) dims = [flat.length];
    else if (Array.isArray(object.dims) && object.dims.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)) dims = object.dims as number[];
    else throw badJson(file, `"dims" must be an array of sizes`);
    const count = dims.reduce((a, b) => a * b, 1);
    if (count !== flat.length) throw badJson(file, `"dims" [${dims.join(',')}] need ${count} values, "data" has ${flat.length}`);
  } else {
    ({ dims, flat } = Array.isArray(parsed) ? flattenRectangular(parsed, file) : { dims: [], flat: [parsed] });
  }
  const elemType = info.type?.tensor_type?.elem_type ?? DataType.FLOAT;
  const type = ortTypeOf(elemType);
  checkedValues(flat, elemType, file);
  const values =
    elemType === DataType.STRING ? (flat as string[])
    : elemType === DataType.INT64 ? BigInt64Array.from(flat, (v) => BigInt(v as number))
    : elemType === DataType.UINT64 ? BigUint64Array.from(flat, (v) => BigInt(v as number))
    : elemType === DataType.FLOAT16 ? Uint16Array.from(flat, (v) => float32ToFloat16Bits(Number(v)))
    : elemType === DataType.INT32 ? Int32Array.from(flat, Number)
    : elemType === DataType.INT8 ? Int8Array.from(flat, Number)
    : elemType === DataType.UINT8 ? Uint8Array.from(flat, Number)
    : elemType === DataType.INT16 ? Int16Array.from(flat, Number)
    : elemType === DataType.UINT16 ? Uint16Array.from(flat, Number)
    : elemType === DataType.UINT32 ? Uint32Array.from(flat, Number)
    : elemType === DataType.BOOL ? Uint8Array.from(flat, (v) => (v ? 1 : 0))
    : elemType === DataType.DOUBLE ? Float64Array.from(flat, Number)
    : elemType === DataType.FLOAT ? Float32Array.from(flat, Number)
    : undefined;
  if (values === undefined) throw badJson(file, `JSON cannot give ${dataTypeName(elemType)} values; use .pb or .npy`);
  return newTensor(ort, type, values, dims);
}
