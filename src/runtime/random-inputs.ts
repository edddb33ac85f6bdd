/**
 * Random model inputs from the declared shapes and types (symbolic dimensions given with --dim
 * name=value), and what every input source shares: the inputs a caller must feed, their shapes,
 * the size check. No file here (inputs.ts reads them): this runs in a browser too.
 */
import type { Tensor } from 'onnxruntime-node';
import { seededRandom } from '../builder/graph-builder.js';
import { MAX_BUFFER_BYTES } from '../onnx/byte-limits.js';
import { DataType, bytesPerElement, dataTypeName } from '../onnx/data-types.js';
import { AmpError } from '../onnx/errors.js';
import { longToNumber } from '../onnx/external-data.js';
import { float32ToFloat16Bits } from '../onnx/float16.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { printable } from '../onnx/printable.js';
import { newTensor } from './float16-bits.js';
import type { Ort } from './ort.js';
import { ortTypeOf } from './tensors.js';
import { nodeBuiltin } from '../onnx/node-builtins.js';

export type Feeds = Record<string, Tensor>;

/**
 * The most bytes one input tensor may take: a quarter of the machine's memory (Node's os module,
 * read through process.getBuiltinModule so that this module imports none; in a browser no such
 * figure), and one buffer at most.
 */
const nodeOs = nodeBuiltin<{ totalmem(): number }>('node:os');
export const MAX_INPUT_BYTES = Math.min(MAX_BUFFER_BYTES, nodeOs ? Math.floor(nodeOs.totalmem() / 4) : MAX_BUFFER_BYTES);

/** Refuses an input whose shape would not fit in memory (`--dim N=100000000`), before allocating it. */
export function checkInputSize(info: onnx.IValueInfoProto, shape: readonly number[], elemType: number): void {
  const count = shape.reduce((a, b) => a * b, 1);
  const bytes = count * (bytesPerElement(elemType) ?? 8);
  if (!Number.isSafeInteger(count) || bytes > MAX_INPUT_BYTES) {
    throw new AmpError(
      'BAD_OPTION',
      `input '${printable(info.name)}' of shape [${shape.join(',')}] would take ${bytes.toExponential(3)} bytes, more than the ${MAX_INPUT_BYTES} one input may use here; give smaller --dim sizes`,
      { subject: info.name ?? '' },
    );
  }
}

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
    checkInputSize(info, shape, elemType);
    const count = shape.reduce((a, b) => a * b, 1);
    feeds[info.name ?? ''] = newTensor(ort, ortTypeOf(elemType), randomValues(elemType, count, random), shape);
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
