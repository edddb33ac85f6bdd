/** Reading float32 tensor values and making reduced-precision copies of them. */
import { DataType } from './data-types.js';
import { tensorRawBytes } from './external-data.js';
import { onnx } from './generated/onnx.js';
import { fitsFloat16, toBfloat16Array, toFloat16Array } from './float16.js';

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

/**
 * A copy of a float32 tensor in float16 or bfloat16, same name and dims, data in raw_data.
 * Refuses (rather than clamping to ±inf) when a value is outside the float16 range.
 */
export function lowPrecisionCopy(tensor: onnx.ITensorProto, target: number): LowPrecisionCopy {
  const values = readFloat32(tensor);
  if (target === DataType.FLOAT16 && !fitsFloat16(values)) {
    let largest = 0;
    for (const v of values) if (Number.isFinite(v)) largest = Math.max(largest, Math.abs(v));
    return { ok: false, reason: `holds ${largest} in magnitude, outside float16's range (65504)` };
  }
  const bits = target === DataType.FLOAT16 ? toFloat16Array(values) : toBfloat16Array(values);
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
