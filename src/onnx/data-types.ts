/** ONNX TensorProto.DataType numbers, names and sizes. */
import { onnx } from './generated/onnx.js';

export const DataType = onnx.TensorProto.DataType;
export type DataTypeCode = number;

/** Short names as used in ONNX type strings, `tensor(<name>)`. */
const NAMES: Record<number, string> = {
  [DataType.FLOAT]: 'float',
  [DataType.UINT8]: 'uint8',
  [DataType.INT8]: 'int8',
  [DataType.UINT16]: 'uint16',
  [DataType.INT16]: 'int16',
  [DataType.INT32]: 'int32',
  [DataType.INT64]: 'int64',
  [DataType.STRING]: 'string',
  [DataType.BOOL]: 'bool',
  [DataType.FLOAT16]: 'float16',
  [DataType.DOUBLE]: 'double',
  [DataType.UINT32]: 'uint32',
  [DataType.UINT64]: 'uint64',
  [DataType.COMPLEX64]: 'complex64',
  [DataType.COMPLEX128]: 'complex128',
  [DataType.BFLOAT16]: 'bfloat16',
  [DataType.FLOAT8E4M3FN]: 'float8e4m3fn',
  [DataType.FLOAT8E4M3FNUZ]: 'float8e4m3fnuz',
  [DataType.FLOAT8E5M2]: 'float8e5m2',
  [DataType.FLOAT8E5M2FNUZ]: 'float8e5m2fnuz',
  [DataType.UINT4]: 'uint4',
  [DataType.INT4]: 'int4',
  [DataType.FLOAT4E2M1]: 'float4e2m1',
  [DataType.FLOAT8E8M0]: 'float8e8m0',
  [DataType.UINT2]: 'uint2',
  [DataType.INT2]: 'int2',
};

const CODES = new Map(Object.entries(NAMES).map(([code, name]) => [name, Number(code)]));

export function dataTypeName(code: DataTypeCode): string {
  return NAMES[code] ?? `data_type(${code})`;
}

export function dataTypeCode(name: string): DataTypeCode | undefined {
  return CODES.get(name);
}

/** `tensor(float16)` for FLOAT16: the form used in operator type constraints. */
export function tensorTypeString(code: DataTypeCode): string {
  return `tensor(${dataTypeName(code)})`;
}

/** Bytes per element in raw_data; fractional for the sub-byte types. */
export function bytesPerElement(code: DataTypeCode): number | undefined {
  switch (code) {
    case DataType.BOOL: case DataType.UINT8: case DataType.INT8:
    case DataType.FLOAT8E4M3FN: case DataType.FLOAT8E4M3FNUZ: case DataType.FLOAT8E5M2:
    case DataType.FLOAT8E5M2FNUZ: case DataType.FLOAT8E8M0:
      return 1;
    case DataType.UINT16: case DataType.INT16: case DataType.FLOAT16: case DataType.BFLOAT16:
      return 2;
    case DataType.FLOAT: case DataType.INT32: case DataType.UINT32:
      return 4;
    case DataType.DOUBLE: case DataType.INT64: case DataType.UINT64: case DataType.COMPLEX64:
      return 8;
    case DataType.COMPLEX128:
      return 16;
    case DataType.UINT4: case DataType.INT4: case DataType.FLOAT4E2M1:
      return 0.5;
    case DataType.UINT2: case DataType.INT2:
      return 0.25;
    default:
      return undefined;
  }
}

export const FLOAT_TYPES_CHANGED_BY_AMP: ReadonlySet<DataTypeCode> = new Set([DataType.FLOAT]);
export const LOW_PRECISION_TYPES: ReadonlySet<DataTypeCode> = new Set([DataType.FLOAT16, DataType.BFLOAT16]);
