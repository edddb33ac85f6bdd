/**
 * The one-step training graphs on ONNX Runtime's CPU provider: each optimizer's step runs and
 * matches the update rule recomputed in JavaScript, the explicit backward matches central finite
 * differences of `loss` (gradients read from the graph outputs `exposeGradients` adds), and
 * feeding `X.next` back as `X` trains.
 *
 * Finite differences in float32 are noisy: the loss (about 1) carries rounding of about 1e-7,
 * which over a 2e-3 step is an error of about 1e-4 in the difference quotient. So a coordinate
 * passes when |analytic - numeric| <= 1e-2 * max(|analytic|, |numeric|) + 3e-4.
 */
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { randomNormal, seededRandom } from '../../src/builder/graph-builder.js';
import {
  buildAttentionTrainingStep,
  buildMlpTrainingStep,
  DEFAULT_OPTIMIZER_CONSTANTS,
  type Optimizer,
  type StateValue,
  type TrainingStep,
} from '../../src/builder/recipes/training.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { loadOrt, type Ort } from '../../src/runtime/ort.js';

const SMALL = { inputSize: 12, hidden: 8, classes: 3, batch: 4 } as const;
const OPTIMIZERS: Optimizer[] = ['sgd-momentum', 'adam', 'rmsprop'];

interface Data {
  features: Float32Array;
  featureDims: number[];
  labels: BigInt64Array;
}

function randomData(featureDims: number[], classes: number, seed: number): Data {
  const random = seededRandom(seed);
  const count = featureDims.reduce((a, d) => a * d, 1);
  const labels = BigInt64Array.from({ length: featureDims[0]! }, () => BigInt(Math.floor(random() * classes)));
  return { features: randomNormal(count, 1, random), featureDims, labels };
}

class Stepper {
  private constructor(readonly ort: Ort, readonly session: InferenceSession, readonly step: TrainingStep, readonly data: Data) {}

  static async create(step: TrainingStep, data: Data): Promise<Stepper> {
    const ort = await loadOrt();
    const session = await ort.InferenceSession.create(encodeModel(step.model), { logSeverityLevel: 3 });
    return new Stepper(ort, session, step, data);
  }

  feeds(state: Map<string, StateValue>, lr: number): Record<string, Tensor> {
    const { Tensor } = this.ort;
    const feeds: Record<string, Tensor> = {
      features: new Tensor('float32', this.data.features, this.data.featureDims),
      labels: new Tensor('int64', this.data.labels, [this.data.labels.length]),
      lr: new Tensor('float32', Float32Array.of(lr), []),
    };
    for (const [name, value] of state) {
      feeds[name] = value instanceof BigInt64Array ? new Tensor('int64', value, this.step.shapes.get(name)!) : new Tensor('float32', value, this.step.shapes.get(name)!);
    }
    return feeds;
  }

  async run(state: Map<string, StateValue>, lr = 0.1): Promise<InferenceSession.OnnxValueMapType> {
    return this.session.run(this.feeds(state, lr));
  }

  async loss(state: Map<string, StateValue>): Promise<number> {
    const out = await this.session.run(this.feeds(state, 0), ['loss']);
    return (out.loss!.data as Float32Array)[0]!;
  }

  /** The state after one step: every `X.next` read back as the new `X`. */
  static next(state: Map<string, StateValue>, outputs: InferenceSession.OnnxValueMapType, step: TrainingStep): Map<string, StateValue> {
    return new Map(step.contract.state.map(({ input, output }) => [input, outputs[output]!.data as StateValue]));
  }
}

