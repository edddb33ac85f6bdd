/**
 * Optimizer updates spelled out in standard ONNX ops (the `ai.onnx.preview.training` ops have no
 * kernels in regular ONNX Runtime), with PyTorch's semantics and defaults. Each reads the
 * contract's gradient `<param>_grad`, which the loss-scaling pass later unscales in place, and
 * writes `<param>.next` and `<state>.next` for every state tensor it keeps.
 */
import { attr, tensor } from '../../builder/graph-builder.js';
import { DataType } from '../../onnx/data-types.js';
import { AmpError } from '../../onnx/errors.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import type { Emitter } from './emitter.js';

export const OPTIMIZER_KINDS = ['sgd', 'momentum', 'adam', 'adamw', 'rmsprop'] as const;
export type OptimizerKind = (typeof OPTIMIZER_KINDS)[number];

export interface OptimizerSpec {
  kind: OptimizerKind;
  /** momentum: the velocity's decay (torch.optim.SGD momentum, default 0.9). */
  momentum?: number;
  /** adam/adamw (defaults 0.9, 0.999). */
  beta1?: number;
  beta2?: number;
  /** rmsprop's smoothing constant alpha (default 0.99). */
  rho?: number;
  /** adam/adamw/rmsprop (default 1e-8). */
  epsilon?: number;
  /** L2 penalty added to the gradient (sgd, momentum, adam, rmsprop) or decoupled decay (adamw; default 0.01 there, 0 elsewhere). */
  weightDecay?: number;
}

export interface OptimizerDefaults {
  momentum: number;
  beta1: number;
  beta2: number;
  rho: number;
  epsilon: number;
}

/** torch.optim's defaults (SGD's momentum has none there; 0.9 is the usual choice). */
export const OPTIMIZER_DEFAULTS: OptimizerDefaults = { momentum: 0.9, beta1: 0.9, beta2: 0.999, rho: 0.99, epsilon: 1e-8 };

export interface ParameterSlot {
  name: string;
  grad: string;
  dims: number[];
}

export interface OptimizerState {
  /** The state input's name (its output is `<name>.next`). */
  name: string;
  initial: onnx.TensorProto;
}

export interface OptimizerResult {
  /** State tensors besides the parameters, with their initial values. */
  state: OptimizerState[];
}

const { FLOAT, INT64 } = DataType;

/**
 * Writes the update of every parameter; `lr` is the learning-rate input. Per parameter p with
 * gradient g (after an L2 term wd*p where the optimizer takes one):
 *   sgd       p' = p - lr g
 *   momentum  v' = mu v + g;  p' = p - lr v'                              (PyTorch, dampening 0)
 *   adam      m' = b1 m + (1-b1) g;  v' = b2 v + (1-b2) g^2;  t' = t + 1
 *             p' = p - lr (m'/(1-b1^t')) / (sqrt(v'/(1-b2^t')) + eps)
 *   adamw     as adam on g without the L2 term, and p decays first: p' = p (1 - lr wd) - lr (...)
 *   rmsprop   s' = rho s + (1-rho) g^2;  p' = p - lr g / (sqrt(s') + eps)
 */
