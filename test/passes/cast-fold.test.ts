/**
 * Cast folding (src/passes/amp/cast-fold.ts): an inserted Cast next to the model's own Cast folds
 * into it when the fold keeps every value; fp32 -> fp16 -> fp32 is not such a fold. On minimal
 * graphs, then on a TorchScript export of a LLaMA-style decoder (test/models/llama-mask.onnx).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GraphBuilder, attr } from '../../src/builder/graph-builder.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite, type AmpOptions } from '../../src/passes/amp.js';
import { holdsEveryValue } from '../../src/passes/amp/cast-fold.js';
import { renderSummary } from '../../src/report/summary.js';
import { repoRoot } from '../support/corpus.js';

const F = DataType.FLOAT;
const H = DataType.FLOAT16;

const nodes = (model: onnx.IModelProto) => model.graph?.node ?? [];
const castsOf = (model: onnx.IModelProto) => nodes(model).filter((n) => n.op_type === 'Cast');
/** The node that reads `value`, by op type. */
const readerOf = (model: onnx.IModelProto, value: string) => nodes(model).filter((n) => (n.input ?? []).includes(value));

/** x -> MatMul -> [model's Cast to `to`] -> `then` -> MatMul -> y. */
function castBetween(to: number, then: 'Softmax' | 'none'): onnx.ModelProto {
  const b = new GraphBuilder('fold');
  b.input('x', F, [2, 8]);
  const w = b.initializer('w', [8, 8], new Float32Array(64).fill(0.125));
  const first = b.op('MatMul', ['x', w], {}, { name: 'mm1', outputs: ['h'] });
  const cast = b.op('Cast', [first], { to: attr.int(to) }, { name: 'model_cast', outputs: ['c'] });
  const mid = then === 'Softmax' ? b.op('Softmax', [cast], { axis: attr.int(-1) }, { name: 'sm', outputs: ['s'] }) : cast;
  b.op('MatMul', [mid, w], {}, { name: 'mm2', outputs: ['y'] });
  b.output('y', F);
  return b.model({ '': 17 });
}

describe('which chains are exact', () => {
  it('fp16 and bf16 fit in fp32; fp32 does not fit in fp16, nor fp16 in bf16', () => {
    expect(holdsEveryValue(F, H)).toBe(true);
    expect(holdsEveryValue(F, DataType.BFLOAT16)).toBe(true);
    expect(holdsEveryValue(DataType.DOUBLE, F)).toBe(true);
    expect(holdsEveryValue(H, F)).toBe(false);
    expect(holdsEveryValue(DataType.BFLOAT16, H)).toBe(false);
    expect(holdsEveryValue(H, DataType.BFLOAT16)).toBe(false);
    expect(holdsEveryValue(F, DataType.INT64)).toBe(false);
  });
});

