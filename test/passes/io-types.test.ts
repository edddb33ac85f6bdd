/**
 * --io-types fp16 (AmpOptions.ioTypes): the graph's float32 inputs and outputs declared float16,
 * with the Casts at the model's edges removed, on a transformer decoder (exporter-decoder-kv: no
 * edge Cast left) and a CNN (conv-block: the final Softmax computes fp32, so its output Cast stays
 * and is reported, unless the user's lists convert it). ONNX Runtime's CPU provider loads each result and
 * its outputs match the fp32 model's on the same inputs (rounded to float16 on the way in); the
 * CPU provider's float16 kernels compute in float32, so these numbers are no GPU evidence.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_CASES } from '../../src/builder/fixtures.js';
import { buildKvDecoder, DECODER } from '../../src/builder/recipes/exporter-graphs.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite, type AmpOptions } from '../../src/passes/amp.js';
import { compareOutput, scaledTolerance } from '../../src/runtime/compare.js';
import type { Feeds } from '../../src/runtime/inputs.js';
import { randomInputs } from '../../src/runtime/inputs.js';
import { feedsForDeclaredTypes } from '../../src/runtime/io-feeds.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { createSession } from '../../src/runtime/session.js';
import { repoRoot } from '../support/corpus.js';

type Ort = Awaited<ReturnType<typeof loadOrt>>;

const fixture = (name: string) => (FIXTURE_CASES.find((c) => c.name === name) as (typeof FIXTURE_CASES)[number]).build();

/** The Casts at the model's edges: one reading a graph input, or writing a graph output. */
function edgeCasts(model: onnx.IModelProto): string[] {
  const graph = model.graph as onnx.IGraphProto;
  const inputs = new Set((graph.input ?? []).map((i) => i.name));
  const outputs = new Set((graph.output ?? []).map((o) => o.name));
  return (graph.node ?? [])
    .filter((n) => n.op_type === 'Cast' && (inputs.has(n.input?.[0]) || outputs.has(n.output?.[0])))
    .map((n) => n.name ?? '');
}

const floatIo = (model: onnx.IModelProto, type: number) =>
  [...(model.graph?.input ?? []), ...(model.graph?.output ?? [])].filter((v) => v.type?.tensor_type?.elem_type === type).map((v) => v.name);

function decoderFeeds(ort: Ort): Feeds {
  const past = 3;
  const sequence = 4;
  const cache = (seed: number) =>
    new ort.Tensor('float32', Float32Array.from({ length: DECODER.kvHeads * past * DECODER.headSize }, (_, i) => 0.8 * Math.sin(seed + i * 0.37)), [1, DECODER.kvHeads, past, DECODER.headSize]);
  return {
    input_ids: new ort.Tensor('int64', BigInt64Array.from([1n, 5n, 9n, 30n]), [1, sequence]),
    position_ids: new ort.Tensor('int64', BigInt64Array.from([3n, 4n, 5n, 6n]), [1, sequence]),
    'past_key_values.0.key': cache(1),
    'past_key_values.0.value': cache(2),
    seqlens_k: new ort.Tensor('int32', Int32Array.from([past + sequence - 1]), [1]),
    total_sequence_length: new ort.Tensor('int32', Int32Array.from([past + sequence]), []),
  };
}

async function run(ort: Ort, model: onnx.IModelProto, feeds: Feeds) {
  const session = await createSession(ort, encodeModel(model));
  try {
    return { names: session.outputNames, outputs: await session.run(feeds) };
  } finally {
    await session.release();
  }
}

/** Runs the fp32 model and the rewrite on the same inputs (float16 where the rewrite declares it); every output within 1e-2. */
async function expectMatches(ort: Ort, label: string, original: onnx.IModelProto, rewritten: onnx.IModelProto, feeds: Feeds) {
  const reference = await run(ort, original, feeds);
  const halfFeeds = feedsForDeclaredTypes(ort, rewritten, feeds);
  const amp = await run(ort, rewritten, halfFeeds);
  for (const name of reference.names) {
    const got = amp.outputs[name]!;
    expect(got.type, name).toBe('float16');
    const expected = reference.outputs[name]!;
    const comparison = compareOutput(name, expected, got, scaledTolerance(expected, 1e-2, 1e-2));
    console.log(`[io-types ${label}] ${name}: max abs error ${comparison.maxAbsError.toExponential(2)}, cosine ${comparison.cosine.toFixed(6)} (CPU provider)`);
    expect(comparison.pass, JSON.stringify(comparison)).toBe(true);
  }
}

describe('--io-types fp16 on a transformer decoder', () => {
  const original = buildKvDecoder();
  const { model, report } = ampRewrite(original, { ioTypes: 'fp16' });

  it('declares every float32 input and output float16 and leaves no Cast at the edges', () => {
    expect(floatIo(original, DataType.FLOAT).length).toBe(5);
    expect(floatIo(model, DataType.FLOAT)).toEqual([]);
    expect(floatIo(model, DataType.FLOAT16)).toEqual(floatIo(original, DataType.FLOAT));
    expect(edgeCasts(model)).toEqual([]);
    // The default rewrite has a Cast at each of these edges.
    expect(edgeCasts(ampRewrite(original).model).length).toBe(5);
    const io = report.summary.ioTypes;
    expect(io).toMatchObject({ type: 'float16', inputs: ['past_key_values.0.key', 'past_key_values.0.value'], edgeCastsRemoved: 5, edgeCastsKept: [] });
    expect(io?.outputs).toEqual(['logits', 'present.0.key', 'present.0.value']);
  });

  it('the audit names only the Casts still in the model', () => {
    const present = new Set((model.graph?.node ?? []).map((n) => n.name));
    const named = report.nodes.flatMap((n) => [...n.castsAdded, ...n.castsOnOutputs]);
    expect(named.length).toBeGreaterThan(0);
    for (const cast of named) expect(present.has(cast), cast).toBe(true);
  });

  it('ONNX Runtime loads it and its outputs match the fp32 model', async () => {
    const ort = await loadOrt();
    await expectMatches(ort, 'decoder', original, model, decoderFeeds(ort));
  });
});

