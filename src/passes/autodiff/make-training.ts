/**
 * make-training: from a forward model, a loss and an optimizer, the one-step training graph of
 * our contract (shared/design/training.md) in standard ONNX ops:
 *   1. pick the trainable parameters (trainable.ts): they become state inputs, their initial
 *      values stay as initializers of the same name; frozen weights stay plain initializers;
 *   2. add the loss head (loss-heads.ts) and the seed `<loss>_grad` = 1.0;
 *   3. walk the forward nodes in reverse, applying each op's gradient rule (gradient-rules.ts) to
 *      the nodes between a parameter and the loss, summing the contributions of values read twice;
 *      the gradient of parameter p is named `p_grad`;
 *   4. add the optimizer update (optimizers.ts): `X.next` for every parameter and optimizer state.
 * The result goes through the AMP rewrite and loss scaling as any step graph does, and `train` or
 * createTrainer() runs it. Pure: the input model is not changed.
 */
import { cloneMessage } from '../../onnx/clone.js';
import { DataType } from '../../onnx/data-types.js';
import { AmpError } from '../../onnx/errors.js';
import { onnx } from '../../onnx/generated/onnx.js';
import { ModelGraph } from '../../onnx/graph.js';
import { opsetsOf } from '../../onnx/opsets.js';
import { inferShapes, inferShapesAndValues, type Shape } from '../../onnx/shape-inference.js';
import { inferElemTypes } from '../../onnx/type-inference.js';
import { attr, valueInfo } from '../../builder/graph-builder.js';
import { Emitter } from './emitter.js';
import { differentiableInputs, gradientRuleFor, noGradientRule, type GradientContext } from './gradient-rules.js';
import { addLossHead, type LossSpec } from './loss-heads.js';
import { addOptimizer, type OptimizerSpec } from './optimizers.js';
import { parameterRules } from './buffers.js';
import { tieCandidates, selectTrainable, type TrainableChoice, type TrainableSelection } from './trainable.js';
import { tieWeights, type Tie } from './tied-weights.js';
import { isRecurrent, unrollRecurrent, type Unrolled } from './unroll-recurrent.js';

export interface MakeTrainingOptions {
  loss: LossSpec;
  optimizer: OptimizerSpec;
  /** Which float initializers train (default: the weights, found by how they are consumed). */
  trainable?: TrainableChoice;
  /** The learning rate `train` feeds by default, recorded in the metadata (lr stays a graph input). */
  lr?: number;
  /** Also output every `<param>_grad` (gradient checks read them there). */
  exposeGradients?: boolean;
  /** Train the copies of a tied weight apart (default: one parameter, tied-weights.ts). */
  untie?: boolean;
}

export interface MakeTrainingReport {
  loss: string;
  lossGrad: string;
  /** Parameter names with their dims and element counts, in the model's initializer order. */
  trainable: Array<{ name: string; dims: number[]; elements: number }>;
  /** Float initializers left frozen, each with its dims and why. */
  frozen: Array<{ name: string; dims: number[]; reason: string }>;
  /** Initializers equal to a parameter or to its transpose, removed: they read the parameter now. */
  tied: Array<Tie & { reason: string }>;
  /** Optimizer state inputs besides the parameters. */
  optimizerState: string[];
  /** BatchNormalization's running mean and variance in training mode: state the step carries (`<name>.next`), not trained. */
  runningStatistics: string[];
  /** LSTM and GRU nodes written as their steps in standard ops (unroll-recurrent.ts), by name. */
  unrolled: string[];
  /** Forward nodes on the path from a parameter to the loss, by op type. */
  differentiated: Record<string, number>;
  backwardNodes: number;
  /**
   * Parameters the forward model reads under more than one name through Identity: the TorchScript
   * exporter stores initializers with equal values once, so two parameters of the original model
   * (two LayerNorm weights of ones) train as one here.
   */
  shared: Array<{ parameter: string; alsoReadAs: string[] }>;
}

