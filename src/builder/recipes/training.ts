/**
 * One-step training graphs in plain ONNX (opset 17, default domain), the shape
 * shared/design/training.md asks for: forward, mean softmax cross-entropy `loss`, an explicit
 * backward from the seed `loss_grad`, gradients named `<param>_grad` and the optimizer update
 * spelled out in primitive ops, so a regular ONNX Runtime inference session runs a training step.
 *
 * Weights are stored [in, out] (x @ W), not PyTorch's [out, in]. Only `lr` is a graph input among
 * the hyperparameters; the optimizer's constants (momentum, betas, rho, eps) are initializers
 * named `<optimizer>.<name>`. With `exposeGradients` every `<param>_grad` is also a graph output
 * (the gradient checks read them there).
 */
import { DataType } from '../../onnx/data-types.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import { attr, GraphBuilder, randomNormal, seededRandom, tensor, type AttributeValue } from '../graph-builder.js';

export type Optimizer = 'sgd-momentum' | 'adam' | 'rmsprop';
export type LossOp = 'SoftmaxCrossEntropyLoss' | 'LogSoftmax+NLL';
export type StateValue = Float32Array | BigInt64Array;

export interface TrainingContract {
  loss: string;
  lossGrad: string;
  params: string[];
  /** `${param}_grad`, in the order of `params`. */
  grads: string[];
  /** Every tensor the runner feeds back: parameters, moments, step; `output` is `${input}.next`. */
  state: Array<{ input: string; output: string }>;
  dataInputs: string[];
  /** Hyperparameters that are graph inputs (the runner feeds them each step). */
  hyperparameters: string[];
}

export interface TrainingStep {
  model: onnx.ModelProto;
  contract: TrainingContract;
  /** Deterministic initial values for every state input (parameters and optimizer state). */
  initialState: Map<string, StateValue>;
  /** Dimensions of every state input ([] for scalars). */
  shapes: Map<string, number[]>;
}

export interface OptimizerConstants {
  momentum: number;
  beta1: number;
  beta2: number;
  rho: number;
  eps: number;
}

/** PyTorch's defaults (SGD momentum is the usual 0.9). */
export const DEFAULT_OPTIMIZER_CONSTANTS: OptimizerConstants = { momentum: 0.9, beta1: 0.9, beta2: 0.999, rho: 0.99, eps: 1e-8 };

interface CommonSpec {
  batch: number | string;
  optimizer: Optimizer;
  classes: number;
  seed?: number;
  lossOp?: LossOp;
  exposeGradients?: boolean;
  constants?: Partial<OptimizerConstants>;
}

export interface MlpTrainingSpec extends CommonSpec {
  inputSize: number;
  hidden: number;
  /** Number of Dense+ReLU layers before the classifier; default 2. */
  hiddenLayers?: number;
}

export interface AttentionTrainingSpec extends CommonSpec {
  sequence: number;
  /** Feature width of each position (features are [batch, sequence, width]). */
  width: number;
}

const FLOAT = DataType.FLOAT;
const INT64 = DataType.INT64;

class StepBuilder {
  readonly b: GraphBuilder;
  readonly random: () => number;
  readonly initialState = new Map<string, StateValue>();
  readonly shapes = new Map<string, number[]>();
  private readonly params: string[] = [];
  private readonly optimizerState: string[] = [];
  private zero: string | undefined;

  constructor(name: string, readonly spec: CommonSpec) {
    this.b = new GraphBuilder(name);
    this.random = seededRandom(spec.seed ?? 1);
  }

  /** A node whose single output is named `output` (by default the node's own name, which keeps dumps readable). */
  op(type: string, inputs: string[], name: string, attributes: Record<string, AttributeValue> = {}, output = name): string {
    return this.b.op(type, inputs, attributes, { name, outputs: [output] });
  }

  axes(name: string, values: number[]): string {
    return this.b.ints(name, values);
  }

  /** Trainable parameters are graph inputs, not initializers, so the runner can feed back their `.next`. */
  param(name: string, dims: number[], values: Float32Array): string {
    this.b.input(name, FLOAT, dims);
    this.params.push(name);
    this.initialState.set(name, values);
    this.shapes.set(name, dims);
    return name;
  }

  /** He init for weights feeding a ReLU, Glorot for the rest. */
  weight(name: string, fanIn: number, fanOut: number, init: 'he' | 'glorot'): string {
    const std = init === 'he' ? Math.sqrt(2 / fanIn) : Math.sqrt(2 / (fanIn + fanOut));
    return this.param(name, [fanIn, fanOut], randomNormal(fanIn * fanOut, std, this.random));
  }