describe('--io-types fp16 on a CNN', () => {
  const original = fixture('conv-block');

  it("keeps only the Cast after the final Softmax, which computes fp32, and says why", () => {
    const { model, report } = ampRewrite(original, { ioTypes: 'fp16' });
    expect(floatIo(model, DataType.FLOAT16)).toEqual(['image', 'probabilities']);
    expect(edgeCasts(model)).toEqual(['probabilities/to_fp16']);
    expect(report.summary.ioTypes?.edgeCastsKept).toEqual([{ value: 'probabilities', side: 'output', node: 'softmax', op: 'Softmax', rule: 'deny-list' }]);
    // The Cast behind the image input went: the first Conv reads the float16 input itself.
    expect(report.summary.ioTypes?.edgeCastsRemoved).toBe(1);
    expect(model.graph?.node?.find((n) => n.name === 'stem')?.input?.[0]).toBe('image');
  });

  it('with Softmax moved to the allow list no edge Cast is left; ONNX Runtime runs both and they match fp32', async () => {
    const ort = await loadOrt();
    const softmaxAllowed: AmpOptions['listChanges'] = [{ origin: 'test', changes: { deny: { remove: ['Softmax'] }, allow: { add: ['Softmax'] } } }];
    const forced = ampRewrite(original, { ioTypes: 'fp16', listChanges: softmaxAllowed });
    expect(edgeCasts(forced.model)).toEqual([]);
    expect(forced.report.summary.ioTypes?.edgeCastsKept).toEqual([]);
    const feeds = randomInputs(ort, original, { seed: 3 });
    await expectMatches(ort, 'conv-block, Softmax allowed', original, forced.model, feeds);
    await expectMatches(ort, 'conv-block', original, ampRewrite(original, { ioTypes: 'fp16' }).model, feeds);
  });
});

describe('--io-types options', () => {
  const original = fixture('conv-block');

  it("'keep' (the default) writes the same model as no option", () => {
    const plain = encodeModel(ampRewrite(original).model);
    expect(Buffer.from(encodeModel(ampRewrite(original, { ioTypes: 'keep' }).model)).equals(Buffer.from(plain))).toBe(true);
    expect(ampRewrite(original).report.summary.ioTypes).toBeUndefined();
  });

  it('bf16 with --mode bf16 declares the I/O bfloat16; a type other than the mode is BAD_OPTION', () => {
    const { model } = ampRewrite(original, { mode: 'bf16', ioTypes: 'bf16' });
    expect(floatIo(model, DataType.BFLOAT16)).toEqual(['image', 'probabilities']);
    expect(() => ampRewrite(original, { ioTypes: 'bf16' })).toThrow(expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringMatching(/--io-types bf16 needs --mode bf16/) }));
    expect(() => ampRewrite(original, { ioTypes: 'fp8' as never })).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
  });

  it('compare refuses to feed a bfloat16 input (onnxruntime-node has no bfloat16 tensors) with a typed error', async () => {
    const ort = await loadOrt();
    const { model } = ampRewrite(original, { mode: 'bf16', ioTypes: 'bf16' });
    expect(() => feedsForDeclaredTypes(ort, model, randomInputs(ort, original, { seed: 1 }))).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
  });
});

describe('--io-types on the command line', () => {
  const bin = path.join(repoRoot, 'dist/cli/main.js');
  const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-io-types-'));

  it('the transformer block: the summary names each edge Cast that stays and why, and compare passes', () => {
    const input = path.join(repoRoot, 'fixtures/transformer-block/model.onnx');
    const output = path.join(dir, 'transformer.onnx');
    const result = cli([input, '-o', output, '--io-types', 'fp16']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Graph inputs and outputs in FP16: 1 inputs, 2 outputs (edge Casts removed: 1, kept: 3)');
    expect(result.stdout).toContain("kept: input 'x' read by LayerNormalization 'l0/ln1', which computes FP32 (deny-list)");
    expect(result.stdout).toContain("kept: output 'loss' written by SoftmaxCrossEntropyLoss 'loss', which computes FP32 (deny-list)");
    expect(floatIo(loadModel(output), DataType.FLOAT16)).toEqual(['x', 'hidden', 'loss']);
    const compared = cli(['compare', input, output]);
    expect(compared.stdout).toMatch(/PASS: 2 of 2 outputs within tolerance/);
    expect(compared.status).toBe(0);
  });

  it('bench and tune refuse it, saying why', () => {
    const input = path.join(repoRoot, 'fixtures/conv-block/model.onnx');
    const bench = cli(['bench', input, '--io-types', 'fp16']);
    expect(bench.status).toBe(2);
    expect(bench.stderr).toMatch(/io-types/);
  });
});