export interface MakeTrainingResult {
  model: onnx.ModelProto;
  report: MakeTrainingReport;
}

/** The metadata key `train` reads its default learning rate from (as `example` writes it). */
export const TRAIN_LR_METADATA_KEY = 'amp-rewrite.train.lr';

const { FLOAT } = DataType;
/** Symbolic dimensions take this size for rank inference only (any size gives the same ranks). */
const RANK_PROBE_SIZE = 3;

export function makeTrainingStep(input: onnx.IModelProto, options: MakeTrainingOptions): MakeTrainingResult {
  const model = cloneMessage(input) as onnx.ModelProto;
  const graph = model.graph as onnx.GraphProto;
  // Own copies of the lists this pass extends (a decoded message may share its empty defaults).
  for (const key of ['node', 'input', 'output', 'initializer'] as const) (graph as unknown as Record<string, unknown[]>)[key] = [...((graph[key] ?? []) as unknown[])];
  const opset = checkModel(model);
  // LSTM and GRU become their steps in standard ops: the backward through time is the rules' composition.
  let unrolled: Unrolled = { nodes: [], initialStates: [] };
  if (graph.node.some(isRecurrent)) {
    const shapes = inferShapes(new ModelGraph(model));
    const unroller = new Emitter(allNames(graph));
    unrolled = unrollRecurrent(graph, unroller, (value) => shapes.get(value));
    appendAll(graph.initializer, unroller.initializers);
  }
  const facts = { initialStates: new Set(unrolled.initialStates) };
  const tieNames = new Emitter(allNames(graph));
  const tied = options.untie ? [] : tieWeights(graph, tieCandidates(new ModelGraph(model), options.trainable, facts), (wanted) => tieNames.unique(wanted));
  const forward = new ModelGraph(model);
  const types = inferElemTypes(forward, opsetsOf(model));
  const { shapes, values } = inferShapesAndValues(forward);
  const probeShapes = inferShapes(new ModelGraph(withProbeDims(model)));
  const taken = allNames(graph);
  const e = new Emitter(taken);

  // 1. Loss head and seed; 2. the parameters, among the values the loss reads.
  const head = addLossHead(e, forward, types, shapes, options.loss);
  const upstream = upstreamOf(graph.node as onnx.NodeProto[], head.seeds.map(([value]) => value));
  const selection = selectTrainable(forward, types, options.trainable, (name) => upstream.has(name), facts);
  const params = selection.trainable;
  const paramSet = new Set(params);
  const lossGrad = `${head.loss}_grad`;
  if (!e.reserve(lossGrad)) throw new AmpError('BAD_GRAPH', `the seed's name '${lossGrad}' is taken by a value of the model`, { subject: lossGrad });
  e.initializers.push(onnx.TensorProto.create({ name: lossGrad, dims: [], data_type: FLOAT, raw_data: new Uint8Array(Float32Array.of(1).buffer) }));
  for (const p of params) {
    for (const name of [`${p}_grad`, `${p}.next`]) {
      if (!e.reserve(name)) throw new AmpError('BAD_GRAPH', `the name '${name}' the contract gives parameter '${p}' is taken by a value of the model`, { subject: name });
    }
  }

  // 3. Backward.
  const nodes = graph.node as onnx.NodeProto[];
  const active = activeValues(nodes, paramSet, (name) => types.get(forward.main, name) === FLOAT);
  // Every node a gradient must cross without a rule, refused together rather than one per run.
  // (A gradient flows through float values only: a Shape of an active value carries none.)
  const missing = nodes.filter((node) => (node.output ?? []).some((o) => upstream.has(o) && active.has(o)) && !gradientRuleFor(node));
  if (missing.length) throw noGradientRule(missing);
  const contributions = new Map<string, string[]>();
  const contribute = (value: string, grad: string) => {
    const list = contributions.get(value);
    if (list) list.push(grad);
    else contributions.set(value, [grad]);
  };
  for (const [value, grad] of head.seeds) contribute(value, grad(lossGrad));
  const summed = (value: string): string | undefined => {
    const list = contributions.get(value);
    if (!list?.length) return undefined;
    if (list.length === 1) return list[0];
    const total = e.op('Sum', list, `grad/${value}/sum`);
    contributions.set(value, [total]);
    return total;
  };
  const differentiated: Record<string, number> = {};
  for (let index = nodes.length - 1; index >= 0; index--) {
    const node = nodes[index] as onnx.NodeProto;
    const outputs = node.output ?? [];
    if (!outputs.some((o) => contributions.has(o))) continue;
    const inputs = node.input ?? [];
    if (!inputs.some((i) => active.has(i))) continue;
    const rule = gradientRuleFor(node);
    if (!rule) throw noGradientRule(node);
    const flows = new Set(differentiableInputs(rule, node));
    const base = `grad/${node.name || outputs[0]}`;
    const context: GradientContext = {
      e,
      node,
      base,
      opset,
      x: (i) => inputs[i] ?? '',
      y: (i) => outputs[i] ?? '',
      dy: (i) => summed(outputs[i] ?? ''),
      dyOrZeros: (i) => summed(outputs[i] ?? '') ?? e.zerosLike(outputs[i] ?? '', `${base}/zeros_${i}`),
      wants: (i) => flows.has(i) && active.has(inputs[i] ?? ''),
      rank: (name) => {
        const shape = probeShapes.get(name);
        if (!shape) throw refuseNode(node, `the rank of '${name}' could not be inferred`);
        return shape.length;
      },
      shape: (name) => shapes.get(name),
      ints: (name) => values.get(name)?.data,
      int: (name, fallback) => Number(attribute(node, name)?.i ?? fallback),
      intsAttr: (name) => attribute(node, name)?.ints?.map(Number),
      float: (name, fallback) => attribute(node, name)?.f ?? fallback,
      string: (name, fallback) => {
        const s = attribute(node, name)?.s;
        return s ? Buffer.from(s).toString('utf8') : fallback;
      },
      requireOutput: (i, suffix) => {
        const existing = node.output[i];
        if (existing) return existing;
        node.output = [...node.output];
        while (node.output.length < i) node.output.push('');
        node.output[i] = e.unique(`${outputs[0]}/${suffix}`);
        return node.output[i] as string;
      },
      sumTo: (grad, i) => {
        const x = inputs[i] ?? '';
        return e.sumToShape(grad, x, shapes.get(x), probeShapes.get(outputs[0] ?? '')?.length, shapes.get(outputs[0] ?? ''), `${base}/reduce_${i}`);
      },
      refuse: (reason) => {
        throw refuseNode(node, reason);
      },
    };
    differentiated[node.op_type ?? ''] = (differentiated[node.op_type ?? ''] ?? 0) + 1;
    const grads = rule.grad(context);
    grads.forEach((grad, i) => {
      const x = inputs[i];
      if (grad !== undefined && x && active.has(x)) contribute(x, grad);
    });
  }

  // Each parameter's gradient under the contract's name.
  const slots = params.map((p) => {
    const grad = summed(p);
    if (!grad) throw new AmpError('BAD_GRAPH', `parameter '${p}' does not reach the loss '${head.loss}': freeze it (--frozen)`, { subject: p });
    e.op('Identity', [grad], `grad/${p}`, {}, `${p}_grad`);
    return { name: p, grad: `${p}_grad`, dims: initializerDims(forward, p) };
  });

  // 4. Optimizer.
  const lr = e.unique('lr');
  const optimizer = addOptimizer(e, slots, options.optimizer, lr);
  const backwardNodes = e.nodes.length - head.forwardNodes;
  const statistics = runningStatistics(graph, e, opset);

  appendAll(graph.initializer, optimizer.state.map((s) => s.initial));
  assemble(model, e, { params, head, lr, state: [...optimizer.state.map((s) => s.name), ...statistics], exposeGradients: options.exposeGradients ?? false });
  if (options.lr !== undefined) {
    model.metadata_props = [...(model.metadata_props ?? []).filter((p) => p.key !== TRAIN_LR_METADATA_KEY), onnx.StringStringEntryProto.create({ key: TRAIN_LR_METADATA_KEY, value: String(options.lr) })];
  }
  return {
    model,
    report: {
      loss: head.loss,
      lossGrad,
      trainable: params.map((name) => ({ name, dims: initializerDims(forward, name), elements: initializerDims(forward, name).reduce((a, d) => a * d, 1) })),
      frozen: selection.frozen.map((f) => ({ name: f.name, dims: initializerDims(forward, f.name), reason: f.reason })),
      tied: tied.map((tie) => ({ ...tie, reason: parameterRules().ties.reason })),
      optimizerState: optimizer.state.map((s) => s.name),
      runningStatistics: statistics,
      unrolled: unrolled.nodes,
      differentiated,
      backwardNodes,
      shared: params.flatMap((parameter) => {
        const alsoReadAs = forward.main.consumersOf(parameter).filter((use) => use.node.op_type === 'Identity').flatMap((use) => use.node.output ?? []);
        return alsoReadAs.length ? [{ parameter, alsoReadAs }] : [];
      }),
    },
  };
}

