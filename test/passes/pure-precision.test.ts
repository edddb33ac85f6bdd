/**
 * The train --compare variants: pure fp16 has every float op and weight in float16 (no fp32 float
 * op left), fp64 the same in float64, the loss-scaling switch, and on ONNX Runtime the reason
 * pure fp16 collapses under RMSprop: epsilon 1e-8 is zero in float16, and the first non-finite
 * value is the update's Div.
 */
import { describe, expect, it } from 'vitest';
import { buildAttentionTrainingStep, buildMlpTrainingStep, withInitialState, type Optimizer } from '../../src/builder/recipes/training.js';
import { DataType } from '../../src/onnx/data-types.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { ModelGraph } from '../../src/onnx/graph.js';
import { opsetsOf } from '../../src/onnx/opsets.js';
import { inferElemTypes } from '../../src/onnx/type-inference.js';
import { LOSS_SCALE_NAMES } from '../../src/passes/loss-scaling.js';
import { parseVariants, variantGraph } from '../../src/passes/training/variants.js';
import { loadMnist } from '../../src/runtime/mnist.js';
import { train } from '../../src/runtime/train.js';

const mlp = (optimizer: Optimizer = 'rmsprop', eps?: number) =>
  withInitialState(buildMlpTrainingStep({ inputSize: 784, hidden: 16, hiddenLayers: 2, classes: 10, batch: 'batch', optimizer, seed: 1, ...(eps ? { constants: { eps } } : {}) }));
const attention = () => withInitialState(buildAttentionTrainingStep({ sequence: 28, width: 28, classes: 10, batch: 'batch', optimizer: 'adam', seed: 1 }));
const variant = (label: string) => parseVariants(label)[0]!;

/** Every value typed float32 in the graph, with the op that makes it and the ops that read it. */
function float32Values(model: onnx.ModelProto): Array<{ name: string; producer: string; readers: string[] }> {
  const graph = new ModelGraph(model);
  const types = inferElemTypes(graph, opsetsOf(model));
  const scope = graph.main;
  const names = new Set<string>([
    ...(model.graph!.input ?? []).map((i) => i.name ?? ''),
    ...(model.graph!.initializer ?? []).map((t) => t.name ?? ''),
    ...(model.graph!.node ?? []).flatMap((n) => [...(n.input ?? []), ...(n.output ?? [])]),
  ]);
  return [...names]
    .filter((name) => name && types.get(scope, name) === DataType.FLOAT)
    .map((name) => ({ name, producer: scope.producerOf(name)?.node.op_type ?? 'input/initializer', readers: scope.consumersOf(name).map((u) => u.node.op_type ?? '') }));
}

describe('pure precision variants', () => {
  it('fp16 leaves no float32 value in the MLP step: every op, weight, input, output and Cast is float16', () => {
    const fp16 = variantGraph(mlp(), variant('fp16'));
    expect(float32Values(fp16)).toEqual([]);
    expect(fp16.graph!.initializer!.every((t) => t.data_type !== DataType.FLOAT)).toBe(true);
    expect(fp16.graph!.initializer!.find((t) => t.name === 'fc1.weight')!.data_type).toBe(DataType.FLOAT16);
    expect(fp16.graph!.node!.filter((n) => n.op_type === 'MatMul' || n.op_type === 'Gemm').length).toBeGreaterThan(0);
  });

  it("fp16 on the attention step: only LayerNormalization's Mean and InvStdDev, float32 by ONNX's definition, each cast straight to float16", () => {
    const left = float32Values(variantGraph(attention(), variant('fp16')));
    expect(left.map((v) => v.producer)).toEqual(['LayerNormalization', 'LayerNormalization']);
    for (const value of left) expect(value.readers).toEqual(['Cast']);
  });

  it('fp64 converts everything but OneHot, which ONNX Runtime runs in float32 only (rules/pure-precision.json)', () => {
    const left = float32Values(variantGraph(mlp(), variant('fp64')));
    expect(left.every((v) => v.producer === 'OneHot' || v.readers.every((r) => r === 'OneHot'))).toBe(true);
    expect(left.length).toBeGreaterThan(0);
  });

  it('the loss-scaling switch: amp scales by default, amp:unscaled and fp16 do not, fp16:scaled is refused with the reason', () => {
    const inputs = (label: string) => (variantGraph(mlp(), variant(label)).graph!.input ?? []).map((i) => i.name);
    expect(inputs('amp')).toContain(LOSS_SCALE_NAMES.scale);
    expect(inputs('amp:unscaled')).not.toContain(LOSS_SCALE_NAMES.scale);
    expect(inputs('fp32:scaled')).toContain(LOSS_SCALE_NAMES.scale);
    expect(inputs('amp-bf16')).not.toContain(LOSS_SCALE_NAMES.scale);
    expect(() => parseVariants('fp16:scaled')).toThrow(/float32/);
    expect(() => parseVariants('fp8')).toThrow(/fp64, fp32, amp, amp-bf16, fp16/);
    expect(() => parseVariants('amp,amp')).toThrow(/twice/);
  });

  it("on ONNX Runtime: pure fp16 RMSprop collapses at the update's Div with epsilon 1e-8 and trains with 1e-4; fp64 tracks fp32", async () => {
    const data = loadMnist({ seed: 0 });
    const options = { epochs: 1, batch: 64, lr: 1e-3, providers: ['cpu' as const], seed: 0, maxSteps: 8 };
    const collapsed = await train(variantGraph(mlp(), variant('fp16')), data, options);
    expect(collapsed.firstNonFinite).toMatchObject({ step: 1, op: 'Div' });
    expect(collapsed.firstNonFinite!.node).toMatch(/^rmsprop\/.*\/direction$/);
    const widerEpsilon = await train(variantGraph(mlp('rmsprop', 1e-4), variant('fp16')), data, options);
    expect(widerEpsilon.firstNonFinite).toBeUndefined();
    expect(Number.isFinite(widerEpsilon.epochs[0]!.meanLoss)).toBe(true);
    const fp32 = await train(mlp(), data, options);
    const fp64 = await train(variantGraph(mlp(), variant('fp64')), data, options);
    expect(fp64.epochs[0]!.meanLoss).toBeCloseTo(fp32.epochs[0]!.meanLoss, 3);
  });
});
