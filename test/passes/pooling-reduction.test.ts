/**
 * Reductions that are pooling (rules/kernels.json, ReduceMean `when: spatial-axes`): under --target
 * cuda a ReduceMean over H, W of an NCHW tensor (the dynamo exporter's global average pooling) runs
 * in float16 like GlobalAveragePool, since ORT's CUDA reduction accumulates in float32; other
 * ReduceMeans and every ReduceSum stay fp32. Activation Casts per layer in the summary. On minimal
 * graphs and on a dynamo export of a MobileNetV3-style network (test/models/mobilenetv3-se-dynamo.onnx).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GraphBuilder, attr, valueInfo } from '../../src/builder/graph-builder.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite, type AmpOptions } from '../../src/passes/amp.js';
import { layerOf, renderLayerCasts } from '../../src/passes/amp/casts-per-layer.js';
import { emulateNumerics } from '../../src/passes/emulate-numerics.js';
import { renderSummary } from '../../src/report/summary.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { repoRoot } from '../support/corpus.js';

const F = DataType.FLOAT;
const cuda: AmpOptions = { target: 'cuda' };

/** x [1, 4, 8, 8] -> Conv -> `op`(axes) -> Conv -> y; the reduction's input declared with `rank` dims. */
function reduction(op: 'ReduceMean' | 'ReduceSum', axes: number[], rank = 4, opset = 18): onnx.ModelProto {
  const b = new GraphBuilder('pool');
  b.input('x', F, [1, 4, 8, 8]);
  const w = b.initializer('w', [4, 4, 1, 1], Float32Array.from({ length: 16 }, (_, i) => 0.1 * (i % 5)));
  const h = b.op('Conv', ['x', w], {}, { name: 'conv1', outputs: ['h'] });
  const shaped = rank === 4 ? h : b.op('Reshape', [h, b.ints('shape', [1, 4, 64])], {}, { name: 'flat', outputs: ['h3'] });
  b.valueInfos.push(valueInfo(shaped, F, rank === 4 ? [1, 4, 8, 8] : [1, 4, 64]));
  const reduced =
    opset >= 18
      ? b.op(op, [shaped, b.ints('axes', axes)], { keepdims: attr.int(1) }, { name: 'pool', outputs: ['p'] })
      : b.op(op, [shaped], { axes: attr.ints(axes), keepdims: attr.int(1) }, { name: 'pool', outputs: ['p'] });
  const back = rank === 4 ? reduced : b.op('Unsqueeze', [reduced, b.ints('last', [3])], {}, { name: 'unflat', outputs: ['p4'] });
  b.op('Conv', [back, w], {}, { name: 'conv2', outputs: ['y'] });
  b.output('y', F);
  return b.model({ '': opset });
}

const ruleOf = (model: onnx.ModelProto, options: AmpOptions, node: string) => ampRewrite(model, options).report.nodes.find((n) => n.node === node)?.rule;

describe('ReduceMean over the spatial axes under --target cuda', () => {
  it('runs in float16 (rule target-kernel) for axes [2, 3] and [-2, -1] of a 4D input, with the axes as input or attribute', () => {
    expect(ruleOf(reduction('ReduceMean', [2, 3]), cuda, 'pool')).toBe('target-kernel');
    expect(ruleOf(reduction('ReduceMean', [-1, -2]), cuda, 'pool')).toBe('target-kernel');
    expect(ruleOf(reduction('ReduceMean', [2, 3], 4, 13), cuda, 'pool')).toBe('target-kernel');
    const reason = ampRewrite(reduction('ReduceMean', [2, 3]), cuda).report.nodes.find((n) => n.node === 'pool')?.reason;
    expect(reason).toMatch(/global average pooling.*reduction_ops\.cc/s);
  });

  it('stays fp32 over other axes, over the last two axes of a 3D input, as ReduceSum, and without --target', () => {
    expect(ruleOf(reduction('ReduceMean', [1]), cuda, 'pool')).toBe('deny-list');
    expect(ruleOf(reduction('ReduceMean', [-2, -1], 3), cuda, 'pool')).toBe('deny-list');
    expect(ruleOf(reduction('ReduceSum', [2, 3]), cuda, 'pool')).toBe('deny-list');
    expect(ruleOf(reduction('ReduceMean', [2, 3]), {}, 'pool')).toBe('deny-list');
  });
});

