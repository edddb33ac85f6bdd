/**
 * make-training's step graphs of the PyTorch-exported fixtures, trained on ONNX Runtime's CPU
 * provider (its float16 kernels compute in float32: these runs show the graphs work, not GPU
 * numerics): the CNN on MNIST digits and the encoder on a synthetic sequence task lower their
 * loss over 100 steps in fp32 and after the AMP rewrite; pure fp16 fails as the README says; and
 * a loss-scaled AMP step that overflows is skipped with the state untouched, then training recovers.
 */
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { createTrainer, type TensorFeed } from '../../../src/api/trainer.js';
import { seededRandom } from '../../../src/builder/graph-builder.js';
import { DataType } from '../../../src/onnx/data-types.js';
import { loadModel } from '../../../src/onnx/model-io.js';
import type { onnx } from '../../../src/onnx/generated/onnx.js';
import { makeTrainingStep, type MakeTrainingOptions } from '../../../src/passes/autodiff/make-training.js';
import { DEFAULT_DYNAMIC_SCALE } from '../../../src/passes/loss-scaling.js';
import { rewriteModel } from '../../../src/passes/pipeline.js';
import { purePrecision } from '../../../src/passes/pure-precision.js';
import { loadMnist } from '../../../src/runtime/mnist.js';

const fixture = (name: string) => loadModel(path.resolve('fixtures/torch-forward', `${name}.onnx`));
const STEPS = 100;
const BATCH = 32;

const mnist = loadMnist().train;
function digits(step: number, dims: number[]): Record<string, TensorFeed> {
  const start = (step * BATCH) % (mnist.count - BATCH);
  return {
    features: { data: mnist.features.subarray(start * 784, (start + BATCH) * 784), dims },
    labels: { data: mnist.labels.subarray(start, start + BATCH), dims: [BATCH] },
  };
}

/** Sequences of 8 tokens in 1..7 with some padding (0) after the first; the label is the first token mod 4. */
function sequences(step: number): Record<string, TensorFeed> {
  const random = seededRandom(1000 + step);
  const tokens = new BigInt64Array(BATCH * 8);
  const labels = new BigInt64Array(BATCH);
  for (let row = 0; row < BATCH; row++) {
    for (let i = 0; i < 8; i++) tokens[row * 8 + i] = BigInt(i > 0 && random() < 0.2 ? 0 : 1 + Math.floor(random() * 7));
    labels[row] = (tokens[row * 8] as bigint) % 4n;
  }
  return { tokens: { data: tokens, dims: [BATCH, 8] }, labels: { data: labels, dims: [BATCH] } };
}

async function trainLosses(model: onnx.IModelProto, batch: (step: number) => Record<string, TensorFeed>, lr: number) {
  const trainer = await createTrainer(model);
  const losses: number[] = [];
  for (let s = 0; s < STEPS; s++) losses.push((await trainer.step({ ...batch(s), lr: { data: [lr], dims: [] } })).loss);
  const result = { losses, skipped: trainer.skippedSteps, nonFinite: trainer.firstNonFinite };
  await trainer.release();
  return result;
}

const mean = (values: number[]) => values.reduce((a, v) => a + v, 0) / values.length;
const adam: MakeTrainingOptions = { loss: { kind: 'cross-entropy' }, optimizer: { kind: 'adam' } };

