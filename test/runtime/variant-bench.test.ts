/**
 * bench's logic with a faked runner (no GPU): the TF32 pair on CUDA, speed-ups against both fp32
 * figures, accuracy, the largest-batch search; and the process runner's plumbing with a fake worker.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { runBench, type BenchArgs } from '../../src/cli/execute-commands.js';
import { buildMlpInference } from '../../src/builder/recipes/mlp.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { onnx } from '../../src/onnx/generated/onnx.js';
import { largestBatch } from '../../src/runtime/batch-search.js';
import { processRunner, VariantFailed, type VariantJob, type VariantMeasurement, type VariantRunner } from '../../src/runtime/isolated-bench.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { benchVariants, planVariants, searchBatches } from '../../src/runtime/variant-bench.js';
import { fixturesDir, repoRoot } from '../support/corpus.js';

const output = (values: number[]) => ({ y: onnx.TensorProto.encode({ name: 'y', data_type: 1, dims: [values.length], float_data: values }).finish() });
const models = { fp32: new Uint8Array([1]), amp: new Uint8Array([2]), fp16: new Uint8Array([3]) };
const feeds = { inputs: [], dims: {}, seed: 0 };

/** A runner whose latency depends on the label and whose memory use limits the batch. */
function fakeRunner(options: { latency?: Record<string, number>; bytesPerItem?: Record<string, number>; memory?: number; outputs?: Record<string, number[]> } = {}) {
  const jobs: Array<{ job: VariantJob; model: number }> = [];
  const runner: VariantRunner = async (job, model) => {
    jobs.push({ job, model: model[0] as number });
    const base = job.label.split('@')[0] as string;
    const batch = job.feeds.dims.batch ?? 64;
    if (options.memory && batch * (options.bytesPerItem?.[base] ?? 1) > options.memory) throw new VariantFailed('CUDA failure 2: out of memory', true);
    const medianMs = (options.latency?.[base] ?? 1) * (batch / 64);
    const measurement: VariantMeasurement = {
      label: job.label, provider: job.providers[0]!, tf32: job.tf32, batch, medianMs, p90Ms: medianMs, itemsPerSecond: (batch * 1000) / medianMs, rssGrowthMiB: 0, gpuMemoryGrowthMiB: null, timesMs: [medianMs, medianMs],
    };
    return job.keepOutputs ? { ...measurement, outputs: output(options.outputs?.[base] ?? [1, 2, 3]) } : measurement;
  };
  return { runner, jobs };
}

describe('planVariants', () => {
  it('on CUDA: full fp32 (TF32 off), fp32 with TF32 (the provider default), amp; elsewhere fp32 and amp', () => {
    expect(planVariants(['cuda', 'cpu'])).toEqual([
      { label: 'fp32', model: 'fp32', tf32: false },
      { label: 'fp32+tf32', model: 'fp32', tf32: true },
      { label: 'amp', model: 'amp', tf32: true },
    ]);
    expect(planVariants(['cpu']).map((v) => [v.label, v.tf32])).toEqual([['fp32', null], ['amp', null]]);
    expect(planVariants(['webgpu', 'cuda']).map((v) => v.label)).toEqual(['fp32', 'amp']);
  });

  it('times pure fp16 last when asked, with the provider default math on CUDA', () => {
    expect(planVariants(['cuda'], { pureFp16: true }).map((v) => [v.label, v.model, v.tf32])).toEqual([['fp32', 'fp32', false], ['fp32+tf32', 'fp32', true], ['amp', 'amp', true], ['fp16', 'fp16', true]]);
    expect(planVariants(['cpu'], { pureFp16: true }).map((v) => v.label)).toEqual(['fp32', 'amp', 'fp16']);
  });
});

