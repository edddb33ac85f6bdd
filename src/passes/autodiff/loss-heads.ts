/**
 * The loss a step graph minimises, read from an output of the forward model:
 *   cross-entropy  mean softmax cross-entropy of logits [batch, classes] against an int64 `labels`
 *                  input [batch]; dL/dlogits = (softmax(logits) - onehot(labels)) * seed / batch
 *   mse            mean squared error against a float `targets` input of the output's shape;
 *                  dL/dy = 2 (y - targets) * seed / numel(y)
 *   output         a float32 scalar the model already outputs; dL/dL = seed
 * A head adds its forward nodes (the loss value), the inputs it needs, and, for each forward value
 * the loss reads, how its gradient is made from the seed.
 */
import { attr, valueInfo } from '../../builder/graph-builder.js';
import { DataType } from '../../onnx/data-types.js';
import { AmpError } from '../../onnx/errors.js';
import { onnx } from '../../onnx/generated/onnx.js';
import type { ModelGraph } from '../../onnx/graph.js';
import type { Shape } from '../../onnx/shape-inference.js';
import type { ElemTypes } from '../../onnx/type-inference.js';
import type { Emitter } from './emitter.js';

export const LOSS_KINDS = ['cross-entropy', 'mse', 'output'] as const;
export type LossKind = (typeof LOSS_KINDS)[number];

export interface LossSpec {
  kind: LossKind;
  /** The forward output the loss reads (default: the model's only float32 output). */
  output?: string;
  /** cross-entropy: the labels input's name (default `labels`); mse: the targets input's (default `targets`). */
  target?: string;
}

export interface LossHead {
  /** The scalar loss output. */
  loss: string;
  /** Inputs the head adds (labels, targets). */
  inputs: onnx.ValueInfoProto[];
  /** Outputs the head adds besides the loss (`logits` for `train`'s accuracy). */
  outputs: onnx.ValueInfoProto[];
  /** Forward value -> its gradient, made from the seed's name. */
  seeds: Array<[string, (seed: string) => string]>;
  /** How many of the emitter's nodes are the loss's forward nodes. */
  forwardNodes: number;
}

const { FLOAT, INT64 } = DataType;

function declaredDims(info: onnx.IValueInfoProto | undefined): Array<number | string> | undefined {
  const shape = info?.type?.tensor_type?.shape;
  return shape?.dim?.map((d) => (d.dim_value ? Number(d.dim_value) : d.dim_param || '?'));
}

function pickOutput(graph: ModelGraph, types: ElemTypes, named: string | undefined): onnx.IValueInfoProto {
  const outputs = graph.model.graph?.output ?? [];
  if (named !== undefined) {
    const found = outputs.find((o) => o.name === named);
    if (!found) throw new AmpError('BAD_OPTION', `--model-output '${named}' is not an output of the model (outputs: ${outputs.map((o) => o.name).join(', ')})`, { subject: named });
    if (types.get(graph.main, named) !== FLOAT) throw new AmpError('BAD_OPTION', `the output '${named}' is not float32`, { subject: named });
    return found;
  }
  const floats = outputs.filter((o) => types.get(graph.main, o.name ?? '') === FLOAT);
  if (floats.length !== 1) {
    throw new AmpError('BAD_OPTION', floats.length ? `the model has ${floats.length} float32 outputs (${floats.map((o) => o.name).join(', ')}): pass --model-output` : 'the model has no float32 output for the loss to read');
  }
  return floats[0] as onnx.IValueInfoProto;
}

function freshInput(e: Emitter, name: string, option: string): string {
  if (!e.reserve(name)) throw new AmpError('BAD_OPTION', `the input name '${name}' is taken by a value of the model: pass ${option} with another name`, { subject: name });
  return name;
}

