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
 *
 * Shapes are hash-consed: every value of one shape gets the same frozen array (a transformer has a
 * dozen distinct shapes among hundreds of thousands of values), so what the result retains per
 * value is its map entry, not an array of its own.
 */
import type Long from 'long';
import { dtypeAttribute, findAttribute, intAttribute, intsAttribute as ints } from './attributes.js';
import { DataType } from './data-types.js';
import { isExternal, longToNumber } from './external-data.js';
import { float16BitsToFloat32 } from './float16.js';
import type { onnx } from './generated/onnx.js';
import { slotCountOf, type GraphScope, type ModelGraph } from './graph.js';
import { normalizeDomain, opsetsOf } from './opsets.js';
import { decodeUtf8 } from './utf8.js';

/** Dims of a value. Shapes returned by inference are shared between values and frozen: never mutate one. */
export type Shape = readonly number[];

/** The values of a small 0-D or 1-D tensor, with its element type. */
export interface KnownValue {
  data: number[];
  type: number;
}

export interface ShapeInferenceResult {
  /** Value name -> fully known dims (main graph); values of one shape share one frozen array. */
  shapes: ReadonlyMap<string, Shape>;
  /** Value name -> values of small 0-D/1-D tensors whose contents are known statically. */
  values: ReadonlyMap<string, KnownValue>;
}

/** Tensors with more elements than this do not have their values tracked. */
const MAX_VALUES = 1024;
/** The default-domain opset assumed when the model imports none. */
const DEFAULT_OPSET = 21;

export interface ShapeInferenceOptions {
  /**
   * Graph input name -> the declaration read in place of the main graph's own (staticInputs() of
   * static-dims.ts: --dim sizes for symbolic dims), so that no second graph model is built for them.
   */
  inputs?: ReadonlyMap<string, onnx.IValueInfoProto>;
}

/** Value name -> fully known integer dims, for the values of the main graph whose shape is known. */
export function inferShapes(graph: ModelGraph, options: ShapeInferenceOptions = {}): ReadonlyMap<string, Shape> {
  // The known values are dropped here: the initializers no rule asked for are left unread (reading
  // every small initializer into numbers was a good part of a big model's shape inference).
  return inferInto(graph, options).shapes;
}

export function inferShapesAndValues(graph: ModelGraph, options: ShapeInferenceOptions = {}): ShapeInferenceResult {
  const result = inferInto(graph, options);
  (result.values as KnownValues).readAll();
  return result;
}

function inferInto(graph: ModelGraph, options: ShapeInferenceOptions): ShapeInferenceResult {
  const shapes = new ShapesById(graph.main);
  const values = new KnownValues(graph.main.initializers);
  try {
    const opset = opsetsOf(graph.model).get('') ?? DEFAULT_OPSET;
    run(graph.main, opset, shapes, values, options.inputs);
  } catch {
    // Never fail the caller: whatever was inferred before the surprise stays.
  }
  return { shapes, values };
}

// ---------------------------------------------------------------------------------------------
// Shapes by value

/**
 * Value name -> shape, kept by the scope's value ids: a small code per value (which of the few
 * distinct shapes it has) in a typed array, where a Map of every value's name grew its table
 * insertion by insertion and hashed each name a second time (a big model's shape inference spent
 * most of its own time inserting). Names the scope's index does not know (an initializer no node
 * reads, a graph input) go to a Map of their own.
 */
export class ShapesById implements ReadonlyMap<string, Shape> {
  /** By value id: 0 not known, else 1 + the shape's index in `distinct`. */
  private codes = new Int32Array(1024);
  private readonly distinct: Shape[] = [];
  /** The code of each shape array in `distinct` (a handful of entries: shapes are interned). */
  private readonly codeOf = new Map<Shape, number>();
  private readonly unindexed = new Map<string, Shape>();
  private indexedCount = 0;

  /** The scope whose value ids key the shapes (the main graph). */
  constructor(readonly scope: GraphScope) {}

  get size(): number {
    return this.indexedCount + this.unindexed.size;
  }

  /** get(name), given the name's id in the scope's index (-1: none), as a checked hint answers it. */
  getById(id: number, name: string): Shape | undefined {
    if (id < 0) return this.unindexed.get(name);
    const code = id < this.codes.length ? (this.codes[id] as number) : 0;
    return code === 0 ? undefined : this.distinct[code - 1];
  }

  get(name: string): Shape | undefined {
    const id = this.scope.valueIdOf(name);
    if (id < 0) return this.unindexed.get(name);
    const code = id < this.codes.length ? (this.codes[id] as number) : 0;
    return code === 0 ? undefined : this.distinct[code - 1];
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  set(name: string, shape: Shape): this {
    return this.setById(this.scope.valueIdOf(name), name, shape);
  }

  /** set(name, shape), given the name's id in the scope's index (-1: none). */
  setById(id: number, name: string, shape: Shape): this {
    if (id < 0) {
      this.unindexed.set(name, shape);
      return this;
    }
    let code = this.codeOf.get(shape);
    if (code === undefined) {
      this.distinct.push(shape);
      code = this.distinct.length;
      this.codeOf.set(shape, code);
    }
    let codes = this.codes;
    if (id >= codes.length) {
      codes = new Int32Array(Math.max(codes.length * 2, id + 1));
      codes.set(this.codes);
      this.codes = codes;
    }
    if (codes[id] === 0) this.indexedCount++;
    codes[id] = code;
    return this;
  }

  delete(name: string): boolean {
    const id = this.scope.valueIdOf(name);
    if (id < 0) return this.unindexed.delete(name);
    if (id >= this.codes.length || this.codes[id] === 0) return false;
    this.codes[id] = 0;
    this.indexedCount--;
    return true;
  }

  /** Indexed names in id order, then the others in insertion order. */
  *entries(): MapIterator<[string, Shape]> {
    const codes = this.codes;
    for (const [name, id] of this.scope.valueIds()) {
      const code = id < codes.length ? (codes[id] as number) : 0;
      if (code !== 0) yield [name, this.distinct[code - 1] as Shape];
    }
    yield* this.unindexed.entries();
  }

  *keys(): MapIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): MapIterator<Shape> {
    for (const [, shape] of this.entries()) yield shape;
  }

  [Symbol.iterator](): MapIterator<[string, Shape]> {
    return this.entries();
  }