describe('training the exported fixtures', () => {
  const cnn = makeTrainingStep(fixture('cnn-torchscript'), adam).model;
  const encoder = makeTrainingStep(fixture('encoder-torchscript'), adam).model;
  const cases = [
    { name: 'CNN (TorchScript export) on MNIST digits', step: cnn, batch: (s: number) => digits(s, [BATCH, 1, 28, 28]), lr: 0.03, drop: 0.2 },
    { name: 'encoder (TorchScript export) on the first-token task', step: encoder, batch: sequences, lr: 0.01, drop: 0.5 },
  ];
  for (const c of cases) {
    for (const variant of ['fp32', 'amp'] as const) {
      it(`${c.name}, ${variant}: the loss falls over ${STEPS} steps`, async () => {
        const graph = variant === 'fp32' ? c.step : rewriteModel(c.step, { training: 'on' }).model;
        const { losses, skipped } = await trainLosses(graph, c.batch, c.lr);
        expect(losses.every(Number.isFinite)).toBe(true);
        // The mean of the last 20 steps' losses against the first 20's.
        expect(mean(losses.slice(-20)), losses.map((l) => l.toFixed(2)).join(' ')).toBeLessThan(mean(losses.slice(0, 20)) - c.drop);
        expect(skipped).toBe(0);
      }, 120_000);
    }
  }

  it("pure fp16 of the MLP with Adam's epsilon 1e-8 goes NaN on step 1 in the update's Div (1e-8 is 0 in float16); with 1e-4 it trains", async () => {
    const make = (epsilon?: number) => purePrecision(makeTrainingStep(fixture('mlp-torchscript'), { ...adam, optimizer: { kind: 'adam', ...(epsilon ? { epsilon } : {}) } }).model, DataType.FLOAT16);
    const collapsed = await trainLosses(make(), (s) => digits(s, [BATCH, 784]), 0.001);
    expect(collapsed.nonFinite?.step).toBe(1);
    expect(collapsed.nonFinite?.op).toBe('Div');
    expect(collapsed.nonFinite?.node).toMatch(/^adam\/.*\/direction/);
    const trained = await trainLosses(make(1e-4), (s) => digits(s, [BATCH, 784]), 0.001);
    expect(trained.losses.every(Number.isFinite)).toBe(true);
    expect(mean(trained.losses.slice(-20))).toBeLessThan(mean(trained.losses.slice(0, 20)) - 0.5);
  }, 120_000);

  it("pure fp16 of the CNN cannot run on the CPU provider: its MaxPool gradient's ScatterElements (reduction add) has no float16 kernel", async () => {
    const trainer = await createTrainer(purePrecision(cnn, DataType.FLOAT16));
    await expect(trainer.step({ ...digits(0, [BATCH, 1, 28, 28]), lr: { data: [0.01], dims: [] } })).rejects.toMatchObject({ code: 'RUNTIME_FAILED', message: expect.stringMatching(/ScatterElements/) });
    await trainer.release();
  }, 60_000);

  it('a loss-scaled AMP step that overflows float16 is skipped with every state tensor unchanged, the scale halves, and training recovers', async () => {
    // Scale 2^24: the scaled gradients overflow float16 (largest 65504) until the scale has come down.
    const graph = rewriteModel(makeTrainingStep(fixture('mlp-torchscript'), adam).model, { training: 'on', lossScale: { ...DEFAULT_DYNAMIC_SCALE, initial: 2 ** 24 } }).model;
    const trainer = await createTrainer(graph);
    const before = new Map([...trainer.state()].map(([name, t]) => [name, Array.from(t.data as ArrayLike<number | bigint>)]));
    const first = await trainer.step({ ...digits(0, [BATCH, 784]), lr: { data: [0.001], dims: [] } });
    expect(first.skipped).toBe(true);
    expect(first.lossScale).toBe(2 ** 24);
    for (const [name, values] of before) {
      if (name.startsWith('amp.')) continue;
      expect(Array.from(trainer.state().get(name)!.data as ArrayLike<number | bigint>), name).toEqual(values);
    }
    expect(trainer.lossScale).toBe(2 ** 23);
    const losses = [first.loss];
    let taken = 0;
    for (let s = 1; s < STEPS; s++) {
      const r = await trainer.step({ ...digits(s, [BATCH, 784]), lr: { data: [0.001], dims: [] } });
      losses.push(r.loss);
      if (!r.skipped) taken++;
    }
    expect(trainer.skippedSteps).toBeGreaterThanOrEqual(1);
    expect(taken).toBeGreaterThan(STEPS / 2);
    expect(mean(losses.slice(-20))).toBeLessThan(mean(losses.slice(0, 20)) - 0.5);
    await trainer.release();
  }, 120_000);
});
