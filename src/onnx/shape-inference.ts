/**
 * Static shape inference over the main graph: fully known integer dims for as many values as the
 * operator rules can tell, in one pass over the topological order (linear in the size of the
 * graph). Seeds are the graph inputs whose dims are all known, initializers, Constant nodes and
 * the shapes the model declares (value_info, graph outputs), which fill in whatever the rules
 * cannot tell. Shape arguments (Reshape's shape, Slice's starts...) are read from a second map of
 * known values of small 0-D and 1-D tensors, propagated through Shape, Gather, Concat, Cast,
 * Unsqueeze, Slice, arithmetic and the like.
 *
 * Subgraphs (If/Loop/Scan bodies) are not entered: the outputs of such nodes are known only when
 * declared. A rule that cannot decide, an unknown op or an odd model leaves the output unknown;
 * inference never throws.
 */
import { dtypeAttribute, findAttribute, intAttribute } from './attributes.js';
import { DataType } from './data-types.js';
import { isExternal, longToNumber } from './external-data.js';
import { float16BitsToFloat32 } from './float16.js';
import type { onnx } from './generated/onnx.js';
import type { GraphScope, ModelGraph } from './graph.js';
import { normalizeDomain, opsetsOf } from './opsets.js';

export type Shape = number[];

/** The values of a small 0-D or 1-D tensor, with its element type. */
export interface KnownValue {
  data: number[];
  type: number;
}

export interface ShapeInferenceResult {
  /** Value name -> fully known dims (main graph). */
  shapes: Map<string, Shape>;
  /** Value name -> values of small 0-D/1-D tensors whose contents are known statically. */
  values: Map<string, KnownValue>;
}

/** Tensors with more elements than this do not have their values tracked. */
const MAX_VALUES = 1024;
/** The default-domain opset assumed when the model imports none. */
const DEFAULT_OPSET = 21;

/** Value name -> fully known integer dims, for the values of the main graph whose shape is known. */
export function inferShapes(graph: ModelGraph): Map<string, number[]> {
  // The known values are dropped here: the initializers no rule asked for are left unread (reading
  // every small initializer into numbers was a good part of a big model's shape inference).
  return inferInto(graph, new KnownValues()).shapes;
}

export function inferShapesAndValues(graph: ModelGraph): ShapeInferenceResult {
  const result = inferInto(graph, new KnownValues());
  (result.values as KnownValues).readAll();
  return result;
}

function inferInto(graph: ModelGraph, values: KnownValues): ShapeInferenceResult {
  const shapes = new Map<string, Shape>();
  try {
    const opset = opsetsOf(graph.model).get('') ?? DEFAULT_OPSET;
    run(graph.main, opset, shapes, values);
  } catch {
    // Never fail the caller: whatever was inferred before the surprise stays.
  }
  return { shapes, values };
}

/**
 * Known values, with the initializers' values read from their tensors only when a rule asks for
 * one: most small initializers of a big model are biases and norm weights no shape depends on,
 * and reading each into an array of numbers cost time and memory for nothing.
 */
class KnownValues extends Map<string, KnownValue> {
  private readonly unread = new Map<string, { tensor: onnx.ITensorProto; dims: Shape }>();

  addInitializer(name: string, tensor: onnx.ITensorProto, dims: Shape): void {
    super.delete(name);
    this.unread.set(name, { tensor, dims });
  }

  override get(name: string): KnownValue | undefined {
    const known = super.get(name);
    if (known !== undefined) return known;
    const initializer = this.unread.get(name);
    if (!initializer) return undefined;
    this.unread.delete(name);
    const data = tensorValues(initializer.tensor, initializer.dims);
    if (!data) return undefined;
    const value = { data, type: initializer.tensor.data_type ?? 0 };
    super.set(name, value);
    return value;
  }

  override delete(name: string): boolean {
    const had = this.unread.delete(name);
    return super.delete(name) || had;
  }

  /** Reads every initializer not read yet (for a caller that wants all known values). */
  readAll(): void {
    for (const name of [...this.unread.keys()]) this.get(name);
  }
}

