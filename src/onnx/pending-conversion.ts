/**
 * A float16 / bfloat16 copy of an external float32 weight that is not held in memory: the copy
 * records where its source is (a range of a data file) and is produced chunk by chunk through a
 * fixed buffer when the output data file is written, so that --weights fp16 on many GB of
 * external weights runs in bounded memory. Anything else that reads the copy's `raw_data`
 * (encoding it into the .onnx file, a library user) gets the whole converted bytes, made on first
 * read and kept: the same bytes the eager conversion would have stored.
 */
import { DataType } from './data-types.js';
import { AmpError } from './errors.js';
import { attachExternalRef, type ExternalDataRef } from './external-data.js';
import { float32BitsToBfloat16, float32BitsToFloat16, FLOAT16_OVERFLOW_BITS } from './float-conversion.js';
import { onnx } from './generated/onnx.js';
import { CHUNK_BYTES, forEachFloat32Chunk } from './tensor-chunks.js';

export interface PendingConversion {
  /** The float32 source: a range of a data file. */
  source: ExternalDataRef;
  /** DataType.FLOAT16 or DataType.BFLOAT16. */
  target: number;
  /** Bytes of the converted copy (2 per value). */
  byteLength: number;
  /** The tensor's name, for messages. */
  name: string;
}

const pending = new WeakMap<onnx.ITensorProto, PendingConversion>();

export function pendingConversionOf(tensor: onnx.ITensorProto): PendingConversion | undefined {
  return pending.get(tensor);
}

/**
 * Makes `copy` (a tensor with no data yet) the converted copy of the external float32 range
 * `source`: its raw_data is produced when first read, unless the save streams it first.
 */
export function attachPendingConversion(copy: onnx.ITensorProto, conversion: PendingConversion): void {
  pending.set(copy, conversion);
  Object.defineProperty(copy, 'raw_data', {
    configurable: true,
    enumerable: true,
    get(this: onnx.ITensorProto): Uint8Array {
      const bytes = convertWhole(conversion);
      // From here on an ordinary tensor: the bytes are kept, as the eager conversion kept them.
      Object.defineProperty(this, 'raw_data', { value: bytes, writable: true, configurable: true, enumerable: true });
      pending.delete(this);
      return bytes;
    },
    set(this: onnx.ITensorProto, value: Uint8Array | null | undefined): void {
      Object.defineProperty(this, 'raw_data', { value, writable: true, configurable: true, enumerable: true });
      pending.delete(this);
    },
  });
}

/** Drops the pending form of `tensor` (its data was placed elsewhere): no raw_data is left. */
export function detachPendingConversion(tensor: onnx.ITensorProto): void {
  if (!pending.has(tensor)) return;
  pending.delete(tensor);
  delete (tensor as { raw_data?: unknown }).raw_data;
}

/** A copy of a pending tensor's accessor onto `copy` (cloneMessage), without converting. */
export function copyPendingConversion(from: onnx.ITensorProto, copy: onnx.ITensorProto): boolean {
  const conversion = pending.get(from);
  if (!conversion) return false;
  attachPendingConversion(copy, conversion);
  return true;
}

/**
 * Calls `write(bytes, at)` for consecutive pieces of the converted copy, `at` being the byte
 * offset in the copy; `bytes` is one reused buffer of at most CHUNK_BYTES / 2 bytes. The range
 * is checked again as it is read: a data file changed since the plan is refused, not clamped.
 */
export function streamConversion(conversion: PendingConversion, write: (bytes: Uint8Array, at: number) => void): void {
  const out = new Uint16Array(CHUNK_BYTES / 4);
  const source = onnx.TensorProto.create({ name: conversion.name, data_type: DataType.FLOAT, data_location: onnx.TensorProto.DataLocation.EXTERNAL });
  attachExternalRef(source, conversion.source);
  forEachFloat32Chunk(source, (chunk, first) => {
    const target = out.subarray(0, chunk.length);
    if (conversion.target === DataType.FLOAT16) {
      if (float32BitsToFloat16(chunk, target) >= FLOAT16_OVERFLOW_BITS) {
        throw new AmpError(
          'EXTERNAL_DATA_OUT_OF_RANGE',
          `tensor '${conversion.name}': ${conversion.source.file} now holds a value outside float16's range; it changed after the rewrite was planned`,
          { subject: conversion.name },
        );
      }
    } else {
      float32BitsToBfloat16(chunk, target);
    }
    write(new Uint8Array(target.buffer, 0, target.length * 2), first * 2);
  });
}

function convertWhole(conversion: PendingConversion): Uint8Array {
  const bytes = new Uint8Array(conversion.byteLength);
  try {
    streamConversion(conversion, (piece, at) => bytes.set(piece, at));
  } catch (error) {
    if (error instanceof AmpError) throw error;
    // Only reads happen here (the writes are into memory): the source went away or cannot be read.
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new AmpError('EXTERNAL_DATA_MISSING', `tensor '${conversion.name}': cannot read its float32 data from ${conversion.source.file} (${code})`, {
      subject: conversion.name,
      cause: error,
    });
  }
  return bytes;
}
