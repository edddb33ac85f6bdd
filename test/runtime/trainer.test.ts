/**
 * The training-loop API and the runner's bookkeeping, on MNIST with a small MLP step graph:
 * state carried across steps, the initial loss scale the rewrite stored, skipped steps counted
 * (static and dynamic scale), the scale carried from step to step, every test example scored,
 * and `--state inputs` driven by a plain onnxruntime-node loop.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Tensor } from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { buildMlpTrainingStep, withInitialState, type Optimizer } from '../../src/builder/recipes/training.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import { parseLossScale } from '../../src/passes/loss-scaling.js';
import { emulateNumerics } from '../../src/passes/emulate-numerics.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { loadMnist, type Dataset } from '../../src/runtime/mnist.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { train } from '../../src/runtime/train.js';
import { createTrainer } from '../../src/runtime/trainer.js';
import { repoRoot } from '../support/corpus.js';

const mlp = (batch: number | string = 'batch', optimizer: Optimizer = 'sgd-momentum') =>
  withInitialState(buildMlpTrainingStep({ inputSize: 784, hidden: 16, hiddenLayers: 1, classes: 10, batch, optimizer, seed: 3 }));
const data = loadMnist({ seed: 0 });
const first = (d: Dataset, count: number): Dataset => ({ features: d.features.subarray(0, count * d.width), labels: d.labels.subarray(0, count), count, width: d.width });
const options = { epochs: 1, batch: 32, lr: 0.05, providers: ['cpu' as const], seed: 0 };
const cli = (args: string[]) => spawnSync(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), ...args], { encoding: 'utf8' });

function batch(ort: Awaited<ReturnType<typeof loadOrt>>, start: number, size: number): Record<string, Tensor> {
  return {
    features: new ort.Tensor('float32', data.train.features.slice(start * 784, (start + size) * 784), [size, 784]),
    labels: new ort.Tensor('int64', data.train.labels.slice(start, start + size), [size]),
    lr: new ort.Tensor('float32', Float32Array.of(0.05), []),
  };
}

describe('runner bookkeeping', () => {
  it('starts from the initial loss scale the rewrite stored (--loss-scale-initial 1024), not 65536', async () => {
    const graph = rewriteModel(mlp(), { lossScale: parseLossScale('dynamic', { initial: 1024 }) }).model;
    const result = await train(graph, data, { ...options, maxSteps: 5 });
    expect(result.epochs[0]!.lossScale).toBe(1024);
    expect(result.epochs[0]!.skippedSteps).toBe(0);
  });

  // Under emulated float16 numerics, so that an overflow is one on every ONNX Runtime release: 1.30's
  // CPU provider folds the Casts around a float16 op it has no kernel for and computes it in float32,
  // so the rewritten graph run as it is overflows there on no step (1.29: on every step).
  it('counts every step a static scale skipped (a scale of 1e30 overflows float16 on every step)', async () => {
    const graph = emulateNumerics(rewriteModel(mlp(), { lossScale: { kind: 'static', value: 1e30 } }).model).model;
    const result = await train(graph, data, { ...options, maxSteps: 6 });
    expect(result.epochs[0]!.steps).toBe(6);
    expect(result.epochs[0]!.skippedSteps).toBe(6);
    expect(result.epochs[0]!.lossScale).toBeNull();
  });

  it('carries the dynamic scale between steps: each skipped step halves it once (initial 2^24)', async () => {
    const graph = emulateNumerics(rewriteModel(mlp(), { lossScale: parseLossScale('dynamic', { initial: 2 ** 24 }) }).model).model;
    const result = await train(graph, data, { ...options, maxSteps: 20 });
    const epoch = result.epochs[0]!;
    expect(epoch.skippedSteps).toBeGreaterThanOrEqual(2);
    expect(epoch.skippedSteps).toBeLessThan(20);
    expect(epoch.lossScale).toBe(2 ** (24 - epoch.skippedSteps));
  });

  it('scores every test example, the last partial batch included, with a symbolic or a fixed batch', async () => {
    const split = { train: first(data.train, 64), test: first(data.test, 50) };
    const untrained = { ...options, maxSteps: 0 };
    const whole = await train(mlp(), split, { ...untrained, batch: 50 });
    const larger = await train(mlp(), split, { ...untrained, batch: 64 });
    const fixed = await train(mlp(8), split, { ...untrained, batch: 8 });
    const accuracy = whole.epochs[0]!.testAccuracy;
    expect(accuracy * 50).toBeCloseTo(Math.round(accuracy * 50), 9);
    expect(larger.epochs[0]!.testAccuracy).toBe(accuracy);
    expect(fixed.epochs[0]!.testAccuracy).toBe(accuracy);
  });

  it('train without --compare prints each epoch; -q prints nothing, as on every command', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-trainer-'));
    const graph = path.join(dir, 'mlp.onnx');
    writeFileSync(graph, encodeModel(mlp()));
    const result = cli(['train', graph, '--max-steps', '3']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/as given epoch 1: loss [\d.]+, test accuracy [\d.]+%, .* skipped 0 of 3/);
    const quiet = cli(['train', graph, '-q', '--max-steps', '3']);
    expect({ status: quiet.status, stdout: quiet.stdout }).toEqual({ status: 0, stdout: '' });
  });
});

describe('createTrainer', () => {
  it('carries the state of a stored-state graph from step to step', async () => {
    const trainer = await createTrainer(mlp());
    const ort = trainer.ort;
    try {
      const feeds = batch(ort, 0, 32);
      const initial = trainer.state().get('fc1.weight')!;
      const losses: number[] = [];
      let previous = initial;
      for (let i = 0; i < 3; i++) {
        const result = await trainer.step(feeds);
        losses.push(result.loss);
        const now = trainer.state().get('fc1.weight')!;
        expect(now).toBe(result.outputs['fc1.weight.next']);
        expect(Array.from(now.data as Float32Array)).not.toEqual(Array.from(previous.data as Float32Array));
        previous = now;
      }
      expect(trainer.steps).toBe(3);
      expect(losses[1]!).toBeLessThan(losses[0]!);
      expect(losses[2]!).toBeLessThan(losses[1]!);
    } finally {
      await trainer.release();
    }
  });

  it('rewrite --state inputs: a plain onnxruntime-node loop trains it, and the trainer reads its sidecar', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-state-'));
    const source = path.join(dir, 'mlp.onnx');
    const output = path.join(dir, 'mlp.amp.onnx');
    writeFileSync(source, encodeModel(mlp()));
    const result = cli([source, '-o', output, '--state', 'inputs', '-q']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const sidecar = path.join(dir, 'mlp.amp.state.onnx');
    expect(existsSync(sidecar)).toBe(true);
    const written = loadModel(output);
    const inputs = new Set(written.graph!.input!.map((i) => i.name));
    expect(written.graph!.initializer!.filter((t) => inputs.has(t.name))).toEqual([]);

    // The user's loop: initial state from the sidecar, then feed each X.next back as X.
    const ort = await loadOrt();
    const initial = await (await ort.InferenceSession.create(sidecar)).run({});
    expect(Number((initial['amp.loss_scale']!.data as Float32Array)[0])).toBe(65536);
    const session = await ort.InferenceSession.create(output);
    let state: Record<string, Tensor> = initial;
    const plainLosses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const out = await session.run({ ...batch(ort, 0, 32), ...state });
      plainLosses.push((out.loss!.data as Float32Array)[0]!);
      state = Object.fromEntries(Object.keys(initial).map((name) => [name, out[`${name}.next`]!]));
    }
    expect(plainLosses[2]!).toBeLessThan(plainLosses[0]!);

    const trainer = await createTrainer(output);
    try {
      const trainerLosses: number[] = [];
      for (let i = 0; i < 3; i++) trainerLosses.push((await trainer.step(batch(ort, 0, 32))).loss);
      expect(trainerLosses).toEqual(plainLosses);
    } finally {
      await trainer.release();
    }
    // With a new external data file, the sidecar gets one of its own and both read back whole.
    const external = path.join(dir, 'external.onnx');
    expect(cli([source, '-o', external, '--state', 'inputs', '-q', '--external-data', 'weights.bin']).status).toBe(0);
    expect(existsSync(path.join(dir, 'external.state.onnx.data'))).toBe(true);
    const externalTrainer = await createTrainer(external);
    try {
      expect((await externalTrainer.step(batch(ort, 0, 32))).loss).toBe(plainLosses[0]);
    } finally {
      await externalTrainer.release();
    }
    // A source whose weights live in an external data file: the sidecar reads them in.
    const externalSource = path.join(dir, 'external-source.onnx');
    saveModel(mlp(), externalSource, { externalData: { location: 'source.bin', sizeThreshold: 64 } });
    const fromExternal = path.join(dir, 'from-external.onnx');
    expect(cli([externalSource, '-o', fromExternal, '--state', 'inputs', '-q']).status).toBe(0);
    const fromExternalTrainer = await createTrainer(fromExternal);
    try {
      expect((await fromExternalTrainer.step(batch(ort, 0, 32))).loss).toBe(plainLosses[0]);
    } finally {
      await fromExternalTrainer.release();
    }
    const trained = cli(['train', output, '--max-steps', '2']);
    expect(trained.stderr).toBe('');
    expect(trained.stdout).toMatch(/as given epoch 1: .* loss scale 65536/);
  });

  it('why --state inputs exists: the same loop on the stored-state graph keeps training the initial weights', async () => {
    const ort = await loadOrt();
    const model = rewriteModel(mlp()).model;
    const session = await ort.InferenceSession.create(encodeModel(model));
    const stateInputs = session.inputNames.filter((n) => session.outputNames.includes(`${n}.next`));
    let out = await session.run(batch(ort, 0, 32));
    const firstLoss = (out.loss!.data as Float32Array)[0];
    out = await session.run({ ...batch(ort, 0, 32), ...Object.fromEntries(stateInputs.map((n) => [n, out[`${n}.next`]!])) });
    expect((out.loss!.data as Float32Array)[0]).toBe(firstLoss);
  });
});