export function addLossHead(e: Emitter, graph: ModelGraph, types: ElemTypes, shapes: ReadonlyMap<string, Shape>, spec: LossSpec): LossHead {
  const output = pickOutput(graph, types, spec.output);
  const y = output.name ?? '';
  const before = e.nodes.length;
  if (spec.kind === 'output') {
    const dims = declaredDims(output) ?? shapes.get(y);
    if (!dims || dims.length !== 0) {
      if (!(shapes.get(y)?.length === 0)) throw new AmpError('BAD_OPTION', `--loss output reads '${y}' as the loss, which is not a scalar${dims ? ` (dims [${dims.join(', ')}])` : ''}`, { subject: y });
    }
    return { loss: y, inputs: [], outputs: [], seeds: [[y, (seed) => seed]], forwardNodes: 0 };
  }
  const loss = e.unique('loss');
  const dims = declaredDims(output);
  if (spec.kind === 'cross-entropy') {
    if (dims && dims.length !== 2) throw new AmpError('BAD_OPTION', `cross-entropy reads logits [batch, classes]; the output '${y}' has ${dims.length} dims`, { subject: y });
    const labels = freshInput(e, spec.target ?? 'labels', '--labels');
    e.op('SoftmaxCrossEntropyLoss', [y, labels], 'loss/softmax_cross_entropy', { reduction: attr.string('mean') }, loss);
    const forwardNodes = e.nodes.length - before;
    // `train` measures accuracy on an output named logits.
    const outputs = y !== 'logits' && e.reserve('logits') ? (e.op('Identity', [y], 'loss/logits', {}, 'logits'), [valueInfo('logits', FLOAT, dims)]) : [];
    return {
      loss,
      inputs: [valueInfo(labels, INT64, dims ? [dims[0] as number | string] : undefined)],
      outputs,
      forwardNodes,
      seeds: [
        [
          y,
          (seed) => {
            const probs = e.op('Softmax', [y], 'loss_grad/softmax', { axis: attr.int(1) });
            const depth = e.op('Gather', [e.op('Shape', [y], 'loss_grad/logits_shape'), e.ints([1])], 'loss_grad/classes', { axis: attr.int(0) });
            const oneHot = e.op('OneHot', [labels, depth, e.initializer('loss_grad/one_hot_values', () => valuesTensor([0, 1]))], 'loss_grad/one_hot', { axis: attr.int(-1) });
            const batch = e.op('Cast', [e.op('Shape', [labels], 'loss_grad/batch_shape')], 'loss_grad/batch_size', { to: attr.int(FLOAT) });
            const perExample = e.op('Div', [seed, batch], 'loss_grad/per_example');
            return e.op('Mul', [e.op('Sub', [probs, oneHot], 'loss_grad/residual'), perExample], 'loss_grad/logits');
          },
        ],
      ],
    };
  }
  const targets = freshInput(e, spec.target ?? 'targets', '--targets');
  const difference = e.op('Sub', [y, targets], 'loss/difference');
  e.op('ReduceMean', [e.op('Mul', [difference, difference], 'loss/squared')], 'loss/mean', { keepdims: attr.int(0) }, loss);
  return {
    loss,
    inputs: [valueInfo(targets, FLOAT, dims)],
    outputs: [],
    forwardNodes: e.nodes.length - before,
    seeds: [
      [
        y,
        (seed) => {
          const count = e.op('Cast', [e.op('Size', [y], 'loss_grad/size')], 'loss_grad/count', { to: attr.int(FLOAT) });
          return e.op('Mul', [difference, e.op('Div', [e.op('Mul', [seed, e.float(2)], 'loss_grad/two_seed'), count], 'loss_grad/per_element')], 'loss_grad/prediction');
        },
      ],
    ],
  };
}

function valuesTensor(values: number[]): onnx.TensorProto {
  const data = Float32Array.from(values);
  return onnx.TensorProto.create({ name: '', dims: [values.length], data_type: FLOAT, raw_data: new Uint8Array(data.buffer) });
}
