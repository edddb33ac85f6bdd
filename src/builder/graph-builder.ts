/**
 * A small builder for ONNX graphs in code: fixtures, training graphs and benchmark models are
 * written with it. Names are given by the caller or derived from a counter, so the same
 * program always builds the same bytes.
 */
import { onnx } from '../onnx/generated/onnx.js';
import { DataType } from '../onnx/data-types.js';
import { encodeUtf8 } from '../onnx/utf8.js';

export type AttributeValue =
  | { kind: 'int'; value: number }
  | { kind: 'float'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'ints'; value: number[] }
  | { kind: 'floats'; value: number[] }
  | { kind: 'tensor'; value: onnx.ITensorProto }
  | { kind: 'graph'; value: onnx.IGraphProto };

export const attr = {
  int: (value: number): AttributeValue => ({ kind: 'int', value }),
  float: (value: number): AttributeValue => ({ kind: 'float', value }),
  string: (value: string): AttributeValue => ({ kind: 'string', value }),
  ints: (value: number[]): AttributeValue => ({ kind: 'ints', value }),
  floats: (value: number[]): AttributeValue => ({ kind: 'floats', value }),
  tensor: (value: onnx.ITensorProto): AttributeValue => ({ kind: 'tensor', value }),
  graph: (value: onnx.IGraphProto): AttributeValue => ({ kind: 'graph', value }),
};

const ATTRIBUTE_TYPE = onnx.AttributeProto.AttributeType;

/** An attribute proto of the given name from a builder value (shared with the backward-pass emitter). */
export function toAttribute(name: string, value: AttributeValue): onnx.AttributeProto {
  switch (value.kind) {
    case 'int': return onnx.AttributeProto.create({ name, type: ATTRIBUTE_TYPE.INT, i: value.value });
    case 'float': return onnx.AttributeProto.create({ name, type: ATTRIBUTE_TYPE.FLOAT, f: value.value });
    case 'string': return onnx.AttributeProto.create({ name, type: ATTRIBUTE_TYPE.STRING, s: encodeUtf8(value.value) });
    case 'ints': return onnx.AttributeProto.create({ name, type: ATTRIBUTE_TYPE.INTS, ints: value.value });
    case 'floats': return onnx.AttributeProto.create({ name, type: ATTRIBUTE_TYPE.FLOATS, floats: value.value });
    case 'tensor': return onnx.AttributeProto.create({ name, type: ATTRIBUTE_TYPE.TENSOR, t: value.value });
    case 'graph': return onnx.AttributeProto.create({ name, type: ATTRIBUTE_TYPE.GRAPH, g: value.value });
  }
}

export type Dim = number | string;

export function valueInfo(name: string, elemType: number, dims?: Dim[]): onnx.ValueInfoProto {
  const tensorType = onnx.TypeProto.Tensor.create({ elem_type: elemType });
  if (dims) {
    tensorType.shape = onnx.TensorShapeProto.create({
      dim: dims.map((d) => onnx.TensorShapeProto.Dimension.create(typeof d === 'number' ? { dim_value: d } : { dim_param: d })),
    });
  }
  return onnx.ValueInfoProto.create({ name, type: onnx.TypeProto.create({ tensor_type: tensorType }) });
}

export function tensor(name: string, dims: number[], values: Float32Array | Int32Array | BigInt64Array | Uint8Array, elemType?: number): onnx.TensorProto {
  const dataType =
    elemType ??
    (values instanceof Float32Array ? DataType.FLOAT : values instanceof Int32Array ? DataType.INT32 : values instanceof BigInt64Array ? DataType.INT64 : DataType.BOOL);
  return onnx.TensorProto.create({
    name,
    dims,
    data_type: dataType,
    raw_data: new Uint8Array(values.buffer, values.byteOffset, values.byteLength),
  });
}

export interface NodeOptions {
  name?: string;
  domain?: string;
  outputs?: string[];
}

export class GraphBuilder {
  readonly nodes: onnx.NodeProto[] = [];
  readonly inputs: onnx.ValueInfoProto[] = [];
  readonly outputs: onnx.ValueInfoProto[] = [];
  readonly initializers: onnx.TensorProto[] = [];
  readonly valueInfos: onnx.ValueInfoProto[] = [];
  private counter = 0;

  constructor(readonly name: string, readonly prefix = '') {}

  fresh(base: string): string {
    return `${this.prefix}${base}_${this.counter++}`;
  }

  input(name: string, elemType: number, dims?: Dim[]): string {
    this.inputs.push(valueInfo(name, elemType, dims));
    return name;
  }

  output(name: string, elemType: number, dims?: Dim[]): string {
    this.outputs.push(valueInfo(name, elemType, dims));
    return name;
  }

  initializer(name: string, dims: number[], values: Float32Array | Int32Array | BigInt64Array | Uint8Array, elemType?: number): string {
    this.initializers.push(tensor(name, dims, values, elemType));
    return name;
  }

  /** An int64 initializer (shapes, axes). */
  ints(name: string, values: number[]): string {
    return this.initializer(name, [values.length], BigInt64Array.from(values.map((v) => BigInt(v))), DataType.INT64);
  }

  /** A float32 scalar initializer. */
  scalar(name: string, value: number): string {
    return this.initializer(name, [], Float32Array.of(value));
  }

  /** Adds a node; returns its output names (one per `outputs`, or `count` fresh names). */
  node(opType: string, inputs: string[], attributes: Record<string, AttributeValue> = {}, options: NodeOptions & { count?: number } = {}): string[] {
    const outputs = options.outputs ?? Array.from({ length: options.count ?? 1 }, () => this.fresh(opType.toLowerCase()));
    const node = onnx.NodeProto.create({
      input: inputs,
      output: outputs,
      name: options.name ?? this.fresh(`${opType}`),
      op_type: opType,
      attribute: Object.entries(attributes).map(([name, value]) => toAttribute(name, value)),
    });
    if (options.domain) node.domain = options.domain;
    this.nodes.push(node);
    return outputs;
  }

  /** Adds a single-output node and returns the output name. */
  op(opType: string, inputs: string[], attributes: Record<string, AttributeValue> = {}, options: NodeOptions = {}): string {
    return this.node(opType, inputs, attributes, options)[0] as string;
  }

  graph(): onnx.GraphProto {
    return onnx.GraphProto.create({
      node: this.nodes,
      name: this.name,
      initializer: this.initializers,
      input: this.inputs,
      output: this.outputs,
      value_info: this.valueInfos,
    });
  }

  model(opsets: Record<string, number> = { '': 17 }, producer = 'amp-rewrite builder'): onnx.ModelProto {
    return onnx.ModelProto.create({
      ir_version: 8,
      opset_import: Object.entries(opsets).map(([domain, version]) => onnx.OperatorSetIdProto.create({ domain, version })),
      producer_name: producer,
      graph: this.graph(),
    });
  }
}

/** A seeded generator (mulberry32) so fixtures and benchmarks are reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Normally distributed values (Box-Muller) with the given standard deviation. */
export function randomNormal(count: number, std: number, random: () => number): Float32Array {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i += 2) {
    const u = Math.max(random(), 1e-12);
    const v = random();
    const r = Math.sqrt(-2 * Math.log(u)) * std;
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < count) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
  return out;
}
