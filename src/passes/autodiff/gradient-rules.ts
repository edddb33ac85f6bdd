/**
 * Reverse-mode gradient rules, one entry per ONNX op: which inputs carry a gradient (the others
 * are shapes, indices, axes, masks or statistics: the trainable-parameter search reads this too)
 * and how dL/dinputs are written in standard ONNX ops from dL/doutputs. Each entry's `derivation`
 * is the formula it implements (g = dL/dY, the incoming gradient; X, Y the forward values).
 *
 * Every rule is checked against finite differences in float64 (test/passes/autodiff/gradient-rules.test.ts).
 */
import { attr } from '../../builder/graph-builder.js';
import { DataType } from '../../onnx/data-types.js';
import { AmpError } from '../../onnx/errors.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import type { Shape } from '../../onnx/shape-inference.js';
import type { Emitter } from './emitter.js';

export interface GradientContext {
  readonly e: Emitter;
  readonly node: onnx.INodeProto;
  /** Prefix for the names of this node's backward values. */
  readonly base: string;
  /** The default-domain opset of the model. */
  readonly opset: number;
  /** Forward input i ('' when absent). */
  x(i: number): string;
  /** Forward output i (the rule may ask for an optional output with `requireOutput`). */
  y(i: number): string;
  /** dL/d(output i), or undefined when no gradient reaches that output. */
  dy(i: number): string | undefined;
  /** dL/d(output i), zeros when no gradient reaches it. */
  dyOrZeros(i: number): string;
  /** Whether the gradient of input i is needed (a parameter is upstream of it). */
  wants(i: number): boolean;
  /** The rank of a forward value; throws a clear error when it cannot be inferred. */
  rank(name: string): number;
  /** Fully known static dims of a forward value. */
  shape(name: string): Shape | undefined;
  /** Statically known values of a small int tensor (axes, starts, split sizes). */
  ints(name: string): number[] | undefined;
  int(attribute: string, fallback: number): number;
  intsAttr(attribute: string): number[] | undefined;
  float(attribute: string, fallback: number): number;
  string(attribute: string, fallback: string): string;
  /** Makes the forward node produce its optional output `index` (Mean, InvStdDev, Indices) and returns its name. */
  requireOutput(index: number, suffix: string): string;
  /** A gradient of input i summed back over the axes a broadcast to output 0 expanded. */
  sumTo(grad: string, i: number): string;
  /** Refuses this node with a reason (an attribute combination the rule does not cover). */
  refuse(reason: string): never;
}

export interface GradientRule {
  /** Input slots a gradient flows to; the other inputs are constants of the computation. */
  readonly inputs: readonly number[];
  /** A gradient flows to every input, however many the node has (Concat, Max, Min). */
  readonly variadic?: boolean;
  readonly derivation: string;
  /** dL/dinput for each slot in `inputs` that `wants()` (undefined for the others). */
  grad(c: GradientContext): Array<string | undefined>;
}

const { FLOAT } = DataType;

/** An input slot's gradient list of length `n` with only the listed entries set. */
function slots(n: number, entries: Record<number, string | undefined>): Array<string | undefined> {
  return Array.from({ length: n }, (_, i) => entries[i]);
}

const negate = (c: GradientContext, v: string, base: string) => c.e.op('Neg', [v], base);

/** Swaps the last two axes of a value of rank r (MatMul's transpose). */
function swapLast(c: GradientContext, v: string, rank: number, base: string): string {
  if (rank < 2) c.refuse('a 1-D MatMul operand (the rule covers operands of rank 2 or more)');
  const perm = [...Array(rank).keys()];
  [perm[rank - 2], perm[rank - 1]] = [perm[rank - 1] as number, perm[rank - 2] as number];
  return c.e.op('Transpose', [v], base, { perm: attr.ints(perm) });
}

/** The reduction axes of a ReduceXxx node: the attribute before opset 18, the input from 18 (13 for ReduceSum). */
function reduceAxes(c: GradientContext, axesFromInput: boolean): number[] | undefined {
  if (axesFromInput) return c.x(1) ? c.ints(c.x(1)) ?? c.refuse('its axes are computed at run time') : undefined;
  return c.intsAttr('axes');
}

/**
 * dReduce: g, with the reduced axes put back (keepdims = 0), expanded to X's shape. Unsqueeze
 * reads negative axes against its output, which has X's rank, so the axes need no normalising.
 */
function spreadReduction(c: GradientContext, axesFromInput: boolean, base: string): string {
  const axes = reduceAxes(c, axesFromInput);
  const keep = c.int('keepdims', 1) === 1;
  let g = c.dy(0) as string;
  if (!keep && axes && axes.length) g = c.e.op('Unsqueeze', [g, c.e.ints(axes)], `${base}/unsqueeze`);
  if (axes && !axes.length && c.int('noop_with_empty_axes', 0) === 1) return g;
  return c.e.op('Expand', [g, c.e.op('Shape', [c.x(0)], `${base}/shape`)], `${base}/expand`);
}

/** The normalised axis of an op attribute that may be negative. */
function normalAxis(c: GradientContext, axis: number, of: string): number {
  return axis < 0 ? axis + c.rank(of) : axis;
}

/** Unary elementwise: dX = g * f'(X, Y), written by `derivative`. */
function unary(derivation: string, derivative: (c: GradientContext, base: string) => string): GradientRule {
  return {
    inputs: [0],
    derivation,
    grad: (c) => [c.e.op('Mul', [c.dy(0) as string, derivative(c, c.base)], `${c.base}/dx`)],
  };
}

/** A view that only moves elements (Reshape, Flatten, Squeeze, Unsqueeze, Identity): dX = g reshaped to X. */
const reshapeBack = (derivation: string): GradientRule => ({
  inputs: [0],
  derivation,
  grad: (c) => [c.e.reshapeLike(c.dy(0) as string, c.x(0), `${c.base}/dx`)],
});

/** Erf'(x) = 2/sqrt(pi) * exp(-x^2). */
function erfDerivative(c: GradientContext, x: string, base: string): string {
  const square = c.e.op('Mul', [x, x], `${base}/x_squared`);
  return c.e.op('Mul', [c.e.op('Exp', [c.e.op('Neg', [square], `${base}/neg_x_squared`)], `${base}/exp`), c.e.float(2 / Math.sqrt(Math.PI))], `${base}/erf_derivative`);
}

function gemmRule(): GradientRule {
  return {
    inputs: [0, 1, 2],
    derivation:
      "Y = alpha*A'B' + beta*C with A' = transA ? A^T : A. dA' = alpha g B'^T, dB' = alpha A'^T g; transposed back when the input was; dC = beta g summed over the broadcast axes",
    grad: (c) => {
      const [transA, transB, alpha, beta] = [c.int('transA', 0), c.int('transB', 0), c.float('alpha', 1), c.float('beta', 1)];
      const g = c.dy(0) as string;
      const gemm = (a: string, b: string, ta: number, tb: number, name: string) =>
        c.e.op('Gemm', [a, b], `${c.base}/${name}`, { transA: attr.int(ta), transB: attr.int(tb), alpha: attr.float(alpha) });
      const dA = c.wants(0) ? (transA ? gemm(c.x(1), g, transB, 1, 'dA') : gemm(g, c.x(1), 0, transB ? 0 : 1, 'dA')) : undefined;
      const dB = c.wants(1) ? (transB ? gemm(g, c.x(0), 1, transA, 'dB') : gemm(c.x(0), g, transA ? 0 : 1, 0, 'dB')) : undefined;
      let dC: string | undefined;
      if (c.wants(2) && c.x(2)) {
        const scaled = beta === 1 ? g : c.e.op('Mul', [g, c.e.float(beta)], `${c.base}/dC_scaled`);
        dC = c.sumTo(scaled, 2);
      }
      return [dA, dB, dC];
    },
  };
}