  forEach(callback: (shape: Shape, name: string, map: ReadonlyMap<string, Shape>) => void, thisArg?: unknown): void {
    for (const [name, shape] of this.entries()) callback.call(thisArg, shape, name, this);
  }
}

// ---------------------------------------------------------------------------------------------
// One array per distinct shape

interface ShapeTrieNode {
  /** The shared array of the dims that lead here, once some value had them. */
  shape: Shape | undefined;
  /** Next dim -> node: a small map per distinct prefix (a handful for a whole transformer). */
  next: Map<number, ShapeTrieNode> | undefined;
}

/**
 * Hash-consing of shapes: a trie keyed by dims, so that looking a shape up costs one small-integer
 * map lookup per dim and no key string per value.
 */
export class ShapeTable {
  private readonly root: ShapeTrieNode = { shape: undefined, next: undefined };

  /**
   * The table's frozen array equal to `dims` (a copy is made the first time, so the caller may
   * reuse its array); undefined when some dim is not a non-negative safe integer.
   */
  intern(dims: readonly number[], length = dims.length): Shape | undefined {
    let at = this.root;
    for (let i = 0; i < length; i++) {
      const d = dims[i] as number;
      let next = at.next?.get(d);
      if (next === undefined) {
        if (!Number.isSafeInteger(d) || d < 0) return undefined;
        next = { shape: undefined, next: undefined };
        (at.next ??= new Map()).set(d, next);
      }
      if (d === 0 && Object.is(d, -0)) return minusZeroShape(dims.slice(0, length));
      at = next;
    }
    return (at.shape ??= Object.freeze(dims.slice(0, length)));
  }

  /** The interned dims of a tensor (initializer, Constant), or undefined when some dim is invalid. */
  tensorDims(tensor: onnx.ITensorProto): Shape | undefined {
    return this.internLongs(tensor.dims);
  }

  /** Interns int64 dims as the decoder gives them (numbers or Longs), through one reused array. */
  internLongs(list: ArrayLike<number | Long> | null | undefined): Shape | undefined {
    const length = list ? list.length : 0;
    for (let i = 0; i < length; i++) scratch[i] = longToNumber((list as ArrayLike<number | Long>)[i]);
    return this.intern(scratch, length);
  }
}

/**
 * Reused by internLongs and declaredDims, written by index and never emptied (emptying an array
 * drops its backing store, and the next write allocates one): the table copies what it keeps.
 */
const scratch: number[] = [];

/**
 * -0 and 0 are one key of a Map, but a rule can compute -0 (0 times a negative scale): such a
 * shape keeps its own array, as it did before shapes were shared, so that no output changes.
 */
function minusZeroShape(dims: readonly number[]): Shape | undefined {
  return dims.every((d) => Number.isSafeInteger(d) && d >= 0) ? Object.freeze(dims.slice()) : undefined;
}

/**
 * Known values, with the initializers' values read from their tensors only when a rule asks for
 * one: most small initializers of a big model are biases and norm weights no shape depends on,
 * and reading each into an array of numbers cost time and memory for nothing. The initializers
 * are looked up in the graph's own map when asked for, not copied into one of their own.
 */
class KnownValues extends Map<string, KnownValue> {
  /** Initializers read already (or that failed to read), or sparse ones: never read (again). */
  private readonly done = new Set<string>();

  constructor(private readonly initializers: ReadonlyMap<string, onnx.ITensorProto>) {
    super();
  }

  /** Leaves an initializer unread for good (a sparse initializer's values). */
  skipInitializer(name: string): void {
    super.delete(name);
    this.done.add(name);
  }

  override get(name: string): KnownValue | undefined {
    const known = super.get(name);
    if (known !== undefined) return known;
    const tensor = this.initializers.get(name);
    if (tensor === undefined || this.done.has(name)) return undefined;
    this.done.add(name);
    const dims = tensorDimsOf(tensor);
    const data = dims && dims.length <= 1 ? tensorValues(tensor, dims) : undefined;
    if (!data) return undefined;
    const value = { data, type: tensor.data_type ?? 0 };
    super.set(name, value);
    return value;
  }

  /** Reads every initializer not read yet (for a caller that wants all known values). */
  readAll(): void {
    for (const name of this.initializers.keys()) this.get(name);
  }
}

function run(
  scope: GraphScope,
  opset: number,
  shapes: ShapesById,
  values: KnownValues,
  inputs: ReadonlyMap<string, onnx.IValueInfoProto> | undefined,
): void {
  const table = new ShapeTable();
  // forEach: a for-of over a map's entries makes an [name, tensor] array per initializer. Their ids
  // come from the hints the graph model noted in the same order (checked), not from hashing.
  const initializerIds = scope.initializerIdHints();
  let position = 0;
  scope.initializers.forEach((tensor, name) => {
    const hint = initializerIds ? initializerIds[position++] : undefined;
    const dims = table.tensorDims(tensor);
    if (dims) shapes.setById(scope.hintedValueId(hint, name), name, dims);
  });
  for (const sparse of scope.graph.sparse_initializer ?? []) {
    const name = sparse.values?.name;
    if (!name) continue;
    values.skipInitializer(name);
    const dims = table.internLongs(sparse.dims);
    if (dims) shapes.set(name, dims);
    else shapes.delete(name);
  }
  scope.inputs.forEach((info, name) => {
    if (scope.initializers.has(name)) return;
    const dims = declaredDims(inputs?.get(name) ?? info, table);
    if (dims) shapes.set(name, dims);
  });

  const order = scope.topologicalOrder().order;
  // The ids of the nodes' names by position (each node's outputs, then its inputs), checked against
  // the name before use: no name of an unedited graph is hashed again to find its shape.
  const hints = scope.valueIdHints(order);
  const rules = new NodeRules(opset, shapes, values, table, scope, hints);
  let at = 0;
  for (let n = 0; n < order.length; n++) {
    const node = order[n] as onnx.INodeProto;
    const outputs = node.output;
    const slotAt = at;
    if (hints) at += slotCountOf(node);
    if (!outputs?.length) continue;
    rules.reset(node, slotAt);
    if (normalizeDomain(node.domain) === '' && !scope.subgraphsOf(node).length) {
      try {
        inferNode(rules, node);
      } catch {
        rules.reset(node, slotAt);
      }
    }
    const inferred = rules.out;
    const inferredValues = rules.outValues;
    for (let i = 0; i < outputs.length; i++) {
      const name = outputs[i];
      if (!name) continue;
      // Rules' shapes are interned (and checked) by set(); declarations fill in the rest.
      const known = inferred[i] ?? declaredShape(scope, name, table);
      if (!known) continue;
      shapes.setById(scope.hintedValueId(hints ? hints[slotAt + i] : undefined, name), name, known);
      const value = inferredValues[i];
      if (value && known.length <= 1 && product(known) === value.data.length && value.data.every(Number.isFinite)) values.set(name, value);
    }
  }
}