/** Central differences on `perParam` random coordinates of every parameter; returns the worst relative error. */
async function gradientCheck(step: TrainingStep, data: Data, perParam: number): Promise<{ maxRelative: number; checked: number; nonzero: number }> {
  const stepper = await Stepper.create(step, data);
  const state = step.initialState;
  const outputs = await stepper.run(state);
  const random = seededRandom(99);
  const h = 1e-3;
  let maxRelative = 0;
  let checked = 0;
  let nonzero = 0;
  for (const param of step.contract.params) {
    const values = state.get(param) as Float32Array;
    const analyticAll = outputs[`${param}_grad`]!.data as Float32Array;
    expect(analyticAll.length).toBe(values.length);
    // Distinct coordinates: a partial Fisher-Yates shuffle of the indices.
    const order = Array.from(values.keys());
    for (let n = 0; n < Math.min(perParam, values.length); n++) {
      const pick = n + Math.floor(random() * (order.length - n));
      [order[n], order[pick]] = [order[pick]!, order[n]!];
      const i = order[n]!;
      const perturbed = Float32Array.from(values);
      const at = async (value: number): Promise<number> => {
        perturbed[i] = value;
        return stepper.loss(new Map(state).set(param, perturbed));
      };
      const up = Math.fround(values[i]! + h);
      const down = Math.fround(values[i]! - h);
      // Divide by the perturbation float32 actually made, in float64.
      const numeric = ((await at(up)) - (await at(down))) / (up - down);
      const analytic = analyticAll[i]!;
      const scale = Math.max(Math.abs(analytic), Math.abs(numeric));
      expect(Math.abs(analytic - numeric), `${param}[${i}]: analytic ${analytic}, numeric ${numeric}`).toBeLessThanOrEqual(1e-2 * scale + 3e-4);
      // Below 1e-2 the finite difference's own noise dominates the relative error (dead ReLUs give exact zeros).
      if (scale > 1e-2) {
        maxRelative = Math.max(maxRelative, Math.abs(analytic - numeric) / scale);
        nonzero++;
      }
      checked++;
    }
  }
  await stepper.session.release();
  return { maxRelative, checked, nonzero };
}

/** The optimizers' update rules in float64, for comparison with the graph's float32 update. */
function referenceUpdate(optimizer: Optimizer, p: Float32Array, g: Float32Array, moments: Float64Array[], t: number, lr: number): Float64Array {
  const c = DEFAULT_OPTIMIZER_CONSTANTS;
  return Float64Array.from(p, (pi, i) => {
    const gi = g[i]!;
    if (optimizer === 'sgd-momentum') {
      moments[0]![i] = c.momentum * moments[0]![i]! + gi;
      return pi - lr * moments[0]![i]!;
    }
    if (optimizer === 'rmsprop') {
      moments[0]![i] = c.rho * moments[0]![i]! + (1 - c.rho) * gi * gi;
      return pi - (lr * gi) / (Math.sqrt(moments[0]![i]!) + c.eps);
    }
    moments[0]![i] = c.beta1 * moments[0]![i]! + (1 - c.beta1) * gi;
    moments[1]![i] = c.beta2 * moments[1]![i]! + (1 - c.beta2) * gi * gi;
    const mHat = moments[0]![i]! / (1 - c.beta1 ** t);
    const vHat = moments[1]![i]! / (1 - c.beta2 ** t);
    return pi - (lr * mHat) / (Math.sqrt(vHat) + c.eps);
  });
}

