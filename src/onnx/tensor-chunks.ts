/**
 * A float32 tensor's values read piece by piece through one fixed buffer, wherever they are
 * stored (raw_data, float_data or an external file, at any offset and of any size, 4 GiB and
 * more included), so that scanning or converting weights never holds a whole copy of them.
 */
import { DataType } from './data-types.js';
import { AmpError } from './errors.js';
import { externalRefOf, isExternal, readExternalChunks } from './external-data.js';
import type { onnx } from './generated/onnx.js';

/** 4 MiB: large enough that a read costs far more than the call, small enough to stay in cache levels that matter. */
export const CHUNK_BYTES = 4 * 2 ** 20;

/** How many float32 values a tensor holds, from where its data is (not from its dims). */
export function float32Count(tensor: onnx.ITensorProto): number {
  if (isExternal(tensor)) return Math.floor((externalRefOf(tensor)?.length ?? 0) / 4);
  if (tensor.raw_data?.length) return Math.floor(tensor.raw_data.length / 4);
  return tensor.float_data?.length ?? 0;
}

/**
 * Calls `visit(bits, first)` for consecutive runs of the tensor's float32 values, as bit patterns,
 * where `first` is the index of bits[0] in the whole tensor. `bits` is reused between calls.
 */
export function forEachFloat32Chunk(tensor: onnx.ITensorProto, visit: (bits: Int32Array, first: number) => void, chunkBytes = CHUNK_BYTES): void {
  const name = tensor.name ?? '';
  if (tensor.data_type !== DataType.FLOAT) throw new Error(`tensor '${name}' is not float32`);
  const raw = tensor.raw_data;
  if (!isExternal(tensor) && raw && raw.length && raw.byteOffset % 4 === 0 && raw.length <= chunkBytes) {
    // Small and aligned (most weights of a big graph): read in place, no copy.
    requireWholeFloats(raw.length, name);
    visit(new Int32Array(raw.buffer, raw.byteOffset, raw.length / 4), 0);
    return;
  }
  const scratch = takeScratch(chunkBytes);
  try {
    readChunks(tensor, name, scratch, visit);
  } finally {
    releaseScratch(scratch);
  }
}

/** One chunk buffer for the whole process, reused (a fresh one if a visit reads another tensor). */
let spare: ArrayBuffer | undefined;

function takeScratch(bytes: number): ArrayBuffer {
  if (spare && spare.byteLength === bytes) {
    const taken = spare;
    spare = undefined;
    return taken;
  }
  return new ArrayBuffer(bytes);
}

function releaseScratch(buffer: ArrayBuffer): void {
  if (buffer.byteLength === CHUNK_BYTES) spare = buffer;
}

function readChunks(tensor: onnx.ITensorProto, name: string, scratch: ArrayBuffer, visit: (bits: Int32Array, first: number) => void): void {
  const chunkBytes = scratch.byteLength;
  const bytes = new Uint8Array(scratch);
  const words = chunkBytes / 4;
  if (isExternal(tensor)) {
    const ref = externalRefOf(tensor);
    if (!ref) {
      throw new AmpError('EXTERNAL_DATA_MISSING', `tensor '${name}': external data was not resolved; load the model with loadModel()`, { subject: name });
    }
    requireWholeFloats(ref.length, name);
    readExternalChunks(ref, name, bytes, (length, done) => visit(new Int32Array(scratch, 0, length / 4), done / 4));
    return;
  }
  const raw = tensor.raw_data;
  if (raw && raw.length) {
    requireWholeFloats(raw.length, name);
    // Copied through the scratch buffer: raw_data may start at an offset that is not a multiple of 4.
    for (let done = 0; done < raw.length; done += chunkBytes) {
      // One chunk (most weights) is raw_data itself: no view of it made (Buffer's subarray is a
      // call into JavaScript and an object, about a microsecond, for each of thousands of weights).
      const piece = raw.length <= chunkBytes ? raw : raw.subarray(done, Math.min(raw.length, done + chunkBytes));
      bytes.set(piece);
      visit(new Int32Array(scratch, 0, piece.length / 4), done / 4);
    }
    return;
  }
  const values = tensor.float_data ?? [];
  const floats = new Float32Array(scratch);
  for (let done = 0; done < values.length; done += words) {
    const count = Math.min(words, values.length - done);
    for (let i = 0; i < count; i++) floats[i] = values[done + i] as number;
    visit(new Int32Array(scratch, 0, count), done);
  }
}

function requireWholeFloats(length: number, name: string): void {
  if (length % 4 !== 0) {
    throw new AmpError('TRUNCATED', `tensor '${name}': ${length} bytes of float32 data is not a whole number of values`, { subject: name });
  }
}