/**
 * The state of the rule of one node, made once per inference and reset for each node: the rules
 * read their inputs through its methods, with no closure or result array made per node.
 */
class NodeRules {
  inputs: readonly string[] = [];
  nOut = 0;
  op = '';
  /** The rule's results, by output slot (interned shapes; values of small tensors). */
  readonly out: (Shape | undefined)[] = [];
  readonly outValues: (KnownValue | undefined)[] = [];
  /** Scratch list of an elementwise node's operand shapes (see the BROADCAST rule). */
  readonly operands: Shape[] = [];

  constructor(
    readonly opset: number,
    private readonly shapes: ShapesById,
    private readonly values: ReadonlyMap<string, KnownValue>,
    private readonly table: ShapeTable,
    private readonly scope: GraphScope,
    /** The scope's id hints for the order walked (GraphScope.valueIdHints()), if any. */
    private readonly hints: Int32Array | undefined,
  ) {}

  /** Where this node's input ids start in `hints`. */
  private inputSlots = 0;

  reset(node: onnx.INodeProto, slotAt = 0): void {
    this.inputs = node.input ?? [];
    this.inputSlots = slotAt + (node.output ?? []).length;
    this.nOut = (node.output ?? []).length;
    this.op = node.op_type ?? '';
    // Cleared by index, not by length = 0, which would drop the arrays' backing stores.
    for (let i = 0; i < this.out.length; i++) this.out[i] = undefined;
    for (let i = 0; i < this.outValues.length; i++) this.outValues[i] = undefined;
  }

  has(i: number): boolean {
    return !!this.inputs[i];
  }

  shape(i: number): Shape | undefined {
    const name = this.inputs[i];
    if (!name) return undefined;
    const hints = this.hints;
    return this.shapes.getById(this.scope.hintedValueId(hints ? hints[this.inputSlots + i] : undefined, name), name);
  }

  value(i: number): KnownValue | undefined {
    const name = this.inputs[i];
    if (!name) return undefined;
    const found = this.values.get(name);
    if (found) return found;
    // A tensor with no elements has known (empty) contents, whatever feeds it.
    const s = this.shapes.get(name);
    return s && s.length <= 1 && product(s) === 0 ? { data: [], type: 0 } : undefined;
  }

  /** The integer values of an input (a shape argument). */
  intValues(i: number): number[] | undefined {
    const v = this.value(i);
    return v && v.data.every(Number.isInteger) ? v.data : undefined;
  }

  /** Records output i's shape (interned here: a rule may pass an array it reuses) and value. */
  set(i: number, s: readonly number[] | undefined, v?: KnownValue): void {
    this.out[i] = s && this.table.intern(s);
    if (v) this.outValues[i] = v;
  }

  /** Values of elementwise ops on small known tensors. */
  elementwiseValues(outShape: Shape | undefined, type: number, indices: readonly number[]): KnownValue | undefined {
    const op = this.op;
    const fn = VALUE_OPS[op];
    if (!fn || !outShape || outShape.length > 1) return undefined;
    const args = indices.map((i) => this.value(i));
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
  }
}

// ---------------------------------------------------------------------------------------------
// Reading declarations, tensors and attributes

/** A node output's declared shape: the graph output's declaration first, then value_info's. */
function declaredShape(scope: GraphScope, name: string, table: ShapeTable): Shape | undefined {
  const output = scope.outputs.get(name);
  const fromOutput = output && declaredDims(output, table);
  if (fromOutput) return fromOutput;
  const info = scope.valueInfo.get(name);
  return info && declaredDims(info, table);
}

function declaredDims(info: onnx.IValueInfoProto, table: ShapeTable): Shape | undefined {
  const shape = info.type?.tensor_type?.shape;
  if (!shape) return undefined;
  const dims = shape.dim ?? [];
  for (let i = 0; i < dims.length; i++) {
    const d = dims[i] as onnx.TensorShapeProto.IDimension;
    if (!Object.hasOwn(d, 'dim_value') || d.dim_value == null) return undefined;
    scratch[i] = longToNumber(d.dim_value);
  }
  return table.intern(scratch, dims.length);
}

/** A tensor's dims, not interned (reading an initializer's or attribute's values). */
function tensorDimsOf(tensor: onnx.ITensorProto): number[] | undefined {
  const dims = (tensor.dims ?? []).map((d) => longToNumber(d));
  return validShape(dims) ? dims : undefined;
}

function validShape(dims: readonly number[]): boolean {
  return dims.every((d) => Number.isSafeInteger(d) && d >= 0);
}
function product(dims: readonly number[]): number {
  let result = 1;
  for (let i = 0; i < dims.length; i++) result *= dims[i] as number;
  return result;
}

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

function floats(node: onnx.INodeProto, name: string): number[] | undefined {
  const list = findAttribute(node, name)?.floats;
  return list && list.length ? [...list] : undefined;
}

function int(node: onnx.INodeProto, name: string, fallback: number): number {
  return intAttribute(node, name) ?? fallback;
}

function str(node: onnx.INodeProto, name: string, fallback: string): string {
  const attribute = findAttribute(node, name);
  return attribute?.s && attribute.s.length ? decodeUtf8(attribute.s) : fallback;
}

/** An axis in [-rank, rank) made non-negative; undefined when out of range. */
function axisOf(axis: number, rank: number): number | undefined {
  const a = axis < 0 ? axis + rank : axis;
  return Number.isInteger(a) && a >= 0 && a < rank ? a : undefined;
}

function axesOf(axes: readonly number[], rank: number): number[] | undefined {
  const result: number[] = [];
  for (let i = 0; i < axes.length; i++) {
    const a = axisOf(axes[i] as number, rank);
    if (a === undefined || result.includes(a)) return undefined;
    result.push(a);
  }
  return result;
}

/**
 * Multidirectional (numpy) broadcasting; undefined when the shapes do not broadcast. The result
 * is one of the operands when that operand is the broadcast shape (a bias added to activations,
 * two activations of one shape): no new array then.
 */
