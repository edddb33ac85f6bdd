/**
 * Finite-difference gradient checks for make-training's rules. A case is a small forward graph
 * over named parameters; its loss is L = sum(Y * R) for a fixed random R, so dL/dY = R exercises
 * every element. The analytic gradients are the step graph's `<param>_grad` outputs; the numeric
 * ones are central differences of L. Both run on ONNX Runtime in float64 (the fp64 variant of
 * pure precision), where the central difference's error is about h^2 = 1e-12 relative.
 */
import { attr, GraphBuilder, randomNormal, seededRandom, type AttributeValue } from '../../../src/builder/graph-builder.js';
import { encodeModel } from '../../../src/onnx/codec.js';
import { DataType } from '../../../src/onnx/data-types.js';
import type { onnx } from '../../../src/onnx/generated/onnx.js';
import { makeTrainingStep } from '../../../src/passes/autodiff/make-training.js';
import { purePrecision } from '../../../src/passes/pure-precision.js';
import { loadOrt } from '../../../src/runtime/ort.js';

export interface Param {
  name: string;
  dims: number[];
  /** Values are drawn normal(0, 1), scaled by `scale` and shifted by `offset` (positive values for Log, Sqrt, Pow's base). */
  offset?: number;
  scale?: number;
}

export interface GradientCase {
  name: string;
  params: Param[];
  /** Builds the op(s) on the parameters; returns the output Y. */
  build(b: GraphBuilder): string;
  /** Dims of Y (R is drawn to it). */
  output: number[];
  opset?: number;
}

export interface CheckResult {
  /** float64, or float32 where ONNX Runtime's CPU provider has no float64 kernel for an op of the case. */
  precision: 'float64' | 'float32';
  /** Largest |analytic - numeric| / (1e-6 + |numeric|) over every element of every parameter. */
  worst: number;
  where: string;
  elements: number;
}

/**
 * Float64: h = 1e-6 (relative to the value), error measured as |analytic - numeric| / (1e-6 + |numeric|);
 * a correct rule agrees to about 1e-8, a wrong one is off by O(1). Float32 (only where the CPU
 * provider lacks float64 kernels: Conv, ConvTranspose, Erf, GlobalAveragePool): h = 1e-2 and the
 * error over (1e-2 + |numeric|), where float32 rounding of L leaves about 1e-4.
 */
const PRECISIONS = {
  float64: { type: DataType.DOUBLE, ort: 'float64', step: 1e-6, floor: 1e-6, array: Float64Array },
  float32: { type: DataType.FLOAT, ort: 'float32', step: 1e-2, floor: 1e-2, array: Float32Array },
} as const;
export const FD_TOLERANCE = { float64: 1e-5, float32: 1e-2 } as const;

function forwardModel(c: GradientCase, paramsAsInputs: boolean, seed: number): { model: onnx.ModelProto; values: Map<string, Float32Array> } {
  const random = seededRandom(seed);
  const b = new GraphBuilder(c.name);
  const values = new Map<string, Float32Array>();
  for (const p of c.params) {
    const count = p.dims.reduce((a, d) => a * d, 1);
    const data = randomNormal(count, 1, random).map((v) => v * (p.scale ?? 1) + (p.offset ?? 0));
    values.set(p.name, data);
    if (paramsAsInputs) b.input(p.name, DataType.FLOAT, p.dims);
    else b.initializer(p.name, p.dims, data);
  }
  const y = c.build(b);
  const r = b.initializer('R', c.output, randomNormal(c.output.reduce((a, d) => a * d, 1), 1, random));
  b.op('ReduceSum', [b.op('Mul', [y, r], {}, { name: 'weighted' })], { keepdims: attr.int(0) }, { name: 'L', outputs: ['L'] });
  b.output('L', DataType.FLOAT, []);
  return { model: b.model({ '': c.opset ?? 17 }), values };
}

export async function checkGradients(c: GradientCase, seed = 7): Promise<CheckResult> {
  try {
    return await checkIn(c, seed, 'float64');
  } catch (error) {
    // No float64 kernel: missing at session creation, or refused at run (LSTM, GRU: "does not support double yet").
    if (!/Could not find an implementation|does not support double/.test(String(error))) throw error;
    return checkIn(c, seed, 'float32');
  }
}

async function checkIn(c: GradientCase, seed: number, precision: 'float64' | 'float32'): Promise<CheckResult> {
  const p64 = PRECISIONS[precision];
  const convert = (m: onnx.ModelProto) => (precision === 'float64' ? purePrecision(m, DataType.DOUBLE) : m);
  const ort = await loadOrt();
  const { model: withWeights, values } = forwardModel(c, false, seed);
  const step = makeTrainingStep(withWeights, {
    loss: { kind: 'output', output: 'L' },
    optimizer: { kind: 'sgd' },
    trainable: { trainable: c.params.map((p) => p.name) },
    exposeGradients: true,
  }).model;
  const stepSession = await ort.InferenceSession.create(encodeModel(convert(step)));
  type Values = Float64Array | Float32Array;
  const point = new Map<string, Values>([...values].map(([name, v]) => [name, p64.array.from(v)]));
  const feeds = (at: Map<string, Values>) =>
    Object.fromEntries(c.params.map((p) => [p.name, new ort.Tensor(p64.ort, at.get(p.name) as Float64Array, p.dims)]));
  const analytic = await stepSession.run({ ...feeds(point), lr: new ort.Tensor(p64.ort, p64.array.of(0) as Float64Array, []) });
  await stepSession.release();

  const forward = await ort.InferenceSession.create(encodeModel(convert(forwardModel(c, true, seed).model)));
  const loss = async (at: Map<string, Values>) => ((await forward.run(feeds(at))).L!.data as Float64Array)[0] as number;
  let worst = 0;
  let where = '';
  let elements = 0;
  for (const p of c.params) {
    const base = point.get(p.name) as Values;
    const grad = analytic[`${p.name}_grad`]!.data as Float64Array;
    for (let i = 0; i < base.length; i++) {
      const plus = base.slice();
      const minus = base.slice();
      const h = p64.step * Math.max(1, Math.abs(base[i] as number));
      plus[i] = (base[i] as number) + h;
      minus[i] = (base[i] as number) - h;
      // The step actually taken, as the precision rounds it.
      const taken = (plus[i] as number) - (minus[i] as number);
      const numeric = ((await loss(new Map(point).set(p.name, plus))) - (await loss(new Map(point).set(p.name, minus)))) / taken;
      const error = Math.abs((grad[i] as number) - numeric) / (p64.floor + Math.abs(numeric));
      elements++;
      if (error > worst || Number.isNaN(error)) {
        worst = Number.isNaN(error) ? Infinity : error;
        where = `${p.name}[${i}]: analytic ${grad[i]}, numeric ${numeric}`;
      }
    }
  }
  await forward.release();
  return { precision, worst, where, elements };
}

/** Shorthand for cases: a node on named inputs with attributes. */
export const node = (b: GraphBuilder, op: string, inputs: string[], attributes: Record<string, AttributeValue> = {}, outputs = 1): string[] =>
  b.node(op, inputs, attributes, { count: outputs });
export { attr };
