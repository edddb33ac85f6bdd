/**
 * Mask fills beyond float16's range (src/passes/amp/mask-fill.ts, rules/mask-fill.json): a value
 * carrying finfo(float32).min that enters float16 is clamped to -65504 first, so a fully masked row
 * of a float16 Softmax (--target cuda) stays a uniform softmax instead of NaN. Run with emulated
 * numerics (the GPU's float16 rounding and overflow) on ONNX Runtime's CPU provider.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GraphBuilder, attr } from '../../src/builder/graph-builder.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite, type AmpOptions } from '../../src/passes/amp.js';
import { emulateNumerics } from '../../src/passes/emulate-numerics.js';
import { readMaskFillRules } from '../../src/passes/amp/mask-fill.js';
import { renderSummary } from '../../src/report/summary.js';
import type { Feeds } from '../../src/runtime/inputs.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { repoRoot } from '../support/corpus.js';

const F = DataType.FLOAT;
const FLOAT32_MIN = -3.4028234663852886e38;

async function run(model: onnx.IModelProto, feeds: Feeds): Promise<Float32Array> {
  const ort = await loadOrt();
  const session = await ort.InferenceSession.create(encodeModel(model), { logSeverityLevel: 3 });
  try {
    const out = await session.run(feeds);
    return out[session.outputNames[0] as string]?.data as Float32Array;
  } finally {
    await session.release();
  }
}
const nanCount = (values: Float32Array) => values.filter(Number.isNaN).length;

type MaskStyle = 'where' | 'one-minus-times-min' | 'in-range';

/**
 * x [2, 4, 8] -> q = x Wq, k = x Wk -> scores = q k^T -> + mask -> Softmax -> * v -> MatMul -> y.
 * The mask [2, 1, 4] from `keep` (float 0/1): Where(keep == 0, min, 0), or (1 - keep) * min, or
 * (1 - keep) * -10000 (inside float16's range: nothing to clamp).
 */
function attentionBlock(style: MaskStyle): onnx.ModelProto {
  const b = new GraphBuilder('masked_attention');
  b.input('x', F, [2, 4, 8]);
  b.input('keep', F, [2, 1, 4]);
  const w = (name: string, seed: number) => b.initializer(name, [8, 8], Float32Array.from({ length: 64 }, (_, i) => Math.sin(i * seed) * 0.3));
  const q = b.op('MatMul', ['x', w('wq', 1.3)], {}, { name: 'q' });
  const k = b.op('MatMul', ['x', w('wk', 2.1)], {}, { name: 'k' });
  const v = b.op('MatMul', ['x', w('wv', 0.7)], {}, { name: 'v' });
  const kt = b.op('Transpose', [k], { perm: attr.ints([0, 2, 1]) }, { name: 'kt' });
  const scores = b.op('MatMul', [q, kt], {}, { name: 'scores' });
  let mask: string;
  if (style === 'where') {
    const padded = b.op('Equal', ['keep', b.scalar('zero', 0)], {}, { name: 'padded' });
    mask = b.op('Where', [padded, b.scalar('min', FLOAT32_MIN), b.scalar('none', 0)], {}, { name: 'mask_fill', outputs: ['mask'] });
  } else {
    const inverted = b.op('Sub', [b.scalar('one', 1), 'keep'], {}, { name: 'inverted' });
    mask = b.op('Mul', [inverted, b.scalar('min', style === 'in-range' ? -10000 : FLOAT32_MIN)], {}, { name: 'mask_fill', outputs: ['mask'] });
  }
  const masked = b.op('Add', [scores, mask], {}, { name: 'add_mask', outputs: ['add_mask'] });
  const probs = b.op('Softmax', [masked], { axis: attr.int(-1) }, { name: 'softmax' });
  const context = b.op('MatMul', [probs, v], {}, { name: 'context' });
  b.op('MatMul', [context, w('wo', 1.7)], {}, { name: 'out', outputs: ['y'] });
  b.output('y', F);
  return b.model({ '': 17 });
}

/** Batch 1 masks its first two keys, or (allMasked) every key: then each of its rows is masked everywhere. */
async function feeds(allMasked = false): Promise<Feeds> {
  const ort = await loadOrt();
  const keep = Float32Array.from([1, 1, 1, 1, ...(allMasked ? [0, 0, 0, 0] : [0, 0, 1, 1])]);
  return {
    x: new ort.Tensor('float32', Float32Array.from({ length: 64 }, (_, i) => Math.cos(i * 0.37)), [2, 4, 8]),
    keep: new ort.Tensor('float32', keep, [2, 1, 4]),
  };
}

