/**
 * The public entry points for calibrate, tune and the training loop, on real models: the model
 * built to overflow float16 in one known place, and the Adam training fixture. Their results carry
 * no ONNX Runtime type (typed arrays and dims; api.test.ts compiles the declarations without it).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OVERFLOW_NODES, buildOverflowBeforeNorm } from '../../src/builder/recipes/fp16-failures.js';
import { seededRandom } from '../../src/builder/graph-builder.js';
import { buildTransformer } from '../../src/builder/recipes/transformer.js';
import * as api from '../../src/index.js';
import { fixturesDir } from '../support/corpus.js';

const adam = path.join(fixturesDir, 'mlp-training-adam/model.onnx');
const pinnedBy = (report: api.AmpReport) => report.nodes.filter((n) => n.rule === 'activation-out-of-range').map((n) => n.node).sort();

describe('calibrate (emulated numerics, batches, headroom)', () => {
  it('names the nodes of the overflowing block as pinned, and its rewrite options keep them fp32', async () => {
    const model = buildOverflowBeforeNorm();
    const calibration = await api.calibrate(model);
    expect(calibration.numerics).toBe('emulate');
    expect(calibration.batches).toBe(2);
    expect(calibration.limit).toBe(65504 / api.DEFAULT_HEADROOM);
    expect(calibration.pinned.map((p) => p.node).sort()).toEqual([...OVERFLOW_NODES].sort());
    expect(calibration.pinned[0]!.reason).toMatch(/(in the float32 run|overflowed to inf in the emulated float16 run \(its inputs finite\)), beyond float16's range/);
    expect(calibration.holdsFor).toMatch(/2 batch\(es\) of random inputs/);
    const { report } = api.rewriteModel(model, calibration.rewriteOptions);
    expect(pinnedBy(report.amp)).toEqual([...OVERFLOW_NODES].sort());
    expect(pinnedBy(api.ampRewrite(model).report)).toEqual([]);
    // The result is still the ranges Map that `activationRanges` took before.
    expect(calibration.size).toBe(calibration.ranges.size);
    expect(calibration.get('y')).toBe(calibration.ranges.get('y'));
    expect(pinnedBy(api.rewriteModel(model, { activationRanges: calibration }).report.amp)).toEqual([...OVERFLOW_NODES].sort());
    // bfloat16 has float32's range: nothing to pin.
    expect((await api.calibrate(model, { rewrite: { mode: 'bf16' } })).pinned).toEqual([]);
  });

  it('headroom, batches and numerics change what it measures; bad options are BAD_OPTION naming the option', async () => {
    const model = buildTransformer({ batch: 1, sequence: 8, model: 32, heads: 4, ffn: 64, layers: 1, vocab: 0, seed: 5 });
    const native = await api.calibrate(model, { numerics: 'native', headroom: 4, batches: 3 });
    expect(native).toMatchObject({ numerics: 'native', batches: 3, limit: 65504 / 4, overflowOrigins: [], pinned: [] });
    const untyped = api.calibrate as (m: unknown, o: unknown) => Promise<unknown>;
    await expect(untyped(model, { headroom: 0.5 })).rejects.toMatchObject({ code: 'BAD_OPTION', message: expect.stringMatching(/option headroom/) });
    await expect(untyped(model, { batches: 0 })).rejects.toMatchObject({ code: 'BAD_OPTION', message: expect.stringMatching(/option batches/) });
    await expect(untyped(model, { numerics: 'gpu' })).rejects.toMatchObject({ code: 'BAD_OPTION', message: expect.stringMatching(/option numerics/) });
  });
});

describe('tuneModel', () => {
  it('pins the node where the inf starts, with its evidence, and its overrides reproduce the model', async () => {
    const model = buildOverflowBeforeNorm();
    const tuned = await api.tuneModel(model);
    expect(tuned.pass).toBe(true);
    expect(tuned.numerics).toBe('emulate');
    expect(tuned.pinned.map((p) => p.node)).toEqual([OVERFLOW_NODES[0]]);
    expect(tuned.pinned[0]!.nonFiniteOrigin).toBe(true);
    expect(tuned.pinned[0]!.evidence).toMatch(/inf\/NaN starts at its output/);
    expect(tuned.attempts[0]).toMatchObject({ pinned: [], pass: false });
    expect(tuned.outputs.every((o) => o.pass)).toBe(true);
    const rules = JSON.parse(tuned.overrides) as { forceFp32: string[]; $comment: string };
    expect(rules.forceFp32).toEqual([OVERFLOW_NODES[0]]);
    expect(rules.$comment).toMatch(/random inputs/);
    const again = api.ampRewrite(model, { forceFp32: rules.forceFp32 });
    expect(Buffer.from(api.encodeModel(again.model)).equals(Buffer.from(api.encodeModel(tuned.model)))).toBe(true);
    expect(tuned.report.nodes.find((n) => n.node === OVERFLOW_NODES[0])?.precision).toBe('fp32');
  });

  it('a file path works too; a model that passes gets no pins; bad options are BAD_OPTION', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-tune-api-'));
    const file = path.join(dir, 'transformer.onnx');
    writeFileSync(file, api.encodeModel(buildTransformer({ batch: 1, sequence: 8, model: 32, heads: 4, ffn: 64, layers: 1, vocab: 0, seed: 5 })));
    const tuned = await api.tuneModel(file, { batches: 1, metric: 'cosine', atol: 1e-3 });
    expect(tuned).toMatchObject({ pass: true, pinned: [], runs: { full: 0 } });
    expect(tuned.report.summary.converted).toBeGreaterThan(0);
    const untyped = api.tuneModel as (m: unknown, o: unknown) => Promise<unknown>;
    await expect(untyped(file, { metric: 'l2' })).rejects.toMatchObject({ code: 'BAD_OPTION', message: expect.stringMatching(/option metric/) });
    await expect(untyped(file, { rewrite: { mode: 'fp8' } })).rejects.toMatchObject({ code: 'BAD_OPTION', message: expect.stringMatching(/option mode/) });
    await expect(untyped(file, { budgetSeconds: 0 })).rejects.toMatchObject({ code: 'BAD_OPTION', message: expect.stringMatching(/option budgetSeconds/) });
  });
});

describe('createTrainer (typed arrays and dims)', () => {
  const random = seededRandom(7);
  const batch = 6;
  const feeds = {
    features: { data: Float32Array.from({ length: batch * 12 }, () => random() * 2 - 1), dims: [batch, 12] },
    labels: { data: [0, 1, 2, 0, 1, 2], dims: [batch] },
    lr: { data: Float32Array.of(0.05), dims: [] },
  };

  it('carries the parameters and Adam state of fixtures/mlp-training-adam from step to step', async () => {
    const trainer = await api.createTrainer(adam);
    try {
      expect(trainer.layout.feeds.map((f) => f.name)).toEqual(['features', 'labels', 'lr']);
      expect(trainer.layout.state.map((s) => s.input)).toContain('fc1.weight.m');
      const initial = trainer.state();
      expect(initial.get('fc1.weight')).toMatchObject({ type: 'float32', dims: [12, 8] });
      const losses: number[] = [];
      let previous = initial;
      for (let i = 1; i <= 3; i++) {
        const result = await trainer.step(feeds);
        expect(result.step).toBe(i);
        losses.push(result.loss);
        const now = trainer.state();
        expect(now.get('fc1.weight')!.data).toEqual(result.outputs['fc1.weight.next']!.data);
        expect(Array.from(now.get('fc1.weight')!.data as Float32Array)).not.toEqual(Array.from(previous.get('fc1.weight')!.data as Float32Array));
        expect(Number((now.get('step')!.data as BigInt64Array)[0])).toBe(Number((initial.get('step')!.data as BigInt64Array)[0]) + i);
        previous = now;
      }
      expect(trainer.steps).toBe(3);
      expect(losses[2]!).toBeLessThan(losses[0]!);
      // infer reads the current state and does not advance it.
      const inferred = await trainer.infer(feeds, ['loss']);
      expect(api.tensorValues(inferred.loss!)[0]).toBeLessThan(losses[2]!);
      expect(trainer.steps).toBe(3);
    } finally {
      await trainer.release();
    }
  });

  it('names the feed the caller got wrong', async () => {
    const trainer = await api.createTrainer(api.loadModel(adam));
    try {
      const step = trainer.step as (f: unknown) => Promise<unknown>;
      await expect(step({ ...feeds, features: { data: new Float32Array(5), dims: [batch, 12] } })).rejects.toMatchObject({ code: 'BAD_OPTION', message: expect.stringMatching(/feed 'features': 5 values for dims \[6, 12\]/) });
      await expect(step({ ...feeds, 'fc1.weight': feeds.features })).rejects.toMatchObject({ code: 'BAD_OPTION', message: expect.stringMatching(/feed 'fc1.weight': is state/) });
      await expect(step({ features: feeds.features, lr: feeds.lr })).rejects.toMatchObject({ code: 'BAD_OPTION', message: expect.stringMatching(/no feed for input 'labels'/) });
      expect(trainer.steps).toBe(0);
    } finally {
      await trainer.release();
    }
    const untyped = api.createTrainer as (m: unknown, o: unknown) => Promise<unknown>;
    await expect(untyped(adam, { providers: ['tpu'] })).rejects.toMatchObject({ code: 'BAD_OPTION' });
  });
});