/**
 * The running mean and variance of each BatchNormalization in training mode become state the step
 * returns as `<name>.next`, as it does the optimizer's, updated as PyTorch updates them:
 * running = momentum * running + (1 - momentum) * batch statistic (ONNX's momentum is the old
 * value's weight), the variance unbiased (n / (n - 1), n the values per channel). ONNX Runtime's
 * BatchNormalization writes the biased one (0.09% off PyTorch's after 8 steps on 48 values per
 * channel), so its own running outputs are not used. A statistic shared with another reader (the
 * TorchScript exporter stores equal initial values once) gets a copy of its own for this node.
 */
function runningStatistics(graph: onnx.GraphProto, e: Emitter, opset: number): string[] {
  const statistics: string[] = [];
  const initializers = new Map(graph.initializer.map((t) => [t.name ?? '', t]));
  const readers = new Map<string, number>();
  const nodes = graph.node as onnx.NodeProto[];
  for (const node of nodes) for (const input of node.input) readers.set(input, (readers.get(input) ?? 0) + 1);
  for (const node of nodes) {
    if (node.op_type !== 'BatchNormalization' || node.domain) continue;
    if (Number((node.attribute ?? []).find((a) => a.name === 'training_mode')?.i ?? 0) !== 1) continue;
    const base = `state/${node.name || 'batch_norm'}`;
    const momentum = (node.attribute ?? []).find((a) => a.name === 'momentum')?.f ?? 0.9;
    // X as [N, C, everything else]: the statistics are over axes 0 and 2.
    const flat = e.op('Reshape', [node.input[0] ?? '', e.ints([0, 0, -1])], `${base}/x_flat`);
    const meanOver = (v: string, name: string, keep: number): string =>
      opset >= 18 ? e.op('ReduceMean', [v, e.ints([0, 2])], `${base}/${name}`, { keepdims: attr.int(keep) }) : e.op('ReduceMean', [v], `${base}/${name}`, { keepdims: attr.int(keep), axes: attr.ints([0, 2]) });
    const mean = meanOver(flat, 'batch_mean_kept', 1);
    const centered = e.op('Sub', [flat, mean], `${base}/centered`);
    const biased = meanOver(e.op('Mul', [centered, centered], `${base}/squared`), 'batch_var', 0);
    const shape = e.op('Cast', [e.op('Shape', [flat], `${base}/flat_shape`)], `${base}/flat_dims`, { to: attr.int(FLOAT) });
    const count = e.op('ReduceProd', [e.op('Gather', [shape, e.ints([0, 2])], `${base}/reduced_dims`, { axis: attr.int(0) })], `${base}/count`, { keepdims: attr.int(0) });
    const unbiased = e.op('Mul', [biased, e.op('Div', [count, e.op('Sub', [count, e.float(1)], `${base}/count_less_one`)], `${base}/bessel`)], `${base}/batch_var_unbiased`);
    const batchMean = e.op('Reshape', [mean, e.ints([-1])], `${base}/batch_mean`);
    for (const [slot, batch] of [[3, batchMean], [4, unbiased]] as const) {
      let name = node.input[slot] ?? '';
      const initial = initializers.get(name);
      const what = slot === 3 ? 'mean' : 'variance';
      if (!initial) throw new AmpError('BAD_GRAPH', `BatchNormalization '${node.name ?? ''}' in training mode reads its running ${what} '${name}' from a computed value; the step carries running statistics stored as initializers`, { subject: node.name ?? '' });
      if ((readers.get(name) ?? 0) > 1 || statistics.includes(name)) {
        const copy = onnx.TensorProto.create({ ...initial, name: e.unique(`${node.name || 'batch_norm'}.running_${slot === 3 ? 'mean' : 'var'}`) });
        graph.initializer.push(copy);
        initializers.set(copy.name as string, copy);
        node.input = node.input.map((v, i) => (i === slot ? (copy.name as string) : v));
        name = copy.name as string;
      }
      if (!e.reserve(`${name}.next`)) throw new AmpError('BAD_GRAPH', `the name '${name}.next' the step gives the running statistic '${name}' is taken by a value of the model`, { subject: name });
      // In training mode the node normalises by the batch's statistics and only writes the running
      // ones, and ONNX Runtime writes them into its input's buffer: given the state input, it
      // changed the fed state before the update read it (two updates a step). It reads a copy of
      // the initial value instead, which nothing else reads.
      const decoy = onnx.TensorProto.create({ ...initializers.get(name), name: e.unique(`${name}/unused_by_training`) });
      graph.initializer.push(decoy);
      node.input = node.input.map((v, i) => (i === slot ? (decoy.name as string) : v));
      const kept = e.op('Mul', [name, e.float(momentum)], `${base}/${what}_kept`);
      const added = e.op('Mul', [batch, e.float(1 - momentum)], `${base}/${what}_added`);
      e.op('Add', [kept, added], `${base}/${what}_next`, {}, `${name}.next`);
      statistics.push(name);
    }
  }
  return statistics;
}