describe('rules/mask-fill.json', () => {
  it('names float16\'s lowest finite value and gives every carrier a reason', () => {
    const rules = readMaskFillRules();
    expect(rules.lowest.float16).toBe(-65504);
    expect(rules.carriers.length).toBeGreaterThan(5);
    for (const carrier of rules.carriers) expect(carrier.reason.length, carrier.op).toBeGreaterThan(5);
    const ops = rules.carriers.map((c) => c.op);
    expect(ops).toEqual([...ops].sort());
  });
});

describe('clamping a mask fill where it enters float16 (--target cuda puts the Softmax in float16)', () => {
  const cuda: AmpOptions = { target: 'cuda' };

  for (const style of ['where', 'one-minus-times-min'] as const) {
    it(`${style}: the Add of scores and mask is clamped before its Cast to float16, and a fully masked row is not NaN`, async () => {
      const model = attentionBlock(style);
      const { model: rewritten, report } = ampRewrite(model, cuda);
      const byName = new Map((rewritten.graph?.node ?? []).map((n) => [n.name, n]));
      const clamp = byName.get('add_mask/clamp_fp16');
      expect(clamp?.op_type).toBe('Max');
      expect(clamp?.input?.[0]).toBe('add_mask');
      expect(byName.get('add_mask/to_fp16')?.input).toEqual(['add_mask/clamp_fp16']);
      expect(report.summary.masksClamped).toEqual([{ clamp: 'add_mask/clamp_fp16', value: 'add_mask', fill: 'min', cast: 'add_mask/to_fp16' }]);
      expect(report.nodes.find((n) => n.node === 'softmax')?.masksClamped).toEqual(['add_mask/clamp_fp16']);
      expect(renderSummary(report.summary)).toContain("Mask fills clamped to FP16's lowest finite value (-65504) before entering FP16: 1 (e.g. 'add_mask', from 'min', before 'add_mask/to_fp16')");

      const input = await feeds(true);
      const reference = await run(model, input);
      const emulated = await run(emulateNumerics(rewritten).model, input);
      expect(nanCount(reference)).toBe(0);
      expect(nanCount(emulated)).toBe(0);
      let worst = 0;
      for (let i = 0; i < reference.length; i++) worst = Math.max(worst, Math.abs((reference[i] as number) - (emulated[i] as number)));
      expect(worst).toBeLessThan(0.05);
    });
  }

  it('without the clamp the same rewrite gives NaN: the float16 Cast of the fill is -inf (what the clamp is for)', async () => {
    const model = attentionBlock('where');
    const { model: rewritten } = ampRewrite(model, cuda);
    // Undo the clamp: the Cast reads the Add again.
    for (const node of rewritten.graph?.node ?? []) if (node.name === 'add_mask/to_fp16') node.input = ['add_mask'];
    const emulated = await run(emulateNumerics(rewritten).model, await feeds(true));
    expect(nanCount(emulated)).toBeGreaterThan(0);
  });

  it('clamps nothing for a fill inside float16\'s range, under bf16 (fp32\'s range), or where the Softmax stays fp32', () => {
    expect(ampRewrite(attentionBlock('in-range'), cuda).report.summary.masksClamped).toBeUndefined();
    expect(ampRewrite(attentionBlock('where'), { ...cuda, mode: 'bf16' }).report.summary.masksClamped).toBeUndefined();
    expect(ampRewrite(attentionBlock('where')).report.summary.masksClamped).toBeUndefined();
  });
});