  filled(name: string, size: number, value: number): string {
    return this.param(name, [size], new Float32Array(size).fill(value));
  }

  private stateInput(name: string, dims: number[], values: StateValue): string {
    this.b.input(name, values instanceof BigInt64Array ? INT64 : FLOAT, dims);
    this.optimizerState.push(name);
    this.initialState.set(name, values);
    this.shapes.set(name, dims);
    return name;
  }

  private moment(param: string, suffix: string): string {
    const dims = this.shapes.get(param)!;
    return this.stateInput(`${param}.${suffix}`, dims, new Float32Array(dims.reduce((a, d) => a * d, 1)));
  }

  /** y = x @ w + bias on rows. */
  dense(scope: string, x: string, w: string, bias: string, output = `${scope}/bias_add`): string {
    return this.op('Add', [this.op('MatMul', [x, w], `${scope}/matmul`), bias], `${scope}/bias_add`, {}, output);
  }

  /** Gradients of `dense` on 2-D rows: writes `<w>_grad`, `<bias>_grad`; returns dL/dx when asked. */
  denseBackward(scope: string, x: string, w: string, bias: string, dy: string, needInputGrad: boolean): string | undefined {
    this.op('Gemm', [x, dy], `${scope}/matmul_grad_w`, { transA: attr.int(1) }, `${w}_grad`);
    this.op('ReduceSum', [dy, this.axes(`${scope}/bias_grad_axes`, [0])], `${scope}/bias_grad`, { keepdims: attr.int(0) }, `${bias}_grad`);
    return needInputGrad ? this.op('Gemm', [dy, w], `${scope}/matmul_grad_x`, { transB: attr.int(1) }) : undefined;
  }

  /** Relu's derivative as a 0/1 mask of the pre-activation (Greater + Cast + Mul). */
  reluBackward(scope: string, pre: string, dy: string): string {
    this.zero ??= this.b.scalar('zero', 0);
    const mask = this.op('Cast', [this.op('Greater', [pre, this.zero], `${scope}/relu_positive`)], `${scope}/relu_mask`, { to: attr.int(FLOAT) });
    return this.op('Mul', [dy, mask], `${scope}/relu_grad`);
  }

  /** The loss head (outputs `loss`, `logits`); returns dLoss/dlogits, which flows from the seed `loss_grad`. */
  lossHead(logits: string, labels: string): string {
    const { classes, batch } = this.spec;
    const mean = { reduction: attr.string('mean') };
    if ((this.spec.lossOp ?? 'SoftmaxCrossEntropyLoss') === 'SoftmaxCrossEntropyLoss') {
      this.op('SoftmaxCrossEntropyLoss', [logits, labels], 'loss/softmax_cross_entropy', mean, 'loss');
    } else {
      const logProbs = this.op('LogSoftmax', [logits], 'loss/log_softmax', { axis: attr.int(1) });
      this.op('NegativeLogLikelihoodLoss', [logProbs, labels], 'loss/nll', mean, 'loss');
    }
    this.b.output('loss', FLOAT, []);
    this.b.output(logits, FLOAT, [batch, classes]);

    // d(mean cross-entropy)/dlogits = (softmax - onehot) / batch; the batch is read at run time so it may be symbolic.
    const seed = this.b.scalar('loss_grad', 1);
    const probs = this.op('Softmax', [logits], 'loss_grad/softmax', { axis: attr.int(1) });
    const onValues = this.b.initializer('loss_grad/one_hot_values', [2], Float32Array.of(0, 1));
    const oneHot = this.op('OneHot', [labels, this.b.ints('loss_grad/classes', [classes]), onValues], 'loss_grad/one_hot', { axis: attr.int(-1) });
    const batchShape = this.op('Shape', [labels], 'loss_grad/batch_shape');
    const batchSize = this.op('Cast', [batchShape], 'loss_grad/batch_size', { to: attr.int(FLOAT) });
    const perExample = this.op('Div', [seed, batchSize], 'loss_grad/per_example');
    return this.op('Mul', [this.op('Sub', [probs, oneHot], 'loss_grad/residual'), perExample], 'loss_grad/logits');
  }