describe('one-step training graphs on ONNX Runtime (CPU)', () => {
  for (const optimizer of OPTIMIZERS) {
    it(`MLP with ${optimizer}: one step runs, outputs every X.next, and follows the update rule`, async () => {
      const step = buildMlpTrainingStep({ ...SMALL, optimizer, exposeGradients: true });
      const { contract } = step;
      const stepper = await Stepper.create(step, randomData([4, 12], 3, 5));
      for (const { output } of contract.state) expect(stepper.session.outputNames).toContain(output);
      expect(contract.grads).toEqual(contract.params.map((p) => `${p}_grad`));
      expect(contract.state.length).toBe(contract.params.length * (optimizer === 'adam' ? 3 : 2) + (optimizer === 'adam' ? 1 : 0));
      expect(step.model.graph!.initializer!.map((t) => t.name)).not.toContain('fc1.weight');

      const lr = 0.05;
      const moments = new Map(contract.params.map((p) => [p, [0, 1].map(() => new Float64Array(step.shapes.get(p)!.reduce((a, d) => a * d, 1)))]));
      let state = step.initialState;
      // Two steps, so the moments and Adam's bias correction at t = 2 are exercised too.
      for (let t = 1; t <= 2; t++) {
        const outputs = await stepper.run(state, lr);
        const loss = (outputs.loss!.data as Float32Array)[0]!;
        expect(outputs.loss!.dims).toEqual([]);
        expect(Number.isFinite(loss)).toBe(true);
        expect(outputs.logits!.dims).toEqual([4, 3]);
        for (const p of contract.params) {
          const expected = referenceUpdate(optimizer, state.get(p) as Float32Array, outputs[`${p}_grad`]!.data as Float32Array, moments.get(p)!, t, lr);
          const actual = outputs[`${p}.next`]!.data as Float32Array;
          actual.forEach((a, i) => expect(Math.abs(a - expected[i]!), `${p}[${i}] at step ${t}`).toBeLessThanOrEqual(1e-5 + 1e-4 * Math.abs(expected[i]!)));
        }
        state = Stepper.next(state, outputs, step);
      }
      if (optimizer === 'adam') expect(state.get('step')).toEqual(BigInt64Array.of(2n));
      await stepper.session.release();
    });
  }

  for (const lossOp of ['SoftmaxCrossEntropyLoss', 'LogSoftmax+NLL'] as const) {
    it(`MLP gradients (${lossOp}) match central finite differences of the loss`, async () => {
      const step = buildMlpTrainingStep({ ...SMALL, optimizer: 'sgd-momentum', lossOp, exposeGradients: true, seed: 3 });
      const { maxRelative, checked, nonzero } = await gradientCheck(step, randomData([4, 12], 3, 7), 8);
      console.log(`[training] MLP ${lossOp} gradient check: ${checked} coordinates (${nonzero} with |grad| > 1e-2), max relative error ${maxRelative.toExponential(2)}`);
      expect(checked).toBeGreaterThanOrEqual(36);
      expect(nonzero).toBeGreaterThanOrEqual(20);
    });
  }

  it('attention model: one step runs for each optimizer, and its gradients match finite differences', async () => {
    const spec = { sequence: 5, width: 6, classes: 3, batch: 4, seed: 4 } as const;
    const data = randomData([4, 5, 6], 3, 11);
    for (const optimizer of OPTIMIZERS) {
      const step = buildAttentionTrainingStep({ ...spec, optimizer });
      const stepper = await Stepper.create(step, data);
      const outputs = await stepper.run(step.initialState);
      for (const { output } of step.contract.state) expect(outputs[output], output).toBeDefined();
      expect(Number.isFinite((outputs.loss!.data as Float32Array)[0])).toBe(true);
      await stepper.session.release();
    }
    const step = buildAttentionTrainingStep({ ...spec, optimizer: 'adam', exposeGradients: true });
    const ops = new Set(step.model.graph!.node!.map((n) => n.op_type));
    for (const op of ['MatMul', 'Softmax', 'LayerNormalization']) expect(ops).toContain(op);
    const { maxRelative, checked, nonzero } = await gradientCheck(step, data, 6);
    console.log(`[training] attention gradient check: ${checked} coordinates (${nonzero} with |grad| > 1e-2), max relative error ${maxRelative.toExponential(2)}`);
    expect(checked).toBeGreaterThanOrEqual(36);
    expect(nonzero).toBeGreaterThanOrEqual(20);
  });

  it('50 SGD-momentum steps on a separable synthetic set more than halve the loss', async () => {
    const classes = 3;
    const perClass = 8;
    const random = seededRandom(21);
    const centers = Array.from({ length: classes }, () => randomNormal(12, 1, random));
    const features = new Float32Array(classes * perClass * 12);
    const labels = new BigInt64Array(classes * perClass);
    const noise = randomNormal(features.length, 0.3, random);
    for (let n = 0; n < labels.length; n++) {
      labels[n] = BigInt(n % classes);
      for (let j = 0; j < 12; j++) features[n * 12 + j] = centers[n % classes]![j]! + noise[n * 12 + j]!;
    }
    // A symbolic batch: the whole set goes in as one batch of 24.
    const step = buildMlpTrainingStep({ ...SMALL, batch: 'batch', optimizer: 'sgd-momentum', seed: 8 });
    const stepper = await Stepper.create(step, { features, featureDims: [labels.length, 12], labels });
    const curve: number[] = [];
    let state = step.initialState;
    for (let i = 0; i < 50; i++) {
      const outputs = await stepper.run(state, 0.05);
      curve.push((outputs.loss!.data as Float32Array)[0]!);
      state = Stepper.next(state, outputs, step);
    }
    curve.push(await stepper.loss(state));
    console.log(`[training] SGD-momentum loss curve: ${curve.map((l, i) => (i % 5 === 0 || i === 50 ? `${i}:${l.toFixed(4)}` : '')).filter(Boolean).join(' ')}`);
    expect(curve[50]!).toBeLessThan(curve[0]! / 2);
    await stepper.session.release();
  });
});
