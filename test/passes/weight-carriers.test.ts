/**
 * Weights moved by data-movement ops stay weights (rules/weight-carriers.json): TorchScript stores
 * equal initializers once and reads the copies through Identity nodes, so a freshly initialised
 * Hugging Face BertModel (every LayerNorm weight ones, every bias zeros) reads most of its biases
 * through Identity. Those are weights: one shared Cast each, the same Casts as the same model whose
 * weights are all distinct, and never called an fp32 stream.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../../src/builder/graph-builder.js';
import { DataType } from '../../src/onnx/data-types.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { renderSummary } from '../../src/report/summary.js';
import { repoRoot } from '../support/corpus.js';

const dedup = () => loadModel(path.join(repoRoot, 'test/models/bert-dedup.onnx'));
const distinct = () => loadModel(path.join(repoRoot, 'test/models/bert-distinct.onnx'));
const casts = (summary: { targetCasts: number; fp32Casts: number; weightCasts: number }) => ({ activation: summary.targetCasts + summary.fp32Casts, weight: summary.weightCasts });

describe('weights reached through Identity, Reshape, Transpose... are weights', () => {
  it('the export really reads deduplicated initializers through Identity (19 of them), the distinct one none', () => {
    const identities = (model: ReturnType<typeof loadModel>) => (model.graph?.node ?? []).filter((n) => n.op_type === 'Identity' && model.graph?.initializer?.some((t) => t.name === n.input?.[0])).length;
    expect(identities(dedup())).toBe(19);
    expect(identities(distinct())).toBe(0);
  });

  for (const target of ['any', 'cuda'] as const) {
    it(`--target ${target}: as many activation and weight Casts as the same model with distinct weights, and no bias called an fp32 stream`, () => {
      const deduplicated = ampRewrite(dedup(), { target });
      const plain = ampRewrite(distinct(), { target });
      expect(casts(deduplicated.report.summary)).toEqual(casts(plain.report.summary));
      const summary = renderSummary(deduplicated.report.summary);
      expect(summary).not.toMatch(/input '[^']*bias' is an fp32 value from outside the low-precision region/);
      const identity = deduplicated.report.nodes.find((n) => n.op === 'Identity' && n.rule === 'constant-source');
      expect(identity?.reason).toBe('moves a weight unchanged (TorchScript\'s deduplicated initializers) (rules/weight-carriers.json); its readers decide its precision, as a weight\'s');
      expect(deduplicated.report.nodes.filter((n) => n.op === 'Identity').every((n) => n.rule === 'constant-source')).toBe(true);
    });
  }

  it('a carrier of anything but weights is no weight: an Identity of a graph input, a Reshape of an activation', () => {
    const b = new GraphBuilder('carriers');
    const x = b.input('x', DataType.FLOAT, [2, 4]);
    const w = b.initializer('w', [4, 4], new Float32Array(16).fill(0.5));
    const moved = b.op('Identity', [x], {}, { name: 'moved_input' });
    const h = b.op('MatMul', [moved, b.op('Transpose', [w], {}, { name: 'wt' })], {}, { name: 'mm' });
    const shaped = b.op('Reshape', [h, b.initializer('shape', [2], new BigInt64Array([2n, 4n]), DataType.INT64)], {}, { name: 'reshape_act' });
    b.op('MatMul', [shaped, w], {}, { name: 'mm2', outputs: ['y'] });
    b.output('y', DataType.FLOAT, [2, 4]);
    const rules = Object.fromEntries(ampRewrite(b.model({ '': 17 })).report.nodes.map((n) => [n.node, n.rule]));
    expect(rules.wt).toBe('constant-source');
    expect(rules.moved_input).not.toBe('constant-source');
    expect(rules.reshape_act).not.toBe('constant-source');
  });
});