  /** Adds the optimizer update and the outputs; every `<param>_grad` must exist by now. */
  finish(lr: string, dataInputs: string[]): TrainingStep {
    const c = { ...DEFAULT_OPTIMIZER_CONSTANTS, ...this.spec.constants };
    const b = this.b;
    const optimizer = this.spec.optimizer;
    const update = (p: string, step: string): string =>
      this.op('Sub', [p, this.op('Mul', [lr, step], `${optimizer}/${p}/scaled_step`)], `${optimizer}/${p}/param_update`, {}, `${p}.next`);

    if (optimizer === 'sgd-momentum') {
      const mu = b.scalar('sgd.momentum', c.momentum);
      for (const p of this.params) {
        const v = this.moment(p, 'velocity');
        const decayed = this.op('Mul', [mu, v], `sgd/${p}/velocity_decay`);
        const vNext = this.op('Add', [decayed, `${p}_grad`], `sgd/${p}/velocity_update`, {}, `${v}.next`);
        update(p, vNext);
      }
    } else if (optimizer === 'adam') {
      const [beta1, beta2] = [b.scalar('adam.beta1', c.beta1), b.scalar('adam.beta2', c.beta2)];
      const [oneMinusBeta1, oneMinusBeta2] = [b.scalar('adam.one_minus_beta1', 1 - c.beta1), b.scalar('adam.one_minus_beta2', 1 - c.beta2)];
      const [eps, one] = [b.scalar('adam.eps', c.eps), b.scalar('adam.one', 1)];
      const step = this.stateInput('step', [], BigInt64Array.of(0n));
      const stepNext = this.op('Add', [step, b.initializer('adam.step_increment', [], BigInt64Array.of(1n), INT64)], 'adam/step_update', {}, 'step.next');
      // Bias corrections use the step being taken (t = 1 on the first call), as PyTorch does.
      const t = this.op('Cast', [stepNext], 'adam/step_float', { to: attr.int(FLOAT) });
      const correction1 = this.op('Sub', [one, this.op('Pow', [beta1, t], 'adam/beta1_pow')], 'adam/bias_correction1');
      const correction2 = this.op('Sub', [one, this.op('Pow', [beta2, t], 'adam/beta2_pow')], 'adam/bias_correction2');
      for (const p of this.params) {
        const g = `${p}_grad`;
        const [m, v] = [this.moment(p, 'm'), this.moment(p, 'v')];
        const s = `adam/${p}`;
        const mNext = this.op('Add', [this.op('Mul', [beta1, m], `${s}/m_decay`), this.op('Mul', [oneMinusBeta1, g], `${s}/m_grad`)], `${s}/m_update`, {}, `${m}.next`);
        const gSquared = this.op('Mul', [g, g], `${s}/grad_squared`);
        const vNext = this.op('Add', [this.op('Mul', [beta2, v], `${s}/v_decay`), this.op('Mul', [oneMinusBeta2, gSquared], `${s}/v_grad`)], `${s}/v_update`, {}, `${v}.next`);
        const mHat = this.op('Div', [mNext, correction1], `${s}/m_hat`);
        const vHat = this.op('Div', [vNext, correction2], `${s}/v_hat`);
        const denominator = this.op('Add', [this.op('Sqrt', [vHat], `${s}/v_sqrt`), eps], `${s}/denominator`);
        update(p, this.op('Div', [mHat, denominator], `${s}/direction`));
      }
    } else {
      const [rho, oneMinusRho, eps] = [b.scalar('rmsprop.rho', c.rho), b.scalar('rmsprop.one_minus_rho', 1 - c.rho), b.scalar('rmsprop.eps', c.eps)];
      for (const p of this.params) {
        const g = `${p}_grad`;
        const sq = this.moment(p, 'square_avg');
        const s = `rmsprop/${p}`;
        const gSquared = this.op('Mul', [g, g], `${s}/grad_squared`);
        const sqNext = this.op('Add', [this.op('Mul', [rho, sq], `${s}/square_avg_decay`), this.op('Mul', [oneMinusRho, gSquared], `${s}/square_avg_grad`)], `${s}/square_avg_update`, {}, `${sq}.next`);
        const denominator = this.op('Add', [this.op('Sqrt', [sqNext], `${s}/square_avg_sqrt`), eps], `${s}/denominator`);
        update(p, this.op('Div', [g, denominator], `${s}/direction`));
      }
    }

    const state = [...this.params, ...this.optimizerState].map((input) => ({ input, output: `${input}.next` }));
    for (const { input, output } of state) b.output(output, input === 'step' ? INT64 : FLOAT, this.shapes.get(input)!);
    if (this.spec.exposeGradients) for (const p of this.params) b.output(`${p}_grad`, FLOAT, this.shapes.get(p)!);
    return {
      model: b.model({ '': 17 }),
      contract: {
        loss: 'loss',
        lossGrad: 'loss_grad',
        params: [...this.params],
        grads: this.params.map((p) => `${p}_grad`),
        state,
        dataInputs,
        hyperparameters: [lr],
      },
      initialState: this.initialState,
      shapes: this.shapes,
    };
  }
}