describe('folding on minimal graphs', () => {
  it("an inserted to_fp32 right before the model's Cast(to=FLOAT) folds into it: the Cast reads the fp16 value", () => {
    const { model, report } = ampRewrite(castBetween(F, 'Softmax'));
    expect(castsOf(model).map((n) => n.name)).not.toContain('h/to_fp32');
    const cast = nodes(model).find((n) => n.name === 'model_cast');
    expect(cast?.input).toEqual(['h']);
    expect(report.summary.castsFolded).toEqual([{ cast: 'h/to_fp32', into: 'model_cast', chain: 'float16 -> float -> float' }]);
    const audit = report.nodes.find((n) => n.node === 'model_cast');
    expect(audit?.castsFolded).toEqual(['h/to_fp32']);
    expect(audit?.castsAdded).toEqual([]);
    expect(report.summary.fp32Casts).toBe(castsOf(model).filter((n) => n.attribute?.[0]?.i === F).length - 1);
    expect(renderSummary(report.summary)).toContain("Inserted Casts folded into the model's own Casts: 1 (e.g. 'h/to_fp32' into 'model_cast', float16 -> float -> float)");
  });

  it('an fp16 Softmax under --target cuda, the inserted to_fp32 and the model\'s Cast to FLOAT16: no Cast is left between Softmax and MatMul', () => {
    const b = new GraphBuilder('roundtrip');
    b.input('x', F, [2, 8]);
    const w = b.initializer('w', [8, 8], new Float32Array(64).fill(0.125));
    b.op('MatMul', ['x', w], {}, { name: 'mm1', outputs: ['h'] });
    b.op('Softmax', ['h'], { axis: attr.int(-1) }, { name: 'sm', outputs: ['s'] });
    b.op('Cast', ['s'], { to: attr.int(H) }, { name: 'c16', outputs: ['s16'] });
    b.op('Cast', ['s16'], { to: attr.int(F) }, { name: 'c32', outputs: ['s32'] });
    b.op('MatMul', ['s32', w], {}, { name: 'mm2', outputs: ['y'] });
    b.output('y', F);
    const options: AmpOptions = { target: 'cuda' };
    const { model, report } = ampRewrite(b.model({ '': 17 }), options);
    expect(readerOf(model, 's').map((n) => n.name)).toEqual(['mm2']);
    expect(castsOf(model).map((n) => n.name).sort()).toEqual(['w/to_fp16', 'x/to_fp16', 'y/to_fp32']);
    const byName = new Map(report.nodes.map((n) => [n.node, n]));
    expect(byName.get('c16')?.rule).toBe('cast-folded');
    expect(byName.get('c32')?.rule).toBe('cast-folded');
    expect(byName.get('c16')?.reason).toMatch(/^removed by Cast folding: /);
    expect(report.summary.castsFolded?.map((f) => f.cast).sort()).toEqual(['s/to_fp32', 's32/to_fp16']);
    // Without --target the Softmax is fp32: the model's Cast to FLOAT16 is then the one Cast before mm2.
    const plain = ampRewrite(b.model({ '': 17 }));
    expect(readerOf(plain.model, 's').map((n) => n.name)).toEqual(['c16']);
    expect(readerOf(plain.model, 's16').map((n) => n.name)).toEqual(['mm2']);
  });

  it('keeps fp32 -> fp16 -> fp32: the fp16 step rounds, so the inserted to_fp16 before a model Cast(to=FLOAT) stays', () => {
    // --force-fp16 on the model's Cast(to=FLOAT) of an fp32 value: its input is cast to fp16 first.
    const b = new GraphBuilder('reverse');
    b.input('x', F, [2, 8]);
    b.op('Cast', ['x'], { to: attr.int(F) }, { name: 'model_cast', outputs: ['c'] });
    b.op('Softmax', ['c'], { axis: attr.int(-1) }, { name: 'sm', outputs: ['y'] });
    b.output('y', F);
    const { model, report } = ampRewrite(b.model({ '': 17 }), { forceFp16: ['model_cast'] });
    expect(nodes(model).find((n) => n.name === 'model_cast')?.input).toEqual(['x/to_fp16']);
    expect(castsOf(model).map((n) => n.name)).toContain('x/to_fp16');
    expect(report.summary.castsFolded).toBeUndefined();
  });

  it('folds nothing when the model has no Cast next to an inserted one, and adds no summary field', () => {
    const { report } = ampRewrite(castBetween(F, 'none'));
    expect(report.summary.castsFolded).toBeUndefined();
    expect(report.nodes.every((n) => n.castsFolded === undefined)).toBe(true);
  });
});

describe('folding on a TorchScript export (LLaMA-style decoder, softmax(dtype=float32).to(q.dtype))', () => {
  const model = loadModel(path.join(repoRoot, 'test/models/llama-mask.onnx'));
  const between = (rewritten: onnx.IModelProto, layer: number) => {
    // The Casts on the path from the attention Softmax to the MatMul with V.
    const byOutput = new Map(nodes(rewritten).flatMap((n) => (n.output ?? []).map((o) => [o, n] as const)));
    const matmul = nodes(rewritten).find((n) => n.name === `/layers.${layer}/MatMul_1`);
    const path: string[] = [];
    let value = matmul?.input?.[0];
    for (let node = value ? byOutput.get(value) : undefined; node && node.op_type === 'Cast'; node = value ? byOutput.get(value) : undefined) {
      path.push(node.name ?? '');
      value = node.input?.[0];
    }
    expect(byOutput.get(value ?? '')?.op_type).toBe('Softmax');
    return path;
  };

  it("the default rewrite has one Cast (the model's own, now to float16) between Softmax and MatMul, not three", () => {
    const { model: rewritten, report } = ampRewrite(model);
    expect(between(rewritten, 0)).toEqual(['/layers.0/Cast_1']);
    expect(between(rewritten, 1)).toEqual(['/layers.1/Cast_1']);
    expect(report.summary.castsFolded?.length).toBe(2);
    expect(report.nodes.find((n) => n.node === '/layers.0/Cast')?.rule).toBe('cast-folded');
  });

  it('under --target cuda the fp16 Softmax feeds the MatMul directly', () => {
    const { model: rewritten } = ampRewrite(model, { target: 'cuda' });
    expect(between(rewritten, 0)).toEqual([]);
    expect(between(rewritten, 1)).toEqual([]);
  });

  it('is idempotent and its output loads in ONNX Runtime', async () => {
    const once = ampRewrite(model, { target: 'cuda' }).model;
    const twice = ampRewrite(once, { target: 'cuda' });
    expect(twice.report.summary.castsFolded).toBeUndefined();
    expect(castsOf(twice.model).length).toBe(castsOf(once).length);
    const { loadOrt } = await import('../../src/runtime/ort.js');
    const ort = await loadOrt();
    const session = await ort.InferenceSession.create(encodeModel(once), { logSeverityLevel: 3 });
    await session.release();
  });
});
