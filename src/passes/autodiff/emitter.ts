/**
 * Writes the nodes and constants of a backward pass: unique names (a name the forward model
 * uses is never reused), float32/int64 constants shared by value, and the few patterns several
 * gradient rules need (zeros like a value, the element count ratio of a reduction, a gradient
 * summed back over the axes a broadcast expanded).
 */
import { DataType } from '../../onnx/data-types.js';
import { onnx } from '../../onnx/generated/onnx.js';
import { attr, tensor, toAttribute, type AttributeValue } from '../../builder/graph-builder.js';
import type { Shape } from '../../onnx/shape-inference.js';

export class Emitter {
  readonly nodes: onnx.NodeProto[] = [];
  readonly initializers: onnx.TensorProto[] = [];
  private readonly constants = new Map<string, string>();

  /** `taken`: every value and node name of the forward model (and the names reserved for the contract). */
  constructor(private readonly taken: Set<string>) {}

  /** `base`, or `base_1`, `base_2`... the first that no value or node has. */
  unique(base: string): string {
    let name = base;
    for (let i = 1; this.taken.has(name); i++) name = `${base}_${i}`;
    this.taken.add(name);
    return name;
  }

  has(name: string): boolean {
    return this.taken.has(name);
  }

  /** Reserves an exact name (a contract name such as `fc1.weight_grad`); false when it is taken. */
  reserve(name: string): boolean {
    if (this.taken.has(name)) return false;
    this.taken.add(name);
    return true;
  }

  /** Adds a node named after `base`; its outputs are fresh names unless given. */
  node(opType: string, inputs: string[], base: string, attributes: Record<string, AttributeValue> = {}, outputs?: string[] | number): string[] {
    const names = Array.isArray(outputs) ? outputs : Array.from({ length: outputs ?? 1 }, (_, i) => this.unique(i === 0 ? base : `${base}:${i}`));
    this.nodes.push(
      onnx.NodeProto.create({
        name: this.unique(`${base}/${opType}`),
        op_type: opType,
        input: inputs,
        output: names,
        attribute: Object.entries(attributes).map(([name, value]) => toAttribute(name, value)),
      }),
    );
    return names;
  }

  op(opType: string, inputs: string[], base: string, attributes: Record<string, AttributeValue> = {}, output?: string): string {
    return this.node(opType, inputs, base, attributes, output === undefined ? 1 : [output])[0] as string;
  }

  /** A float32 scalar initializer (shared by value); the fp64/fp16 variants retype it with everything else. */
  float(value: number): string {
    return this.constant(`float:${value}`, `autodiff.const.${value}`, () => tensor('', [], Float32Array.of(value)));
  }

  /** An int64 1-D initializer (axes, shapes, split sizes), shared by value. */
  ints(values: readonly number[]): string {
    return this.constant(`ints:${values.join(',')}`, `autodiff.ints.${values.join('_') || 'empty'}`, () =>
      tensor('', [values.length], BigInt64Array.from(values.map((v) => BigInt(v))), DataType.INT64),
    );
  }

  /** An int64 scalar initializer. */
  int(value: number): string {
    return this.constant(`int:${value}`, `autodiff.int.${value}`, () => tensor('', [], BigInt64Array.of(BigInt(value)), DataType.INT64));
  }

  /** Adds an initializer under an exact or fresh name. */
  initializer(base: string, make: () => onnx.TensorProto): string {
    const name = this.unique(base);
    const t = make();
    t.name = name;
    this.initializers.push(t);
    return name;
  }

  private constant(key: string, base: string, make: () => onnx.TensorProto): string {
    const known = this.constants.get(key);
    if (known) return known;
    const name = this.initializer(base, make);
    this.constants.set(key, name);
    return name;
  }

  /** Zeros of `like`'s shape in float32 (a gradient that does not flow). */
  zerosLike(like: string, base: string): string {
    const shape = this.op('Shape', [like], `${base}/shape`);
    const zero = onnx.TensorProto.create({ dims: [1], data_type: DataType.FLOAT, raw_data: new Uint8Array(4) });
    return this.op('ConstantOfShape', [shape], `${base}/zeros`, { value: attr.tensor(zero) });
  }

  /** numel(big) / numel(small) as a float32 scalar: how many elements a mean over the reduced axes averaged. */
  countRatio(big: string, small: string, base: string): string {
    const ratio = this.op('Div', [this.op('Size', [big], `${base}/size`), this.op('Size', [small], `${base}/reduced_size`)], `${base}/count`);
    return this.op('Cast', [ratio], `${base}/count_float`, { to: attr.int(DataType.FLOAT) });
  }

  /** `grad` reshaped to `like`'s run-time shape. */
  reshapeLike(grad: string, like: string, base: string): string {
    return this.op('Reshape', [grad, this.op('Shape', [like], `${base}/shape`)], `${base}/reshape`);
  }

  /**
   * The gradient of an input that a broadcast expanded to the output's shape: summed over the
   * expanded axes. With the input's static shape and the output's rank the axes are known here:
   * the leading axes the input lacks, and every axis where the input has size 1 (summing over an
   * axis the output also has as 1 changes nothing). Otherwise they are found at run time:
   * the input's shape padded with leading 1s, compared with the output's.
   */
  sumToShape(grad: string, input: string, inputShape: Shape | undefined, outputRank: number | undefined, outputShape: Shape | undefined, base: string): string {
    if (inputShape && outputShape && inputShape.length === outputShape.length && inputShape.every((d, i) => d === outputShape[i])) return grad;
    if (inputShape && outputRank !== undefined) {
      const lead = outputRank - inputShape.length;
      const axes = [...Array(lead).keys(), ...inputShape.flatMap((d, i) => (d === 1 ? [lead + i] : []))];
      if (!axes.length) return grad;
      const summed = this.op('ReduceSum', [grad, this.ints(axes)], `${base}/sum`, { keepdims: attr.int(1) });
      return lead > 0 ? this.op('Reshape', [summed, this.ints([...inputShape])], `${base}/reshape`) : summed;
    }
    const inputDims = this.op('Shape', [input], `${base}/input_shape`);
    const gradDims = this.op('Shape', [grad], `${base}/grad_shape`);
    const missing = this.op('Sub', [this.op('Size', [gradDims], `${base}/grad_rank`), this.op('Size', [inputDims], `${base}/input_rank`)], `${base}/missing_rank`);
    const one = onnx.TensorProto.create({ dims: [1], data_type: DataType.INT64, raw_data: new Uint8Array(BigInt64Array.of(1n).buffer) });
    const ones = this.op('ConstantOfShape', [this.op('Unsqueeze', [missing, this.ints([0])], `${base}/missing_rank_1d`)], `${base}/ones`, { value: attr.tensor(one) });
    const padded = this.op('Concat', [ones, inputDims], `${base}/padded_shape`, { axis: attr.int(0) });
    const differs = this.op('Not', [this.op('Equal', [padded, gradDims], `${base}/same_dim`)], `${base}/expanded_dim`);
    const axes = this.op('Reshape', [this.op('NonZero', [differs], `${base}/expanded_axes_2d`), this.ints([-1])], `${base}/expanded_axes`);
    const summed = this.op('ReduceSum', [grad, axes], `${base}/sum`, { keepdims: attr.int(1), noop_with_empty_axes: attr.int(1) });
    return this.op('Reshape', [summed, inputDims], `${base}/reshape`);
  }
}