describe('benchVariants with a faked runner', () => {
  it('states the AMP speed-up against fp32 with and without TF32, and checks every variant against full fp32', async () => {
    const ort = await loadOrt();
    const { runner, jobs } = fakeRunner({ latency: { fp32: 10, 'fp32+tf32': 6, amp: 4 }, outputs: { fp32: [1, 2, 3], 'fp32+tf32': [1, 2, 3.001], amp: [1, 2, 9] } });
    const result = await benchVariants(ort, models, { providers: ['cuda'], runs: 3, warmup: 1, feeds, tolerance: { atol: 1e-2, rtol: 1e-2 } }, runner);
    expect(jobs.map(({ job, model }) => [job.label, job.tf32, model])).toEqual([['fp32', false, 1], ['fp32+tf32', true, 1], ['amp', true, 2]]);
    expect(result.speedups).toEqual({ fp32: 2.5, 'fp32+tf32': 1.5 });
    expect(result.speedup).toBe(2.5);
    expect(result.accuracyByVariant['fp32+tf32']?.[0]?.pass).toBe(true);
    expect(result.accuracy[0]).toMatchObject({ name: 'y', pass: false });
    expect(result.variants.every((v) => !('outputs' in v))).toBe(true);
  });

  it('with pure fp16: AMP is still the candidate, its speed-up over fp16 is stated, fp16 is checked against fp32', async () => {
    const ort = await loadOrt();
    const { runner, jobs } = fakeRunner({ latency: { fp32: 10, amp: 4, fp16: 2 }, outputs: { fp32: [1, 2, 3], amp: [1, 2, 3], fp16: [1, 2, 900] } });
    const result = await benchVariants(ort, models, { providers: ['cpu'], runs: 3, warmup: 1, feeds, tolerance: { atol: 1e-2, rtol: 1e-2 }, pureFp16: true }, runner);
    expect(jobs.map(({ job, model }) => [job.label, model])).toEqual([['fp32', 1], ['amp', 2], ['fp16', 3]]);
    expect(result.speedup).toBe(2.5);
    expect(result.speedups).toEqual({ fp32: 2.5, fp16: 0.5 });
    expect(result.accuracy[0]?.pass).toBe(true);
    expect(result.accuracyByVariant.fp16?.[0]?.pass).toBe(false);
    expect(result.variants.map((v) => v.timesMs.length)).toEqual([2, 2, 2]);
  });

  it('turns a failed variant into RUNTIME_FAILED naming it', async () => {
    const ort = await loadOrt();
    const failing: VariantRunner = async (job) => {
      throw new VariantFailed(`cannot run ${job.label}`, false);
    };
    await expect(benchVariants(ort, models, { providers: ['cpu'], runs: 1, warmup: 0, feeds, tolerance: { atol: 0, rtol: 0 } }, failing)).rejects.toThrow(/bench fp32: cannot run fp32/);
  });
});

describe('largestBatch', () => {
  const fitsUpTo = (limit: number) => async (batch: number) => (batch <= limit ? { fits: true as const, medianMs: batch / 100 } : { fits: false as const, error: 'out of memory' });

  it('doubles to the first failure, then bisects on multiples of 8 to within 1/16', async () => {
    const result = await largestBatch(fitsUpTo(1000), { start: 8, max: 1 << 20 });
    expect(result.trials.slice(0, 8).map((t) => [t.batch, t.fits])).toEqual([[8, true], [16, true], [32, true], [64, true], [128, true], [256, true], [512, true], [1024, false]]);
    expect(result.largest).toBeLessThanOrEqual(1000);
    expect(result.largest! % 8).toBe(0);
    expect(result.largest).toBeGreaterThanOrEqual(1000 - 1000 / 16 - 8);
    expect(result.itemsPerSecond).toBeCloseTo(100_000);
    expect(result.reachedLimit).toBe(false);
    expect(result.trials.every((t) => !t.fits || t.itemsPerSecond! > 0)).toBe(true);
  });

  it('stops after maxTrials with the best fit so far', async () => {
    const result = await largestBatch(fitsUpTo(1000), { start: 8, max: 1 << 20, maxTrials: 4 });
    expect(result.trials.map((t) => t.batch)).toEqual([8, 16, 32, 64]);
    expect(result).toMatchObject({ largest: 64, reachedLimit: false });
  });

  it('reports null when the start does not fit, and the limit when nothing fails', async () => {
    expect(await largestBatch(fitsUpTo(4), { start: 8, max: 64 })).toMatchObject({ largest: null, itemsPerSecond: null });
    expect(await largestBatch(fitsUpTo(1e9), { start: 8, max: 100 })).toMatchObject({ largest: 100, reachedLimit: true });
  });
});

describe('searchBatches with a faked runner', () => {
  it('finds about twice the batch for AMP when it needs half the memory per item, on the named batch dimension', async () => {
    const { runner, jobs } = fakeRunner({ bytesPerItem: { fp32: 4, amp: 2 }, memory: 4 * 4096 });
    const result = await searchBatches(models, { providers: ['cuda'], batchDim: 'batch', start: 64, max: 1 << 20, runs: 2, warmup: 1, feeds }, runner);
    expect(result.fp32.largest).toBe(4096);
    expect(result.amp.largest).toBe(8192);
    expect(jobs.every(({ job }) => job.keepOutputs === false && job.tf32 === true && job.feeds.dims.batch !== undefined)).toBe(true);
  });

  it('an error that is not out-of-memory stops the search', async () => {
    const broken: VariantRunner = async () => {
      throw new VariantFailed('invalid model', false);
    };
    await expect(searchBatches(models, { providers: ['cpu'], batchDim: 'batch', start: 8, max: 64, runs: 1, warmup: 0, feeds }, broken)).rejects.toThrow('invalid model');
  });
});

