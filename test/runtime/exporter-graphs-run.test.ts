/**
 * Issue 11's exporter-shaped fixtures, rewritten, run on ONNX Runtime's CPU provider (which has
 * the com.microsoft kernels) against their fp32 originals, with inputs they need: token ids in
 * the vocabulary, a cache length consistent with seqlens_k and total_sequence_length. Numbers
 * here are the CPU provider's float16 arithmetic, not GPU evidence.
 *
 * The CPU provider registers several contrib ops for float only (Attention, MultiHeadAttention,
 * FastGelu, BiasGelu, EmbedLayerNormalization in ../shared/reference/OperatorKernels.md); for the
 * CPU run those are taken off their lists (kept fp32), read from that table, not hard-coded.
 */
import { describe, expect, it } from 'vitest';
import { FIXTURE_CASES } from '../../src/builder/fixtures.js';
import { DECODER } from '../../src/builder/recipes/exporter-graphs.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { toFloat16Array } from '../../src/onnx/float16.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { buildOpLists } from '../../src/passes/amp/op-lists.js';
import { rewriteModel, type RewriteOptions } from '../../src/passes/pipeline.js';
import { compareOutput, scaledTolerance } from '../../src/runtime/compare.js';
import { newTensor } from '../../src/runtime/float16-bits.js';
import { randomInputs } from '../../src/runtime/inputs.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { createSession } from '../../src/runtime/session.js';
import { kernelsAvailable, registeredKernels } from '../support/operator-kernels.js';

type Ort = Awaited<ReturnType<typeof loadOrt>>;
type Feeds = Record<string, InstanceType<Ort['Tensor']>>;

/** Listed com.microsoft ops the CPU provider registers without a float16 kernel. */
function cpuFloat16Gaps(): string[] {
  const cpu = registeredKernels().get('CPUExecutionProvider com.microsoft') ?? new Map<string, string>();
  const lists = buildOpLists();
  return [...cpu].filter(([op, rows]) => lists.lookup('com.microsoft', op) && !rows.includes('tensor(float16)')).map(([op]) => op);
}

function cpuOptions(options: RewriteOptions, gaps: string[]): RewriteOptions {
  const changes: Record<string, { remove: string[] }> = {};
  const lists = buildOpLists();
  for (const op of gaps) {
    const list = lists.lookup('com.microsoft', op)?.list as string;
    (changes[list] ??= { remove: [] }).remove.push(`com.microsoft:${op}`);
  }
  return { ...options, listChanges: [{ origin: 'CPU provider without float16 kernels', changes }] };
}

function feedsFor(ort: Ort, name: string, model: onnx.ModelProto, halfCache: boolean): Feeds {
  if (name === 'exporter-bert-fused') {
    const ids = Int32Array.from({ length: 12 }, (_, i) => (i * 7 + 3) % 50);
    const mask = Int32Array.from({ length: 12 }, (_, i) => (i % 6 === 5 ? 0 : 1));
    return {
      input_ids: new ort.Tensor('int32', ids, [2, 6]),
      token_type_ids: new ort.Tensor('int32', Int32Array.from({ length: 12 }, (_, i) => (i % 6 < 3 ? 0 : 1)), [2, 6]),
      attention_mask: new ort.Tensor('int32', mask, [2, 6]),
    };
  }
  if (name.startsWith('exporter-decoder-kv')) {
    const past = 3;
    const sequence = 4;
    const cache = (seed: number) => Float32Array.from({ length: DECODER.kvHeads * past * DECODER.headSize }, (_, i) => 0.8 * Math.sin(seed + i * 0.37));
    const cacheTensor = (seed: number) => {
      const values = cache(seed);
      const dims = [1, DECODER.kvHeads, past, DECODER.headSize];
      return halfCache ? newTensor(ort, 'float16', toFloat16Array(values), dims) : new ort.Tensor('float32', values, dims);
    };
    return {
      input_ids: new ort.Tensor('int64', BigInt64Array.from([1n, 5n, 9n, 30n]), [1, sequence]),
      position_ids: new ort.Tensor('int64', BigInt64Array.from([3n, 4n, 5n, 6n]), [1, sequence]),
      'past_key_values.0.key': cacheTensor(1),
      'past_key_values.0.value': cacheTensor(2),
      seqlens_k: new ort.Tensor('int32', Int32Array.from([past + sequence - 1]), [1]),
      total_sequence_length: new ort.Tensor('int32', Int32Array.from([past + sequence]), []),
    };
  }
  return randomInputs(ort, model, { seed: 5 }) as Feeds;
}

async function run(ort: Ort, model: onnx.IModelProto, feeds: Feeds) {
  // The tool's own sessions: float16 crosses as bits on every Node.js (float16-bits.ts).
  const session = await createSession(ort, encodeModel(model));
  try {
    return { names: session.outputNames, outputs: await session.run(feeds) };
  } finally {
    await session.release();
  }
}

/** float16 outputs (the cache with --kv-cache fp16) compared as float32. */
function asFloat32(ort: Ort, tensor: InstanceType<Ort['Tensor']>): InstanceType<Ort['Tensor']> {
  if (tensor.type !== 'float16') return tensor;
  const bits = tensor.data as Uint16Array;
  const values = Float32Array.from(bits, (b) => {
    const sign = b & 0x8000 ? -1 : 1;
    const exponent = (b >> 10) & 0x1f;
    const fraction = b & 0x3ff;
    if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
    if (exponent === 31) return fraction ? NaN : sign * Infinity;
    return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
  });
  return new ort.Tensor('float32', values, tensor.dims);
}

describe("exporter-shaped fixtures on ONNX Runtime's CPU provider", () => {
  for (const fixture of FIXTURE_CASES.filter((c) => c.runTest === 'test/runtime/exporter-graphs-run.test.ts')) {
    // Only the BERT fixture has contrib ops with float-only CPU kernels; it needs the kernel table.
    it.skipIf(fixture.name === 'exporter-bert-fused' && !kernelsAvailable)(`${fixture.name} matches fp32`, async () => {
      const ort = await loadOrt();
      const gaps = kernelsAvailable ? cpuFloat16Gaps() : [];
      if (kernelsAvailable) expect(gaps).toEqual(expect.arrayContaining(['Attention', 'FastGelu']));
      const model = fixture.build();
      const reference = await run(ort, model, feedsFor(ort, fixture.name, model, false));
      const { model: rewritten, report } = rewriteModel(model, cpuOptions(fixture.options, gaps));
      expect(report.amp.summary.converted).toBeGreaterThan(0);
      const amp = await run(ort, rewritten, feedsFor(ort, fixture.name, model, fixture.options.kvCache === 'fp16'));
      for (const name of reference.names) {
        const expected = reference.outputs[name]!;
        const actual = asFloat32(ort, amp.outputs[name]!);
        if (fixture.options.kvCache === 'fp16' && name.startsWith('present')) expect(amp.outputs[name]!.type).toBe('float16');
        const comparison = compareOutput(name, expected, actual, scaledTolerance(expected, 1e-2, 1e-2));
        console.log(`[${fixture.name}] ${name}: max abs error ${comparison.maxAbsError.toExponential(2)}, cosine ${comparison.cosine.toFixed(6)} (CPU provider)`);
        expect(comparison.pass, JSON.stringify(comparison)).toBe(true);
      }
    });
  }
});