function run(scope: GraphScope, opset: number, shapes: Map<string, Shape>, values: KnownValues): void {
  const declared = new Map<string, Shape>();
  for (const info of [...scope.valueInfo.values(), ...scope.outputs.values()]) {
    const dims = declaredDims(info);
    if (dims && info.name) declared.set(info.name, dims);
  }
  for (const [name, tensor] of scope.initializers) {
    const dims = tensorDims(tensor);
    if (!dims) continue;
    shapes.set(name, dims);
    if (dims.length <= 1) values.addInitializer(name, tensor, dims);
  }
  for (const sparse of scope.graph.sparse_initializer ?? []) {
    const name = sparse.values?.name;
    if (!name) continue;
    values.delete(name);
    const dims = (sparse.dims ?? []).map((d) => longToNumber(d));
    if (validShape(dims)) shapes.set(name, dims);
    else shapes.delete(name);
  }
  for (const [name, info] of scope.inputs) {
    if (scope.initializers.has(name)) continue;
    const dims = declaredDims(info);
    if (dims) shapes.set(name, dims);
  }

  // One pair of result arrays for every node, emptied before each: not two new arrays per node.
  const inferred: (Shape | undefined)[] = [];
  const inferredValues: (KnownValue | undefined)[] = [];
  for (const node of scope.topologicalOrder().order) {
    const outputs = node.output ?? [];
    inferred.length = 0;
    inferredValues.length = 0;
    if (normalizeDomain(node.domain) === '' && !scope.subgraphsOf(node).length) {
      try {
        inferNode(node, opset, shapes, values, inferred, inferredValues);
      } catch {
        inferred.length = 0;
        inferredValues.length = 0;
      }
    }
    for (let i = 0; i < outputs.length; i++) {
      const name = outputs[i];
      if (!name) continue;
      const shape = inferred[i];
      const known = shape && validShape(shape) ? shape : declared.get(name);
      if (known) shapes.set(name, known);
      const value = inferredValues[i];
      if (known && value && known.length <= 1 && product(known) === value.data.length && value.data.every(Number.isFinite)) values.set(name, value);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Reading declarations, tensors and attributes

function declaredDims(info: onnx.IValueInfoProto): Shape | undefined {
  const shape = info.type?.tensor_type?.shape;
  if (!shape) return undefined;
  const dims: Shape = [];
  for (const d of shape.dim ?? []) {
    if (!Object.hasOwn(d, 'dim_value') || d.dim_value == null) return undefined;
    dims.push(longToNumber(d.dim_value));
  }
  return validShape(dims) ? dims : undefined;
}

function tensorDims(tensor: onnx.ITensorProto): Shape | undefined {
  const dims = (tensor.dims ?? []).map((d) => longToNumber(d));
  return validShape(dims) ? dims : undefined;
}

function validShape(dims: readonly number[]): boolean {
  return dims.every((d) => Number.isSafeInteger(d) && d >= 0);
}

const product = (dims: readonly number[]): number => dims.reduce((a, b) => a * b, 1);

const INTEGER_TYPES = new Set<number>([
  DataType.INT64,
  DataType.INT32,
  DataType.INT16,
  DataType.INT8,
  DataType.UINT64,
  DataType.UINT32,
  DataType.UINT16,
  DataType.UINT8,
  DataType.BOOL,
]);

const isInteger = (type: number): boolean => INTEGER_TYPES.has(type);

/** Bytes per element of the types whose raw data is read (a table made once, not per tensor). */
const ELEMENT_BYTES: Readonly<Record<number, number>> = {
  [DataType.INT64]: 8,
  [DataType.UINT64]: 8,
  [DataType.DOUBLE]: 8,
  [DataType.INT32]: 4,
  [DataType.UINT32]: 4,
  [DataType.FLOAT]: 4,
  [DataType.INT16]: 2,
  [DataType.UINT16]: 2,
  [DataType.FLOAT16]: 2,
  [DataType.INT8]: 1,
  [DataType.UINT8]: 1,
  [DataType.BOOL]: 1,
};

/** Values of a small 0-D/1-D tensor stored in the model; undefined when too big, external or odd. */
function tensorValues(tensor: onnx.ITensorProto, dims: Shape): number[] | undefined {
  if (dims.length > 1) return undefined;
  const count = product(dims);
  if (count > MAX_VALUES || isExternal(tensor)) return undefined;
  const type = tensor.data_type ?? 0;
  const raw = tensor.raw_data;
  let data: number[] | undefined;
  if (raw && raw.length) {
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    const bytes = ELEMENT_BYTES[type];
    if (!bytes || raw.byteLength < count * bytes) return undefined;
    data = [];
    for (let i = 0; i < count; i++) {
      const at = i * bytes;
      switch (type) {
        case DataType.INT64: data.push(Number(view.getBigInt64(at, true))); break;
        case DataType.UINT64: data.push(Number(view.getBigUint64(at, true))); break;
        case DataType.DOUBLE: data.push(view.getFloat64(at, true)); break;
        case DataType.INT32: data.push(view.getInt32(at, true)); break;
        case DataType.UINT32: data.push(view.getUint32(at, true)); break;
        case DataType.FLOAT: data.push(view.getFloat32(at, true)); break;
        case DataType.INT16: data.push(view.getInt16(at, true)); break;
        case DataType.UINT16: data.push(view.getUint16(at, true)); break;
        case DataType.FLOAT16: data.push(float16BitsToFloat32(view.getUint16(at, true))); break;
        case DataType.INT8: data.push(view.getInt8(at)); break;
        default: data.push(view.getUint8(at)); break;
      }
    }
  } else {
    switch (type) {
      case DataType.INT64:
        data = (tensor.int64_data ?? []).map((v) => longToNumber(v));
        break;
      case DataType.UINT64:
      case DataType.UINT32:
        data = (tensor.uint64_data ?? []).map((v) => longToNumber(v));
        break;
      case DataType.FLOAT:
        data = [...(tensor.float_data ?? [])];
        break;
      case DataType.DOUBLE:
        data = [...(tensor.double_data ?? [])];
        break;
      case DataType.INT32:
      case DataType.INT16:
      case DataType.INT8:
      case DataType.UINT16:
      case DataType.UINT8:
      case DataType.BOOL:
        data = [...(tensor.int32_data ?? [])];
        break;
      case DataType.FLOAT16:
        data = (tensor.int32_data ?? []).map((bits) => float16BitsToFloat32(bits));
        break;
      default:
        return undefined;
    }
  }
  return data.length === count ? data : undefined;
}

function ints(node: onnx.INodeProto, name: string): number[] | undefined {
  const attribute = findAttribute(node, name);
  const list = attribute?.ints;
  return list && list.length ? list.map((v) => longToNumber(v)) : undefined;
}

function floats(node: onnx.INodeProto, name: string): number[] | undefined {
  const list = findAttribute(node, name)?.floats;
  return list && list.length ? [...list] : undefined;
}

function int(node: onnx.INodeProto, name: string, fallback: number): number {
  return intAttribute(node, name) ?? fallback;
}

function str(node: onnx.INodeProto, name: string, fallback: string): string {
  const attribute = findAttribute(node, name);
  return attribute?.s && attribute.s.length ? Buffer.from(attribute.s).toString('utf8') : fallback;
}

/** An axis in [-rank, rank) made non-negative; undefined when out of range. */
function axisOf(axis: number, rank: number): number | undefined {
  const a = axis < 0 ? axis + rank : axis;
  return Number.isInteger(a) && a >= 0 && a < rank ? a : undefined;
}

function axesOf(axes: readonly number[], rank: number): number[] | undefined {
  const result: number[] = [];
  for (const axis of axes) {
    const a = axisOf(axis, rank);
    if (a === undefined || result.includes(a)) return undefined;
    result.push(a);
  }
  return result;
}

/** Multidirectional (numpy) broadcasting; undefined when the shapes do not broadcast. */
export function broadcastShapes(shapes: readonly Shape[]): Shape | undefined {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out: Shape = [];
  for (let i = 0; i < rank; i++) {
    let dim = 1;
    for (const shape of shapes) {
      const d = shape[shape.length - rank + i];
      if (d === undefined || d === 1) continue;
      if (dim === 1) dim = d;
      else if (d !== dim) return undefined;
    }
    out.push(dim);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Operator rules

const SAME_SHAPE = new Set([
  'Abs', 'Acos', 'Acosh', 'Asin', 'Asinh', 'Atan', 'Atanh', 'BatchNormalization', 'Bernoulli', 'BitwiseNot',
  'Cast', 'CastLike', 'Ceil', 'Celu', 'Clip', 'Cos', 'Cosh', 'CumSum', 'DequantizeLinear', 'Dropout', 'Elu', 'Erf',
  'Exp', 'EyeLike', 'Floor', 'Gelu', 'GroupNormalization', 'HardSigmoid', 'HardSwish', 'Hardmax', 'Identity',
  'InstanceNormalization', 'IsInf', 'IsNaN', 'LRN', 'LayerNormalization', 'LeakyRelu', 'Log', 'LogSoftmax',
  'LpNormalization', 'MeanVarianceNormalization', 'Mish', 'Neg', 'Not', 'QuantizeLinear', 'RMSNormalization',
  'RandomNormalLike', 'RandomUniformLike', 'Reciprocal', 'Relu', 'ReverseSequence', 'Round', 'Scatter',
  'ScatterElements', 'ScatterND', 'Selu', 'Shrink', 'Sigmoid', 'Sign', 'Sin', 'Sinh', 'Softmax', 'Softplus',
  'Softsign', 'Sqrt', 'Swish', 'Tan', 'Tanh', 'ThresholdedRelu', 'Trilu', 'DynamicQuantizeLinear', 'SimplifiedLayerNormalization',
]);

const BROADCAST = new Set([
  'Add', 'And', 'BitShift', 'BitwiseAnd', 'BitwiseOr', 'BitwiseXor', 'Div', 'Equal', 'Greater', 'GreaterOrEqual',
  'Less', 'LessOrEqual', 'Max', 'Mean', 'Min', 'Mod', 'Mul', 'Or', 'PRelu', 'Pow', 'Sub', 'Sum', 'Where', 'Xor',
]);

const REDUCE = new Set([
  'ReduceL1', 'ReduceL2', 'ReduceLogSum', 'ReduceLogSumExp', 'ReduceMax', 'ReduceMean', 'ReduceMin', 'ReduceProd',
  'ReduceSum', 'ReduceSumSquare',
]);

const COMPARISON = new Set(['Equal', 'Greater', 'GreaterOrEqual', 'Less', 'LessOrEqual', 'And', 'Or', 'Xor', 'Not', 'IsNaN', 'IsInf']);

/** Element-wise value arithmetic for the ops that shape computations use. */
const VALUE_OPS: Record<string, (args: number[]) => number | undefined> = {
  Add: ([a, b]) => (a as number) + (b as number),
  Sub: ([a, b]) => (a as number) - (b as number),
  Mul: ([a, b]) => (a as number) * (b as number),
  Div: ([a, b]) => (b === 0 ? undefined : (a as number) / (b as number)),
  Max: (args) => Math.max(...args),
  Min: (args) => Math.min(...args),
  Sum: (args) => args.reduce((a, b) => a + b, 0),
  Equal: ([a, b]) => (a === b ? 1 : 0),
  Greater: ([a, b]) => ((a as number) > (b as number) ? 1 : 0),
  GreaterOrEqual: ([a, b]) => ((a as number) >= (b as number) ? 1 : 0),
  Less: ([a, b]) => ((a as number) < (b as number) ? 1 : 0),
  LessOrEqual: ([a, b]) => ((a as number) <= (b as number) ? 1 : 0),
  And: ([a, b]) => (a && b ? 1 : 0),
  Or: ([a, b]) => (a || b ? 1 : 0),
  Not: ([a]) => (a ? 0 : 1),
  Where: ([c, x, y]) => (c ? x : y),
  Neg: ([a]) => -(a as number),
  Abs: ([a]) => Math.abs(a as number),
  Floor: ([a]) => Math.floor(a as number),
  Ceil: ([a]) => Math.ceil(a as number),
  Sqrt: ([a]) => Math.sqrt(a as number),
  Relu: ([a]) => Math.max(0, a as number),
  Identity: ([a]) => a,
};

function convertTo(value: number, type: number): number {
  if (type === DataType.BOOL) return value ? 1 : 0;
  if (isInteger(type)) return Math.trunc(value);
  if (type === DataType.FLOAT || type === DataType.FLOAT16 || type === DataType.BFLOAT16) return Math.fround(value);
  return value;
}

function inferNode(
  node: onnx.INodeProto,
  opset: number,
  shapes: ReadonlyMap<string, Shape>,
  values: ReadonlyMap<string, KnownValue>,
  out: (Shape | undefined)[],
  outValues: (KnownValue | undefined)[],
): void {
  const inputs = node.input ?? [];
  const nOut = (node.output ?? []).length;
  const has = (i: number): boolean => !!inputs[i];
  const shape = (i: number): Shape | undefined => (inputs[i] ? shapes.get(inputs[i] as string) : undefined);
  const value = (i: number): KnownValue | undefined => {
    const name = inputs[i];
    if (!name) return undefined;
    const found = values.get(name);
    if (found) return found;
    // A tensor with no elements has known (empty) contents, whatever feeds it.
    const s = shapes.get(name);
    return s && s.length <= 1 && product(s) === 0 ? { data: [], type: 0 } : undefined;
  };
  /** The integer values of an input (a shape argument). */
  const intValues = (i: number): number[] | undefined => {
    const v = value(i);
    return v && v.data.every(Number.isInteger) ? v.data : undefined;
  };
  const set = (i: number, s: Shape | undefined, v?: KnownValue): void => {
    out[i] = s;
    if (v) outValues[i] = v;
  };
  const op = node.op_type ?? '';

  // Values of elementwise ops on small known tensors.
  const elementwiseValues = (outShape: Shape | undefined, type: number, indices: number[]): KnownValue | undefined => {
    const fn = VALUE_OPS[op];
    if (!fn || !outShape || outShape.length > 1) return undefined;
    const args = indices.map(value);
    if (args.some((a) => !a)) return undefined;
    const count = product(outShape);
    if (count > MAX_VALUES) return undefined;
    const data: number[] = [];
    for (let k = 0; k < count; k++) {
      const operands = (args as KnownValue[]).map((a) => (a.data.length === 1 ? a.data[0] : a.data[k]) as number);
      if (operands.some((x) => x === undefined)) return undefined;
      const r = fn(operands);
      if (r === undefined || !Number.isFinite(r)) return undefined;
      data.push(r);
    }
    const integer = isInteger(type);
    return { data: data.map((x) => (op === 'Div' && integer ? Math.trunc(x) : convertTo(x, type))), type };
  };

  if (SAME_SHAPE.has(op)) {
    const s = shape(0);
    const type = value(0)?.type ?? 0;
    let v: KnownValue | undefined;
    if (op === 'Cast') {
      const to = dtypeAttribute(node, 'to');
      const input = value(0);
      if (input && to !== undefined) v = { data: input.data.map((x) => convertTo(x, to)), type: to };
    } else if (op === 'Identity' || VALUE_OPS[op]) {
      v = elementwiseValues(s, COMPARISON.has(op) ? DataType.BOOL : type, [0]);
    }
    set(0, s, v);
    if (op === 'Dropout' && nOut > 1) set(1, s);
    if (op === 'DynamicQuantizeLinear') {
      set(1, []);
      set(2, []);
    }
    if ((op === 'LayerNormalization' || op === 'SimplifiedLayerNormalization') && s) {
      const axis = axisOf(int(node, 'axis', -1), s.length);
      if (axis !== undefined) {
        const stat = s.map((d, i) => (i < axis ? d : 1));
        for (let i = 1; i < nOut; i++) set(i, stat);
      }
    }
    if (op === 'BatchNormalization' && nOut > 1 && s && s.length >= 2) {
      // Training mode (opset 14+): running mean and variance; older saved mean/var too.
      for (let i = 1; i < nOut; i++) set(i, [s[1] as number]);
    }
    return;
  }

  if (BROADCAST.has(op)) {
    const list: Shape[] = [];
    for (let i = 0; i < inputs.length; i++) {
      if (!has(i)) continue;
      const s = shape(i);
      if (!s) return;
      list.push(s);
    }
    if (!list.length) return;
    // Before opset 7, the second operand broadcast to the first (attribute `broadcast`).
    const s = opset < 7 && list.length === 2 && intAttribute(node, 'broadcast') ? list[0] : broadcastShapes(list);
    if (op === 'PRelu' && s && list[0] && s.length !== list[0].length) return;
    const type = op === 'Where' ? (value(1)?.type ?? 0) : (value(0)?.type ?? 0);
    const indices = inputs.map((_, i) => i).filter(has);
    set(0, s, elementwiseValues(s, COMPARISON.has(op) ? DataType.BOOL : type, indices));
    return;
  }

  if (REDUCE.has(op)) {
    const s = shape(0);
    if (!s) return;
    const keepdims = int(node, 'keepdims', 1);
    const axesFromInput = op === 'ReduceSum' ? opset >= 13 : opset >= 18;
    let axes: number[] | undefined;
    if (axesFromInput) {
      if (has(1)) {
        axes = intValues(1);
        if (!axes) return;
      }
    } else axes = ints(node, 'axes');
    if (!axes || !axes.length) {
      if (axesFromInput && int(node, 'noop_with_empty_axes', 0)) {
        set(0, s);
        return;
      }
      axes = s.map((_, i) => i);
    }
    const normalized = axesOf(axes, s.length);
    if (!normalized) return;
    const reduced = new Set(normalized);
    const result: Shape = [];
    s.forEach((d, i) => {
      if (!reduced.has(i)) result.push(d);
      else if (keepdims) result.push(1);
    });
    set(0, result);
    return;
  }

  switch (op) {
    case 'Constant': {
      const attribute = node.attribute?.[0];
      if (!attribute) return;
      switch (attribute.name) {
        case 'value': {
          if (!attribute.t) return;
          const dims = tensorDims(attribute.t);
          const data = dims && tensorValues(attribute.t, dims);
          set(0, dims, data ? { data, type: attribute.t.data_type ?? 0 } : undefined);
          return;
        }
        case 'sparse_value': {
          const dims = (attribute.sparse_tensor?.dims ?? []).map((d) => longToNumber(d));
          set(0, dims);
          return;
        }
        case 'value_int':
          set(0, [], { data: [longToNumber(attribute.i)], type: DataType.INT64 });
          return;
        case 'value_ints': {
          const data = (attribute.ints ?? []).map((v) => longToNumber(v));
          set(0, [data.length], { data, type: DataType.INT64 });
          return;
        }
        case 'value_float':
          set(0, [], { data: [attribute.f ?? 0], type: DataType.FLOAT });
          return;
        case 'value_floats': {
          const data = [...(attribute.floats ?? [])];
          set(0, [data.length], { data, type: DataType.FLOAT });
          return;
        }
        case 'value_string':
          set(0, []);
          return;
        case 'value_strings':
          set(0, [(attribute.strings ?? []).length]);
          return;
        default:
          return;
      }
    }

    case 'MatMul':
    case 'MatMulInteger':
    case 'QLinearMatMul': {
      const a = shape(0);
      const b = shape(op === 'QLinearMatMul' ? 3 : 1);
      set(0, a && b ? matmulShape(a, b) : undefined);
      return;
    }

    case 'Gemm': {
      const a = shape(0);
      const b = shape(1);
      if (!a || !b || a.length !== 2 || b.length !== 2) return;
      const m = int(node, 'transA', 0) ? a[1] : a[0];
      const ka = int(node, 'transA', 0) ? a[0] : a[1];
      const kb = int(node, 'transB', 0) ? b[1] : b[0];
      const n = int(node, 'transB', 0) ? b[0] : b[1];
      if (ka !== kb) return;
      set(0, [m as number, n as number]);
      return;
    }

    case 'Conv':
    case 'ConvInteger':
    case 'QLinearConv': {
      const x = shape(0);
      const w = shape(op === 'QLinearConv' ? 3 : 1);
      if (!x || !w || x.length < 3 || w.length !== x.length) return;
      const kernel = ints(node, 'kernel_shape') ?? w.slice(2);
      const spatial = windowOutput(node, x.slice(2), kernel, false);
      if (spatial) set(0, [x[0] as number, w[0] as number, ...spatial]);
      return;
    }

    case 'ConvTranspose': {
      const x = shape(0);
      const w = shape(1);
      if (!x || !w || x.length < 3 || w.length !== x.length) return;
      const n = x.length - 2;
      const group = int(node, 'group', 1);
      const channels = (w[1] as number) * group;
      const outputShape = ints(node, 'output_shape');
      if (outputShape) {
        const spatial = outputShape.length === n + 2 ? outputShape.slice(2) : outputShape;
        if (spatial.length !== n) return;
        set(0, [x[0] as number, channels, ...spatial]);
        return;
      }
      const kernel = ints(node, 'kernel_shape') ?? w.slice(2);
      const strides = ints(node, 'strides') ?? new Array<number>(n).fill(1);
      const dilations = ints(node, 'dilations') ?? new Array<number>(n).fill(1);
      const outputPadding = ints(node, 'output_padding') ?? new Array<number>(n).fill(0);
      const pads = ints(node, 'pads') ?? new Array<number>(2 * n).fill(0);
      const autoPad = str(node, 'auto_pad', 'NOTSET');
      if (kernel.length !== n || strides.length !== n || dilations.length !== n || outputPadding.length !== n || pads.length !== 2 * n) return;
      const spatial: Shape = [];
      for (let i = 0; i < n; i++) {
        const input = x[i + 2] as number;
        const stride = strides[i] as number;
        if (autoPad === 'SAME_UPPER' || autoPad === 'SAME_LOWER') {
          spatial.push(input * stride);
          continue;
        }
        const full = stride * (input - 1) + (outputPadding[i] as number) + ((kernel[i] as number) - 1) * (dilations[i] as number) + 1;
        spatial.push(autoPad === 'VALID' ? full : full - (pads[i] as number) - (pads[i + n] as number));
      }
      set(0, [x[0] as number, channels, ...spatial]);
      return;
    }

    case 'MaxPool':
    case 'AveragePool':
    case 'LpPool': {
      const x = shape(0);
      const kernel = ints(node, 'kernel_shape');
      if (!x || x.length < 3 || !kernel) return;
      const spatial = windowOutput(node, x.slice(2), kernel, !!int(node, 'ceil_mode', 0));
      if (!spatial) return;
      const s = [x[0] as number, x[1] as number, ...spatial];
      set(0, s);
      if (op === 'MaxPool' && nOut > 1) set(1, s);
      return;
    }

    case 'GlobalAveragePool':
    case 'GlobalMaxPool':
    case 'GlobalLpPool': {
      const x = shape(0);
      if (!x || x.length < 2) return;
      set(0, [x[0] as number, x[1] as number, ...x.slice(2).map(() => 1)]);
      return;
    }

    case 'Flatten': {
      const x = shape(0);
      if (!x) return;
      let axis = int(node, 'axis', 1);
      if (axis < 0) axis += x.length;
      if (axis < 0 || axis > x.length) return;
      set(0, [product(x.slice(0, axis)), product(x.slice(axis))]);
      return;
    }

    case 'Reshape': {
      const target = opset >= 5 ? intValues(1) : ints(node, 'shape');
      if (!target) return;
      const x = shape(0);
      const allowzero = int(node, 'allowzero', 0);
      const result: Shape = [];
      let inferAt = -1;
      for (let i = 0; i < target.length; i++) {
        const d = target[i] as number;
        if (d === 0 && !allowzero) {
          if (!x || i >= x.length) return;
          result.push(x[i] as number);
        } else if (d === -1) {
          if (inferAt >= 0) return;
          inferAt = i;
          result.push(-1);
        } else if (d >= 0) result.push(d);
        else return;
      }
      if (inferAt >= 0) {
        if (!x) return;
        const known = product(result.filter((_, i) => i !== inferAt));
        const total = product(x);
        if (known === 0 || total % known !== 0) return;
        result[inferAt] = total / known;
      } else if (x && product(x) !== product(result)) return;
      set(0, result, value(0) && result.length <= 1 ? value(0) : undefined);
      return;
    }

    case 'Transpose': {
      const x = shape(0);
      if (!x) return;
      const perm = ints(node, 'perm') ?? x.map((_, i) => x.length - 1 - i);
      if (perm.length !== x.length || !axesOf(perm, x.length) || perm.some((p) => p < 0)) return;
      set(0, perm.map((p) => x[p] as number));
      return;
    }

    case 'Squeeze': {
      const x = shape(0);
      if (!x) return;
      const axesArg = opset >= 13 ? (has(1) ? intValues(1) : []) : (ints(node, 'axes') ?? []);
      if (!axesArg) return;
      let result: Shape;
      if (!axesArg.length) result = x.filter((d) => d !== 1);
      else {
        const axes = axesOf(axesArg, x.length);
        if (!axes || axes.some((a) => x[a] !== 1)) return;
        const drop = new Set(axes);
        result = x.filter((_, i) => !drop.has(i));
      }
      set(0, result, value(0));
      return;
    }

    case 'Unsqueeze': {
      const x = shape(0);
      const axesArg = opset >= 13 ? intValues(1) : ints(node, 'axes');
      if (!x || !axesArg) return;
      const rank = x.length + axesArg.length;
      const axes = axesOf(axesArg, rank);
      if (!axes) return;
      const inserted = new Set(axes);
      const result: Shape = [];
      let k = 0;
      for (let i = 0; i < rank; i++) result.push(inserted.has(i) ? 1 : (x[k++] as number));
      set(0, result, value(0));
      return;
    }

    case 'Concat': {
      const list: Shape[] = [];
      for (let i = 0; i < inputs.length; i++) {
        if (!has(i)) continue;
        const s = shape(i);
        if (!s) return;
        list.push(s);
      }
      const first = list[0];
      if (!first || list.some((s) => s.length !== first.length)) return;
      const axis = axisOf(int(node, 'axis', opset < 4 ? 1 : 0), first.length);
      if (axis === undefined) return;
      for (const s of list) if (s.some((d, i) => i !== axis && d !== first[i])) return;
      const result = [...first];
      result[axis] = list.reduce((sum, s) => sum + (s[axis] as number), 0);
      let v: KnownValue | undefined;
      if (first.length === 1) {
        const parts = inputs.map((_, i) => i).filter(has).map(value);
        if (parts.every((p) => p)) v = { data: (parts as KnownValue[]).flatMap((p) => p.data), type: (parts[0] as KnownValue).type };
      }
      set(0, result, v);
      return;
    }

    case 'Split': {
      const x = shape(0);
      if (!x) return;
      const axis = axisOf(int(node, 'axis', 0), x.length);
      if (axis === undefined) return;
      const dim = x[axis] as number;
      let sizes: number[] | undefined;
      if (opset >= 13 ? has(1) : !!ints(node, 'split')) {
        sizes = opset >= 13 ? intValues(1) : ints(node, 'split');
        if (!sizes || sizes.length !== nOut || sizes.reduce((a, b) => a + b, 0) !== dim) return;
      } else {
        const parts = opset >= 18 ? int(node, 'num_outputs', nOut) : nOut;
        if (parts <= 0) return;
        if (dim % parts === 0) sizes = new Array<number>(parts).fill(dim / parts);
        else if (opset >= 18) {
          const chunk = Math.ceil(dim / parts);
          sizes = new Array<number>(parts).fill(chunk);
          sizes[parts - 1] = dim - chunk * (parts - 1);
          if ((sizes[parts - 1] as number) < 0) return;
        } else return;
      }
      sizes.forEach((size, i) => {
        const s = [...x];
        s[axis] = size;
        set(i, s);
      });
      return;
    }

    case 'Slice': {
      const x = shape(0);
      if (!x) return;
      let starts: number[] | undefined;
      let ends: number[] | undefined;
      let axesArg: number[] | undefined;
      let steps: number[] | undefined;
      if (opset >= 10) {
        starts = intValues(1);
        ends = intValues(2);
        axesArg = has(3) ? intValues(3) : undefined;
        if (has(3) && !axesArg) return;
        steps = has(4) ? intValues(4) : undefined;
        if (has(4) && !steps) return;
      } else {
        starts = ints(node, 'starts');
        ends = ints(node, 'ends');
        axesArg = ints(node, 'axes');
      }
      if (!starts || !ends || starts.length !== ends.length) return;
      const axes = axesOf(axesArg ?? starts.map((_, i) => i), x.length);
      if (!axes || axes.length !== starts.length || (steps && steps.length !== starts.length)) return;
      const result = [...x];
      const ranges = new Map<number, [number, number, number]>();
      for (let i = 0; i < axes.length; i++) {
        const axis = axes[i] as number;
        const range = sliceRange(x[axis] as number, starts[i] as number, ends[i] as number, steps?.[i] ?? 1);
        if (!range) return;
        ranges.set(axis, range);
        result[axis] = sliceLength(range);
      }
      let v: KnownValue | undefined;
      const input = value(0);
      if (input && x.length === 1) {
        const [start, , step] = ranges.get(0) ?? [0, x[0] as number, 1];
        const data: number[] = [];
        for (let k = 0; k < (result[0] as number); k++) data.push(input.data[start + k * step] as number);
        v = { data, type: input.type };
      }
      set(0, result, v);
      return;
    }

    case 'Gather': {
      const data = shape(0);
      const indices = shape(1);
      if (!data || !indices) return;
      const axis = axisOf(int(node, 'axis', 0), data.length);
      if (axis === undefined) return;
      const result = [...data.slice(0, axis), ...indices, ...data.slice(axis + 1)];
      let v: KnownValue | undefined;
      const dataValue = value(0);
      const indexValue = intValues(1);
      if (dataValue && indexValue && data.length === 1) {
        const n = data[0] as number;
        const picked = indexValue.map((i) => dataValue.data[i < 0 ? i + n : i]);
        if (picked.every((p) => p !== undefined)) v = { data: picked as number[], type: dataValue.type };
      }
      set(0, result, v);
      return;
    }

    case 'GatherElements':
      set(0, shape(1));
      return;

    case 'GatherND': {
      const data = shape(0);
      const indices = shape(1);
      if (!data || !indices || !indices.length) return;
      const batchDims = int(node, 'batch_dims', 0);
      const last = indices[indices.length - 1] as number;
      if (batchDims + last > data.length) return;
      set(0, [...indices.slice(0, -1), ...data.slice(batchDims + last)]);
      return;
    }

    case 'Expand': {
      const x = shape(0);
      const target = intValues(1);
      if (!x || !target) return;
      set(0, broadcastShapes([x, target]));
      return;
    }

    case 'Tile': {
      const x = shape(0);
      const repeats = intValues(1);
      if (!x || !repeats || repeats.length !== x.length || repeats.some((r) => r < 0)) return;
      set(0, x.map((d, i) => d * (repeats[i] as number)));
      return;
    }

    case 'Pad': {
      const x = shape(0);
      if (!x) return;
      const pads = opset >= 11 ? intValues(1) : (ints(node, 'pads') ?? ints(node, 'paddings'));
      if (!pads) return;
      let axes = x.map((_, i) => i);
      if (opset >= 18 && has(3)) {
        const given = intValues(3);
        const normalized = given && axesOf(given, x.length);
        if (!normalized) return;
        axes = normalized;
      }
      if (pads.length !== 2 * axes.length) return;
      const result = [...x];
      axes.forEach((axis, i) => {
        result[axis] = (result[axis] as number) + (pads[i] as number) + (pads[i + axes.length] as number);
      });
      set(0, result);
      return;
    }

    case 'ArgMax':
    case 'ArgMin': {
      const x = shape(0);
      if (!x) return;
      const axis = axisOf(int(node, 'axis', 0), x.length);
      if (axis === undefined) return;
      const keep = int(node, 'keepdims', 1);
      set(0, keep ? x.map((d, i) => (i === axis ? 1 : d)) : x.filter((_, i) => i !== axis));
      return;
    }

    case 'TopK': {
      const x = shape(0);
      if (!x) return;
      const k = opset >= 10 ? intValues(1)?.[0] : intAttribute(node, 'k');
      const axis = axisOf(int(node, 'axis', -1), x.length);
      if (k === undefined || axis === undefined || k < 0) return;
      const s = x.map((d, i) => (i === axis ? k : d));
      set(0, s);
      set(1, s);
      return;
    }

    case 'Shape': {
      const x = shape(0);
      if (!x) return;
      const rank = x.length;
      const clamp = (v: number): number => Math.min(Math.max(v < 0 ? v + rank : v, 0), rank);
      const start = clamp(int(node, 'start', 0));
      const end = clamp(intAttribute(node, 'end') ?? rank);
      const data = x.slice(start, Math.max(start, end));
      set(0, [data.length], { data, type: DataType.INT64 });
      return;
    }

    case 'Size': {
      const x = shape(0);
      set(0, [], x ? { data: [product(x)], type: DataType.INT64 } : undefined);
      return;
    }

    case 'ConstantOfShape': {
      const dims = intValues(0);
      if (!dims || dims.some((d) => d < 0)) return;
      const tensor = findAttribute(node, 'value')?.t;
      const type = tensor?.data_type ?? DataType.FLOAT;
      let fill = 0;
      if (tensor) {
        const tdims = tensorDims(tensor);
        const data = tdims && tensorValues(tensor, tdims);
        if (data?.length === 1) fill = data[0] as number;
        else if (tdims && product(tdims) === 1) fill = NaN;
      }
      const count = product(dims);
      const v = dims.length <= 1 && count <= MAX_VALUES && !Number.isNaN(fill) ? { data: new Array<number>(count).fill(fill), type } : undefined;
      set(0, dims, v);
      return;
    }

    case 'Range': {
      const [start, limit, delta] = [value(0)?.data[0], value(1)?.data[0], value(2)?.data[0]];
      if (start === undefined || limit === undefined || delta === undefined || delta === 0) return;
      const n = Math.max(Math.ceil((limit - start) / delta), 0);
      const type = value(0)?.type ?? 0;
      const v = n <= MAX_VALUES ? { data: Array.from({ length: n }, (_, i) => convertTo(start + i * delta, type)), type } : undefined;
      set(0, [n], v);
      return;
    }

    case 'OneHot': {
      const indices = shape(0);
      const depth = value(1)?.data[0];
      if (!indices || depth === undefined) return;
      const axis = axisOf(int(node, 'axis', -1), indices.length + 1);
      if (axis === undefined) return;
      const result = [...indices];
      result.splice(axis, 0, Math.trunc(depth));
      set(0, result);
      return;
    }

    case 'Resize':
    case 'Upsample': {
      const x = shape(0);
      const scaleIndex = op === 'Upsample' || opset < 11 ? 1 : 2;
      const sizes = op === 'Resize' && opset >= 11 && has(3) ? intValues(3) : undefined;
      const axesArg = ints(node, 'axes');
      if (sizes && sizes.length) {
        const policy = str(node, 'keep_aspect_ratio_policy', 'stretch');
        if (!axesArg && policy === 'stretch' && (!x || x.length === sizes.length)) {
          set(0, sizes);
          return;
        }
        if (!x) return;
        const axes = axesOf(axesArg ?? x.map((_, i) => i), x.length);
        if (!axes || axes.length !== sizes.length) return;
        const result = [...x];
        if (policy === 'stretch') axes.forEach((axis, i) => (result[axis] = sizes[i] as number));
        else {
          const ratios = axes.map((axis, i) => (sizes[i] as number) / (x[axis] as number));
          const scale = policy === 'not_larger' ? Math.min(...ratios) : Math.max(...ratios);
          axes.forEach((axis) => (result[axis] = Math.round(scale * (x[axis] as number))));
        }
        set(0, result);
        return;
      }
      if (!x) return;
      const scales = op === 'Upsample' && opset < 9 ? floats(node, 'scales') : has(scaleIndex) ? value(scaleIndex)?.data : undefined;
      if (!scales || !scales.length) return;
      const axes = axesOf(axesArg ?? x.map((_, i) => i), x.length);
      if (!axes || axes.length !== scales.length) return;
      const result = [...x];
      axes.forEach((axis, i) => (result[axis] = Math.floor((x[axis] as number) * Math.fround(scales[i] as number))));
      set(0, result);
      return;
    }

    case 'DepthToSpace':
    case 'SpaceToDepth': {
      const x = shape(0);
      const block = intAttribute(node, 'blocksize');
      if (!x || x.length !== 4 || !block) return;
      const [n, c, h, w] = x as [number, number, number, number];
      if (op === 'DepthToSpace') {
        if (c % (block * block)) return;
        set(0, [n, c / (block * block), h * block, w * block]);
      } else {
        if (h % block || w % block) return;
        set(0, [n, c * block * block, h / block, w / block]);
      }
      return;
    }

    case 'RandomNormal':
    case 'RandomUniform': {
      const s = ints(node, 'shape');
      if (s) set(0, s);
      return;
    }

    case 'BlackmanWindow':
    case 'HammingWindow':
    case 'HannWindow': {
      const size = intValues(0)?.[0];
      if (size !== undefined && size >= 0) set(0, [size]);
      return;
    }

    case 'GridSample': {
      const x = shape(0);
      const grid = shape(1);
      if (!x || !grid || x.length < 3 || grid.length !== x.length || grid[0] !== x[0]) return;
      set(0, [x[0] as number, x[1] as number, ...grid.slice(1, -1)]);
      return;
    }

    case 'MaxUnpool': {
      const x = shape(0);
      const kernel = ints(node, 'kernel_shape');
      if (!x || x.length < 3 || !kernel) return;
      if (has(2)) {
        const given = intValues(2);
        if (given && given.length === x.length) set(0, given);
        return;
      }
      const n = x.length - 2;
      const strides = ints(node, 'strides') ?? new Array<number>(n).fill(1);
      const pads = ints(node, 'pads') ?? new Array<number>(2 * n).fill(0);
      if (kernel.length !== n || strides.length !== n || pads.length !== 2 * n) return;
      const spatial = x.slice(2).map((d, i) => (d - 1) * (strides[i] as number) + (kernel[i] as number) - (pads[i] as number) - (pads[i + n] as number));
      set(0, [x[0] as number, x[1] as number, ...spatial]);
      return;
    }

    case 'Det': {
      const x = shape(0);
      if (x && x.length >= 2) set(0, x.slice(0, -2));
      return;
    }

    case 'RoiAlign': {
      const x = shape(0);
      const rois = shape(1);
      if (!x || !rois || x.length !== 4 || rois.length !== 2) return;
      set(0, [rois[0] as number, x[1] as number, int(node, 'output_height', 1), int(node, 'output_width', 1)]);
      return;
    }

    case 'SoftmaxCrossEntropyLoss':
    case 'NegativeLogLikelihoodLoss': {
      const reduction = str(node, 'reduction', 'mean');
      set(0, reduction === 'none' ? shape(1) : []);
      if (op === 'SoftmaxCrossEntropyLoss' && nOut > 1) set(1, shape(0));
      return;
    }

    case 'RNN':
    case 'GRU':
    case 'LSTM': {
      const x = shape(0);
      const hidden = intAttribute(node, 'hidden_size');
      if (!x || x.length !== 3 || !hidden) return;
      const directions = str(node, 'direction', 'forward') === 'bidirectional' ? 2 : 1;
      const layout = int(node, 'layout', 0);
      const [seq, batch] = layout ? [x[1] as number, x[0] as number] : [x[0] as number, x[1] as number];
      set(0, layout ? [batch, seq, directions, hidden] : [seq, directions, batch, hidden]);
      const state = layout ? [batch, directions, hidden] : [directions, batch, hidden];
      for (let i = 1; i < Math.min(nOut, 3); i++) set(i, state);
      return;
    }

    case 'Einsum': {
      const equation = str(node, 'equation', '');
      const operands = inputs.map((_, i) => shape(i));
      if (operands.some((s) => !s)) return;
      set(0, einsumShape(equation, operands as Shape[]));
      return;
    }

    default:
      return;
  }
}

/** numpy matmul: 1-D operands are promoted and the added dim removed again; batch dims broadcast. */
export function matmulShape(a: Shape, b: Shape): Shape | undefined {
  if (!a.length || !b.length) return undefined;
  const a2 = a.length === 1 ? [1, a[0] as number] : a;
  const b2 = b.length === 1 ? [b[0] as number, 1] : b;
  const k = a2[a2.length - 1];
  if (k !== b2[b2.length - 2]) return undefined;
  const batch = broadcastShapes([a2.slice(0, -2), b2.slice(0, -2)]);
  if (!batch) return undefined;
  const result = [...batch];
  if (a.length > 1) result.push(a2[a2.length - 2] as number);
  if (b.length > 1) result.push(b2[b2.length - 1] as number);
  return result;
}

/** Spatial output dims of a convolution or pooling window (kernel, strides, pads, dilations, auto_pad). */
function windowOutput(node: onnx.INodeProto, input: Shape, kernel: number[], ceilMode: boolean): Shape | undefined {
  const n = input.length;
  const strides = ints(node, 'strides') ?? new Array<number>(n).fill(1);
  const dilations = ints(node, 'dilations') ?? new Array<number>(n).fill(1);
  const pads = ints(node, 'pads') ?? new Array<number>(2 * n).fill(0);
  const autoPad = str(node, 'auto_pad', 'NOTSET');
  if (kernel.length !== n || strides.length !== n || dilations.length !== n || pads.length !== 2 * n) return undefined;
  const result: Shape = [];
  for (let i = 0; i < n; i++) {
    const size = input[i] as number;
    const stride = strides[i] as number;
    const extent = ((kernel[i] as number) - 1) * (dilations[i] as number) + 1;
    if (stride <= 0) return undefined;
    let out: number;
    if (autoPad === 'SAME_UPPER' || autoPad === 'SAME_LOWER') out = Math.ceil(size / stride);
    else if (autoPad === 'VALID') out = (ceilMode ? Math.ceil : Math.floor)((size - extent) / stride) + 1;
    else {
      const padHead = pads[i] as number;
      const padded = size + padHead + (pads[i + n] as number);
      out = (ceilMode ? Math.ceil : Math.floor)((padded - extent) / stride) + 1;
      // A window that would start in the trailing padding is dropped.
      if (ceilMode && (out - 1) * stride >= size + padHead) out--;
    }
    if (out < 0) return undefined;
    result.push(out);
  }
  return result;
}

/** [start, end, step] of a Slice along one axis, indices normalized and clamped as ONNX does. */
function sliceRange(dim: number, start: number, end: number, step: number): [number, number, number] | undefined {
  if (!step) return undefined;
  let s = start < 0 ? start + dim : start;
  let e = end < 0 ? end + dim : end;
  if (step > 0) {
    s = Math.min(Math.max(s, 0), dim);
    e = Math.min(Math.max(e, 0), dim);
  } else {
    s = Math.min(Math.max(s, 0), dim - 1);
    e = Math.min(Math.max(e, -1), dim - 1);
  }
  return [s, e, step];
}

function sliceLength([start, end, step]: [number, number, number]): number {
  return Math.max(0, Math.ceil((end - start) / step));
}

/**
 * The size of every label of an Einsum equation (and the broadcast ellipsis dims), given the
 * operand shapes; undefined when the equation or shapes do not fit.
 */
export function einsumLabels(equation: string, operands: readonly Shape[]): { labels: Map<string, number>; ellipsis: Shape; output: string | undefined } | undefined {
  const eq = equation.replace(/\s+/g, '');
  const [lhs, output] = eq.split('->') as [string, string | undefined];
  const terms = lhs.split(',');
  if (terms.length !== operands.length) return undefined;
  const labels = new Map<string, number>();
  const ellipses: Shape[] = [];
  for (let t = 0; t < terms.length; t++) {
    const term = terms[t] as string;
    const shape = operands[t] as Shape;
    const parts = term.split('...');
    if (parts.length > 2) return undefined;
    const letters = parts.join('');
    if (!/^[A-Za-z]*$/.test(letters)) return undefined;
    const ellipsisRank = shape.length - letters.length;
    if (ellipsisRank < 0 || (parts.length === 1 && ellipsisRank !== 0)) return undefined;
    const head = (parts[0] as string).length;
    ellipses.push(shape.slice(head, head + ellipsisRank));
    const dims = [...shape.slice(0, head), ...shape.slice(head + ellipsisRank)];
    for (let i = 0; i < letters.length; i++) {
      const label = letters[i] as string;
      const d = dims[i] as number;
      const seen = labels.get(label);
      if (seen === undefined || seen === 1) labels.set(label, d);
      else if (d !== seen && d !== 1) return undefined;
    }
  }
  const ellipsis = broadcastShapes(ellipses);
  if (!ellipsis) return undefined;
  return { labels, ellipsis, output };
}

function einsumShape(equation: string, operands: readonly Shape[]): Shape | undefined {
  const parsed = einsumLabels(equation, operands);
  if (!parsed) return undefined;
  const { labels, ellipsis } = parsed;
  let output = parsed.output;
  if (output === undefined) {
    const counts = new Map<string, number>();
    for (const ch of equation.split('->')[0] ?? '') if (/[A-Za-z]/.test(ch)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    output = `...${[...counts].filter(([, c]) => c === 1).map(([l]) => l).sort().join('')}`;
  }
  const result: Shape = [];
  const parts = output.split('...');
  if (parts.length > 2) return undefined;
  for (let p = 0; p < parts.length; p++) {
    if (p === 1) result.push(...ellipsis);
    for (const label of parts[p] as string) {
      const d = labels.get(label);
      if (d === undefined) return undefined;
      result.push(d);
    }
  }
  return result;
}
