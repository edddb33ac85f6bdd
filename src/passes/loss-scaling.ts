/**
 * Loss scaling for training graphs (design/training.md): the seed is multiplied by
 * `amp.loss_scale` before any fp16 compute, every gradient is unscaled in fp32, an fp32
 * all-finite check guards every state output with Where, and the dynamic scale is updated
 * (GradScaler semantics, clamped like ONNX Runtime's). Run on the fp32 graph before the AMP pass,
 * which then puts the Casts where precision changes. Pure: the input model is not changed.
 */
import { attr, tensor, valueInfo } from '../builder/graph-builder.js';
import { cloneMessage } from '../onnx/clone.js';
import { DataType } from '../onnx/data-types.js';
import { AmpError } from '../onnx/errors.js';
import { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph } from '../onnx/graph.js';
import { opsetsOf } from '../onnx/opsets.js';
import { inferElemTypes } from '../onnx/type-inference.js';
import { detectContract, type ContractOptions, type TrainingContract } from './training/contract.js';

export type LossScale =
  | { kind: 'dynamic'; initial: number; growthFactor: number; backoffFactor: number; growthInterval: number; min: number; max: number }
  | { kind: 'static'; value: number }
  | { kind: 'none' };

export const DEFAULT_DYNAMIC_SCALE: Extract<LossScale, { kind: 'dynamic' }> = {
  kind: 'dynamic',
  initial: 2 ** 16,
  growthFactor: 2,
  backoffFactor: 0.5,
  growthInterval: 2000,
  min: 1,
  max: 2 ** 24,
};

/** The names the scaled graph adds, a stable interface for runners. */
export const LOSS_SCALE_NAMES = {
  scale: 'amp.loss_scale',
  tracker: 'amp.growth_tracker',
  scaleNext: 'amp.loss_scale.next',
  trackerNext: 'amp.growth_tracker.next',
  allFinite: 'amp.all_finite',
} as const;

export interface LossScalingReport {
  contract: TrainingContract;
  lossScale: LossScale;
  gradientsUnscaled: number;
  stateGuarded: number;
  nodesAdded: number;
  inputsAdded: string[];
  outputsAdded: string[];
}

/** Parses --loss-scale: dynamic, static:<value> or none. */
export function parseLossScale(spec: string, overrides: Partial<Omit<Extract<LossScale, { kind: 'dynamic' }>, 'kind'>> = {}): LossScale {
  if (spec === 'none') return { kind: 'none' };
  if (spec === 'dynamic') {
    const scale = { ...DEFAULT_DYNAMIC_SCALE, ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) };
    if (!(scale.min > 0 && scale.min <= scale.initial && scale.initial <= scale.max)) {
      throw new AmpError('BAD_OPTION', `loss scale needs 0 < min <= initial <= max (got ${scale.min}, ${scale.initial}, ${scale.max})`);
    }
    if (!(scale.growthFactor > 1 && scale.backoffFactor > 0 && scale.backoffFactor < 1 && Number.isInteger(scale.growthInterval) && scale.growthInterval >= 1)) {
      throw new AmpError('BAD_OPTION', 'loss scale needs growth factor > 1, 0 < backoff factor < 1 and a whole growth interval >= 1');
    }
    return scale;
  }
  const match = /^static:(.+)$/.exec(spec);
  if (match && Number(match[1]) > 0) return { kind: 'static', value: Number(match[1]) };
  throw new AmpError('BAD_OPTION', `--loss-scale ${spec}: expected dynamic, static:<positive value> or none`);
}

