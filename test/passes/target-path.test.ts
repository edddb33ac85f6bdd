/**
 * --target cuda: what keeps a node with an fp32-accumulating kernel in float32, and by which path.
 * A post-LN BERT's LayerNorms reach the graph output only through the later norms of the residual
 * chain; each norm decides for itself, so only the last stays fp32. On a minimal graph and on a
 * TorchScript export of a 4-layer post-LN BERT (test/models/bert-post-ln.onnx).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GraphBuilder, attr } from '../../src/builder/graph-builder.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { emulateNumerics } from '../../src/passes/emulate-numerics.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { repoRoot } from '../support/corpus.js';

const F = DataType.FLOAT;

/** `layers` post-LN blocks: x = LN(x + MatMul(x)); the last LN's output goes through Mul 'scale' to the output. */
function postLn(layers: number): onnx.ModelProto {
  const b = new GraphBuilder('post_ln');
  b.input('x', F, [2, 8]);
  const w = b.initializer('w', [8, 8], Float32Array.from({ length: 64 }, (_, i) => Math.sin(i) * 0.2));
  const gamma = b.initializer('gamma', [8], new Float32Array(8).fill(1));
  const beta = b.initializer('beta', [8], new Float32Array(8));
  let x = 'x';
  for (let l = 0; l < layers; l++) {
    const h = b.op('MatMul', [x, w], {}, { name: `mm${l}` });
    const sum = b.op('Add', [x, h], {}, { name: `residual${l}` });
    x = b.op('LayerNormalization', [sum, gamma, beta], { axis: attr.int(-1) }, { name: `ln${l}` });
  }
  b.op('Mul', [x, b.scalar('two', 2)], {}, { name: 'scale', outputs: ['y'] });
  b.output('y', F);
  return b.model({ '': 17 });
}

describe('the path that keeps a norm fp32 under --target cuda', () => {
  it('promotes every norm but the last; the last names the path to the output', () => {
    const { report } = ampRewrite(postLn(3), { target: 'cuda' });
    const byName = new Map(report.nodes.map((n) => [n.node, n]));
    expect(byName.get('ln0')?.rule).toBe('target-kernel');
    expect(byName.get('ln1')?.rule).toBe('target-kernel');
    expect(byName.get('ln2')?.color).toBe('DENY');
    expect(byName.get('ln2')?.reason).toContain("feeds the graph output 'y' through Mul 'scale'");
  });
});

describe('a post-LN BERT exported by TorchScript', () => {
  const model = loadModel(path.join(repoRoot, 'test/models/bert-post-ln.onnx'));
  const norms = (report: ReturnType<typeof ampRewrite>['report']) => report.nodes.filter((n) => n.op === 'LayerNormalization' && n.node.startsWith('/layers.'));

  it('runs 7 of the 8 layer norms in float16 under --target cuda; the last, which writes the output, stays fp32', () => {
    const { report } = ampRewrite(model, { target: 'cuda' });
    const layerNorms = norms(report);
    expect(layerNorms.length).toBe(8);
    const kept = layerNorms.filter((n) => n.color !== 'ALLOW');
    expect(kept.map((n) => n.node)).toEqual(['/layers.3/ln2/LayerNormalization']);
    expect(kept[0]?.reason).toContain("feeds the graph output 'last_hidden_state'");
  });

  it('its rewrite computes what the fp32 model computes (emulated float16 numerics, ONNX Runtime CPU)', async () => {
    const { model: rewritten } = ampRewrite(model, { target: 'cuda' });
    const ort = await loadOrt();
    const feeds = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from({ length: 16 }, (_, i) => BigInt((i * 5) % 64)), [2, 8]),
      attention_mask: new ort.Tensor('int64', BigInt64Array.from({ length: 16 }, (_, i) => (i >= 13 ? 0n : 1n)), [2, 8]),
    };
    const run = async (m: onnx.IModelProto) => {
      const session = await ort.InferenceSession.create(encodeModel(m), { logSeverityLevel: 3 });
      try {
        return (await session.run(feeds)).last_hidden_state?.data as Float32Array;
      } finally {
        await session.release();
      }
    };
    const reference = await run(model);
    const emulated = await run(emulateNumerics(rewritten).model);
    let worst = 0;
    for (let i = 0; i < reference.length; i++) worst = Math.max(worst, Math.abs((reference[i] as number) - (emulated[i] as number)));
    expect(Number.isFinite(worst)).toBe(true);
    expect(worst).toBeLessThan(0.05);
  });
});