function convRule(): GradientRule {
  return {
    inputs: [0, 1, 2],
    derivation:
      "dX = ConvTranspose(g, W) with the same strides, dilations, start pads and group (W's layout [C_out, C_in/G, k] is ConvTranspose's [C, M/G, k]), cropped or zero-padded at the end to X's size (rows no window read get no gradient); dW[o,i,k] = sum over n and positions of g[n,o,p] X[n,i,p*s+k*d-pad]: a Conv, with group G, of X arranged [C_in/G, G*N, ...] with g arranged [G*C_out/G, N, ...] as its weights, strides and dilations swapped, transposed to W's layout and cropped to the kernel (G = 1: X^T with g^T); dB = g summed over batch and positions. Depthwise is G = C_in",
    grad: (c) => {
      const group = c.int('group', 1);
      const autoPad = c.string('auto_pad', 'NOTSET');
      if (autoPad !== 'NOTSET' && autoPad !== 'VALID') c.refuse(`auto_pad ${autoPad} (export with explicit pads)`);
      const wShape = c.shape(c.x(1)) ?? c.refuse('the weight has no static shape');
      const rank = wShape.length;
      const spatial = rank - 2;
      const strides = c.intsAttr('strides') ?? Array<number>(spatial).fill(1);
      const dilations = c.intsAttr('dilations') ?? Array<number>(spatial).fill(1);
      const pads = autoPad === 'VALID' ? Array<number>(2 * spatial).fill(0) : c.intsAttr('pads') ?? Array<number>(2 * spatial).fill(0);
      const g = c.dy(0) as string;
      const e = c.e;
      const spatialAxes = Array.from({ length: spatial }, (_, i) => i + 2);
      let dX: string | undefined;
      if (c.wants(0)) {
        const startPads = pads.slice(0, spatial);
        const raw = e.op('ConvTranspose', [g, c.x(1)], `${c.base}/dX_raw`, { strides: attr.ints(strides), dilations: attr.ints(dilations), pads: attr.ints([...startPads, ...startPads.map(() => 0)]), group: attr.int(group) });
        dX = fitToInput(c, raw, rank, c.base);
      }
      let dW: string | undefined;
      if (c.wants(1)) {
        const correlation = weightCorrelation(c, g, group, wShape, { strides: dilations, dilations: strides, pads });
        dW = e.op('Slice', [correlation, e.ints(spatialAxes.map(() => 0)), e.ints(wShape.slice(2)), e.ints(spatialAxes)], `${c.base}/dW`);
      }
      let dB: string | undefined;
      if (c.wants(2) && c.x(2)) dB = e.op('ReduceSum', [g, e.ints([0, ...spatialAxes])], `${c.base}/dB`, { keepdims: attr.int(0) });
      return [dX, dW, dB];
    },
  };
}

/**
 * A transposed convolution's output made X's size: without the end pads it covers X and its end
 * padding, give or take the rows a stride skipped, so it is cropped to X's size, then padded with
 * zeros (rows no window read get no gradient).
 */
function fitToInput(c: GradientContext, raw: string, rank: number, base: string): string {
  const e = c.e;
  const spatialAxes = Array.from({ length: rank - 2 }, (_, i) => i + 2);
  const xShape = e.op('Shape', [c.x(0)], `${base}/x_shape`);
  const xSpatial = e.op('Slice', [xShape, e.ints([2]), e.ints([rank])], `${base}/x_spatial`);
  const cropped = e.op('Slice', [raw, e.ints(spatialAxes.map(() => 0)), xSpatial, e.ints(spatialAxes)], `${base}/dX_cropped`);
  const missing = e.op('Sub', [xShape, e.op('Shape', [cropped], `${base}/dX_cropped_shape`)], `${base}/dX_missing`);
  const padAmounts = e.op('Concat', [e.ints(Array<number>(rank).fill(0)), missing], `${base}/dX_pads`, { axis: attr.int(0) });
  return e.op('Pad', [cropped, padAmounts], `${base}/dX`);
}

/**
 * The full correlation of a Conv's input with its output gradient, per group, in the weight's
 * layout [C_out, C_in/G, k...] (before cropping to the kernel): a Conv of group G whose batch is
 * the group's input channel, whose channels are (group, sample) and whose weights are g arranged
 * [(group, output channel), sample, ...].
 */
function weightCorrelation(c: GradientContext, g: string, group: number, wShape: Shape, conv: { strides: number[]; dilations: number[]; pads: number[] }): string {
  const e = c.e;
  const rank = wShape.length;
  const inPerGroup = Number(wShape[1]);
  const outPerGroup = Number(wShape[0]) / group;
  const spatialPerm = Array.from({ length: rank - 2 }, (_, i) => i + 3);
  // X [N, G*Ci, S...] -> [N, G, Ci, S...] -> [Ci, G, N, S...] -> [Ci, G*N, S...]
  const xShape = e.op('Shape', [c.x(0)], `${c.base}/dW_x_shape`);
  const xSpatial = e.op('Slice', [xShape, e.ints([2]), e.ints([rank])], `${c.base}/dW_x_spatial`);
  const batch = e.op('Slice', [xShape, e.ints([0]), e.ints([1])], `${c.base}/dW_batch`);
  const xSplit = e.op('Reshape', [c.x(0), e.op('Concat', [batch, e.ints([group, inPerGroup]), xSpatial], `${c.base}/dW_x_split_shape`, { axis: attr.int(0) })], `${c.base}/dW_x_split`);
  const xMoved = e.op('Transpose', [xSplit], `${c.base}/dW_x_moved`, { perm: attr.ints([2, 1, 0, ...spatialPerm]) });
  const xBatches = e.op('Mul', [batch, e.ints([group])], `${c.base}/dW_group_batch`);
  const xInput = e.op('Reshape', [xMoved, e.op('Concat', [e.ints([inPerGroup]), xBatches, xSpatial], `${c.base}/dW_x_input_shape`, { axis: attr.int(0) })], `${c.base}/dW_x_input`);
  // g [N, G*Co, S'...] -> [N, G, Co, S'...] -> [G, Co, N, S'...] -> [G*Co, N, S'...]
  const gShape = e.op('Shape', [g], `${c.base}/dW_g_shape`);
  const gSpatial = e.op('Slice', [gShape, e.ints([2]), e.ints([rank])], `${c.base}/dW_g_spatial`);
  const gSplit = e.op('Reshape', [g, e.op('Concat', [batch, e.ints([group, outPerGroup]), gSpatial], `${c.base}/dW_g_split_shape`, { axis: attr.int(0) })], `${c.base}/dW_g_split`);
  const gMoved = e.op('Transpose', [gSplit], `${c.base}/dW_g_moved`, { perm: attr.ints([1, 2, 0, ...spatialPerm]) });
  const gWeights = e.op('Reshape', [gMoved, e.op('Concat', [e.ints([group * outPerGroup]), batch, gSpatial], `${c.base}/dW_g_weight_shape`, { axis: attr.int(0) })], `${c.base}/dW_g_weights`);
  const correlation = e.op('Conv', [xInput, gWeights], `${c.base}/dW_correlation`, { strides: attr.ints(conv.strides), dilations: attr.ints(conv.dilations), pads: attr.ints(conv.pads), group: attr.int(group) });
  // [Ci, G*Co, k...] -> [G*Co, Ci, k...]: the weight's layout.
  return e.op('Transpose', [correlation], `${c.base}/dW_full`, { perm: attr.ints([1, 0, ...Array.from({ length: rank - 2 }, (_, i) => i + 2)]) });
}