export function addLossScaling(input: onnx.IModelProto, lossScale: LossScale, contractOptions: ContractOptions = {}): { model: onnx.ModelProto; report: LossScalingReport } {
  const model = cloneMessage(input) as onnx.ModelProto;
  const graph = new ModelGraph(model);
  const scope = graph.main;
  const types = inferElemTypes(graph, opsetsOf(model));
  const contract = detectContract(graph, types, contractOptions);
  const report: LossScalingReport = { contract, lossScale, gradientsUnscaled: 0, stateGuarded: 0, nodesAdded: 0, inputsAdded: [], outputsAdded: [] };
  if (lossScale.kind === 'none') return { model, report };
  for (const param of contract.params) {
    if (types.get(scope, param.grad) !== DataType.FLOAT) {
      throw new AmpError('TRAINING_CONTRACT', `gradient '${param.grad}' is not float32: loss scaling runs on the fp32 training graph`);
    }
  }

  for (const name of Object.values(LOSS_SCALE_NAMES)) {
    if (graph.isNameUsed(name)) throw new AmpError('TRAINING_CONTRACT', `the graph already uses the name '${name}'; it looks scaled already`);
  }
  const g = model.graph as onnx.GraphProto;
  const opset = opsetsOf(model).get('') ?? 0;
  if (opset < 13) throw new AmpError('TRAINING_CONTRACT', `loss scaling needs ai.onnx opset 13 or later (the model has ${opset})`);
  const name = (base: string) => graph.uniqueName(`amp/${base}`);
  const constant = (base: string, value: number, type: number = DataType.FLOAT): string => {
    const id = name(base);
    const values = type === DataType.INT64 ? BigInt64Array.of(BigInt(value)) : Float32Array.of(value);
    const t = tensor(id, [], values, type);
    g.initializer = [...(g.initializer ?? []), t];
    scope.initializers.set(id, t);
    return id;
  };
  let last = scope.currentNodes().at(-1) ?? null;
  const append = (opType: string, inputs: string[], output: string, attributes: Record<string, ReturnType<typeof attr.int>> = {}, anchor?: onnx.INodeProto | null): string => {
    const node = onnx.NodeProto.create({
      op_type: opType,
      input: inputs,
      output: [output],
      name: graph.uniqueName(`amp/${output.replace(/^amp[/.]/, '')}`),
      attribute: Object.entries(attributes).map(([key, value]) =>
        onnx.AttributeProto.create({ name: key, type: onnx.AttributeProto.AttributeType.INT, i: (value as { value: number }).value }),
      ),
    });
    if (anchor !== undefined) scope.insertNodeAfter(anchor, node);
    else {
      scope.insertNodeAfter(last, node);
      last = node;
    }
    report.nodesAdded++;
    return output;
  };
  /** A scalar graph input or output: the loss-scale state the runner carries from step to step. */
  const addScalar = (kind: 'input' | 'output', id: string, type: number): string => {
    const info = valueInfo(id, type, []);
    g[kind] = [...(g[kind] ?? []), info];
    (kind === 'input' ? scope.inputs : scope.outputs).set(id, info);
    (kind === 'input' ? report.inputsAdded : report.outputsAdded).push(id);
    return id;
  };
  const addInput = (id: string, type: number): string => addScalar('input', id, type);
  const addOutput = (id: string, type: number): void => void addScalar('output', id, type);

  // The scale: a graph input (dynamic) or a constant (static).
  const scale = lossScale.kind === 'dynamic' ? addInput(LOSS_SCALE_NAMES.scale, DataType.FLOAT) : constant('loss_scale', lossScale.value);
  const tracker = lossScale.kind === 'dynamic' ? addInput(LOSS_SCALE_NAMES.tracker, DataType.INT64) : undefined;
  if (lossScale.kind === 'dynamic' && contract.state.every((s) => scope.initializers.has(s.input))) {
    // A graph that carries its initial state (same-name initializers) carries the initial scale
    // and tracker the same way, so a runner starts from the scale the rewrite was asked for. A
    // graph whose state is plain inputs gets none: onnxruntime-node would ignore the fed scale.
    g.initializer = [
      ...(g.initializer ?? []),
      tensor(LOSS_SCALE_NAMES.scale, [], Float32Array.of(lossScale.initial)),
      tensor(LOSS_SCALE_NAMES.tracker, [], BigInt64Array.of(0n), DataType.INT64),
    ];
  }

  // Scale: the seed times the scale, in fp32 before any cast, so every gradient below it is scaled.
  const seedProducer = scope.producerOf(contract.lossGrad)?.node ?? null;
  const seedReaders = [...scope.consumersOf(contract.lossGrad)];
  const scaledSeed = append('Mul', [contract.lossGrad, scale], graph.uniqueName(`${contract.lossGrad}/scaled`), {}, seedProducer);
  for (const use of seedReaders) if (use.index >= 0) scope.setInput(use.node, use.index, scaledSeed);

  // Unscale: each gradient's producer now writes `<grad>/scaled`; the gradient's own name becomes
  // the fp32 unscaled value, so the optimizer and any output keep reading what they read before.
  const inverse = append('Reciprocal', [scale], name('inverse_loss_scale'), {}, null);
  const partialSums: string[] = [];
  for (const param of contract.params) {
    const producer = scope.producerOf(param.grad);
    if (!producer) continue;
    const scaled = graph.uniqueName(`${param.grad}/scaled`);
    scope.renameNodeOutput(producer.node, producer.index, scaled);
    append('Mul', [scaled, inverse], param.grad, {}, producer.node);
    report.gradientsUnscaled++;
    partialSums.push(append('ReduceSum', [param.grad], name(`${param.name}/grad_sum`), { keepdims: attr.int(0) }));
  }

  // All-finite, in fp32: inf - inf and NaN - NaN are NaN, and NaN != 0.
  const total = partialSums.length === 1 ? (partialSums[0] as string) : append('Sum', partialSums, name('grad_sum_total'));
  const difference = append('Sub', [total, total], name('grad_sum_self_difference'));
  const finite = append('Equal', [difference, constant('zero', 0)], LOSS_SCALE_NAMES.allFinite);
  addOutput(LOSS_SCALE_NAMES.allFinite, DataType.BOOL);

  // Skip the step on overflow: every state output becomes Where(finite, X.next, X).
  for (const { input, output } of contract.state) {
    const producer = scope.producerOf(output);
    if (!producer) continue;
    const unguarded = graph.uniqueName(`${output}/unguarded`);
    // Nodes of this step that read X.next (Adam's bias correction reads step.next) keep the
    // value they computed with; only the graph output is guarded.
    const readers = scope.consumersOf(output).filter((use) => use.index >= 0);
    scope.renameNodeOutput(producer.node, producer.index, unguarded);
    for (const use of [...readers]) scope.setInput(use.node, use.index, unguarded);
    append('Where', [finite, unguarded, input], output);
    report.stateGuarded++;
  }

  if (lossScale.kind === 'dynamic' && tracker) {
    const one = constant('one_i64', 1, DataType.INT64);
    const zero = constant('zero_i64', 0, DataType.INT64);
    const advanced = append('Add', [tracker, one], name('tracker_plus_one'));
    const tracker1 = append('Where', [finite, advanced, zero], name('tracker_after_step'));
    const grow = append('Equal', [tracker1, constant('growth_interval', lossScale.growthInterval, DataType.INT64)], name('grow'));
    const grown = append('Min', [append('Mul', [scale, constant('growth_factor', lossScale.growthFactor)], name('scale_grown')), constant('max_scale', lossScale.max)], name('scale_grown_clamped'));
    const backedOff = append('Max', [append('Mul', [scale, constant('backoff_factor', lossScale.backoffFactor)], name('scale_backed_off')), constant('min_scale', lossScale.min)], name('scale_backed_off_clamped'));
    const keptOrGrown = append('Where', [grow, grown, scale], name('scale_if_finite'));
    append('Where', [finite, keptOrGrown, backedOff], LOSS_SCALE_NAMES.scaleNext);
    append('Where', [grow, zero, tracker1], LOSS_SCALE_NAMES.trackerNext);
    addOutput(LOSS_SCALE_NAMES.scaleNext, DataType.FLOAT);
    addOutput(LOSS_SCALE_NAMES.trackerNext, DataType.INT64);
  }
  graph.commit();
  return { model, report };
}
