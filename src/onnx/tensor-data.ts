/** Reading float32 tensor values and making reduced-precision copies of them. */
import { MAX_BUFFER_BYTES } from './byte-limits.js';
import { DataType, dataTypeName } from './data-types.js';
import { AmpError } from './errors.js';
import { externalRefOf, isExternal, tensorRawBytes, type ExternalDataRef } from './external-data.js';
import { onnx } from './generated/onnx.js';
import { float32BitsToBfloat16, float32BitsToFloat16, float32FromBits, FLOAT16_OVERFLOW_BITS, largestFiniteBits } from './float-conversion.js';
import { attachPendingConversion } from './pending-conversion.js';
import { float32Count, forEachFloat32Chunk } from './tensor-chunks.js';


/**
 * The values of a small float32 tensor (at most `maxElements`), or undefined for any other: another
 * type, too many elements, external data that cannot be read, or data that is no whole float32
 * values (a damaged file the input checks let through). For the passes that look into constants.
 */
export function readSmallFloat32(tensor: onnx.ITensorProto, maxElements: number): Float32Array | undefined {
  if (tensor.data_type !== DataType.FLOAT || (isExternal(tensor) && !externalRefOf(tensor))) return undefined;
  const count = (tensor.dims ?? []).reduce<number>((product, dim) => product * Number(dim), 1);
  if (count > maxElements) return undefined;
  try {
    return readFloat32(tensor);
  } catch {
    return undefined;
  }
}

/** The values of a float32 tensor, wherever they are stored (raw_data, float_data, external file). */
export function readFloat32(tensor: onnx.ITensorProto): Float32Array {
  if (tensor.data_type !== DataType.FLOAT) throw new Error(`tensor '${tensor.name}' is not float32`);
  const raw = tensorRawBytes(tensor);
  if (raw && raw.length) {
    // Copy: raw_data may sit at an offset that is not a multiple of 4 inside the file buffer.
    const copy = new Uint8Array(raw.length);
    copy.set(raw);
    return new Float32Array(copy.buffer);
  }
  return Float32Array.from(tensor.float_data ?? []);
}

export type LowPrecisionCopy =
  | { ok: true; tensor: onnx.TensorProto }
  | { ok: false; reason: string };

/** The largest finite magnitude in a float32 tensor (0 when none), read through a fixed buffer. */
export function largestFiniteMagnitude(tensor: onnx.ITensorProto): number {
  return float32FromBits(largestFiniteBitsOf(tensor));
}

/**
 * The value of largest finite magnitude, with its sign (0 when there is none): what a message quotes
 * of a weight beyond a type's range (finfo.min is -3.4028235e+38, not its magnitude). A second scan of
 * the tensor, made only for the few weights out of range.
 */
export function extremeFiniteValue(tensor: onnx.ITensorProto): number {
  const largest = largestFiniteBitsOf(tensor);
  let signed = largest;
  forEachFloat32Chunk(tensor, (bits) => {
    if (signed !== largest) return;
    for (let i = 0; i < bits.length; i++) {
      if (((bits[i] as number) & 0x7fffffff) === largest) {
        signed = (bits[i] as number) >>> 0;
        return;
      }
    }
  });
  return float32FromBits(signed);
}

/**
 * An external tensor's scan result, kept for the range it was read from: the weight range check
 * and the --weights fp16 copy both need it, and reading many GB twice costs seconds.
 */
const scannedExternal = new WeakMap<onnx.ITensorProto, { ref: ExternalDataRef; largest: number }>();

function largestFiniteBitsOf(tensor: onnx.ITensorProto): number {
  const ref = isExternal(tensor) ? externalRefOf(tensor) : undefined;
  const known = ref ? scannedExternal.get(tensor) : undefined;
  if (known && known.ref === ref) return known.largest;
  let largest = 0;
  forEachFloat32Chunk(tensor, (bits) => {
    largest = largestFiniteBits(bits, largest);
  });
  if (ref) scannedExternal.set(tensor, { ref, largest });
  return largest;
}

/**
 * A copy of a float32 tensor in float16 or bfloat16, same name and dims, data in raw_data.
 * Refuses (rather than clamping to ±inf) when a value is outside the float16 range. The source
 * is read through a fixed buffer: only the converted copy is held whole, and for an external
 * source not even that (a pending conversion, made when the copy is written or read).
 */
export function lowPrecisionCopy(tensor: onnx.ITensorProto, target: number): LowPrecisionCopy {
  const count = float32Count(tensor);
  if (count * 2 > MAX_BUFFER_BYTES) {
    return { ok: false, reason: `its ${dataTypeName(target)} copy (${count * 2} bytes) is too large to hold in one buffer; kept float32` };
  }
  const ref = isExternal(tensor) ? externalRefOf(tensor) : undefined;
  if (ref) return pendingCopy(tensor, ref, target, count);
  const bits = new Uint16Array(count);
  let largest = 0;
  let outOfRange = false;
  forEachFloat32Chunk(tensor, (chunk, first) => {
    if (outOfRange) return;
    if (target === DataType.FLOAT16) {
      // One pass: convert and find the largest magnitude; a chunk past fp16's range ends the copy.
      largest = float32BitsToFloat16(chunk, bits.subarray(first, first + chunk.length), largest);
      outOfRange = largest >= FLOAT16_OVERFLOW_BITS;
    } else {
      float32BitsToBfloat16(chunk, bits.subarray(first, first + chunk.length));
    }
  });
  if (outOfRange) return { ok: false, reason: `holds ${largestFiniteMagnitude(tensor)} in magnitude, outside float16's range (65504)` };
  const copy = onnx.TensorProto.create({
    dims: tensor.dims ?? [],
    data_type: target,
    name: tensor.name ?? '',
    raw_data: new Uint8Array(bits.buffer),
  });
  if (tensor.doc_string) copy.doc_string = tensor.doc_string;
  if (tensor.metadata_props?.length) copy.metadata_props = tensor.metadata_props;
  return { ok: true, tensor: copy };
}

/**
 * The copy of an external float32 tensor, not converted yet (pending-conversion.ts): the save
 * streams it into the output data file, or whatever reads its raw_data first converts it whole.
 * The same refusals as the eager copy, decided now from the (cached) range scan.
 */
function pendingCopy(tensor: onnx.ITensorProto, ref: ExternalDataRef, target: number, count: number): LowPrecisionCopy {
  const name = tensor.name ?? '';
  if (ref.length % 4 !== 0) {
    throw new AmpError('TRUNCATED', `tensor '${name}': ${ref.length} bytes of float32 data is not a whole number of values`, { subject: name });
  }
  if (target === DataType.FLOAT16) {
    const largest = largestFiniteBitsOf(tensor);
    if (largest >= FLOAT16_OVERFLOW_BITS) return { ok: false, reason: `holds ${float32FromBits(largest)} in magnitude, outside float16's range (65504)` };
  }
  const copy = onnx.TensorProto.create({ dims: tensor.dims ?? [], data_type: target, name });
  attachPendingConversion(copy, { source: { ...ref }, target, byteLength: count * 2, name });
  if (tensor.doc_string) copy.doc_string = tensor.doc_string;
  if (tensor.metadata_props?.length) copy.metadata_props = tensor.metadata_props;
  return { ok: true, tensor: copy };
}