describe('a TorchScript LLaMA-style decoder with a Hugging Face padding mask (test/models/llama-mask.onnx)', () => {
  it('under --target cuda with emulated numerics: no NaN in the left-padded sequence (before the clamp: all its logits)', async () => {
    const model = loadModel(path.join(repoRoot, 'test/models/llama-mask.onnx'));
    const ort = await loadOrt();
    const input: Feeds = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from({ length: 16 }, (_, i) => BigInt((i * 7) % 64)), [2, 8]),
      // Sequence 1 is left-padded by 3: its first 3 query rows see only padding.
      attention_mask: new ort.Tensor('int64', BigInt64Array.from({ length: 16 }, (_, i) => (i >= 8 && i < 11 ? 0n : 1n)), [2, 8]),
    };
    const { model: rewritten, report } = ampRewrite(model, { target: 'cuda' });
    expect(report.summary.masksClamped?.map((c) => c.value)).toEqual(['/layers.0/Add_output_0', '/layers.1/Add_output_0']);
    const reference = await run(model, input);
    const emulated = await run(emulateNumerics(rewritten).model, input);
    expect(nanCount(emulated)).toBe(0);
    let worst = 0;
    for (let i = 0; i < reference.length; i++) worst = Math.max(worst, Math.abs((reference[i] as number) - (emulated[i] as number)));
    expect(worst).toBeLessThan(0.05);

    // The clamp is what keeps it finite: without it the padded sequence is NaN throughout.
    for (const node of rewritten.graph?.node ?? []) {
      if (node.op_type === 'Cast' && node.input?.[0]?.endsWith('/clamp_fp16')) node.input = [node.input[0].slice(0, -'/clamp_fp16'.length)];
    }
    const unclamped = await run(emulateNumerics(rewritten).model, input);
    expect(nanCount(unclamped)).toBe(reference.length / 2);
  });
});

describe("torch's scaled_dot_product_attention export with left padding (test/models/sdpa-left-padding.onnx)", () => {
  it('under --target cuda the guarded Softmax takes the fill unclamped: fully masked rows are 0 as in float32, not uniform', async () => {
    const model = loadModel(path.join(repoRoot, 'test/models/sdpa-left-padding.onnx'));
    // The export guards its Softmax: Where(IsNaN(p), 0, p).
    const ops = (model.graph?.node ?? []).map((n) => n.op_type);
    expect(ops).toContain('IsNaN');
    const ort = await loadOrt();
    const input: Feeds = {
      x: new ort.Tensor('float32', Float32Array.from({ length: 2 * 6 * 16 }, (_, i) => Math.sin(i * 0.61)), [2, 6, 16]),
      // Sequence 0 is left-padded by 2: its first 2 query rows see no key at all.
      mask: new ort.Tensor('int64', BigInt64Array.of(0n, 0n, 1n, 1n, 1n, 1n, 1n, 1n, 1n, 1n, 1n, 1n), [2, 6]),
    };
    const { model: rewritten, report } = ampRewrite(model, { target: 'cuda' });
    expect(report.summary.masksGuarded).toEqual([{ value: '/Add_output_0', fill: '/Constant_16_output_0', readers: ['/Softmax'] }]);
    expect(report.summary.masksClamped).toBeUndefined();
    expect(renderSummary(report.summary)).toContain("Mask fills entering FP16 unclamped, before Softmaxes whose fully masked rows the model guards (IsNaN -> Where): 1 (e.g. '/Add_output_0' into '/Softmax')");
    // The Softmax runs in float16 (the target's kernel), and no Max clamps what it reads.
    expect(report.nodes.find((n) => n.node === '/Softmax')?.precision).toBe('fp16');
    expect((rewritten.graph?.node ?? []).some((n) => n.op_type === 'Max')).toBe(false);
    const reference = await run(model, input);
    const emulated = await run(emulateNumerics(rewritten).model, input);
    let worst = 0;
    for (let i = 0; i < reference.length; i++) worst = Math.max(worst, Math.abs((reference[i] as number) - (emulated[i] as number)));
    expect(worst).toBeLessThan(0.01);
  });

  it('a Softmax output read by anything besides its guard (Where(IsNaN(p), 0, p)) is clamped as before', () => {
    const model = loadModel(path.join(repoRoot, 'test/models/sdpa-left-padding.onnx'));
    // The guard's Where replaced by an Identity of the probabilities: a NaN row would escape, so the fill is clamped.
    const nodes = model.graph?.node ?? [];
    const softmax = nodes.find((n) => n.op_type === 'Softmax') as onnx.NodeProto;
    const isNaN = nodes.find((n) => n.op_type === 'IsNaN') as onnx.NodeProto;
    const select = nodes.find((n) => n.op_type === 'Where' && n.input?.[0] === isNaN.output?.[0]) as onnx.NodeProto;
    select.op_type = 'Identity';
    select.input = [softmax.output?.[0] as string];
    const { report } = ampRewrite(model, { target: 'cuda' });
    expect(report.summary.masksGuarded).toBeUndefined();
    expect(report.summary.masksClamped?.map((c) => c.value)).toEqual(['/Add_output_0']);
  });
});