function checkModel(model: onnx.ModelProto): number {
  const opset = opsetsOf(model).get('') ?? 0;
  if (opset < 13) throw new AmpError('BAD_OPTION', `make-training needs default-domain opset 13 or newer (the gradient ops take axes as inputs); the model imports ${opset || 'none'}`);
  for (const node of model.graph?.node ?? []) {
    for (const a of node.attribute ?? []) {
      if (a.g || a.graphs?.length) throw new AmpError('BAD_GRAPH', `node '${node.name ?? ''}' (${node.op_type}) has a subgraph; make-training differentiates main graphs without control flow`, { subject: node.name ?? '' });
    }
  }
  return opset;
}

function refuseNode(node: onnx.INodeProto, reason: string): AmpError {
  const name = node.name || '(unnamed)';
  return new AmpError('NO_GRADIENT_RULE', `the gradient rule for ${node.op_type} (node '${name}') does not cover ${reason}`, { subject: name });
}

function attribute(node: onnx.INodeProto, name: string): onnx.IAttributeProto | undefined {
  return (node.attribute ?? []).find((a) => a.name === name);
}

function allNames(graph: onnx.GraphProto): Set<string> {
  const names = new Set<string>();
  for (const node of graph.node) {
    if (node.name) names.add(node.name);
    for (const n of [...(node.input ?? []), ...(node.output ?? [])]) names.add(n);
  }
  for (const list of [graph.input, graph.output, graph.value_info ?? []]) for (const info of list) names.add(info.name ?? '');
  for (const t of graph.initializer) names.add(t.name ?? '');
  return names;
}