function batchNormRule(): GradientRule {
  return {
    inputs: [0, 1, 2],
    derivation:
      'inference mode (running mean m and variance v are constants): Y = scale * xhat + B, xhat = (X - m) / sqrt(v + eps). dX = g * scale / sqrt(v + eps); dscale = sum of g * xhat over all axes but the channel axis 1; dB = sum of g over them. Training mode (training_mode = 1: the batch statistics, biased variance): xhat = (X - mean) * invstd over those axes, dscale and dB as before, dX = scale * invstd * (g - mean(g) - xhat * mean(g * xhat)); the running statistics it writes are state, not differentiated',
    grad: (c) => {
      if (c.int('training_mode', 0) === 1) return batchNormTrainingGrad(c);
      const e = c.e;
      const rank = c.rank(c.x(0));
      const channel = e.ints([1, -1, ...Array<number>(rank - 2).fill(1)]);
      const asChannel = (v: string, name: string) => e.op('Reshape', [v, channel], `${c.base}/${name}`);
      const invStd = e.op('Reciprocal', [e.op('Sqrt', [e.op('Add', [c.x(4), e.float(c.float('epsilon', 1e-5))], `${c.base}/var_eps`)], `${c.base}/std`)], `${c.base}/inv_std`);
      const g = c.dy(0) as string;
      const otherAxes = e.ints([0, ...Array.from({ length: rank - 2 }, (_, i) => i + 2)]);
      const dX = c.wants(0) ? e.op('Mul', [g, asChannel(e.op('Mul', [c.x(1), invStd], `${c.base}/scale_inv_std`), 'scale_inv_std_channel')], `${c.base}/dX`) : undefined;
      let dScale: string | undefined;
      if (c.wants(1)) {
        const xHat = e.op('Mul', [e.op('Sub', [c.x(0), asChannel(c.x(3), 'mean_channel')], `${c.base}/centered`), asChannel(invStd, 'inv_std_channel')], `${c.base}/x_hat`);
        dScale = e.op('ReduceSum', [e.op('Mul', [g, xHat], `${c.base}/g_x_hat`), otherAxes], `${c.base}/dscale`, { keepdims: attr.int(0) });
      }
      const dB = c.wants(2) ? e.op('ReduceSum', [g, otherAxes], `${c.base}/dB`, { keepdims: attr.int(0) }) : undefined;
      return [dX, dScale, dB];
    },
  };
}

/** BatchNormalization in training mode: normalised by the batch's own mean and (biased) variance per channel. */
function batchNormTrainingGrad(c: GradientContext): Array<string | undefined> {
  const e = c.e;
  const rank = c.rank(c.x(0));
  const axisList = [0, ...Array.from({ length: rank - 2 }, (_, i) => i + 2)];
  const axes = e.ints(axisList);
  // ReduceMean takes its axes as an input from opset 18, as an attribute before.
  const meanOver = (v: string, name: string): string =>
    c.opset >= 18 ? e.op('ReduceMean', [v, axes], `${c.base}/${name}`, { keepdims: attr.int(1) }) : e.op('ReduceMean', [v], `${c.base}/${name}`, { keepdims: attr.int(1), axes: attr.ints(axisList) });
  const mean = meanOver(c.x(0), 'batch_mean');
  const centered = e.op('Sub', [c.x(0), mean], `${c.base}/centered`);
  const variance = meanOver(e.op('Mul', [centered, centered], `${c.base}/squared`), 'batch_var');
  const invStd = e.op('Reciprocal', [e.op('Sqrt', [e.op('Add', [variance, e.float(c.float('epsilon', 1e-5))], `${c.base}/var_eps`)], `${c.base}/std`)], `${c.base}/inv_std`);
  const xHat = e.op('Mul', [centered, invStd], `${c.base}/x_hat`);
  const g = c.dy(0) as string;
  const sumKeep = (v: string, name: string) => e.op('ReduceSum', [v, axes], `${c.base}/${name}`, { keepdims: attr.int(0) });
  const dScale = c.wants(1) ? sumKeep(e.op('Mul', [g, xHat], `${c.base}/g_x_hat`), 'dscale') : undefined;
  const dB = c.wants(2) ? sumKeep(g, 'dB') : undefined;
  let dX: string | undefined;
  if (c.wants(0)) {
    const channel = e.ints([1, -1, ...Array<number>(rank - 2).fill(1)]);
    const scale = e.op('Reshape', [c.x(1), channel], `${c.base}/scale_channel`);
    const meanG = meanOver(g, 'g_mean');
    const meanGx = meanOver(e.op('Mul', [g, xHat], `${c.base}/g_x_hat_all`), 'g_x_hat_mean');
    const inner = e.op('Sub', [e.op('Sub', [g, meanG], `${c.base}/g_centered`), e.op('Mul', [xHat, meanGx], `${c.base}/projection`)], `${c.base}/inner`);
    dX = e.op('Mul', [inner, e.op('Mul', [scale, invStd], `${c.base}/scale_inv_std`)], `${c.base}/dX`);
  }
  return [dX, dScale, dB];
}

function layerNormRule(): GradientRule {
  return {
    inputs: [0, 1, 2],
    derivation:
      'xhat = (X - mean) * invstd over the normalised axes [axis, rank). dscale = g * xhat and dB = g, summed to their shapes; dxhat = g * scale; dX = invstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)), means over the normalised axes',
    grad: (c) => {
      const e = c.e;
      const axis = c.int('axis', -1);
      const rank = axis < 0 ? undefined : c.rank(c.x(0));
      const axes = axis < 0 ? Array.from({ length: -axis }, (_, i) => axis + i) : Array.from({ length: (rank as number) - axis }, (_, i) => axis + i);
      const mean = c.requireOutput(1, 'mean');
      const invStd = c.requireOutput(2, 'inv_std_dev');
      // Mean and InvStdDev are in stash_type (float32); the gradient is in X's type.
      const xHat = e.op('Mul', [e.op('Sub', [c.x(0), mean], `${c.base}/centered`), invStd], `${c.base}/x_hat`);
      const g = c.dy(0) as string;
      const dScale = c.wants(1) ? c.sumTo(e.op('Mul', [g, xHat], `${c.base}/g_x_hat`), 1) : undefined;
      const dB = c.wants(2) && c.x(2) ? c.sumTo(g, 2) : undefined;
      let dX: string | undefined;
      if (c.wants(0)) {
        const dxHat = e.op('Mul', [g, c.x(1)], `${c.base}/dx_hat`);
        const keep = { keepdims: attr.int(1) };
        const axesInput = e.ints(axes);
        const meanOf = (v: string, name: string) =>
          e.op('Div', [e.op('ReduceSum', [v, axesInput], `${c.base}/${name}_sum`, keep), e.countRatio(c.x(0), mean, `${c.base}/${name}`)], `${c.base}/${name}`);
        const meanDxHat = meanOf(dxHat, 'dx_hat_mean');
        const meanProduct = meanOf(e.op('Mul', [dxHat, xHat], `${c.base}/dx_hat_x_hat`), 'dx_hat_x_hat_mean');
        const inner = e.op('Sub', [e.op('Sub', [dxHat, meanDxHat], `${c.base}/dx_hat_centered`), e.op('Mul', [xHat, meanProduct], `${c.base}/projection`)], `${c.base}/inner`);
        dX = e.op('Mul', [inner, invStd], `${c.base}/dX`);
      }
      return [dX, dScale, dB];
    },
  };
}

function poolSpread(derivation: string): GradientRule {
  return {
    inputs: [0],
    derivation,
    grad: (c) => {
      const e = c.e;
      const spread = e.op('Expand', [c.dy(0) as string, e.op('Shape', [c.x(0)], `${c.base}/shape`)], `${c.base}/expand`);
      return [e.op('Div', [spread, e.countRatio(c.x(0), c.y(0), c.base)], `${c.base}/dX`)];
    },
  };
}

/** A float 0/1 mask of a boolean value. */
const asFloat = (c: GradientContext, v: string, base: string): string => c.e.op('Cast', [v], base, { to: attr.int(FLOAT) });

/**
 * Max/Min of n inputs: each input gets g where it equals Y, shared equally among the inputs that
 * tie (PyTorch's rule for maximum/minimum: half to each of two equal inputs), summed over its broadcast axes.
 */
