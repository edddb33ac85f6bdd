/**
 * The public API covers what the CLI does: the rewrite of inference and training graphs, calibrate,
 * run, compare and bench; options are checked at run time (JavaScript callers get no type check);
 * the declarations compile in a project without @types/node or onnxruntime-node.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as api from '../../src/index.js';
import { fixturesDir, repoRoot } from '../support/corpus.js';

const transformer = path.join(fixturesDir, 'transformer-block/model.onnx');
const trainingGraph = path.join(fixturesDir, 'mlp-training-adam/model.onnx');

function badOption(action: () => unknown): api.AmpError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(api.AmpError);
    expect((error as api.AmpError).code).toBe('BAD_OPTION');
    return error as api.AmpError;
  }
  throw new Error('expected a BAD_OPTION error');
}

describe('public API', () => {
  it('rejects options JavaScript callers get wrong, naming the option', () => {
    const model = api.loadModel(transformer);
    const untyped = api.ampRewrite as (m: unknown, o: unknown) => unknown;
    expect(badOption(() => untyped(model, { mode: 'fp8' })).message).toMatch(/option mode: expected one of 'fp16', 'bf16', got "fp8"/);
    expect(badOption(() => untyped(model, { weights: 16 })).message).toMatch(/option weights/);
    expect(badOption(() => untyped(model, { forceFp32: 'l0/softmax' })).message).toMatch(/option forceFp32: expected an array of strings/);
    const rewrite = api.rewriteModel as (m: unknown, o: unknown) => unknown;
    expect(badOption(() => rewrite(model, { training: 'yes' })).message).toMatch(/option training/);
    expect(badOption(() => rewrite(model, { lossScale: { kind: 'huge' } })).message).toMatch(/option kind/);
  });

  it('rewriteModel adds loss scaling to a training graph, as the CLI does', () => {
    const { model, report } = api.rewriteModel(api.loadModel(trainingGraph));
    expect(report.training?.lossScale.kind).toBe('dynamic');
    expect(model.graph?.input?.map((i) => i.name)).toContain('amp.loss_scale');
    expect(model.graph?.output?.map((o) => o.name)).toContain('amp.all_finite');
    const bf16 = api.rewriteModel(api.loadModel(trainingGraph), { mode: 'bf16', lossScale: api.parseLossScale('static:1024') });
    expect(bf16.report.training?.lossScale).toEqual({ kind: 'static', value: 1024 });
  });

  it('runs, compares, benchmarks and calibrates through the API (ONNX Runtime CPU provider)', async () => {
    const original = api.loadModel(transformer);
    const { model: amp } = api.ampRewrite(original);
    const run = await api.runModel(transformer, { seed: 1 });
    expect(run.provider).toBe('cpu');
    expect(run.outputs[0]?.nan).toBe(0);
    const compared = await api.compareModels(transformer, amp);
    expect(compared.pass).toBe(true);
    expect(compared.outputs[0]?.cosine).toBeGreaterThan(0.999);
    const bench = await api.benchModel(original, { runs: 2, warmup: 0 });
    expect(bench.variants.map((v) => v.label)).toEqual(['fp32', 'amp']);
    expect(bench.pass).toBe(true);
    expect(bench.rewrite.amp.summary.allowConverted).toBe(9);
    const ranges = await api.calibrate(original);
    expect(ranges.size).toBeGreaterThan(10);
    await expect(api.runModel(transformer, { ep: ['tpu' as never] })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    await expect(api.benchModel(original, { runs: 0 })).rejects.toMatchObject({ code: 'BAD_OPTION' });
  });

  it('the declarations compile with no @types/node and never reach onnxruntime-node', () => {
    const project = mkdtempSync(path.join(tmpdir(), 'amp-dts-'));
    mkdirSync(path.join(project, 'node_modules'));
    symlinkSync(repoRoot, path.join(project, 'node_modules/amp-rewrite'));
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022'], types: [], noEmit: true, skipLibCheck: false }, files: ['consumer.ts'] }),
    );
    writeFileSync(
      path.join(project, 'consumer.ts'),
      `import { ampRewrite, rewriteModel, loadModel, runModel, compareModels, benchModel, calibrate, tuneModel, createTrainer, tensorValues, renderSummary, AmpError, type RunResult, type BenchReport, type NodeEvidence, type TensorData } from 'amp-rewrite';
const model = loadModel('m.onnx');
export const summary: string = renderSummary(ampRewrite(model, { mode: 'bf16', forceFp32: ['/head/'] }).report.summary);
export const scaled = rewriteModel(model, { lossScale: { kind: 'none' } }).report.training?.lossScale.kind;
export async function all(): Promise<[RunResult, boolean, BenchReport, number]> {
  const ranges = await calibrate(model);
  return [await runModel('m.onnx', { ep: 'auto' }), (await compareModels(model, 'b.onnx', { atol: 0.1 })).pass, await benchModel(model, { runs: 3 }), ranges.size];
}
export const isError = (e: unknown): boolean => e instanceof AmpError && e.code === 'BAD_OPTION';
export async function tuned(): Promise<[NodeEvidence[], string, string[]]> {
  const calibration = await calibrate('m.onnx', { batches: 4, headroom: 2, numerics: 'emulate' });
  const result = await tuneModel(model, { rewrite: calibration.rewriteOptions, metric: 'cosine', ep: ['cpu'] });
  return [result.pinned, result.overrides, calibration.pinned.map((p) => p.node)];
}
export async function trained(): Promise<TensorData | undefined> {
  const trainer = await createTrainer('step.onnx', { providers: ['cpu'] });
  const { loss, outputs } = await trainer.step({ x: { data: new Float32Array(4), dims: [2, 2] }, lr: { data: [0.1], dims: [] } });
  await trainer.release();
  return loss > 0 ? outputs.loss : { type: 'float32', data: Float32Array.from(tensorValues(trainer.state().get('w')!) as ArrayLike<number>), dims: [1] };
}
`,
    );
    const tsc = spawnSync(process.execPath, [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', project, '--listFiles'], { encoding: 'utf8' });
    const errors = tsc.stdout.split('\n').filter((line) => /error TS/.test(line));
    expect(errors).toEqual([]);
    expect(tsc.status).toBe(0);
    const files = tsc.stdout.split('\n');
    expect(files.some((f) => f.includes('dist/index.d.ts'))).toBe(true);
    expect(files.filter((f) => /onnxruntime|@types\/node/.test(f))).toEqual([]);
  });

  it("the TypeScript examples of the README and docs/ compile against the package", () => {
    const project = mkdtempSync(path.join(tmpdir(), 'amp-readme-ts-'));
    mkdirSync(path.join(project, 'node_modules'));
    symlinkSync(repoRoot, path.join(project, 'node_modules/amp-rewrite'));
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ type: 'module' }));
    const pages = ['README.md', ...readdirSync(path.join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const blocks = pages.flatMap((page) => [...readFileSync(path.join(repoRoot, page), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => m[1] as string));
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    const files = blocks.map((code, i) => {
      writeFileSync(path.join(project, `example${i}.ts`), `${code}\nexport {};\n`);
      return `example${i}.ts`;
    });
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022'], types: ['node'], typeRoots: [path.join(repoRoot, 'node_modules/@types')], noEmit: true },
        files,
      }),
    );
    const tsc = spawnSync(process.execPath, [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', project], { encoding: 'utf8' });
    expect(tsc.stdout).toBe('');
    expect(tsc.status).toBe(0);
  });
});

describe('one report shape', () => {
  it('rewriteModel and ampRewrite both give report.summary and report.nodes; report.amp stays as a deprecated alias', () => {
    const model = () => api.loadModel(path.join(fixturesDir, 'transformer-block/model.onnx'));
    const viaAmp = api.ampRewrite(model()).report;
    const viaPipeline = api.rewriteModel(model()).report;
    expect(viaPipeline.summary).toEqual(viaAmp.summary);
    expect(viaPipeline.nodes).toEqual(viaAmp.nodes);
    expect(viaPipeline.lists).toEqual(viaAmp.lists);
    expect(viaPipeline.summary).toBe(viaPipeline.amp.summary);
    expect(viaPipeline.nodes).toBe(viaPipeline.amp.nodes);
    // A training graph's report too, with its loss scaling beside.
    const training = api.rewriteModel(api.loadModel(path.join(fixturesDir, 'mlp-training-adam/model.onnx'))).report;
    expect(training.summary.converted).toBeGreaterThan(0);
    expect(training.training?.lossScale).toBeDefined();
    // Serialised, the report is written once, not twice.
    expect(Object.keys(JSON.parse(JSON.stringify(viaPipeline)))).toEqual(['amp']);
  });
});
