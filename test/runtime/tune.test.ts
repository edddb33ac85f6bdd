/**
 * tune on the models built to fail in float16 in one known place: it pins the offending node and
 * little else, in a handful of runs, writes an overrides file that reproduces the model through
 * --rules, and leaves a model that already passes alone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ATTENTION_NODES,
  OVERFLOW_NODES,
  UNDERFLOW_NODES,
  buildAttentionOverflow,
  buildLongSoftmaxUnderflow,
  buildOverflowBeforeNorm,
} from '../../src/builder/recipes/fp16-failures.js';
import { buildMlpInference } from '../../src/builder/recipes/mlp.js';
import { buildTransformer } from '../../src/builder/recipes/transformer.js';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { readRulesFile } from '../../src/passes/amp/rules-file.js';
import { modelAwareRandomInputs } from '../../src/runtime/calibration.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { judgeOutput, rankCandidates, tune } from '../../src/runtime/tune.js';
import { repoRoot } from '../support/corpus.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-tune-'));
const bin = path.join(repoRoot, 'dist/cli/main.js');
const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });

describe('amp-rewrite tune', () => {
  const cases = [
    { name: 'overflow-before-norm', build: buildOverflowBeforeNorm, offending: OVERFLOW_NODES[0] },
    { name: 'attention-overflow', build: buildAttentionOverflow, offending: ATTENTION_NODES[0] },
    { name: 'long-softmax-underflow', build: buildLongSoftmaxUnderflow, offending: UNDERFLOW_NODES[0] },
  ];
  for (const { name, build, offending } of cases) {
    it(`${name}: pins ${offending} alone in a few runs; the overrides file reproduces the model byte for byte`, () => {
      const original = path.join(work, `${name}.onnx`);
      saveModel(build(), original);
      const tuned = path.join(work, `${name}.tuned.onnx`);
      const run = cli(['tune', original, '-o', tuned]);
      expect(run.status, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toMatch(/list-based rewrite: fails the tolerance/);
      const report = JSON.parse(readFileSync(path.join(work, `${name}.tuned.tune.json`), 'utf8'));
      expect(report.pass).toBe(true);
      expect(report.pinned.map((p: { node: string }) => p.node)).toEqual([offending]);
      expect(report.pinned[0].evidence).toMatch(/inf\/NaN starts at its output|below float16's smallest subnormal/);
      expect(report.attempts.length - 1).toBeLessThanOrEqual(4); // verification attempts after the instrumented pair
      expect(report.holdsFor).toMatch(/random inputs/);
      const overrides = path.join(work, `${name}.tuned.overrides.json`);
      expect(JSON.parse(readFileSync(overrides, 'utf8')).forceFp32).toEqual([offending]);
      const again = path.join(work, `${name}.rules.onnx`);
      expect(cli([original, '-o', again, '--rules', overrides, '-q']).status).toBe(0);
      expect(readFileSync(again).equals(readFileSync(tuned))).toBe(true);
      expect(cli(['compare', original, tuned]).status).toBe(0);
    });
  }

  it('a model that passes already gets no pins and no verification run', async () => {
    const ort = await loadOrt();
    const model = buildTransformer({ batch: 1, sequence: 8, model: 32, heads: 4, ffn: 64, layers: 1, vocab: 0, seed: 5 });
    const result = await tune(model, { ampOptions: {}, batches: [modelAwareRandomInputs(ort, model)], providers: ['cpu'], numerics: 'emulate', atol: 1e-2, rtol: 1e-2, metric: 'allclose' });
    expect(result.pass).toBe(true);
    expect(result.pinned).toEqual([]);
    expect(result.runs.full).toBe(0);
    expect(result.result.report.summary.converted).toBeGreaterThan(0);
  });

  it('tunes a bfloat16 rewrite on the CPU provider through emulation', async () => {
    const ort = await loadOrt();
    const model = buildMlpInference({ batch: 4, input: 16, hidden: 32, layers: 2, classes: 10, seed: 3 });
    const result = await tune(model, { ampOptions: { mode: 'bf16' }, batches: [modelAwareRandomInputs(ort, model)], providers: ['cpu'], numerics: 'emulate', atol: 5e-2, rtol: 5e-2, metric: 'allclose' });
    expect(result.pass).toBe(true);
    expect(result.result.report.summary.mode).toBe('mixed_bfloat16');
  });

  it('every converted node is ranked: one whose outputs the runs did not observe comes last, in graph order, never left out', () => {
    const model = buildOverflowBeforeNorm();
    const converted = ampRewrite(model).report.nodes.filter((n) => n.color === 'ALLOW').map((n) => n.node);
    expect(converted.length).toBeGreaterThan(3);
    // No value observed at all (as for nodes whose outputs are no float32 value of the run).
    const ranking = rankCandidates(model, new Set(converted), {}, {}, {}, true);
    const order = (model.graph?.node ?? []).map((n) => n.name).filter((name) => converted.includes(name as string));
    expect(ranking.map((e) => e.node)).toEqual(order);
    expect(ranking.every((e) => /^no float32 output of its own observed/.test(e.evidence))).toBe(true);
  });

  it("a detector whose TopK ranks scores below float16's resolution (torch export): the plain rewrite fails, tune ranks every converted node and passes", () => {
    const model = path.join(repoRoot, 'test/models/ssd-topk.onnx');
    const plain = path.join(work, 'ssd-topk.amp.onnx');
    expect(cli([model, '-o', plain, '-q', '--no-verify']).status).toBe(0);
    expect(cli(['compare', model, plain]).status).toBe(1);
    const out = path.join(work, 'ssd-topk.tuned.onnx');
    const run = cli(['tune', model, '-o', out, '--json']);
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { pass: boolean; extent: { converted: number }; ranking: Array<{ node: string }> };
    expect(report.pass).toBe(true);
    const converted = ampRewrite(loadModel(model)).report.nodes.filter((n) => n.color === 'ALLOW').map((n) => n.node).sort();
    expect(report.extent.converted).toBe(converted.length);
    expect(report.ranking.map((e) => e.node).sort()).toEqual(converted);
    expect(cli(['compare', model, out]).status).toBe(0);
  });

  it('a spent budget still ends with the all-float32 attempt: exit 0, written, with a warning that nothing stays converted', () => {
    const original = path.join(work, 'budget.onnx');
    saveModel(buildOverflowBeforeNorm(), original);
    const out = path.join(work, 'budget.tuned.onnx');
    const run = cli(['tune', original, '-o', out, '--budget-seconds', '0.000001']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^amp-rewrite: warning: tune: no set of fp32 nodes short of all \d+ converted nodes passed; the written model keeps every node float32 \(nothing stays converted\)$/m);
    expect(run.stdout).toMatch(/kept every node fp32/);
    expect(run.stdout).toMatch(/\(budget exhausted\)/);
    expect(existsSync(out)).toBe(true);
    expect(cli(['compare', original, out]).status).toBe(0);
  });

  it('a rules file pins nodes with forceFp32 (notes under $ keys); a malformed list is an error naming the file', () => {
    const good = path.join(work, 'pins.json');
    writeFileSync(good, JSON.stringify({ $comment: 'from tune', forceFp32: ['big/proj', '/^post0\\//'] }));
    const layer = readRulesFile(good);
    expect(layer.forceFp32).toEqual(['big/proj', '/^post0\\//']);
    const report = ampRewrite(buildOverflowBeforeNorm(), { listChanges: [layer] }).report;
    const rules = Object.fromEntries(report.nodes.map((n) => [n.node, n.rule]));
    expect(rules['big/proj']).toBe('force-fp32');
    expect(rules['post0/matmul']).toBe('force-fp32');
    expect(rules['post1/matmul']).toBe('allow-list');
    const bad = path.join(work, 'bad-pins.json');
    writeFileSync(bad, JSON.stringify({ forceFp32: 'big/proj' }));
    expect(() => readRulesFile(bad)).toThrowError(/bad-pins.json: forceFp32 must be an array/);
  });

  it('metrics: allclose per element, max-abs on the largest error, cosine against 1 - atol; a stray inf fails all three', () => {
    const t = (values: number[]) => ({ type: 'float32', dims: [values.length], data: Float32Array.from(values) }) as never;
    const reference = t([1, 2, 3, 100]);
    const off = t([1.5, 2, 3, 100]); // 0.5 off on a small element: beyond rtol, within atol * 100
    expect(judgeOutput('y', reference, off, { atol: 1e-2, rtol: 1e-3, metric: 'allclose' }).pass).toBe(true);
    expect(judgeOutput('y', reference, off, { atol: 1e-3, rtol: 1e-3, metric: 'allclose' }).pass).toBe(false);
    expect(judgeOutput('y', reference, off, { atol: 1e-2, rtol: 0, metric: 'max-abs' }).pass).toBe(true);
    expect(judgeOutput('y', reference, off, { atol: 1e-3, rtol: 0, metric: 'max-abs' }).pass).toBe(false);
    expect(judgeOutput('y', reference, off, { atol: 1e-3, rtol: 0, metric: 'cosine' }).pass).toBe(true);
    const stray = t([1, 2, 3, Infinity]);
    for (const metric of ['allclose', 'max-abs', 'cosine'] as const) expect(judgeOutput('y', reference, stray, { atol: 1, rtol: 1, metric }).pass).toBe(false);
  });
});