function extremumRule(op: 'Max' | 'Min'): GradientRule {
  return {
    inputs: [],
    variadic: true,
    derivation: `Y = ${op.toLowerCase()}(X_1..X_n): dX_i = g * [X_i == Y] / (number of inputs equal to Y), summed to X_i's shape (ties share g equally, as PyTorch's ${op === 'Max' ? 'maximum' : 'minimum'})`,
    grad: (c) => {
      const e = c.e;
      const n = c.node.input?.length ?? 0;
      const masks = Array.from({ length: n }, (_, i) => asFloat(c, e.op('Equal', [c.x(i), c.y(0)], `${c.base}/is_${i}`), `${c.base}/mask_${i}`));
      const ties = n === 1 ? masks[0]! : e.op('Sum', masks, `${c.base}/ties`);
      const share = e.op('Div', [c.dy(0) as string, ties], `${c.base}/share`);
      return masks.map((mask, i) => (c.wants(i) ? c.sumTo(e.op('Mul', [share, mask], `${c.base}/d${i}`), i) : undefined));
    },
  };
}

/** ReduceMax/ReduceMin: g (axes restored) to the elements equal to the extremum, shared equally among ties (PyTorch's amax/amin). */
function reduceExtremumRule(op: 'ReduceMax' | 'ReduceMin'): GradientRule {
  return {
    inputs: [0],
    derivation: `Y = ${op === 'ReduceMax' ? 'max' : 'min'} of X over axes: dX = g (axes restored, expanded) * [X == Y] / (count of X == Y in its reduction), as PyTorch's ${op === 'ReduceMax' ? 'amax' : 'amin'} shares ties`,
    grad: (c) => {
      const e = c.e;
      const fromInput = c.opset >= 18;
      const axes = reduceAxes(c, fromInput);
      let y = c.y(0);
      if (c.int('keepdims', 1) !== 1 && axes && axes.length) y = e.op('Unsqueeze', [y, e.ints(axes)], `${c.base}/y_kept`);
      if (c.int('keepdims', 1) !== 1 && !axes) y = e.op('Reshape', [y, e.op('Shape', [e.op('ReduceSum', [c.x(0)], `${c.base}/all_kept`, { keepdims: attr.int(1) })], `${c.base}/kept_shape`)], `${c.base}/y_all_kept`);
      const mask = asFloat(c, e.op('Equal', [c.x(0), y], `${c.base}/is_extremum`), `${c.base}/mask`);
      const count = axes ? e.op('ReduceSum', [mask, e.ints(axes)], `${c.base}/ties`, { keepdims: attr.int(1) }) : e.op('ReduceSum', [mask], `${c.base}/ties`, { keepdims: attr.int(1) });
      const spread = spreadReduction(c, fromInput, c.base);
      return [e.op('Mul', [spread, e.op('Div', [mask, count], `${c.base}/share`)], `${c.base}/dX`)];
    },
  };
}

/** Clip's bounds: inputs 1 and 2 from opset 11, attributes min and max before. */
function clipBounds(c: GradientContext): { min?: string; max?: string } {
  if (c.opset >= 11) return { ...(c.x(1) ? { min: c.x(1) } : {}), ...(c.x(2) ? { max: c.x(2) } : {}) };
  return { min: c.e.float(c.float('min', -3.4028234663852886e38)), max: c.e.float(c.float('max', 3.4028234663852886e38)) };
}

/** Gather along `axis`: axis moved to the front, scattered with ScatterND (reduction add), moved back. */
function gatherAnyAxis(c: GradientContext): string {
  const e = c.e;
  const rankX = c.rank(c.x(0));
  const axis = normalAxis(c, c.int('axis', 0), c.x(0));
  // The indices' rank, from Y's (rank X - 1 + rank indices): a constant index's own rank may not be inferred.
  const rankI = c.rank(c.y(0)) - rankX + 1;
  const indices = e.op('Unsqueeze', [c.x(1), e.ints([-1])], `${c.base}/indices`);
  if (axis === 0) return e.op('ScatterND', [e.zerosLike(c.x(0), `${c.base}/zeros`), indices, c.dy(0) as string], `${c.base}/dX`, { reduction: attr.string('add') });
  // X moved: [X_axis, X_0..X_axis-1, X_axis+1..]; g moved to match: [I..., X_0..X_axis-1, X_axis+1..].
  const xPerm = [axis, ...Array.from({ length: axis }, (_, i) => i), ...Array.from({ length: rankX - axis - 1 }, (_, i) => axis + 1 + i)];
  const gPerm = [...Array.from({ length: rankI }, (_, i) => axis + i), ...Array.from({ length: axis }, (_, i) => i), ...Array.from({ length: rankX - axis - 1 }, (_, i) => axis + rankI + i)];
  const zeros = e.op('Transpose', [e.zerosLike(c.x(0), `${c.base}/zeros`)], `${c.base}/zeros_moved`, { perm: attr.ints(xPerm) });
  // An identity perm is left out (a scalar index on axis 1): ONNX Runtime 1.29 at its default
  // optimization level gave that no-op Transpose of a Gemm's [3, 10] gradient the shape [10, 3].
  const g = gPerm.every((p, i) => p === i) ? (c.dy(0) as string) : e.op('Transpose', [c.dy(0) as string], `${c.base}/g_moved`, { perm: attr.ints(gPerm) });
  const moved = e.op('ScatterND', [zeros, indices, g], `${c.base}/dX_moved`, { reduction: attr.string('add') });
  const back = xPerm.map((_, i) => xPerm.indexOf(i));
  return e.op('Transpose', [moved], `${c.base}/dX`, { perm: attr.ints(back) });
}

/**
 * The table: one entry per op type of the default domain. Ops that produce no float (Shape,
 * Size, Equal, NonZero...) need none: no gradient flows through an integer or boolean value.
 */