describe('a MobileNetV3-style network exported by dynamo (ReduceMean for every squeeze-and-excitation pool)', () => {
  const model = loadModel(path.join(repoRoot, 'test/models/mobilenetv3-se-dynamo.onnx'));
  const activationCasts = (rewritten: onnx.ModelProto) => {
    const weights = new Set((rewritten.graph?.initializer ?? []).map((t) => t.name));
    const casts = (rewritten.graph?.node ?? []).filter((n) => n.op_type === 'Cast' && !weights.has(n.input?.[0] ?? ''));
    const to = (type: number) => casts.filter((n) => Number(n.attribute?.[0]?.i) === type).length;
    return { toFp16: to(DataType.FLOAT16), toFp32: to(F) };
  };

  it('needs 1 + 1 activation Casts under --target cuda, where the default rewrite needs 6 + 7 (5 pools kept fp32)', () => {
    expect(activationCasts(ampRewrite(model).model)).toEqual({ toFp16: 6, toFp32: 7 });
    const { model: rewritten, report } = ampRewrite(model, cuda);
    expect(activationCasts(rewritten)).toEqual({ toFp16: 1, toFp32: 1 });
    expect(report.nodes.filter((n) => n.op === 'ReduceMean').map((n) => n.rule)).toEqual(Array(5).fill('target-kernel'));
  });

  it('computes what the fp32 model computes (emulated float16 numerics, ONNX Runtime CPU)', async () => {
    const ort = await loadOrt();
    const image = new ort.Tensor('float32', Float32Array.from({ length: 3 * 32 * 32 }, (_, i) => Math.sin(i * 0.01)), [1, 3, 32, 32]);
    const run = async (m: onnx.IModelProto) => {
      const session = await ort.InferenceSession.create(encodeModel(m), { logSeverityLevel: 3 });
      try {
        return (await session.run({ image })).logits?.data as Float32Array;
      } finally {
        await session.release();
      }
    };
    const reference = await run(model);
    const emulated = await run(emulateNumerics(ampRewrite(model, cuda).model).model);
    let worst = 0;
    for (let i = 0; i < reference.length; i++) worst = Math.max(worst, Math.abs((reference[i] as number) - (emulated[i] as number)));
    expect(worst).toBeLessThan(0.02);
  });
});

describe('activation Casts per layer in the summary', () => {
  it('places a value in the layer its name numbers', () => {
    expect(layerOf('/layers.3/Add_output_0')).toBe('/layers.3');
    expect(layerOf('encoder.layer.11.output.dense')).toBe('encoder.layer.11');
    expect(layerOf('hardswish_2')).toBe('');
    expect(renderLayerCasts({ layers: [{ layer: '/l.0', casts: 4 }, { layer: '/l.1', casts: 4 }, { layer: '/l.2', casts: 2 }, { layer: '', casts: 3 }] })).toBe(
      'Activation Casts per layer: /l.0 .. /l.1: 4 each; /l.2: 2; outside any layer: 3',
    );
  });

  it('counts them on the TorchScript LLaMA-style export: the same number in each decoder layer', () => {
    const { report } = ampRewrite(loadModel(path.join(repoRoot, 'test/models/llama-mask.onnx')), cuda);
    const layers = report.summary.castsPerLayer ?? [];
    expect(layers.map((l) => l.layer)).toEqual(['/layers.0', '/layers.1', '']);
    expect(layers[0]?.casts).toBe(layers[1]?.casts);
    expect(renderSummary(report.summary)).toContain(`Activation Casts per layer: /layers.0 .. /layers.1: ${layers[0]?.casts} each`);
  });
});