export function broadcastShapes(shapes: readonly Shape[]): Shape | undefined {
  // Index loops throughout: until a function is optimized, each for-of step makes an object.
  let rank = 0;
  for (let s = 0; s < shapes.length; s++) rank = Math.max(rank, (shapes[s] as Shape).length);
  for (let s = 0; s < shapes.length; s++) {
    const candidate = shapes[s] as Shape;
    if (candidate.length === rank && broadcastsTo(shapes, candidate)) return candidate;
  }
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    let dim = 1;
    for (let s = 0; s < shapes.length; s++) {
      const shape = shapes[s] as Shape;
      const d = shape[shape.length - rank + i];
      if (d === undefined || d === 1) continue;
      if (dim === 1) dim = d;
      else if (d !== dim) return undefined;
    }
    out.push(dim);
  }
  return out;
}

/** Whether every shape broadcasts to `target` (each dim 1 or equal, aligned at the end). */
function broadcastsTo(shapes: readonly Shape[], target: Shape): boolean {
  for (let s = 0; s < shapes.length; s++) {
    const shape = shapes[s] as Shape;
    if (shape === target) continue;
    const offset = target.length - shape.length;
    for (let i = 0; i < shape.length; i++) {
      const d = shape[i];
      if (d !== 1 && d !== target[i + offset]) return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Operator rules

const ONLY_FIRST_INPUT: readonly number[] = [0];

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

/**
 * The rule of each default-domain op: one small function per rule, found in one map lookup. (One
 * function with every rule in a switch took V8 some 60 ms to optimize, on the first call of a
 * process, the only one a command-line run makes; small rules are optimized one by one as they
 * get hot.)
 */
type Rule = (c: NodeRules, node: onnx.INodeProto) => void;

function inferNode(c: NodeRules, node: onnx.INodeProto): void {
  RULES.get(c.op)?.(c, node);
}

function sameShapeRule(c: NodeRules, node: onnx.INodeProto): void {
  const nOut = c.nOut;
  const op = c.op;
  const s = c.shape(0);
  let v: KnownValue | undefined;
  if (op === 'Cast') {
    const to = dtypeAttribute(node, 'to');
    const input = c.value(0);
    if (input && to !== undefined) v = { data: input.data.map((x) => convertTo(x, to)), type: to };
  } else if ((op === 'Identity' || VALUE_OPS[op]) && s && s.length <= 1) {
    // Values only of small tensors (shape arithmetic): a big activation costs no value lookups.
    const type = c.value(0)?.type ?? 0;
    v = c.elementwiseValues(s, COMPARISON.has(op) ? DataType.BOOL : type, ONLY_FIRST_INPUT);
  }
  c.set(0, s, v);
  if (op === 'Dropout' && nOut > 1) c.set(1, s);
  if (op === 'DynamicQuantizeLinear') {
    c.set(1, []);
    c.set(2, []);
  }
  if ((op === 'LayerNormalization' || op === 'SimplifiedLayerNormalization') && s && nOut > 1) {
    const axis = axisOf(int(node, 'axis', -1), s.length);
    if (axis !== undefined) {
      const stat = s.map((d, i) => (i < axis ? d : 1));
      for (let i = 1; i < nOut; i++) c.set(i, stat);
    }
  }
  if (op === 'BatchNormalization' && nOut > 1 && s && s.length >= 2) {
    // Training mode (opset 14+): running mean and variance; older saved mean/var too.
    for (let i = 1; i < nOut; i++) c.set(i, [s[1] as number]);
  }
}

function broadcastRule(c: NodeRules, node: onnx.INodeProto): void {
  const inputs = c.inputs;
  const op = c.op;
  const opset = c.opset;
  // The operands' list is the rules' own, reused for every elementwise node.
  const list = c.operands;
  let count = 0;
  for (let i = 0; i < inputs.length; i++) {
    if (!c.has(i)) continue;
    const s = c.shape(i);
    if (!s) return;
    list[count++] = s;
  }
  if (!count) return;
  list.length = count;
  // Before opset 7, the second operand broadcast to the first (attribute `broadcast`).
  const s = opset < 7 && list.length === 2 && intAttribute(node, 'broadcast') ? list[0] : broadcastShapes(list);
  if (op === 'PRelu' && s && list[0] && s.length !== list[0].length) return;
  let v: KnownValue | undefined;
  // Values only of small results (shape arithmetic): a big tensor's add costs no value lookups.
  if (s && s.length <= 1 && VALUE_OPS[op]) {
    const type = op === 'Where' ? (c.value(1)?.type ?? 0) : (c.value(0)?.type ?? 0);
    const indices = inputs.map((_, i) => i).filter((i) => c.has(i));
    v = c.elementwiseValues(s, COMPARISON.has(op) ? DataType.BOOL : type, indices);
  }
  c.set(0, s, v);
}

function reduceRule(c: NodeRules, node: onnx.INodeProto): void {
  const op = c.op;
  const opset = c.opset;
  const s = c.shape(0);
  if (!s) return;
  const keepdims = int(node, 'keepdims', 1);
  const axesFromInput = op === 'ReduceSum' ? opset >= 13 : opset >= 18;
  let axes: number[] | undefined;
  if (axesFromInput) {
    if (c.has(1)) {
      axes = c.intValues(1);
      if (!axes) return;
    }
  } else axes = ints(node, 'axes');
  if (!axes || !axes.length) {
    if (axesFromInput && int(node, 'noop_with_empty_axes', 0)) {
      c.set(0, s);
      return;
    }
    axes = s.map((_, i) => i);
  }
  const normalized = axesOf(axes, s.length);
  if (!normalized) return;
  const reduced = new Set(normalized);
  const result: number[] = [];
  s.forEach((d, i) => {
    if (!reduced.has(i)) result.push(d);
    else if (keepdims) result.push(1);
  });
  c.set(0, result);
}

/** Constant. */
function constantRule(c: NodeRules, node: onnx.INodeProto): void {
  const attribute = node.attribute?.[0];
  if (!attribute) return;
  switch (attribute.name) {
    case 'value': {
      if (!attribute.t) return;
      const dims = tensorDimsOf(attribute.t);
      const data = dims && tensorValues(attribute.t, dims);
      c.set(0, dims, data ? { data, type: attribute.t.data_type ?? 0 } : undefined);
      return;
    }
    case 'sparse_value': {
      const dims = (attribute.sparse_tensor?.dims ?? []).map((d) => longToNumber(d));
      c.set(0, dims);
      return;
    }
    case 'value_int':
      c.set(0, [], { data: [longToNumber(attribute.i)], type: DataType.INT64 });
      return;
    case 'value_ints': {
      const data = (attribute.ints ?? []).map((v) => longToNumber(v));
      c.set(0, [data.length], { data, type: DataType.INT64 });
      return;
    }
    case 'value_float':
      c.set(0, [], { data: [attribute.f ?? 0], type: DataType.FLOAT });
      return;
    case 'value_floats': {
      const data = [...(attribute.floats ?? [])];
      c.set(0, [data.length], { data, type: DataType.FLOAT });
      return;
    }
    case 'value_string':
      c.set(0, []);
      return;
    case 'value_strings':
      c.set(0, [(attribute.strings ?? []).length]);
      return;
    default:
      return;
  }
}

/** MatMul, MatMulInteger, QLinearMatMul. */
function matmulRule(c: NodeRules): void {
  const op = c.op;
  const a = c.shape(0);
  const b = c.shape(op === 'QLinearMatMul' ? 3 : 1);
  c.set(0, a && b ? matmulShape(a, b) : undefined);
}

/** Gemm. */
function gemmRule(c: NodeRules, node: onnx.INodeProto): void {
  const a = c.shape(0);
  const b = c.shape(1);
  if (!a || !b || a.length !== 2 || b.length !== 2) return;
  const m = int(node, 'transA', 0) ? a[1] : a[0];
  const ka = int(node, 'transA', 0) ? a[0] : a[1];
  const kb = int(node, 'transB', 0) ? b[1] : b[0];
  const n = int(node, 'transB', 0) ? b[0] : b[1];
  if (ka !== kb) return;
  c.set(0, [m as number, n as number]);
}

/** Conv, ConvInteger, QLinearConv. */
function convolutionRule(c: NodeRules, node: onnx.INodeProto): void {
  const op = c.op;
  const x = c.shape(0);
  const w = c.shape(op === 'QLinearConv' ? 3 : 1);
  if (!x || !w || x.length < 3 || w.length !== x.length) return;
  const kernel = ints(node, 'kernel_shape') ?? w.slice(2);
  const spatial = windowOutput(node, x.slice(2), kernel, false);
  if (spatial) c.set(0, [x[0] as number, w[0] as number, ...spatial]);
}

/** ConvTranspose. */
function convTransposeRule(c: NodeRules, node: onnx.INodeProto): void {
  const x = c.shape(0);
  const w = c.shape(1);
  if (!x || !w || x.length < 3 || w.length !== x.length) return;
  const n = x.length - 2;
  const group = int(node, 'group', 1);
  const channels = (w[1] as number) * group;
  const outputShape = ints(node, 'output_shape');
  if (outputShape) {
    const spatial = outputShape.length === n + 2 ? outputShape.slice(2) : outputShape;
    if (spatial.length !== n) return;
    c.set(0, [x[0] as number, channels, ...spatial]);
    return;
  }
  const kernel = ints(node, 'kernel_shape') ?? w.slice(2);
  const strides = ints(node, 'strides') ?? new Array<number>(n).fill(1);
  const dilations = ints(node, 'dilations') ?? new Array<number>(n).fill(1);
  const outputPadding = ints(node, 'output_padding') ?? new Array<number>(n).fill(0);
  const pads = ints(node, 'pads') ?? new Array<number>(2 * n).fill(0);
  const autoPad = str(node, 'auto_pad', 'NOTSET');
  if (kernel.length !== n || strides.length !== n || dilations.length !== n || outputPadding.length !== n || pads.length !== 2 * n) return;
  const spatial: number[] = [];
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
  c.set(0, [x[0] as number, channels, ...spatial]);
}

/** MaxPool, AveragePool, LpPool. */
function poolRule(c: NodeRules, node: onnx.INodeProto): void {
  const nOut = c.nOut;
  const op = c.op;
  const x = c.shape(0);
  const kernel = ints(node, 'kernel_shape');
  if (!x || x.length < 3 || !kernel) return;
  const spatial = windowOutput(node, x.slice(2), kernel, !!int(node, 'ceil_mode', 0));
  if (!spatial) return;
  const s = [x[0] as number, x[1] as number, ...spatial];
  c.set(0, s);
  if (op === 'MaxPool' && nOut > 1) c.set(1, s);
}

/** GlobalAveragePool, GlobalMaxPool, GlobalLpPool. */
function globalPoolRule(c: NodeRules): void {
  const x = c.shape(0);
  if (!x || x.length < 2) return;
  c.set(0, [x[0] as number, x[1] as number, ...x.slice(2).map(() => 1)]);
}

/** Flatten. */
function flattenRule(c: NodeRules, node: onnx.INodeProto): void {
  const x = c.shape(0);
  if (!x) return;
  let axis = int(node, 'axis', 1);
  if (axis < 0) axis += x.length;
  if (axis < 0 || axis > x.length) return;
  c.set(0, [product(x.slice(0, axis)), product(x.slice(axis))]);
}

/** Reshape. */
function reshapeRule(c: NodeRules, node: onnx.INodeProto): void {
  const opset = c.opset;
  const target = opset >= 5 ? c.intValues(1) : ints(node, 'shape');
  if (!target) return;
  const x = c.shape(0);
  const allowzero = int(node, 'allowzero', 0);
  const result: number[] = [];
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
  // A value only for a small result: a big tensor's reshape costs no value lookups.
  c.set(0, result, result.length <= 1 ? c.value(0) : undefined);
}

/** Transpose. */
function transposeRule(c: NodeRules, node: onnx.INodeProto): void {
  const x = c.shape(0);
  if (!x) return;
  const perm = ints(node, 'perm') ?? x.map((_, i) => x.length - 1 - i);
  if (perm.length !== x.length || !axesOf(perm, x.length) || perm.some((p) => p < 0)) return;
  c.set(0, perm.map((p) => x[p] as number));
}

/** Squeeze. */
function squeezeRule(c: NodeRules, node: onnx.INodeProto): void {
  const opset = c.opset;
  const x = c.shape(0);
  if (!x) return;
  const axesArg = opset >= 13 ? (c.has(1) ? c.intValues(1) : []) : (ints(node, 'axes') ?? []);
  if (!axesArg) return;
  let result: Shape;
  if (!axesArg.length) result = x.filter((d) => d !== 1);
  else {
    const axes = axesOf(axesArg, x.length);
    if (!axes || axes.some((a) => x[a] !== 1)) return;
    const drop = new Set(axes);
    result = x.filter((_, i) => !drop.has(i));
  }
  c.set(0, result, c.value(0));
}

/** Unsqueeze. */
function unsqueezeRule(c: NodeRules, node: onnx.INodeProto): void {
  const opset = c.opset;
  const x = c.shape(0);
  const axesArg = opset >= 13 ? c.intValues(1) : ints(node, 'axes');
  if (!x || !axesArg) return;
  const rank = x.length + axesArg.length;
  const axes = axesOf(axesArg, rank);
  if (!axes) return;
  const inserted = new Set(axes);
  const result: number[] = [];
  let k = 0;
  for (let i = 0; i < rank; i++) result.push(inserted.has(i) ? 1 : (x[k++] as number));
  c.set(0, result, c.value(0));
}

/** Concat. */
function concatRule(c: NodeRules, node: onnx.INodeProto): void {
  const inputs = c.inputs;
  const opset = c.opset;
  const list: Shape[] = [];
  for (let i = 0; i < inputs.length; i++) {
    if (!c.has(i)) continue;
    const s = c.shape(i);
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
    const parts = inputs.map((_, i) => i).filter((i) => c.has(i)).map((i) => c.value(i));
    if (parts.every((p) => p)) v = { data: (parts as KnownValue[]).flatMap((p) => p.data), type: (parts[0] as KnownValue).type };
  }
  c.set(0, result, v);
}

/** Split. */
function splitRule(c: NodeRules, node: onnx.INodeProto): void {
  const nOut = c.nOut;
  const opset = c.opset;
  const x = c.shape(0);
  if (!x) return;
  const axis = axisOf(int(node, 'axis', 0), x.length);
  if (axis === undefined) return;
  const dim = x[axis] as number;
  let sizes: number[] | undefined;
  if (opset >= 13 ? c.has(1) : !!ints(node, 'split')) {
    sizes = opset >= 13 ? c.intValues(1) : ints(node, 'split');
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
    c.set(i, s);
  });
}

/** Slice. */
function sliceRule(c: NodeRules, node: onnx.INodeProto): void {
  const opset = c.opset;
  const x = c.shape(0);
  if (!x) return;
  let starts: number[] | undefined;
  let ends: number[] | undefined;
  let axesArg: number[] | undefined;
  let steps: number[] | undefined;
  if (opset >= 10) {
    starts = c.intValues(1);
    ends = c.intValues(2);
    axesArg = c.has(3) ? c.intValues(3) : undefined;
    if (c.has(3) && !axesArg) return;
    steps = c.has(4) ? c.intValues(4) : undefined;
    if (c.has(4) && !steps) return;
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
  const input = c.value(0);
  if (input && x.length === 1) {
    const [start, , step] = ranges.get(0) ?? [0, x[0] as number, 1];
    const data: number[] = [];
    for (let k = 0; k < (result[0] as number); k++) data.push(input.data[start + k * step] as number);
    v = { data, type: input.type };
  }
  c.set(0, result, v);
}

/** Gather. */
function gatherRule(c: NodeRules, node: onnx.INodeProto): void {
  const data = c.shape(0);
  const indices = c.shape(1);
  if (!data || !indices) return;
  const axis = axisOf(int(node, 'axis', 0), data.length);
  if (axis === undefined) return;
  const result = [...data.slice(0, axis), ...indices, ...data.slice(axis + 1)];
  let v: KnownValue | undefined;
  const dataValue = c.value(0);
  const indexValue = c.intValues(1);
  if (dataValue && indexValue && data.length === 1) {
    const n = data[0] as number;
    const picked = indexValue.map((i) => dataValue.data[i < 0 ? i + n : i]);
    if (picked.every((p) => p !== undefined)) v = { data: picked as number[], type: dataValue.type };
  }
  c.set(0, result, v);
}

/** GatherElements. */
function gatherElementsRule(c: NodeRules): void {
  c.set(0, c.shape(1));
}

/** GatherND. */
function gatherNDRule(c: NodeRules, node: onnx.INodeProto): void {
  const data = c.shape(0);
  const indices = c.shape(1);
  if (!data || !indices || !indices.length) return;
  const batchDims = int(node, 'batch_dims', 0);
  const last = indices[indices.length - 1] as number;
  if (batchDims + last > data.length) return;
  c.set(0, [...indices.slice(0, -1), ...data.slice(batchDims + last)]);
}

/** Expand. */
function expandRule(c: NodeRules): void {
  const x = c.shape(0);
  const target = c.intValues(1);
  if (!x || !target) return;
  c.set(0, broadcastShapes([x, target]));
}

/** Tile. */
function tileRule(c: NodeRules): void {
  const x = c.shape(0);
  const repeats = c.intValues(1);
  if (!x || !repeats || repeats.length !== x.length || repeats.some((r) => r < 0)) return;
  c.set(0, x.map((d, i) => d * (repeats[i] as number)));
}

/** Pad. */
function padRule(c: NodeRules, node: onnx.INodeProto): void {
  const opset = c.opset;
  const x = c.shape(0);
  if (!x) return;
  const pads = opset >= 11 ? c.intValues(1) : (ints(node, 'pads') ?? ints(node, 'paddings'));
  if (!pads) return;
  let axes = x.map((_, i) => i);
  if (opset >= 18 && c.has(3)) {
    const given = c.intValues(3);
    const normalized = given && axesOf(given, x.length);
    if (!normalized) return;
    axes = normalized;
  }
  if (pads.length !== 2 * axes.length) return;
  const result = [...x];
  axes.forEach((axis, i) => {
    result[axis] = (result[axis] as number) + (pads[i] as number) + (pads[i + axes.length] as number);
  });
  c.set(0, result);
}

/** ArgMax, ArgMin. */
function argExtremeRule(c: NodeRules, node: onnx.INodeProto): void {
  const x = c.shape(0);
  if (!x) return;
  const axis = axisOf(int(node, 'axis', 0), x.length);
  if (axis === undefined) return;
  const keep = int(node, 'keepdims', 1);
  c.set(0, keep ? x.map((d, i) => (i === axis ? 1 : d)) : x.filter((_, i) => i !== axis));
}

/** TopK. */
function topKRule(c: NodeRules, node: onnx.INodeProto): void {
  const opset = c.opset;
  const x = c.shape(0);
  if (!x) return;
  const k = opset >= 10 ? c.intValues(1)?.[0] : intAttribute(node, 'k');
  const axis = axisOf(int(node, 'axis', -1), x.length);
  if (k === undefined || axis === undefined || k < 0) return;
  const s = x.map((d, i) => (i === axis ? k : d));
  c.set(0, s);
  c.set(1, s);
}

/** Shape. */
function shapeRule(c: NodeRules, node: onnx.INodeProto): void {
  const x = c.shape(0);
  if (!x) return;
  const rank = x.length;
  const clamp = (v: number): number => Math.min(Math.max(v < 0 ? v + rank : v, 0), rank);
  const start = clamp(int(node, 'start', 0));
  const end = clamp(intAttribute(node, 'end') ?? rank);
  const data = x.slice(start, Math.max(start, end));
  c.set(0, [data.length], { data, type: DataType.INT64 });
}

/** Size. */
function sizeRule(c: NodeRules): void {
  const x = c.shape(0);
  c.set(0, [], x ? { data: [product(x)], type: DataType.INT64 } : undefined);
}

/** ConstantOfShape. */
function constantOfShapeRule(c: NodeRules, node: onnx.INodeProto): void {
  const dims = c.intValues(0);
  if (!dims || dims.some((d) => d < 0)) return;
  const tensor = findAttribute(node, 'value')?.t;
  const type = tensor?.data_type ?? DataType.FLOAT;
  let fill = 0;
  if (tensor) {
    const tdims = tensorDimsOf(tensor);
    const data = tdims && tensorValues(tensor, tdims);
    if (data?.length === 1) fill = data[0] as number;
    else if (tdims && product(tdims) === 1) fill = NaN;
  }
  const count = product(dims);
  const v = dims.length <= 1 && count <= MAX_VALUES && !Number.isNaN(fill) ? { data: new Array<number>(count).fill(fill), type } : undefined;
  c.set(0, dims, v);
}

/** Range. */
function rangeRule(c: NodeRules): void {
  const [start, limit, delta] = [c.value(0)?.data[0], c.value(1)?.data[0], c.value(2)?.data[0]];
  if (start === undefined || limit === undefined || delta === undefined || delta === 0) return;
  const n = Math.max(Math.ceil((limit - start) / delta), 0);
  const type = c.value(0)?.type ?? 0;
  const v = n <= MAX_VALUES ? { data: Array.from({ length: n }, (_, i) => convertTo(start + i * delta, type)), type } : undefined;
  c.set(0, [n], v);
}

/** OneHot. */
function oneHotRule(c: NodeRules, node: onnx.INodeProto): void {
  const indices = c.shape(0);
  const depth = c.value(1)?.data[0];
  if (!indices || depth === undefined) return;
  const axis = axisOf(int(node, 'axis', -1), indices.length + 1);
  if (axis === undefined) return;
  const result = [...indices];
  result.splice(axis, 0, Math.trunc(depth));
  c.set(0, result);
}

/** Resize, Upsample. */
function resizeRule(c: NodeRules, node: onnx.INodeProto): void {
  const op = c.op;
  const opset = c.opset;
  const x = c.shape(0);
  const scaleIndex = op === 'Upsample' || opset < 11 ? 1 : 2;
  const sizes = op === 'Resize' && opset >= 11 && c.has(3) ? c.intValues(3) : undefined;
  const axesArg = ints(node, 'axes');
  if (sizes && sizes.length) {
    const policy = str(node, 'keep_aspect_ratio_policy', 'stretch');
    if (!axesArg && policy === 'stretch' && (!x || x.length === sizes.length)) {
      c.set(0, sizes);
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
    c.set(0, result);
    return;
  }
  if (!x) return;
  const scales = op === 'Upsample' && opset < 9 ? floats(node, 'scales') : c.has(scaleIndex) ? c.value(scaleIndex)?.data : undefined;
  if (!scales || !scales.length) return;
  const axes = axesOf(axesArg ?? x.map((_, i) => i), x.length);
  if (!axes || axes.length !== scales.length) return;
  const result = [...x];
  axes.forEach((axis, i) => (result[axis] = Math.floor((x[axis] as number) * Math.fround(scales[i] as number))));
  c.set(0, result);
}

/** DepthToSpace, SpaceToDepth. */
function depthSpaceRule(c: NodeRules, node: onnx.INodeProto): void {
  const op = c.op;
  const x = c.shape(0);
  const block = intAttribute(node, 'blocksize');
  if (!x || x.length !== 4 || !block) return;
  const [n, channels, h, w] = x as [number, number, number, number];
  if (op === 'DepthToSpace') {
    if (channels % (block * block)) return;
    c.set(0, [n, channels / (block * block), h * block, w * block]);
  } else {
    if (h % block || w % block) return;
    c.set(0, [n, channels * block * block, h / block, w / block]);
  }
}

/** RandomNormal, RandomUniform. */
function randomRule(c: NodeRules, node: onnx.INodeProto): void {
  const s = ints(node, 'shape');
  if (s) c.set(0, s);
}

/** BlackmanWindow, HammingWindow, HannWindow. */
function windowRule(c: NodeRules): void {
  const size = c.intValues(0)?.[0];
  if (size !== undefined && size >= 0) c.set(0, [size]);
}

/** GridSample. */
function gridSampleRule(c: NodeRules): void {
  const x = c.shape(0);
  const grid = c.shape(1);
  if (!x || !grid || x.length < 3 || grid.length !== x.length || grid[0] !== x[0]) return;
  c.set(0, [x[0] as number, x[1] as number, ...grid.slice(1, -1)]);
}

/** MaxUnpool. */
function maxUnpoolRule(c: NodeRules, node: onnx.INodeProto): void {
  const x = c.shape(0);
  const kernel = ints(node, 'kernel_shape');
  if (!x || x.length < 3 || !kernel) return;
  if (c.has(2)) {
    const given = c.intValues(2);
    if (given && given.length === x.length) c.set(0, given);
    return;
  }
  const n = x.length - 2;
  const strides = ints(node, 'strides') ?? new Array<number>(n).fill(1);
  const pads = ints(node, 'pads') ?? new Array<number>(2 * n).fill(0);
  if (kernel.length !== n || strides.length !== n || pads.length !== 2 * n) return;
  const spatial = x.slice(2).map((d, i) => (d - 1) * (strides[i] as number) + (kernel[i] as number) - (pads[i] as number) - (pads[i + n] as number));
  c.set(0, [x[0] as number, x[1] as number, ...spatial]);
}

/** Det. */
function detRule(c: NodeRules): void {
  const x = c.shape(0);
  if (x && x.length >= 2) c.set(0, x.slice(0, -2));
}

/** RoiAlign. */
function roiAlignRule(c: NodeRules, node: onnx.INodeProto): void {
  const x = c.shape(0);
  const rois = c.shape(1);
  if (!x || !rois || x.length !== 4 || rois.length !== 2) return;
  c.set(0, [rois[0] as number, x[1] as number, int(node, 'output_height', 1), int(node, 'output_width', 1)]);
}

/** SoftmaxCrossEntropyLoss, NegativeLogLikelihoodLoss. */
function lossRule(c: NodeRules, node: onnx.INodeProto): void {
  const nOut = c.nOut;
  const op = c.op;
  const reduction = str(node, 'reduction', 'mean');
  c.set(0, reduction === 'none' ? c.shape(1) : []);
  if (op === 'SoftmaxCrossEntropyLoss' && nOut > 1) c.set(1, c.shape(0));
}

/** RNN, GRU, LSTM. */
function recurrentRule(c: NodeRules, node: onnx.INodeProto): void {
  const nOut = c.nOut;
  const x = c.shape(0);
  const hidden = intAttribute(node, 'hidden_size');
  if (!x || x.length !== 3 || !hidden) return;
  const directions = str(node, 'direction', 'forward') === 'bidirectional' ? 2 : 1;
  const layout = int(node, 'layout', 0);
  const [seq, batch] = layout ? [x[1] as number, x[0] as number] : [x[0] as number, x[1] as number];
  c.set(0, layout ? [batch, seq, directions, hidden] : [seq, directions, batch, hidden]);
  const state = layout ? [batch, directions, hidden] : [directions, batch, hidden];
  for (let i = 1; i < Math.min(nOut, 3); i++) c.set(i, state);
}

/** Einsum. */
function einsumRule(c: NodeRules, node: onnx.INodeProto): void {
  const inputs = c.inputs;
  const equation = str(node, 'equation', '');
  const operands = inputs.map((_, i) => c.shape(i));
  if (operands.some((s) => !s)) return;
  c.set(0, einsumShape(equation, operands as Shape[]));
}

const RULES = new Map<string, Rule>([
  ['Constant', constantRule],
  ['MatMul', matmulRule],
  ['MatMulInteger', matmulRule],
  ['QLinearMatMul', matmulRule],
  ['Gemm', gemmRule],
  ['Conv', convolutionRule],
  ['ConvInteger', convolutionRule],
  ['QLinearConv', convolutionRule],
  ['ConvTranspose', convTransposeRule],
  ['MaxPool', poolRule],
  ['AveragePool', poolRule],
  ['LpPool', poolRule],
  ['GlobalAveragePool', globalPoolRule],
  ['GlobalMaxPool', globalPoolRule],
  ['GlobalLpPool', globalPoolRule],
  ['Flatten', flattenRule],
  ['Reshape', reshapeRule],
  ['Transpose', transposeRule],
  ['Squeeze', squeezeRule],
  ['Unsqueeze', unsqueezeRule],
  ['Concat', concatRule],
  ['Split', splitRule],
  ['Slice', sliceRule],
  ['Gather', gatherRule],
  ['GatherElements', gatherElementsRule],
  ['GatherND', gatherNDRule],
  ['Expand', expandRule],
  ['Tile', tileRule],
  ['Pad', padRule],
  ['ArgMax', argExtremeRule],
  ['ArgMin', argExtremeRule],
  ['TopK', topKRule],
  ['Shape', shapeRule],
  ['Size', sizeRule],
  ['ConstantOfShape', constantOfShapeRule],
  ['Range', rangeRule],
  ['OneHot', oneHotRule],
  ['Resize', resizeRule],
  ['Upsample', resizeRule],
  ['DepthToSpace', depthSpaceRule],
  ['SpaceToDepth', depthSpaceRule],
  ['RandomNormal', randomRule],
  ['RandomUniform', randomRule],
  ['BlackmanWindow', windowRule],
  ['HammingWindow', windowRule],
  ['HannWindow', windowRule],
  ['GridSample', gridSampleRule],
  ['MaxUnpool', maxUnpoolRule],
  ['Det', detRule],
  ['RoiAlign', roiAlignRule],
  ['SoftmaxCrossEntropyLoss', lossRule],
  ['NegativeLogLikelihoodLoss', lossRule],
  ['RNN', recurrentRule],
  ['GRU', recurrentRule],
  ['LSTM', recurrentRule],
  ['Einsum', einsumRule],
]);
for (const op of REDUCE) RULES.set(op, reduceRule);
for (const op of BROADCAST) RULES.set(op, broadcastRule);
for (const op of SAME_SHAPE) RULES.set(op, sameShapeRule);


/** numpy matmul: 1-D operands are promoted and the added dim removed again; batch dims broadcast. */
export function matmulShape(a: Shape, b: Shape): Shape | undefined {
  const rankA = a.length;
  const rankB = b.length;
  if (!rankA || !rankB) return undefined;
  if (a[rankA - 1] !== (rankB === 1 ? b[0] : b[rankB - 2])) return undefined;
  // Batch dims (none for a 1-D operand) broadcast, read in place: no promoted copy or slice.
  const batchA = Math.max(rankA - 2, 0);
  const batchB = Math.max(rankB - 2, 0);
  const batchRank = Math.max(batchA, batchB);
  const result: number[] = [];
  for (let i = 0; i < batchRank; i++) {
    const da = a[i - batchRank + batchA];
    const db = b[i - batchRank + batchB];
    let dim = 1;
    if (da !== undefined && da !== 1) dim = da;
    if (db !== undefined && db !== 1) {
      if (dim === 1) dim = db;
      else if (db !== dim) return undefined;
    }
    result.push(dim);
  }
  if (rankA > 1) result.push(a[rankA - 2] as number);
  if (rankB > 1) result.push(b[rankB - 1] as number);
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
  const result: number[] = [];
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
  const result: number[] = [];
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
