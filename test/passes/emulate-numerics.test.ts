/**
 * Emulated numerics: the graph transform that rounds every float16/bfloat16 value to its type
 * where it is produced, so any provider computes what a GPU computes. ONNX Runtime's CPU provider
 * runs float16 chains in float32, which the first test shows and the transform corrects.
 */
import { describe, expect, it } from 'vitest';
import { GraphBuilder, attr, tensor } from '../../src/builder/graph-builder.js';
import { buildMlpInference } from '../../src/builder/recipes/mlp.js';
import { buildControlFlow } from '../../src/builder/recipes/small-models.js';
import { buildOverflowBeforeNorm } from '../../src/builder/recipes/fp16-failures.js';
import { buildTransformer } from '../../src/builder/recipes/transformer.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { DataType, LOW_PRECISION_TYPES } from '../../src/onnx/data-types.js';
import { toFloat16Array } from '../../src/onnx/float16.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { ModelGraph } from '../../src/onnx/graph.js';
import { opsetsOf } from '../../src/onnx/opsets.js';
import { inferElemTypes } from '../../src/onnx/type-inference.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { emulateNumerics } from '../../src/passes/emulate-numerics.js';
import { compareOutput, scaledTolerance } from '../../src/runtime/compare.js';
import { randomInputs, type Feeds } from '../../src/runtime/inputs.js';
import { loadOrt } from '../../src/runtime/ort.js';

async function run(model: onnx.IModelProto, feeds: Feeds) {
  const ort = await loadOrt();
  const session = await ort.InferenceSession.create(encodeModel(model), { logSeverityLevel: 3 });
  try {
    return await session.run(feeds);
  } finally {
    await session.release();
  }
}

/** x -> Cast(fp16) -> Add 1 -> Sub 2048 -> Cast(fp32): (2048 + 1) - 2048 in a float16 chain. */
function float16Chain(): onnx.ModelProto {
  const b = new GraphBuilder('fp16_chain');
  b.input('x', DataType.FLOAT, [1]);
  const h = b.op('Cast', ['x'], { to: attr.int(DataType.FLOAT16) }, { name: 'to_fp16' });
  b.initializers.push(tensor('one', [1], new Uint8Array(toFloat16Array(Float32Array.of(1)).buffer), DataType.FLOAT16));
  b.initializers.push(tensor('offset', [1], new Uint8Array(toFloat16Array(Float32Array.of(2048)).buffer), DataType.FLOAT16));
  const sum = b.op('Add', [h, 'one'], {}, { name: 'add' });
  const difference = b.op('Sub', [sum, 'offset'], {}, { name: 'sub' });
  b.op('Cast', [difference], { to: attr.int(DataType.FLOAT) }, { name: 'to_fp32', outputs: ['y'] });
  b.output('y', DataType.FLOAT, [1]);
  return b.model({ '': 17 });
}

/** Low-precision values of a model; with `computed`, only those some op other than Cast computes or reads. */
function lowPrecisionValues(model: onnx.ModelProto, computed = false): string[] {
  const graph = new ModelGraph(model);
  const types = inferElemTypes(graph, opsetsOf(model));
  const found: string[] = [];
  for (const scope of graph.scopes) {
    for (const [name, info] of types.entries(scope)) {
      if (!LOW_PRECISION_TYPES.has(info.elemType)) continue;
      const onlyCasts = scope.producerOf(name)?.node.op_type === 'Cast' && scope.consumersOf(name).every((use) => use.node.op_type === 'Cast');
      if (!computed || !onlyCasts) found.push(name);
    }
  }
  return found;
}