/** Values some of `targets` are computed from (the targets included). */
function upstreamOf(nodes: readonly onnx.NodeProto[], targets: readonly string[]): Set<string> {
  const upstream = new Set(targets);
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i] as onnx.NodeProto;
    if (node.output.some((o) => upstream.has(o))) for (const input of node.input) if (input) upstream.add(input);
  }
  return upstream;
}

/** Values that depend on a parameter through float values: the ones a gradient can reach. */
function activeValues(nodes: readonly onnx.NodeProto[], params: ReadonlySet<string>, isFloat: (name: string) => boolean): Set<string> {
  const active = new Set(params);
  for (const node of nodes) {
    if (!node.input.some((i) => active.has(i))) continue;
    for (const o of node.output) if (o && isFloat(o)) active.add(o);
  }
  return active;
}

function initializerDims(graph: ModelGraph, name: string): number[] {
  const t = graph.main.initializers.get(name);
  return (t?.dims ?? []).map(Number);
}

/** The model with every symbolic or unknown input dimension set to RANK_PROBE_SIZE. */
function withProbeDims(model: onnx.ModelProto): onnx.IModelProto {
  const input = (model.graph?.input ?? []).map((info) => {
    const shape = info.type?.tensor_type?.shape;
    if (!shape?.dim?.some((d) => !d.dim_value)) return info;
    const dim = shape.dim.map((d) => (d.dim_value ? d : { dim_value: RANK_PROBE_SIZE }));
    return { ...info, type: { ...info.type, tensor_type: { ...info.type?.tensor_type, shape: { dim } } } };
  });
  return { ...model, graph: { ...model.graph, input } };
}

