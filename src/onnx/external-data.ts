/**
 * Tensors whose bytes live outside the .onnx file (ONNX's external data: `location`, `offset`,
 * `length` key/value pairs). Loading records where each tensor's bytes are and checks that they
 * exist; the bytes themselves are read only when asked for. The model message is not changed,
 * so a load/save cycle is lossless. The files themselves are external-files.ts's.
 */
import Long from 'long';
import { AmpError } from './errors.js';
import { onnx } from './generated/onnx.js';
import { printable } from './printable.js';

export interface ExternalDataRef {
  /** The `location` key, relative to the model's folder. */
  location: string;
  /** Absolute path of the data file. */
  file: string;
  offset: number;
  length: number;
  /** The data file opened and checked at load: reads go through it, never through the path again. */
  handle?: DataFileHandle;
}

/**
 * A data file opened once and checked on its descriptor: its real path, its size, and the
 * descriptor every read goes through. Closed when no tensor refers to it any more.
 */
export interface DataFileHandle {
  real: string;
  size: number;
  fd: number;
}

/**
 * Reads an external tensor's bytes: external-files.ts (the file system) sets it when it loads, and
 * only a model loaded from files has external references, so the core needs no file system.
 */
export interface ExternalReader {
  /** The tensor's whole byte range. */
  whole(ref: ExternalDataRef): Uint8Array;
  /** The range in pieces of `into`'s size, each passed to `visit` (its length, and the bytes before it). */
  chunks(ref: ExternalDataRef, name: string, into: Uint8Array, visit: (length: number, done: number) => void): void;
}

let reader: ExternalReader | undefined;

export function setExternalReader(read: ExternalReader): void {
  reader = read;
}

function externalReader(name: string): ExternalReader {
  if (!reader) throw new AmpError('EXTERNAL_DATA_MISSING', `tensor '${name}': external data cannot be read here (no file system)`, { subject: name });
  return reader;
}

/** An external tensor's bytes in pieces of `into`'s size (tensor-chunks.ts). */
export function readExternalChunks(ref: ExternalDataRef, name: string, into: Uint8Array, visit: (length: number, done: number) => void): void {
  externalReader(name).chunks(ref, name, into, visit);
}

/** Where the bytes of a loaded external tensor are. Kept beside the model, not in it. */
const externalRefs = new WeakMap<onnx.ITensorProto, ExternalDataRef>();

export function isExternal(tensor: onnx.ITensorProto): boolean {
  return tensor.data_location === onnx.TensorProto.DataLocation.EXTERNAL;
}

export function externalDataEntries(tensor: onnx.ITensorProto): Map<string, string> {
  return new Map((tensor.external_data ?? []).map((entry) => [entry.key ?? '', entry.value ?? '']));
}

/**
 * A relative path with `.`, empty and `..` parts resolved as Node's path.posix.normalize resolves
 * them ('a/./b/../c' → 'a/c'); a `..` that climbs above the start stays.
 */
export function normalizedLocation(location: string): string {
  const parts: string[] = [];
  for (const part of location.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && parts.length && parts[parts.length - 1] !== '..') parts.pop();
    else parts.push(part);
  }
  return parts.join('/');
}

/**
 * An external tensor's `location`, checked as the loader checks it, on files or on bytes: present,
 * relative, and inside the model's folder once resolved; with that resolved relative path.
 */
export function checkedLocation(tensor: onnx.ITensorProto): { location: string; inside: string } {
  const name = tensor.name ?? '';
  const location = externalDataEntries(tensor).get('location');
  if (!location) {
    throw new AmpError('EXTERNAL_DATA_BAD_LOCATION', `tensor '${printable(name)}': external data has no 'location' key`, { subject: name });
  }
  const inside = normalizedLocation(location);
  if (location.startsWith('/') || inside.split(/[\\/]/).includes('..') || location.includes('\0')) {
    throw new AmpError('EXTERNAL_DATA_BAD_LOCATION', `tensor '${printable(name)}': external data location '${printable(location)}' must be a path inside the model's folder`, { subject: name });
  }
  return { location, inside };
}

/** The byte range an external tensor names (`offset`, `length`: the rest of the file by default), checked against its data file's `size`. */
export function checkedRange(tensor: onnx.ITensorProto, location: string, size: number): { offset: number; length: number } {
  const name = tensor.name ?? '';
  const entries = externalDataEntries(tensor);
  const offset = parseCount(entries.get('offset') ?? '0', 'offset', name);
  const length = entries.has('length') ? parseCount(entries.get('length') ?? '', 'length', name) : size - offset;
  if (offset > size || offset + length > size) {
    throw new AmpError(
      'EXTERNAL_DATA_OUT_OF_RANGE',
      `tensor '${printable(name)}': external data ${printable(location)} bytes ${offset}..${offset + length} run past the end of the file (${size} bytes)`,
      { subject: name },
    );
  }
  return { offset, length };
}

/** An external data `offset` or `length` value: a decimal byte count. */
export function parseCount(text: string, key: string, tensorName: string): number {
  if (!/^\d+$/.test(text)) {
    throw new AmpError('EXTERNAL_DATA_BAD_LOCATION', `tensor '${tensorName}': external data ${key} '${text}' is not a byte count`, {
      subject: tensorName,
    });
  }
  return Number(text);
}

export function attachExternalRef(tensor: onnx.ITensorProto, ref: ExternalDataRef): void {
  externalRefs.set(tensor, ref);
}

export function externalRefOf(tensor: onnx.ITensorProto): ExternalDataRef | undefined {
  return externalRefs.get(tensor);
}

/**
 * The raw little-endian bytes of a tensor: raw_data, or the external range it points to. Typed
 * fields (float_data, int64_data...) are not raw bytes; the caller handles those.
 */
export function tensorRawBytes(tensor: onnx.ITensorProto): Uint8Array | undefined {
  if (isExternal(tensor)) {
    const ref = externalRefOf(tensor);
    if (!ref) {
      throw new AmpError('EXTERNAL_DATA_MISSING', `tensor '${tensor.name ?? ''}': external data was not resolved; load the model with loadModel()`, {
        subject: tensor.name ?? '',
      });
    }
    return externalReader(tensor.name ?? '').whole(ref);
  }
  return tensor.raw_data ?? undefined;
}

export function longToNumber(value: Long | number | null | undefined): number {
  if (value == null) return 0;
  if (typeof value === 'number') return value;
  // A Long is read in place: Long.fromValue copies even a Long (a new object per dim and int attribute read).
  return Long.isLong(value) ? value.toNumber() : Long.fromValue(value).toNumber();
}