describe('emulated numerics', () => {
  it('(2048 + 1) - 2048 in a float16 chain: 1 on ONNX Runtime CPU (float32 inside), 0 emulated (2049 rounds to 2048)', async () => {
    const ort = await loadOrt();
    const model = float16Chain();
    const feeds = { x: new ort.Tensor('float32', Float32Array.of(2048), [1]) };
    expect(Array.from((await run(model, feeds)).y!.data as Float32Array)).toEqual([1]);
    const emulated = emulateNumerics(model);
    expect(emulated.report.roundedValues.float16).toBe(3); // the Cast's, the Add's and the Sub's outputs
    expect(emulated.report.widenedConstants).toBe(2);
    expect(Array.from((await run(emulated.model, feeds)).y!.data as Float32Array)).toEqual([0]);
  });

  it('overflows to inf as a GPU does, where native CPU float16 keeps the value', async () => {
    const ort = await loadOrt();
    const model = buildOverflowBeforeNorm();
    const amp = ampRewrite(model).model;
    const feeds = randomInputs(ort, model, { seed: 0 });
    const reference = (await run(model, feeds)).y!;
    const tolerance = scaledTolerance(reference, 1e-2, 1e-2);
    const native = compareOutput('y', reference, (await run(amp, feeds)).y!, tolerance);
    const emulated = compareOutput('y', reference, (await run(emulateNumerics(amp).model, feeds)).y!, tolerance);
    expect(native.pass).toBe(true);
    expect(native.candidateNonFinite).toBe(0);
    expect(emulated.pass).toBe(false);
    expect(emulated.candidateNonFinite).toBeGreaterThan(0);
  });

  it('leaves no float16 value inside the rewritten transformer, keeps inputs and outputs, and matches fp32 closely', async () => {
    const ort = await loadOrt();
    const model = buildTransformer({ batch: 1, sequence: 8, model: 32, heads: 4, ffn: 64, layers: 2, vocab: 0, seed: 5 });
    const amp = ampRewrite(model).model;
    expect(lowPrecisionValues(amp, true).length).toBeGreaterThan(10);
    const emulated = emulateNumerics(amp);
    expect(lowPrecisionValues(emulated.model, true)).toEqual([]); // only rounding steps: Cast to the low type and straight back
    expect(emulated.model.graph?.input?.map((i) => i.name)).toEqual(amp.graph?.input?.map((i) => i.name));
    expect(emulated.model.graph?.output?.map((o) => o.name)).toEqual(amp.graph?.output?.map((o) => o.name));
    const feeds = randomInputs(ort, model, { seed: 2 });
    const reference = (await run(model, feeds)).hidden!;
    const result = compareOutput('hidden', reference, (await run(emulated.model, feeds)).hidden!, scaledTolerance(reference, 1e-2, 1e-2));
    expect(result.pass).toBe(true);
    expect(result.maxAbsError).toBeGreaterThan(0); // rounding happened
  });

  it('runs a bfloat16 model on the CPU provider, which has no bfloat16 MatMul', async () => {
    const ort = await loadOrt();
    const model = buildMlpInference({ batch: 4, input: 16, hidden: 32, layers: 2, classes: 10, seed: 3 });
    const bf16 = ampRewrite(model, { mode: 'bf16' }).model;
    const feeds = randomInputs(ort, model, { seed: 1 });
    await expect(run(bf16, feeds)).rejects.toThrow();
    const emulated = emulateNumerics(bf16);
    expect(emulated.report.roundedValues.bfloat16).toBeGreaterThan(0);
    expect(emulated.report.roundedValues.float16).toBe(0);
    const reference = (await run(model, feeds)).probabilities!;
    const result = compareOutput('probabilities', reference, (await run(emulated.model, feeds)).probabilities!, scaledTolerance(reference, 5e-2, 5e-2));
    expect(result.pass).toBe(true);
    expect(result.maxAbsError).toBeGreaterThan(1e-5); // bfloat16 keeps 8 significant bits: visibly different from fp32
  });

  it('emulates inside If branches and a Loop body (subgraph inputs and outputs become float32)', async () => {
    const ort = await loadOrt();
    const model = buildControlFlow();
    const amp = ampRewrite(model).model;
    const emulated = emulateNumerics(amp);
    expect(emulated.report.roundedValues.float16).toBeGreaterThan(0);
    expect(lowPrecisionValues(emulated.model, true)).toEqual([]);
    for (const flag of [true, false]) {
      const feeds = { ...randomInputs(ort, model, { seed: 4 }), use_first: new ort.Tensor('bool', Uint8Array.of(flag ? 1 : 0), []) };
      const reference = (await run(model, feeds)).y!;
      const result = compareOutput('y', reference, (await run(emulated.model, feeds)).y!, scaledTolerance(reference, 1e-2, 1e-2));
      expect(result.pass, JSON.stringify(result)).toBe(true);
    }
  });

  it('returns a model without low-precision values unchanged', () => {
    const model = buildMlpInference({ batch: 1, input: 4, hidden: 4, layers: 1, classes: 2 });
    const result = emulateNumerics(model);
    expect(result.changed).toBe(false);
    expect(result.model).toBe(model);
  });
});