export function addOptimizer(e: Emitter, params: readonly ParameterSlot[], spec: OptimizerSpec, lr: string): OptimizerResult {
  const taken = (name: string) => e.has(name);
  const c = { ...OPTIMIZER_DEFAULTS, ...definedOnly(spec) };
  const weightDecay = spec.weightDecay ?? (spec.kind === 'adamw' ? 0.01 : 0);
  const state: OptimizerState[] = [];
  const stateInput = (name: string, dims: number[], type: number): string => {
    if (taken(name) || taken(`${name}.next`)) throw new AmpError('BAD_GRAPH', `the optimizer's state '${name}' (and its '${name}.next') would take a name the model uses`, { subject: name });
    e.reserve(name);
    e.reserve(`${name}.next`);
    const count = dims.reduce((a, d) => a * d, 1);
    state.push({ name, initial: tensor(name, dims, type === INT64 ? new BigInt64Array(count) : new Float32Array(count), type) });
    return name;
  };
  const kind = spec.kind;
  const f = (v: number) => e.float(v);

  let biasCorrection: { first: string; second: string } | undefined;
  if (kind === 'adam' || kind === 'adamw') {
    const step = stateInput(freeName('step', taken), [], INT64);
    const stepNext = e.op('Add', [step, e.int(1)], `${kind}/step_update`, {}, `${step}.next`);
    // Bias corrections use the step being taken (t = 1 on the first call), as PyTorch does.
    const t = e.op('Cast', [stepNext], `${kind}/step_float`, { to: attr.int(FLOAT) });
    biasCorrection = {
      first: e.op('Sub', [f(1), e.op('Pow', [f(c.beta1), t], `${kind}/beta1_pow`)], `${kind}/bias_correction1`),
      second: e.op('Sub', [f(1), e.op('Pow', [f(c.beta2), t], `${kind}/beta2_pow`)], `${kind}/bias_correction2`),
    };
  }

  for (const p of params) {
    const s = `${kind}/${p.name}`;
    const l2 = weightDecay !== 0 && kind !== 'adamw';
    const g = l2 ? e.op('Add', [p.grad, e.op('Mul', [f(weightDecay), p.name], `${s}/l2`)], `${s}/grad_l2`) : p.grad;
    let decayed = p.name;
    if (kind === 'adamw' && weightDecay !== 0) {
      decayed = e.op('Mul', [p.name, e.op('Sub', [f(1), e.op('Mul', [lr, f(weightDecay)], `${s}/lr_decay`)], `${s}/decay_factor`)], `${s}/decayed`);
    }
    let direction: string;
    if (kind === 'sgd') {
      direction = g;
    } else if (kind === 'momentum') {
      const v = stateInput(`${p.name}.velocity`, p.dims, FLOAT);
      direction = e.op('Add', [e.op('Mul', [f(c.momentum), v], `${s}/velocity_decay`), g], `${s}/velocity_update`, {}, `${v}.next`);
    } else if (kind === 'rmsprop') {
      const sq = stateInput(`${p.name}.square_avg`, p.dims, FLOAT);
      const gSquared = e.op('Mul', [g, g], `${s}/grad_squared`);
      const sqNext = e.op('Add', [e.op('Mul', [f(c.rho), sq], `${s}/square_avg_decay`), e.op('Mul', [f(1 - c.rho), gSquared], `${s}/square_avg_grad`)], `${s}/square_avg_update`, {}, `${sq}.next`);
      direction = e.op('Div', [g, e.op('Add', [e.op('Sqrt', [sqNext], `${s}/square_avg_sqrt`), f(c.epsilon)], `${s}/denominator`)], `${s}/direction`);
    } else {
      const correction = biasCorrection as { first: string; second: string };
      const m = stateInput(`${p.name}.m`, p.dims, FLOAT);
      const v = stateInput(`${p.name}.v`, p.dims, FLOAT);
      const mNext = e.op('Add', [e.op('Mul', [f(c.beta1), m], `${s}/m_decay`), e.op('Mul', [f(1 - c.beta1), g], `${s}/m_grad`)], `${s}/m_update`, {}, `${m}.next`);
      const gSquared = e.op('Mul', [g, g], `${s}/grad_squared`);
      const vNext = e.op('Add', [e.op('Mul', [f(c.beta2), v], `${s}/v_decay`), e.op('Mul', [f(1 - c.beta2), gSquared], `${s}/v_grad`)], `${s}/v_update`, {}, `${v}.next`);
      const mHat = e.op('Div', [mNext, correction.first], `${s}/m_hat`);
      const vHat = e.op('Div', [vNext, correction.second], `${s}/v_hat`);
      direction = e.op('Div', [mHat, e.op('Add', [e.op('Sqrt', [vHat], `${s}/v_sqrt`), f(c.epsilon)], `${s}/denominator`)], `${s}/direction`);
    }
    e.op('Sub', [decayed, e.op('Mul', [lr, direction], `${s}/scaled_step`)], `${s}/param_update`, {}, `${p.name}.next`);
  }
  return { state };
}

function definedOnly(spec: OptimizerSpec): Partial<OptimizerDefaults> {
  return Object.fromEntries(Object.entries(spec).filter(([k, v]) => v !== undefined && k !== 'kind' && k !== 'weightDecay')) as Partial<OptimizerDefaults>;
}

function freeName(base: string, taken: (name: string) => boolean): string {
  let name = base;
  for (let i = 1; taken(name) || taken(`${name}.next`); i++) name = `${base}_${i}`;
  return name;
}