describe('runBench with a faked runner and device', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'amp-bench-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('on CUDA prints both speed-ups, the method and the batch search, and writes them to JSON', async () => {
    const file = path.join(dir, 'mlp.onnx');
    writeFileSync(file, encodeModel(buildMlpInference({ batch: 'batch', input: 16, hidden: 32, layers: 1, classes: 8 })));
    const { runner } = fakeRunner({ latency: { fp32: 8, 'fp32+tf32': 5, amp: 4 }, bytesPerItem: { fp32: 4, amp: 2 }, memory: 4 * 1024 });
    let printed = '';
    const out = path.join(dir, 'bench.json');
    const args = {
      model: file, mode: 'fp16', weights: 'fp32', report: [], quiet: false, json: false, verbose: false, dryRun: false, forceFp32: [], forceFp16: [],
      allowNewerIr: false, externalData: 'keep', calibrate: false, training: 'auto', lossScale: 'dynamic', inputs: [], dim: ['batch=64'], target: 'cuda',
      ep: 'cuda', seed: 0, runs: 3, warmup: 1, out, isolation: 'process', batchSearch: true, maxBatch: 1 << 20,
    } as unknown as BenchArgs;
    expect(await runBench(args, (t) => (printed += t), { runner, queryDevice: () => [{ name: 'NVIDIA H100 80GB HBM3', computeCapability: 9 }] })).toBe(0);
    expect(printed).toContain('device: NVIDIA H100 80GB HBM3, compute capability 9.0');
    expect(printed).toContain('method: one process per variant');
    expect(printed).toContain('speed-up of amp: 2.00x over fp32, 1.25x over fp32+tf32');
    expect(printed).toContain('amp fits 2.00x the fp32 batch');
    const record = JSON.parse(readFileSync(out, 'utf8'));
    expect(record).toMatchObject({ isolation: 'process', target: 'cuda', speedups: { fp32: 2, 'fp32+tf32': 1.25 }, batchSearch: { fp32: { largest: 1024 }, amp: { largest: 2048 } } });
    expect(record.variants.map((v: { label: string; tf32: boolean }) => [v.label, v.tf32])).toEqual([['fp32', false], ['fp32+tf32', true], ['amp', true]]);
  });
});

describe('processRunner', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'amp-worker-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sets NVIDIA_TF32_OVERRIDE=0 only for a TF32-off job, and passes the job and model through the framed protocol', async () => {
    // A fake worker: answers with what it was given and its TF32 setting, in the real protocol.
    const worker = path.join(dir, 'worker.mjs');
    writeFileSync(worker, `
      import { frame, unframe } from ${JSON.stringify(path.join(repoRoot, 'dist/runtime/isolated-bench.js'))};
      const chunks = [];
      for await (const c of process.stdin) chunks.push(c);
      const { header, blobs } = unframe(Buffer.concat(chunks));
      const reply = { label: header.label, provider: 'cuda', tf32: process.env.NVIDIA_TF32_OVERRIDE === '0' ? false : true, batch: blobs[0].length, medianMs: 1, p90Ms: 1, itemsPerSecond: 1, rssGrowthMiB: 0, gpuMemoryGrowthMiB: null, outputNames: ['y'] };
      process.stdout.write(frame(reply, [Buffer.from('out')]));
    `);
    const job = (tf32: boolean): VariantJob => ({ label: 'v', providers: ['cuda'], runs: 1, warmup: 0, feeds, tf32, keepOutputs: true });
    const run = processRunner(worker);
    const off = await run(job(false), new Uint8Array(5));
    expect(off).toMatchObject({ label: 'v', tf32: false, batch: 5 });
    expect(Buffer.from(off.outputs!.y!).toString()).toBe('out');
    expect((await run(job(true), new Uint8Array(2))).tf32).toBe(true);
  });

  it('reports an out-of-memory reply as such', async () => {
    const worker = path.join(dir, 'oom.mjs');
    writeFileSync(worker, `
      import { frame } from ${JSON.stringify(path.join(repoRoot, 'dist/runtime/isolated-bench.js'))};
      for await (const c of process.stdin) void c;
      process.stdout.write(frame({ error: 'Failed to allocate memory for requested buffer of size 1', outOfMemory: true }, []));
    `);
    const error = await processRunner(worker)({ label: 'v', providers: ['cpu'], runs: 1, warmup: 0, feeds, tf32: null, keepOutputs: false }, new Uint8Array(1)).catch((e) => e);
    expect(error).toBeInstanceOf(VariantFailed);
    expect(error.outOfMemory).toBe(true);
  });

  it('the real worker times the transformer fixture on CPU, in its own process (built CLI)', () => {
    const json = path.join(dir, 'bench.json');
    const result = spawnSync(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), 'bench', path.join(fixturesDir, 'transformer-block/model.onnx'), '--runs', '2', '--warmup', '0', '--out', json], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    const record = JSON.parse(readFileSync(json, 'utf8'));
    expect(record).toMatchObject({ isolation: 'process', provider: 'cpu' });
    expect(record.method).toMatch(/one process per variant/);
    expect(record.variants.map((v: { label: string }) => v.label)).toEqual(['fp32', 'amp']);
  });
});
