/**
 * Converting between ONNX TensorProto (the format of ONNX's test data, .pb files) and ONNX Runtime
 * tensors. float16 travels as its raw bits (Uint16Array) both ways, so no value is re-rounded.
 */
import type { Tensor } from 'onnxruntime-node';
import Long from 'long';
import { DataType, dataTypeName } from '../onnx/data-types.js';
import { AmpError } from '../onnx/errors.js';
import { tensorRawBytes } from '../onnx/external-data.js';
import { onnx } from '../onnx/generated/onnx.js';
import { checkWireFormat } from '../onnx/strict-wire.js';
import { newTensor } from './float16-bits.js';
import { decodeUtf8, encodeUtf8 } from '../onnx/utf8.js';
import type { Ort } from './ort.js';

export type OrtType = Tensor.Type;

/** ONNX data type -> ONNX Runtime tensor type and typed-array constructor. */
const ORT_TYPES: Partial<Record<number, { type: OrtType; array: { new (buffer: ArrayBuffer): ArrayBufferView; BYTES_PER_ELEMENT: number } | null }>> = {
  [DataType.FLOAT]: { type: 'float32', array: Float32Array },
  [DataType.FLOAT16]: { type: 'float16', array: Uint16Array },
  [DataType.DOUBLE]: { type: 'float64', array: Float64Array },
  [DataType.INT8]: { type: 'int8', array: Int8Array },
  [DataType.UINT8]: { type: 'uint8', array: Uint8Array },
  [DataType.INT16]: { type: 'int16', array: Int16Array },
  [DataType.UINT16]: { type: 'uint16', array: Uint16Array },
  [DataType.INT32]: { type: 'int32', array: Int32Array },
  [DataType.UINT32]: { type: 'uint32', array: Uint32Array },
  [DataType.INT64]: { type: 'int64', array: BigInt64Array },
  [DataType.UINT64]: { type: 'uint64', array: BigUint64Array },
  [DataType.BOOL]: { type: 'bool', array: Uint8Array },
  [DataType.STRING]: { type: 'string', array: null },
};

const DATA_TYPE_OF = new Map<string, number>(Object.entries(ORT_TYPES).map(([code, spec]) => [spec!.type, Number(code)]));

export function ortTypeOf(dataType: number): OrtType {
  const spec = ORT_TYPES[dataType];
  if (!spec) throw new AmpError('BAD_OPTION', `tensors of type ${dataTypeName(dataType)} cannot be passed to ONNX Runtime from JavaScript`);
  return spec.type;
}

export function dataTypeOfOrt(type: string): number {
  const code = DATA_TYPE_OF.get(type);
  if (code === undefined) throw new AmpError('BAD_OPTION', `unsupported ONNX Runtime tensor type ${type}`);
  return code;
}

function dimsOf(tensor: onnx.ITensorProto): number[] {
  return (tensor.dims ?? []).map((d) => Long.fromValue(d).toNumber());
}

/** The values of a TensorProto as the typed array ONNX Runtime wants (a fresh, aligned copy). */
export function tensorProtoValues(tensor: onnx.ITensorProto): ArrayBufferView | string[] {
  const dataType = tensor.data_type ?? DataType.UNDEFINED;
  const spec = ORT_TYPES[dataType];
  if (!spec) throw new AmpError('BAD_OPTION', `tensor '${tensor.name ?? ''}': type ${dataTypeName(dataType)} is not supported here`);
  const count = dimsOf(tensor).reduce((a, b) => a * b, 1);
  if (dataType === DataType.STRING) return (tensor.string_data ?? []).map((bytes) => decodeUtf8(bytes));
  const raw = tensorRawBytes(tensor);
  const array = spec.array!;
  if (raw && raw.length) {
    const copy = new Uint8Array(raw.length);
    copy.set(raw);
    return new array(copy.buffer);
  }
  const out = new array(new ArrayBuffer(count * array.BYTES_PER_ELEMENT)) as unknown as { [i: number]: number | bigint };
  const fill = (values: ArrayLike<unknown>, convert: (v: unknown) => number | bigint): void => {
    for (let i = 0; i < count && i < values.length; i++) out[i] = convert(values[i]);
  };
  switch (dataType) {
    case DataType.FLOAT: fill(tensor.float_data ?? [], Number); break;
    case DataType.DOUBLE: fill(tensor.double_data ?? [], Number); break;
    case DataType.INT64: fill(tensor.int64_data ?? [], (v) => BigInt(Long.fromValue(v as Long).toString())); break;
    case DataType.UINT64: fill(tensor.uint64_data ?? [], (v) => BigInt(Long.fromValue(v as Long).toUnsigned().toString())); break;
    default: fill(tensor.int32_data ?? [], Number); // int8..int32, uint8/16, bool and float16 bits live in int32_data
  }
  return out as unknown as ArrayBufferView;
}

export function tensorProtoToOrt(ort: Ort, tensor: onnx.ITensorProto): Tensor {
  const type = ortTypeOf(tensor.data_type ?? DataType.UNDEFINED);
  return newTensor(ort, type, tensorProtoValues(tensor), dimsOf(tensor));
}

export function ortToTensorProto(tensor: Tensor, name: string): onnx.TensorProto {
  const dataType = dataTypeOfOrt(tensor.type);
  const proto = onnx.TensorProto.create({ name, dims: [...tensor.dims], data_type: dataType });
  if (dataType === DataType.STRING) proto.string_data = (tensor.data as string[]).map((s) => encodeUtf8(s));
  else {
    const data = tensor.data as ArrayBufferView;
    proto.raw_data = new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
  }
  return proto;
}

/** Reads a TensorProto file (.pb), the format of ONNX's test data. */
export function decodeTensorProto(bytes: Uint8Array, source: string): onnx.TensorProto {
  checkWireFormat(bytes, 'onnx.TensorProto', source, 'an ONNX TensorProto');
  try {
    return onnx.TensorProto.decode(bytes);
  } catch (error) {
    throw new AmpError('NOT_ONNX', `${source}: not an ONNX TensorProto (${(error as Error).message})`, { subject: source, cause: error });
  }
}