/** features [batch, inputSize] -> (Dense(hidden) -> ReLU) x hiddenLayers -> Dense(classes) -> mean softmax cross-entropy. */
export function buildMlpTrainingStep(spec: MlpTrainingSpec): TrainingStep {
  const s = new StepBuilder('mlp_training_step', spec);
  const { b } = s;
  const features = b.input('features', FLOAT, [spec.batch, spec.inputSize]);
  const labels = b.input('labels', INT64, [spec.batch]);
  const lr = b.input('lr', FLOAT, []);

  const widths = [spec.inputSize, ...Array<number>(spec.hiddenLayers ?? 2).fill(spec.hidden), spec.classes];
  const layers: Array<{ scope: string; x: string; w: string; bias: string; pre: string }> = [];
  let x = features;
  for (let i = 1; i < widths.length; i++) {
    const scope = `fc${i}`;
    const last = i === widths.length - 1;
    const w = s.weight(`${scope}.weight`, widths[i - 1]!, widths[i]!, last ? 'glorot' : 'he');
    const bias = s.filled(`${scope}.bias`, widths[i]!, 0);
    const pre = s.dense(scope, x, w, bias, last ? 'logits' : `${scope}/bias_add`);
    layers.push({ scope, x, w, bias, pre });
    x = last ? pre : s.op('Relu', [pre], `${scope}/relu`);
  }

  let dy = s.lossHead(x, labels);
  for (let i = layers.length - 1; i >= 0; i--) {
    const { scope, x: input, w, bias, pre } = layers[i]!;
    if (i < layers.length - 1) dy = s.reluBackward(scope, pre, dy);
    const dx = s.denseBackward(scope, input, w, bias, dy, i > 0);
    if (dx) dy = dx;
  }
  return s.finish(lr, [features, labels]);
}

/**
 * features [batch, sequence, width] -> single-head self-attention (no projection biases) with a
 * residual -> LayerNormalization -> mean over the sequence -> Dense(classes) -> the same loss.
 */