export const GRADIENT_RULES: Readonly<Record<string, GradientRule>> = {
  Add: {
    inputs: [0, 1],
    derivation: 'Y = A + B: dA = g, dB = g, each summed over the axes the broadcast expanded',
    grad: (c) => [c.wants(0) ? c.sumTo(c.dy(0) as string, 0) : undefined, c.wants(1) ? c.sumTo(c.dy(0) as string, 1) : undefined],
  },
  Sub: {
    inputs: [0, 1],
    derivation: 'Y = A - B: dA = g, dB = -g, each summed over the broadcast axes',
    grad: (c) => [c.wants(0) ? c.sumTo(c.dy(0) as string, 0) : undefined, c.wants(1) ? c.sumTo(negate(c, c.dy(0) as string, `${c.base}/neg`), 1) : undefined],
  },
  Mul: {
    inputs: [0, 1],
    derivation: 'Y = A * B: dA = g * B, dB = g * A, each summed over the broadcast axes',
    grad: (c) => [
      c.wants(0) ? c.sumTo(c.e.op('Mul', [c.dy(0) as string, c.x(1)], `${c.base}/g_b`), 0) : undefined,
      c.wants(1) ? c.sumTo(c.e.op('Mul', [c.dy(0) as string, c.x(0)], `${c.base}/g_a`), 1) : undefined,
    ],
  },
  Div: {
    inputs: [0, 1],
    derivation: 'Y = A / B: dA = g / B, dB = -g * A / B^2 = -g * Y / B, each summed over the broadcast axes',
    grad: (c) => {
      const g = c.dy(0) as string;
      const dA = c.wants(0) ? c.sumTo(c.e.op('Div', [g, c.x(1)], `${c.base}/g_over_b`), 0) : undefined;
      const dB = c.wants(1) ? c.sumTo(c.e.op('Neg', [c.e.op('Div', [c.e.op('Mul', [g, c.y(0)], `${c.base}/g_y`), c.x(1)], `${c.base}/g_y_over_b`)], `${c.base}/neg`), 1) : undefined;
      return [dA, dB];
    },
  },
  Pow: {
    inputs: [0, 1],
    derivation: 'Y = A^B: dA = g * B * A^(B-1); dB = g * Y * ln(A) (real only where A > 0), each summed over the broadcast axes',
    grad: (c) => {
      const g = c.dy(0) as string;
      const e = c.e;
      let dA: string | undefined;
      if (c.wants(0)) {
        const exponent = e.op('Cast', [c.x(1)], `${c.base}/exponent`, { to: attr.int(FLOAT) });
        const lower = e.op('Pow', [c.x(0), e.op('Sub', [exponent, e.float(1)], `${c.base}/exponent_minus_one`)], `${c.base}/a_pow`);
        dA = c.sumTo(e.op('Mul', [g, e.op('Mul', [exponent, lower], `${c.base}/derivative`)], `${c.base}/g_derivative`), 0);
      }
      const dB = c.wants(1) ? c.sumTo(e.op('Mul', [e.op('Mul', [g, c.y(0)], `${c.base}/g_y`), e.op('Log', [c.x(0)], `${c.base}/log_a`)], `${c.base}/g_y_log_a`), 1) : undefined;
      return [dA, dB];
    },
  },
  MatMul: {
    inputs: [0, 1],
    derivation: 'Y = A @ B (batched, broadcasting): dA = g @ B^T, dB = A^T @ g, transposes over the last two axes, each summed over broadcast batch axes',
    grad: (c) => {
      const g = c.dy(0) as string;
      const dA = c.wants(0) ? c.sumTo(c.e.op('MatMul', [g, swapLast(c, c.x(1), c.rank(c.x(1)), `${c.base}/b_t`)], `${c.base}/g_bt`), 0) : undefined;
      const dB = c.wants(1) ? c.sumTo(c.e.op('MatMul', [swapLast(c, c.x(0), c.rank(c.x(0)), `${c.base}/a_t`), g], `${c.base}/at_g`), 1) : undefined;
      return [dA, dB];
    },
  },
  Gemm: gemmRule(),
  Conv: convRule(),
  BatchNormalization: batchNormRule(),
  LayerNormalization: layerNormRule(),
  Relu: unary('Y = max(X, 0): dX = g where X > 0, else 0', (c, base) =>
    c.e.op('Cast', [c.e.op('Greater', [c.x(0), c.e.float(0)], `${base}/positive`)], `${base}/mask`, { to: attr.int(FLOAT) }),
  ),
  LeakyRelu: unary('Y = X if X >= 0 else alpha X: dX = g where X >= 0, alpha g elsewhere', (c, base) =>
    c.e.op('Where', [c.e.op('Less', [c.x(0), c.e.float(0)], `${base}/negative`), c.e.float(c.float('alpha', 0.01)), c.e.float(1)], `${base}/slope`),
  ),
  Elu: unary('Y = X if X > 0 else alpha (exp(X) - 1): dX = g where X > 0, g (Y + alpha) elsewhere', (c, base) =>
    c.e.op('Where', [c.e.op('Greater', [c.x(0), c.e.float(0)], `${base}/positive`), c.e.float(1), c.e.op('Add', [c.y(0), c.e.float(c.float('alpha', 1))], `${base}/y_alpha`)], `${base}/slope`),
  ),
  Softplus: unary('Y = log(1 + exp(X)): dX = g * sigmoid(X)', (c, base) => c.e.op('Sigmoid', [c.x(0)], `${base}/sigmoid`)),
  HardSigmoid: unary('Y = max(0, min(1, alpha X + beta)): dX = alpha g where 0 < alpha X + beta < 1, else 0 (PyTorch: the open interval)', (c, base) => {
    const e = c.e;
    const alpha = c.float('alpha', 0.2);
    const z = e.op('Add', [e.op('Mul', [c.x(0), e.float(alpha)], `${base}/scaled`), e.float(c.float('beta', 0.5))], `${base}/z`);
    const inside = e.op('And', [e.op('Greater', [z, e.float(0)], `${base}/above`), e.op('Less', [z, e.float(1)], `${base}/below`)], `${base}/inside`);
    return e.op('Mul', [asFloat(c, inside, `${base}/inside_mask`), e.float(alpha)], `${base}/slope`);
  }),
  HardSwish: unary('Y = X max(0, min(1, X/6 + 1/2)): dX = 0 where X < -3, g where X > 3, g (X/3 + 1/2) between (PyTorch: X/3 + 1/2 on [-3, 3])', (c, base) => {
    const e = c.e;
    const x = c.x(0);
    const middle = e.op('Add', [e.op('Div', [x, e.float(3)], `${base}/third`), e.float(0.5)], `${base}/middle`);
    const upper = e.op('Where', [e.op('Greater', [x, e.float(3)], `${base}/above`), e.float(1), middle], `${base}/upper`);
    return e.op('Where', [e.op('Less', [x, e.float(-3)], `${base}/below`), e.float(0), upper], `${base}/slope`);
  }),
  Clip: {
    inputs: [0],
    derivation: 'Y = min(max(X, min), max): dX = g where min <= X <= max, else 0 (PyTorch: the closed interval); the bounds are constants (ReLU6 is Clip 0..6)',
    grad: (c) => {
      const e = c.e;
      const { min, max } = clipBounds(c);
      let inside: string | undefined;
      if (min) inside = e.op('GreaterOrEqual', [c.x(0), min], `${c.base}/above_min`);
      if (max) {
        const below = e.op('LessOrEqual', [c.x(0), max], `${c.base}/below_max`);
        inside = inside ? e.op('And', [inside, below], `${c.base}/inside`) : below;
      }
      return [inside ? e.op('Mul', [c.dy(0) as string, asFloat(c, inside, `${c.base}/mask`)], `${c.base}/dX`) : (c.dy(0) as string)];
    },
  },
  Sum: {
    inputs: [],
    variadic: true,
    derivation: 'Y = X_1 + ... + X_n (broadcast): dX_i = g summed to X_i\'s shape',
    grad: (c) => (c.node.input ?? []).map((_, i) => (c.wants(i) ? c.sumTo(c.dy(0) as string, i) : undefined)),
  },
  Einsum: {
    inputs: [],
    variadic: true,
    derivation:
      "Y = einsum(eq, X_1..X_n): dX_k = einsum('out,others->present', g, the other operands), present = X_k's labels that appear in the output or another operand; X_k's labels summed in it alone are put back (Unsqueeze) and expanded to X_k's shape. Explicit or implicit output; no ellipsis, no label repeated within an operand (a diagonal)",
    grad: (c) => {
      const e = c.e;
      const equation = c.string('equation', '').replace(/\s+/g, '');
      if (equation.includes('...')) c.refuse('an ellipsis in the equation');
      const [lhs, explicit] = equation.split('->') as [string, string | undefined];
      const operands = lhs.split(',');
      if (operands.some((labels) => new Set(labels).size !== labels.length)) c.refuse('a label repeated within an operand (a diagonal)');
      const counts = new Map<string, number>();
      for (const label of operands.join('')) counts.set(label, (counts.get(label) ?? 0) + 1);
      const output = explicit ?? [...counts].filter(([, n]) => n === 1).map(([label]) => label).sort().join('');
      return operands.map((labels, k) => {
        if (!c.wants(k)) return undefined;
        const others = operands.filter((_, j) => j !== k);
        const present = [...labels].filter((label) => output.includes(label) || others.some((o) => o.includes(label))).join('');
        const inputs = [c.dy(0) as string, ...(c.node.input ?? []).filter((_, j) => j !== k)];
        const partial = e.op('Einsum', inputs, `${c.base}/d${k}`, { equation: attr.string(`${[output, ...others].join(',')}->${present}`) });
        if (present.length === labels.length) return partial;
        const missing = [...labels].map((label, axis) => (present.includes(label) ? -1 : axis)).filter((axis) => axis >= 0);
        const restored = e.op('Unsqueeze', [partial, e.ints(missing)], `${c.base}/d${k}_restored`);
        return e.op('Expand', [restored, e.op('Shape', [c.x(k)], `${c.base}/x${k}_shape`)], `${c.base}/d${k}_expanded`);
      });
    },
  },
  Max: extremumRule('Max'),
  Min: extremumRule('Min'),
  ReduceMax: reduceExtremumRule('ReduceMax'),
  ReduceMin: reduceExtremumRule('ReduceMin'),
  GatherElements: {
    inputs: [0],
    derivation: 'Y[i] = X[i with index[i] on axis]: dX = ScatterElements(zeros, index, g, axis, reduction add) (repeated indices sum)',
    grad: (c) => {
      if (c.opset < 16) c.refuse('GatherElements below opset 16 (its gradient needs ScatterElements with reduction add)');
      return [c.e.op('ScatterElements', [c.e.zerosLike(c.x(0), `${c.base}/zeros`), c.x(1), c.dy(0) as string], `${c.base}/dX`, { axis: attr.int(c.int('axis', 0)), reduction: attr.string('add') })];
    },
  },
  Sigmoid: unary('dX = g * Y * (1 - Y)', (c, base) => c.e.op('Mul', [c.y(0), c.e.op('Sub', [c.e.float(1), c.y(0)], `${base}/one_minus_y`)], `${base}/derivative`)),
  Tanh: unary('dX = g * (1 - Y^2)', (c, base) => c.e.op('Sub', [c.e.float(1), c.e.op('Mul', [c.y(0), c.y(0)], `${base}/y_squared`)], `${base}/derivative`)),
  Exp: unary('dX = g * Y', (c) => c.y(0)),
  Log: unary('dX = g / X', (c, base) => c.e.op('Reciprocal', [c.x(0)], `${base}/reciprocal`)),
  Sqrt: unary('Y = sqrt(X): dX = g / (2 Y)', (c, base) => c.e.op('Div', [c.e.float(0.5), c.y(0)], `${base}/derivative`)),
  Reciprocal: unary('Y = 1/X: dX = -g * Y^2', (c, base) => c.e.op('Neg', [c.e.op('Mul', [c.y(0), c.y(0)], `${base}/y_squared`)], `${base}/derivative`)),
  Neg: unary('dX = -g', (c) => c.e.float(-1)),
  Abs: unary('dX = g * sign(X)', (c, base) => c.e.op('Sign', [c.x(0)], `${base}/sign`)),
  Erf: unary('dX = g * 2/sqrt(pi) * exp(-X^2)', (c, base) => erfDerivative(c, c.x(0), base)),
  Gelu: unary(
    "approximate 'none': Y = X * Phi(X), dX = g * (Phi(X) + X * phi(X)) with Phi(x) = (1 + erf(x/sqrt 2))/2, phi(x) = exp(-x^2/2)/sqrt(2 pi); 'tanh': Y = X (1 + tanh u)/2, u = sqrt(2/pi)(X + 0.044715 X^3), dX = g * ((1 + t)/2 + X (1 - t^2) sqrt(2/pi)(1 + 3*0.044715 X^2)/2), t = tanh u",
    (c, base) => {
      const e = c.e;
      const x = c.x(0);
      const square = e.op('Mul', [x, x], `${base}/x_squared`);
      if (c.string('approximate', 'none') === 'tanh') {
        const k = Math.sqrt(2 / Math.PI);
        const inner = e.op('Mul', [e.float(k), e.op('Add', [x, e.op('Mul', [e.float(0.044715), e.op('Mul', [square, x], `${base}/x_cubed`)], `${base}/cubic`)], `${base}/sum`)], `${base}/u`);
        const t = e.op('Tanh', [inner], `${base}/t`);
        const half = e.op('Mul', [e.float(0.5), e.op('Add', [e.float(1), t], `${base}/one_plus_t`)], `${base}/phi_part`);
        const slope = e.op('Mul', [e.float(0.5 * k), e.op('Add', [e.float(1), e.op('Mul', [e.float(3 * 0.044715), square], `${base}/cubic_slope`)], `${base}/du_dx_scaled`)], `${base}/du_dx`);
        const rest = e.op('Mul', [e.op('Mul', [x, e.op('Sub', [e.float(1), e.op('Mul', [t, t], `${base}/t_squared`)], `${base}/sech_squared`)], `${base}/x_sech`), slope], `${base}/rest`);
        return e.op('Add', [half, rest], `${base}/derivative`);
      }
      const cdf = e.op('Mul', [e.float(0.5), e.op('Add', [e.float(1), e.op('Erf', [e.op('Mul', [x, e.float(Math.SQRT1_2)], `${base}/x_over_sqrt2`)], `${base}/erf`)], `${base}/one_plus_erf`)], `${base}/cdf`);
      const pdf = e.op('Mul', [e.float(1 / Math.sqrt(2 * Math.PI)), e.op('Exp', [e.op('Mul', [square, e.float(-0.5)], `${base}/neg_half_square`)], `${base}/exp`)], `${base}/pdf`);
      return e.op('Add', [cdf, e.op('Mul', [x, pdf], `${base}/x_pdf`)], `${base}/derivative`);
    },
  ),
  Softmax: {
    inputs: [0],
    derivation: 'Y = softmax(X) along axis (opset 13 semantics): dX = Y * (g - sum(g * Y, axis))',
    grad: (c) => {
      if (c.opset < 13) c.refuse('Softmax below opset 13 (coerced to 2-D)');
      const e = c.e;
      const g = c.dy(0) as string;
      const dot = e.op('ReduceSum', [e.op('Mul', [g, c.y(0)], `${c.base}/g_y`), e.ints([c.int('axis', -1)])], `${c.base}/dot`, { keepdims: attr.int(1) });
      return [e.op('Mul', [c.y(0), e.op('Sub', [g, dot], `${c.base}/centered`)], `${c.base}/dX`)];
    },
  },
  LogSoftmax: {
    inputs: [0],
    derivation: 'Y = log softmax(X) along axis: dX = g - exp(Y) * sum(g, axis)',
    grad: (c) => {
      if (c.opset < 13) c.refuse('LogSoftmax below opset 13 (coerced to 2-D)');
      const e = c.e;
      const g = c.dy(0) as string;
      const total = e.op('ReduceSum', [g, e.ints([c.int('axis', -1)])], `${c.base}/sum`, { keepdims: attr.int(1) });
      return [e.op('Sub', [g, e.op('Mul', [e.op('Exp', [c.y(0)], `${c.base}/softmax`), total], `${c.base}/spread`)], `${c.base}/dX`)];
    },
  },
  Identity: reshapeBack('Y = X: dX = g'),
  Reshape: reshapeBack('a view: dX = g reshaped to X\'s shape'),
  Flatten: reshapeBack('a view: dX = g reshaped to X\'s shape'),
  Squeeze: reshapeBack('a view: dX = g reshaped to X\'s shape'),
  Unsqueeze: reshapeBack('a view: dX = g reshaped to X\'s shape'),
  Dropout: {
    inputs: [0],
    derivation:
      'Y = X * mask / (1 - ratio) in training mode, X otherwise: dX = g * mask / (1 - ratio) with the mask the forward pass drew (its Mask output, kept for the backward), g where training_mode is false or absent',
    grad: (c) => {
      const e = c.e;
      const modeInput = c.x(2);
      const known = modeInput ? c.ints(modeInput) : [0];
      if (known && known[0] === 0) return [c.dy(0) as string];
      const mask = asFloat(c, c.requireOutput(1, 'mask'), `${c.base}/mask_float`);
      const ratio = c.x(1) || e.float(0.5);
      const scale = e.op('Div', [e.float(1), e.op('Sub', [e.float(1), ratio], `${c.base}/keep`)], `${c.base}/scale`);
      const kept = e.op('Mul', [c.dy(0) as string, e.op('Mul', [mask, scale], `${c.base}/mask_scaled`)], `${c.base}/dX_training`);
      // In inference mode the Mask output is all true and no scale applies.
      return [known ? kept : e.op('Where', [modeInput, kept, c.dy(0) as string], `${c.base}/dX`)];
    },
  },
  CumSum: {
    inputs: [0],
    derivation: 'Y_i = sum of X_j for j <= i along axis (j < i exclusive; reversed with reverse): dX = CumSum(g) in the other direction, with the same exclusive',
    grad: (c) => [c.e.op('CumSum', [c.dy(0) as string, c.x(1)], `${c.base}/dX`, { exclusive: attr.int(c.int('exclusive', 0)), reverse: attr.int(1 - c.int('reverse', 0)) })],
  },
  Tile: {
    inputs: [0],
    derivation: "Y = X repeated r_k times along each axis k: dX = g reshaped to [r_0, d_0, r_1, d_1, ...] and summed over the repeat axes",
    grad: (c) => {
      const e = c.e;
      const repeats = c.ints(c.x(1)) ?? c.refuse('its repeats are computed at run time');
      const xShape = e.op('Shape', [c.x(0)], `${c.base}/x_shape`);
      const parts = repeats.flatMap((r, k) => [e.ints([r]), e.op('Slice', [xShape, e.ints([k]), e.ints([k + 1])], `${c.base}/dim_${k}`)]);
      const split = e.op('Reshape', [c.dy(0) as string, e.op('Concat', parts, `${c.base}/split_shape`, { axis: attr.int(0) })], `${c.base}/split`);
      return [e.op('ReduceSum', [split, e.ints(repeats.map((_, k) => 2 * k))], `${c.base}/dX`, { keepdims: attr.int(0) })];
    },
  },
  Pad: {
    inputs: [0],
    derivation: "mode constant, pads of 0 or more: Y = X with pads around it: dX = the slice of g at X's place (the pad value is a constant)",
    grad: (c) => {
      const e = c.e;
      if (c.string('mode', 'constant') !== 'constant') c.refuse(`mode ${c.string('mode', 'constant')} (the rule covers constant padding)`);
      if (c.opset >= 18 && c.x(3)) c.refuse('an axes input (pads for some axes only)');
      const pads = (c.opset >= 11 ? c.ints(c.x(1)) : c.intsAttr('pads')) ?? c.refuse('its pads are computed at run time');
      if (pads.some((p) => p < 0)) c.refuse('negative pads (cropping)');
      const rank = pads.length / 2;
      const starts = pads.slice(0, rank);
      const ends = e.op('Add', [e.op('Shape', [c.x(0)], `${c.base}/x_shape`), e.ints(starts)], `${c.base}/ends`);
      return [e.op('Slice', [c.dy(0) as string, e.ints(starts), ends, e.ints(starts.map((_, k) => k))], `${c.base}/dX`)];
    },
  },
  AveragePool: {
    inputs: [0],
    derivation:
      "Y = each window's sum / D (D = the window size with count_include_pad or without pads, else the count of its elements inside X): dX = ConvTranspose(g / D, ones [C, 1, k...], group C, the same strides and start pads), cropped or zero-padded at the end to X's size; ceil_mode only where it changes no output size",
    grad: (c) => {
      const e = c.e;
      const autoPad = c.string('auto_pad', 'NOTSET');
      if (autoPad !== 'NOTSET' && autoPad !== 'VALID') c.refuse(`auto_pad ${autoPad} (export with explicit pads)`);
      const kernel = c.intsAttr('kernel_shape') ?? c.refuse('no kernel_shape');
      const spatial = kernel.length;
      if ((c.intsAttr('dilations') ?? []).some((d) => d !== 1)) c.refuse('dilations other than 1');
      const strides = c.intsAttr('strides') ?? Array<number>(spatial).fill(1);
      const pads = autoPad === 'VALID' ? Array<number>(2 * spatial).fill(0) : c.intsAttr('pads') ?? Array<number>(2 * spatial).fill(0);
      const xShape = c.shape(c.x(0));
      const channels = xShape?.[1];
      if (typeof channels !== 'number') c.refuse('its input has no static channel count');
      if (c.int('ceil_mode', 0) === 1) {
        const dims = xShape!.slice(2);
        const changes = dims.some((d, k) => typeof d !== 'number' || (d + pads[k]! + pads[k + spatial]! - kernel[k]!) % strides[k]! !== 0);
        if (changes) c.refuse('ceil_mode = 1 where it adds a partial window (or the input size is not static)');
      }
      const ones = (dims: number[], name: string): string => e.op('Expand', [e.float(1), e.ints(dims)], `${c.base}/${name}`);
      let divisor: string;
      if (c.int('count_include_pad', 0) === 1 || pads.every((p) => p === 0)) {
        divisor = e.float(kernel.reduce((a, k) => a * k, 1));
      } else {
        // The count of X's elements in each window: a Conv of ones with a kernel of ones, same windows.
        const plane = e.op('Concat', [e.ints([1, 1]), e.op('Slice', [e.op('Shape', [c.x(0)], `${c.base}/x_shape_counts`), e.ints([2]), e.ints([2 + spatial])], `${c.base}/x_spatial_counts`)], `${c.base}/plane_shape`, { axis: attr.int(0) });
        const plane1 = e.op('Expand', [e.float(1), plane], `${c.base}/plane`);
        divisor = e.op('Conv', [plane1, ones([1, 1, ...kernel], 'count_kernel')], `${c.base}/counts`, { strides: attr.ints(strides), pads: attr.ints(pads) });
      }
      const share = e.op('Div', [c.dy(0) as string, divisor], `${c.base}/share`);
      const raw = e.op('ConvTranspose', [share, ones([channels as number, 1, ...kernel], 'spread_kernel')], `${c.base}/dX_raw`, {
        strides: attr.ints(strides),
        pads: attr.ints([...pads.slice(0, spatial), ...pads.slice(0, spatial).map(() => 0)]),
        group: attr.int(channels as number),
      });
      return [fitToInput(c, raw, spatial + 2, c.base)];
    },
  },
  Cast: {
    inputs: [0],
    derivation: 'a float-to-float Cast: dX = g cast back to X\'s type (float32 here)',
    grad: (c) => [c.e.op('Cast', [c.dy(0) as string], `${c.base}/dX`, { to: attr.int(FLOAT) })],
  },
  Transpose: {
    inputs: [0],
    derivation: 'Y = transpose(X, perm): dX = transpose(g, inverse(perm)); with no perm (reversed axes) the inverse is the reversal again',
    grad: (c) => {
      const perm = c.intsAttr('perm');
      if (!perm) return [c.e.op('Transpose', [c.dy(0) as string], `${c.base}/dX`)];
      const inverse = new Array<number>(perm.length);
      perm.forEach((p, i) => (inverse[p] = i));
      return [c.e.op('Transpose', [c.dy(0) as string], `${c.base}/dX`, { perm: attr.ints(inverse) })];
    },
  },
  Expand: {
    inputs: [0],
    derivation: 'Y = X broadcast to a shape: dX = g summed over the broadcast axes',
    grad: (c) => [c.sumTo(c.dy(0) as string, 0)],
  },
  Where: {
    inputs: [1, 2],
    derivation: 'Y = cond ? A : B: dA = g where cond else 0, dB = 0 where cond else g, each summed over the broadcast axes',
    grad: (c) => {
      const g = c.dy(0) as string;
      const zero = c.e.float(0);
      return [
        undefined,
        c.wants(1) ? c.sumTo(c.e.op('Where', [c.x(0), g, zero], `${c.base}/dA`), 1) : undefined,
        c.wants(2) ? c.sumTo(c.e.op('Where', [c.x(0), zero, g], `${c.base}/dB`), 2) : undefined,
      ];
    },
  },
  ReduceMean: {
    inputs: [0],
    derivation: 'Y = mean of X over axes: dX = g (axes restored) expanded to X / (numel X / numel Y)',
    grad: (c) => [c.e.op('Div', [spreadReduction(c, c.opset >= 18, c.base), c.e.countRatio(c.x(0), c.y(0), c.base)], `${c.base}/dX`)],
  },
  ReduceSum: {
    inputs: [0],
    derivation: 'Y = sum of X over axes: dX = g (axes restored) expanded to X',
    grad: (c) => [spreadReduction(c, c.opset >= 13, c.base)],
  },
  GlobalAveragePool: poolSpread('Y = mean over the spatial axes (kept as 1s): dX = g expanded to X / (numel X / numel Y)'),
  MaxPool: {
    inputs: [0],
    derivation:
      "Y = max over each window: the gradient goes to the element that was the maximum. MaxPool's Indices output (flat indices into X) scatters g, summed where windows overlap: dX = ScatterElements(zeros, Indices, g, reduction add)",
    grad: (c) => {
      if (c.opset < 16) c.refuse('MaxPool below opset 16 (its gradient needs ScatterElements with reduction add)');
      if (c.int('storage_order', 0) !== 0) c.refuse('storage_order = 1');
      const e = c.e;
      const indices = c.requireOutput(1, 'indices');
      const flat = e.ints([-1]);
      const zeros = e.op('Reshape', [e.zerosLike(c.x(0), `${c.base}/zeros`), flat], `${c.base}/zeros_flat`);
      const scattered = e.op(
        'ScatterElements',
        [zeros, e.op('Reshape', [indices, flat], `${c.base}/indices_flat`), e.op('Reshape', [c.dy(0) as string, flat], `${c.base}/g_flat`)],
        `${c.base}/scatter`,
        { axis: attr.int(0), reduction: attr.string('add') },
      );
      return [e.reshapeLike(scattered, c.x(0), `${c.base}/dX`)];
    },
  },
  Gather: {
    inputs: [0],
    derivation:
      'Y = X[indices] along axis (embeddings on axis 0; an RNN\'s last step x[:, -1] on axis 1): dX = zeros with g added at each index (ScatterND, reduction add; repeated indices sum), the axis moved to the front and back for axis != 0; negative indices count from the end, as ScatterND reads them',
    grad: (c) => {
      if (c.opset < 16) c.refuse('Gather below opset 16 (its gradient needs ScatterND with reduction add)');
      return [gatherAnyAxis(c)];
    },
  },
  Concat: {
    inputs: [],
    variadic: true,
    derivation: 'Y = concat(X_1..X_n, axis): dX_i = the slice of g at X_i\'s place (Split of g by the inputs\' sizes along axis)',
    grad: (c) => {
      const e = c.e;
      const axis = c.int('axis', 0);
      const n = c.node.input?.length ?? 0;
      const sizes = Array.from({ length: n }, (_, i) =>
        e.op('Gather', [e.op('Shape', [c.x(i)], `${c.base}/shape_${i}`), e.ints([axis])], `${c.base}/size_${i}`, { axis: attr.int(0) }),
      );
      const split = e.op('Concat', sizes, `${c.base}/sizes`, { axis: attr.int(0) });
      return e.node('Split', [c.dy(0) as string, split], `${c.base}/dX`, { axis: attr.int(axis) }, n);
    },
  },
  Split: {
    inputs: [0],
    derivation: 'Y_1..Y_n = split(X, axis): dX = concat(g_1..g_n, axis), zeros for an output no gradient reaches',
    grad: (c) => {
      const n = c.node.output?.length ?? 0;
      const parts = Array.from({ length: n }, (_, i) => c.dyOrZeros(i));
      return [c.e.op('Concat', parts, `${c.base}/dX`, { axis: attr.int(c.int('axis', 0)) })];
    },
  },
  Slice: {
    inputs: [0],
    derivation:
      "Y = X[starts:ends] along axes, step 1: dX = g padded with zeros back to X's shape: before = clamp(start), after = dim - clamp(end), starts and ends normalised as Slice does (negative counts from the end, clamped to [0, dim])",
    grad: (c) => {
      const e = c.e;
      const rank = c.rank(c.x(0));
      const starts = c.ints(c.x(1)) ?? c.refuse('its starts are computed at run time');
      const axesRaw = c.x(3) ? c.ints(c.x(3)) ?? c.refuse('its axes are computed at run time') : starts.map((_, i) => i);
      const steps = c.x(4) ? c.ints(c.x(4)) ?? c.refuse('its steps are computed at run time') : starts.map(() => 1);
      if (steps.some((s) => s !== 1)) c.refuse('a step other than 1');
      const axes = axesRaw.map((a) => (a < 0 ? a + rank : a));
      const dims = e.op('Shape', [c.x(0)], `${c.base}/x_shape`);
      const axesInput = e.ints(axes);
      const dimsAtAxes = e.op('Gather', [dims, axesInput], `${c.base}/dims`, { axis: attr.int(0) });
      // Normalises a starts/ends input the way Slice does: v < 0 -> v + dim, then clamp to [0, dim].
      const normalise = (v: string, name: string) => {
        const shifted = e.op('Where', [e.op('Less', [v, e.int(0)], `${c.base}/${name}_negative`), e.op('Add', [v, dimsAtAxes], `${c.base}/${name}_from_end`), v], `${c.base}/${name}_shifted`);
        return e.op('Min', [e.op('Max', [shifted, e.int(0)], `${c.base}/${name}_low`), dimsAtAxes], `${c.base}/${name}_clamped`);
      };
      const before = normalise(c.x(1), 'starts');
      const after = e.op('Sub', [dimsAtAxes, normalise(c.x(2), 'ends')], `${c.base}/after`);
      // Scatter the per-axis amounts into a full pads vector [begin_0..begin_r-1, end_0..end_r-1].
      const zeros = e.ints(Array<number>(2 * rank).fill(0));
      const positions = e.op('Unsqueeze', [e.ints([...axes, ...axes.map((a) => a + rank)]), e.ints([-1])], `${c.base}/pad_positions`);
      const pads = e.op('ScatterND', [zeros, positions, e.op('Concat', [before, after], `${c.base}/pad_amounts`, { axis: attr.int(0) })], `${c.base}/pads`);
      return [e.op('Pad', [c.dy(0) as string, pads], `${c.base}/dX`)];
    },
  },
};