/** Appends one by one: a spread of a 60,000-node list overflows the call stack. */
function appendAll<T>(target: T[], items: readonly T[]): void {
  for (let i = 0; i < items.length; i++) target.push(items[i] as T);
}

/** Wires the graph's inputs, outputs and nodes: forward, loss head, backward, optimizer. */
function assemble(
  model: onnx.ModelProto,
  e: Emitter,
  parts: { params: string[]; head: ReturnType<typeof addLossHead>; lr: string; state: string[]; exposeGradients: boolean },
): void {
  const graph = model.graph as onnx.GraphProto;
  const declared = new Map(graph.initializer.map((t) => [t.name, t]));
  appendAll(graph.node, e.nodes);
  appendAll(graph.initializer, e.initializers);
  const dimsOf = (name: string) => (declared.get(name)?.dims ?? []).map(Number);
  // A parameter the forward model also listed as a graph input (an overridable initializer) is
  // declared once, as the step graph's parameter input.
  const parameters = new Set(parts.params);
  graph.input = graph.input.filter((input) => !parameters.has(input.name ?? ''));
  appendAll(graph.input, [...parts.head.inputs, valueInfo(parts.lr, FLOAT, [])]);
  for (const p of parts.params) graph.input.push(valueInfo(p, FLOAT, dimsOf(p)));
  const outputs = [valueInfo(parts.head.loss, FLOAT, []), ...parts.head.outputs, ...graph.output.filter((o) => o.name !== parts.head.loss)];
  for (const p of parts.params) outputs.push(valueInfo(`${p}.next`, FLOAT, dimsOf(p)));
  graph.output.splice(0, graph.output.length, ...outputs);
  for (const s of parts.state) {
    graph.input.push(stateInfo(s, graph));
    const info = stateInfo(s, graph);
    info.name = `${s}.next`;
    graph.output.push(info);
  }
  if (parts.exposeGradients) for (const p of parts.params) graph.output.push(valueInfo(`${p}_grad`, FLOAT, dimsOf(p)));
}

function stateInfo(name: string, graph: onnx.GraphProto): onnx.ValueInfoProto {
  const t = graph.initializer.find((i) => i.name === name);
  return valueInfo(name, t?.data_type ?? FLOAT, (t?.dims ?? []).map(Number));
}

export type { LossSpec, OptimizerSpec, TrainableChoice, TrainableSelection };
export type { Shape };