export function buildAttentionTrainingStep(spec: AttentionTrainingSpec): TrainingStep {
  const s = new StepBuilder('attention_training_step', spec);
  const { b } = s;
  const { width: d, sequence } = spec;
  const features = b.input('features', FLOAT, [spec.batch, sequence, d]);
  const labels = b.input('labels', INT64, [spec.batch]);
  const lr = b.input('lr', FLOAT, []);
  const [wq, wk, wv] = ['q', 'k', 'v'].map((n) => s.weight(`attn.${n}.weight`, d, d, 'glorot')) as [string, string, string];
  const gamma = s.filled('ln.weight', d, 1);
  const beta = s.filled('ln.bias', d, 0);
  const head = s.weight('head.weight', d, spec.classes, 'glorot');
  const headBias = s.filled('head.bias', spec.classes, 0);
  const scale = b.scalar('attn.scale', 1 / Math.sqrt(d));
  const swapLast = { perm: attr.ints([0, 2, 1]) };

  const q = s.op('MatMul', [features, wq], 'attn/q_proj');
  const k = s.op('MatMul', [features, wk], 'attn/k_proj');
  const v = s.op('MatMul', [features, wv], 'attn/v_proj');
  const scores = s.op('MatMul', [q, s.op('Transpose', [k], 'attn/k_transpose', swapLast)], 'attn/scores');
  const probs = s.op('Softmax', [s.op('Mul', [scores, scale], 'attn/scale')], 'attn/softmax', { axis: attr.int(-1) });
  const context = s.op('MatMul', [probs, v], 'attn/context');
  const residual = s.op('Add', [features, context], 'attn/residual');
  // LayerNormalization's optional Mean and InvStdDev outputs are what its backward needs.
  const [normed, lnMean, lnInvStd] = b.node('LayerNormalization', [residual, gamma, beta], { axis: attr.int(-1), epsilon: attr.float(1e-5) }, {
    name: 'ln',
    outputs: ['ln', 'ln/mean', 'ln/inv_std_dev'],
  }) as [string, string, string];
  const pooled = s.op('ReduceMean', [normed], 'pool/mean', { axes: attr.ints([1]), keepdims: attr.int(0) });
  const logits = s.dense('head', pooled, head, headBias, 'logits');

  const dLogits = s.lossHead(logits, labels);
  const dPooled = s.denseBackward('head', pooled, head, headBias, dLogits, true)!;
  // The mean spreads dL/dpooled evenly over the sequence positions.
  const perPosition = s.op('Mul', [dPooled, b.scalar('pool.inv_sequence', 1 / sequence)], 'pool/mean_grad_scale');
  const unsqueezed = s.op('Unsqueeze', [perPosition, s.axes('pool/mean_grad_axes', [1])], 'pool/mean_grad_unsqueeze');
  const dNormed = s.op('Expand', [unsqueezed, s.op('Shape', [residual], 'pool/mean_grad_shape')], 'pool/mean_grad');

  const xHat = s.op('Mul', [s.op('Sub', [residual, lnMean], 'ln_grad/centered'), lnInvStd], 'ln_grad/x_hat');
  const positions = s.axes('ln_grad/position_axes', [0, 1]);
  const sumKeep = { keepdims: attr.int(0) };
  s.op('ReduceSum', [s.op('Mul', [dNormed, xHat], 'ln_grad/weight_product'), positions], 'ln_grad/weight', sumKeep, 'ln.weight_grad');
  s.op('ReduceSum', [dNormed, positions], 'ln_grad/bias', sumKeep, 'ln.bias_grad');
  // dx = invstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)), means over the normalized axis.
  const dxHat = s.op('Mul', [dNormed, gamma], 'ln_grad/x_hat_grad');
  const rowMean = { axes: attr.ints([-1]), keepdims: attr.int(1) };
  const meanDxHat = s.op('ReduceMean', [dxHat], 'ln_grad/x_hat_grad_mean', rowMean);
  const meanProduct = s.op('ReduceMean', [s.op('Mul', [dxHat, xHat], 'ln_grad/x_hat_product')], 'ln_grad/x_hat_product_mean', rowMean);
  const inner = s.op('Sub', [s.op('Sub', [dxHat, meanDxHat], 'ln_grad/center'), s.op('Mul', [xHat, meanProduct], 'ln_grad/project')], 'ln_grad/inner');
  // The residual's other branch is the data, which needs no gradient, so dL/dcontext is dL/dresidual.
  const dContext = s.op('Mul', [inner, lnInvStd], 'ln_grad/input');

  const dProbs = s.op('MatMul', [dContext, s.op('Transpose', [v], 'attn/v_transpose', swapLast)], 'attn/context_grad_probs');
  const dV = s.op('MatMul', [s.op('Transpose', [probs], 'attn/probs_transpose', swapLast), dContext], 'attn/context_grad_v');
  const rowDot = s.op('ReduceSum', [s.op('Mul', [dProbs, probs], 'attn/softmax_grad_product'), s.axes('attn/softmax_grad_axes', [-1])], 'attn/softmax_grad_dot', {
    keepdims: attr.int(1),
  });
  const dScaled = s.op('Mul', [probs, s.op('Sub', [dProbs, rowDot], 'attn/softmax_grad_centered')], 'attn/softmax_grad');
  const dScores = s.op('Mul', [dScaled, scale], 'attn/scale_grad');
  const dQ = s.op('MatMul', [dScores, k], 'attn/scores_grad_q');
  const dK = s.op('MatMul', [s.op('Transpose', [dScores], 'attn/scores_grad_transpose', swapLast), q], 'attn/scores_grad_k');
  // The projections are shared across batch and positions: flatten both sides to rows and sum with one Gemm.
  const rowsShape = b.ints('attn/rows_shape', [-1, d]);
  const featureRows = s.op('Reshape', [features, rowsShape], 'attn/feature_rows');
  for (const [name, grad, w] of [['q', dQ, wq], ['k', dK, wk], ['v', dV, wv]] as const) {
    const rows = s.op('Reshape', [grad, rowsShape], `attn/${name}_proj_grad_rows`);
    s.op('Gemm', [featureRows, rows], `attn/${name}_proj_grad_w`, { transA: attr.int(1) }, `${w}_grad`);
  }
  return s.finish(lr, [features, labels]);
}

/**
 * The step graph with each state input's initial value stored as an initializer of the same
 * name: ONNX's way to give an input a default. The `train` runner starts from these values, so
 * a training graph file carries its own initial state.
 */
export function withInitialState(step: TrainingStep): onnx.ModelProto {
  const model = step.model;
  const graph = model.graph as onnx.GraphProto;
  for (const { input } of step.contract.state) {
    const values = step.initialState.get(input);
    if (!values) continue;
    const dims = step.shapes.get(input) ?? [values.length];
    graph.initializer.push(tensor(input, dims, values, values instanceof BigInt64Array ? DataType.INT64 : DataType.FLOAT));
  }
  return model;
}