/** Concat's gradient flows to every input; the table lists none so the entry stays one object. */
export function differentiableInputs(rule: GradientRule, node: onnx.INodeProto): readonly number[] {
  return rule.variadic ? (node.input ?? []).map((_, i) => i) : rule.inputs;
}

export function gradientRuleFor(node: onnx.INodeProto): GradientRule | undefined {
  if (node.domain && node.domain !== 'ai.onnx') return undefined;
  return Object.prototype.hasOwnProperty.call(GRADIENT_RULES, node.op_type ?? '') ? GRADIENT_RULES[node.op_type as string] : undefined;
}

/**
 * The refusal for the nodes between a trainable parameter and the loss that have no gradient rule:
 * every one of them at once, by op, so that one run says all a model needs.
 */
export function noGradientRule(missing: onnx.INodeProto | readonly onnx.INodeProto[]): AmpError {
  const nodes = Array.isArray(missing) ? (missing as readonly onnx.INodeProto[]) : [missing as onnx.INodeProto];
  const nameOf = (node: onnx.INodeProto): string => node.name || '(unnamed)';
  const opOf = (node: onnx.INodeProto): string => `${node.domain ? `${node.domain}.` : ''}${node.op_type}`;
  const advice = 'freeze the parameters upstream of it (--frozen) or cut the graph before it';
  const first = nodes[0] as onnx.INodeProto;
  if (nodes.length === 1) {
    return new AmpError('NO_GRADIENT_RULE', `no gradient rule for ${opOf(first)} (node '${nameOf(first)}'), which lies between a trainable parameter and the loss; ${advice}`, { subject: nameOf(first) });
  }
  const byOp = new Map<string, string[]>();
  for (const node of nodes) {
    const list = byOp.get(opOf(node));
    if (list) list.push(nameOf(node));
    else byOp.set(opOf(node), [nameOf(node)]);
  }
  const shown = (names: string[]): string => `${names.length === 1 ? 'node' : 'nodes'} ${names.slice(0, 3).map((n) => `'${n}'`).join(', ')}${names.length > 3 ? ` and ${names.length - 3} more` : ''}`;
  const list = [...byOp].map(([op, names]) => `${op} (${shown(names)})`).join(', ');
  return new AmpError(
    'NO_GRADIENT_RULE',
    `no gradient rule for ${byOp.size} op${byOp.size === 1 ? '' : 's'} (${nodes.length} nodes) between the trainable parameters and the loss: ${list}; ${advice.replace('of it', 'of them').replace('before it', 'before them')}`,
    { subject: nameOf(first) },
  );
}
