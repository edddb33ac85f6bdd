/** Inputs, tensors, comparison and providers: the pieces the run/compare/bench commands stand on. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { valueInfo } from '../../src/builder/graph-builder.js';
import { onnx } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { AmpError } from '../../src/onnx/errors.js';
import { float16BitsToFloat32, float32ToFloat16Bits, float32ToBfloat16Bits, bfloat16BitsToFloat32 } from '../../src/onnx/float16.js';
import { compareOutput } from '../../src/runtime/compare.js';
import { inputsFromFiles, randomInputs } from '../../src/runtime/inputs.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { openSession, parseProviders } from '../../src/runtime/session.js';
import { ortToTensorProto, tensorProtoToOrt } from '../../src/runtime/tensors.js';
import { corpusAvailable, corpusDir, fixturesDir, repoRoot } from '../support/corpus.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-rt-'));
const model = (inputs: onnx.ValueInfoProto[]) => onnx.ModelProto.create({ graph: onnx.GraphProto.create({ input: inputs }) });

describe('float16 and bfloat16 conversions', () => {
  it('round-trips every float16 bit pattern through float32 (NaNs stay NaN)', () => {
    for (let bits = 0; bits < 0x10000; bits++) {
      const value = float16BitsToFloat32(bits);
      const back = float32ToFloat16Bits(value);
      if (Number.isNaN(value)) expect(Number.isNaN(float16BitsToFloat32(back))).toBe(true);
      else expect(back).toBe(bits);
    }
  });
  it('rounds to nearest even, overflows to inf at 65520, keeps subnormals', () => {
    expect(float16BitsToFloat32(float32ToFloat16Bits(1 + 2 ** -11))).toBe(1); // tie, to even
    expect(float16BitsToFloat32(float32ToFloat16Bits(1 + 3 * 2 ** -11))).toBe(1 + 2 ** -9);
    expect(float16BitsToFloat32(float32ToFloat16Bits(65519))).toBe(65504);
    expect(float16BitsToFloat32(float32ToFloat16Bits(65520))).toBe(Infinity);
    expect(float16BitsToFloat32(float32ToFloat16Bits(2 ** -24))).toBe(2 ** -24);
    expect(bfloat16BitsToFloat32(float32ToBfloat16Bits(3.1415927))).toBe(3.140625);
  });
});

describe('inputs', () => {
  it('random inputs follow declared shapes and types, symbolic dims from --dim, and are reproducible', async () => {
    const ort = await loadOrt();
    const m = model([valueInfo('x', DataType.FLOAT, ['batch', 3]), valueInfo('ids', DataType.INT64, [2]), valueInfo('h', DataType.FLOAT16, [4])]);
    expect(() => randomInputs(ort, m)).toThrowError(/dimension 0 is 'batch'; give it with --dim batch=<size>/);
    const feeds = randomInputs(ort, m, { dims: new Map([['batch', 5]]), seed: 3 });
    expect(feeds.x!.dims).toEqual([5, 3]);
    expect(feeds.ids!.type).toBe('int64');
    expect(feeds.h!.type).toBe('float16');
    expect(Array.from(feeds.x!.data as Float32Array)).toEqual(Array.from(randomInputs(ort, m, { dims: new Map([['batch', 5]]), seed: 3 }).x!.data as Float32Array));
  });

  it('reads .pb TensorProto, .npy and JSON files, by name or in input order', async () => {
    const ort = await loadOrt();
    const m = model([valueInfo('a', DataType.FLOAT, [2, 2]), valueInfo('b', DataType.INT64, [3]), valueInfo('c', DataType.FLOAT16, [2])]);
    const pb = path.join(work, 'a.pb');
    writeFileSync(pb, onnx.TensorProto.encode(onnx.TensorProto.create({ name: 'a', dims: [2, 2], data_type: DataType.FLOAT, float_data: [1, 2, 3, 4] })).finish());
    const npy = path.join(work, 'b.npy');
    const header = "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }";
    const padded = header.padEnd(118, ' ') + '\n';
    writeFileSync(npy, Buffer.concat([Buffer.from('\x93NUMPY\x01\x00', 'latin1'), Buffer.from([padded.length, 0]), Buffer.from(padded, 'latin1'), Buffer.from(new BigInt64Array([7n, 8n, 9n]).buffer)]));
    const json = path.join(work, 'c.json');
    writeFileSync(json, JSON.stringify([0.5, -2]));
    const feeds = inputsFromFiles(ort, m, [pb, `b=${npy}`, `c=${json}`]);
    expect(Array.from(feeds.a!.data as Float32Array)).toEqual([1, 2, 3, 4]);
    expect(Array.from(feeds.b!.data as BigInt64Array)).toEqual([7n, 8n, 9n]);
    expect(feeds.c!.type).toBe('float16');
    expect(Array.from(feeds.c!.data as Uint16Array).map(float16BitsToFloat32)).toEqual([0.5, -2]);
    expect(() => inputsFromFiles(ort, m, [pb])).toThrowError(/no value for input 'b'/);
    expect(() => inputsFromFiles(ort, m, [`zzz=${pb}`])).toThrowError(/the model has no input 'zzz'/);
  });

  it('float16 tensors cross TensorProto <-> ONNX Runtime as raw bits, both ways', async () => {
    const ort = await loadOrt();
    const bits = Uint16Array.of(0x3c00, 0x7bff, 0x0001, 0xfc00);
    const tensor = new ort.Tensor('float16', bits, [4]);
    const proto = ortToTensorProto(tensor, 'h');
    expect(proto.data_type).toBe(DataType.FLOAT16);
    const back = tensorProtoToOrt(ort, onnx.TensorProto.decode(onnx.TensorProto.encode(proto).finish()));
    expect(Array.from(back.data as Uint16Array)).toEqual(Array.from(bits));
  });
});

describe('compare', () => {
  const t = (data: number[]) => ({ type: 'float32', dims: [data.length], data: Float32Array.from(data) });
  it('passes within atol + rtol*|ref|, fails outside, and counts NaN/inf', () => {
    expect(compareOutput('y', t([1, 2, 3]), t([1.001, 2, 3]), { atol: 0, rtol: 1e-2 }).pass).toBe(true);
    const off = compareOutput('y', t([1, 2, 3]), t([1.5, 2, 3]), { atol: 0, rtol: 1e-2 });
    expect(off).toMatchObject({ pass: false, mismatched: 1 });
    expect(off.maxAbsError).toBeCloseTo(0.5);
    const nan = compareOutput('y', t([1, 2]), t([NaN, 2]), { atol: 1, rtol: 1 });
    expect(nan).toMatchObject({ pass: false, candidateNonFinite: 1, referenceNonFinite: 0 });
    expect(compareOutput('y', t([1, 2]), { ...t([1, 2]), dims: [1, 2] }, { atol: 1, rtol: 1 }).note).toMatch(/shape/);
  });
});

describe('execution providers', () => {
  it('parses --ep lists and auto', () => {
    expect(parseProviders('auto')).toEqual(['cuda', 'webgpu', 'cpu']);
    expect(parseProviders('webgpu,cpu')).toEqual(['webgpu', 'cpu']);
    expect(() => parseProviders('tpu')).toThrowError(/unknown provider 'tpu'/);
  });
  it('a named provider that cannot start is an error saying how to install it; a list falls through and says so', async () => {
    const bytes = readFileSync(path.join(fixturesDir, 'transformer-block/model.onnx'));
    const error = await openSession(bytes, ['cuda']).then(() => undefined, (e: unknown) => e);
    // On a machine with the CUDA provider installed this test has nothing to show.
    if (error === undefined) return;
    expect(error).toBeInstanceOf(AmpError);
    expect((error as AmpError).code).toBe('RUNTIME_UNAVAILABLE');
    expect((error as AmpError).message).toMatch(/ONNXRUNTIME_NODE_INSTALL=cuda12/);
    expect((error as AmpError).message).toMatch(/CUDA 12 and cuDNN 9/);
    const opened = await openSession(bytes, ['cuda', 'cpu']);
    expect(opened.provider).toBe('cpu');
    expect(opened.skipped.map((s) => s.provider)).toEqual(['cuda']);
    await opened.session.release();
  });
});

describe('run / compare / bench commands', () => {
  const bin = path.join(repoRoot, 'dist/cli/main.js');
  const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  const original = path.join(fixturesDir, 'transformer-block/model.onnx');
  const amp = path.join(work, 'amp.onnx');

  it('compare passes for the AMP transformer and fails (exit 1) for a model with different weights', () => {
    expect(cli([original, '-o', amp, '-q']).status).toBe(0);
    const ok = cli(['compare', original, amp, '--json']);
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ provider: 'cpu', pass: true });
    const other = path.join(work, 'other.onnx');
    const built = spawnSync(process.execPath, ['--input-type=module', '-e', `
      const { buildTransformer } = await import(${JSON.stringify(path.join(repoRoot, 'dist/builder/recipes/transformer.js'))});
      const { encodeModel } = await import(${JSON.stringify(path.join(repoRoot, 'dist/index.js'))});
      (await import('node:fs')).writeFileSync(${JSON.stringify(other)}, encodeModel(buildTransformer({ batch: 2, sequence: 8, model: 32, heads: 4, ffn: 64, layers: 1, vocab: 16, seed: 99 })));`], { encoding: 'utf8' });
    expect(built.stderr).toBe('');
    const bad = cli(['compare', original, other]);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/\nhidden .* FAIL \(\d+ outside tolerance\) \[(atol|rtol|atol-floor)\]\n/);
    expect(bad.stdout).toMatch(/FAIL: [01] of 2 outputs within tolerance/);
  });

  it.skipIf(!corpusAvailable)('run feeds ONNX test data (.pb), prints the provider, and saves outputs that match the expected ones', () => {
    const dir = path.join(corpusDir, 'onnx-node-tests/test_matmul_2d');
    const out = path.join(work, 'outputs');
    const result = cli(['run', path.join(dir, 'model.onnx'), '--inputs', path.join(dir, 'test_data_set_0/input_0.pb'), path.join(dir, 'test_data_set_0/input_1.pb'), '--save-outputs', out]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^execution provider: cpu\n/);
    // An ONNX test_data_set: the inputs run on beside the output.
    expect(readdirSync(out).sort()).toEqual(['input_0.pb', 'input_1.pb', 'output_0.pb']);
    const saved = onnx.TensorProto.decode(readFileSync(path.join(out, 'output_0.pb')));
    expect(saved.name).toBe('c');
    const expected = onnx.TensorProto.decode(readFileSync(path.join(dir, 'test_data_set_0/output_0.pb')));
    expect(saved.dims.map(Number)).toEqual(expected.dims.map(Number));
  });

  it('bench times both variants, says it ran on CPU, and writes JSON', () => {
    const json = path.join(work, 'bench.json');
    const result = cli(['bench', original, '--runs', '3', '--warmup', '1', '--out', json]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/ran on the CPU provider/);
    const record = JSON.parse(readFileSync(json, 'utf8'));
    expect(record.variants.map((v: { label: string }) => v.label)).toEqual(['fp32', 'amp']);
    expect(record.variants[0].medianMs).toBeGreaterThan(0);
    expect(record).toMatchObject({ provider: 'cpu', cpuOnly: true, runs: 3 });
    expect(record.accuracy.every((a: { pass: boolean }) => a.pass)).toBe(true);
  });

  it('an unavailable provider is exit 2 with one line', () => {
    const result = cli(['run', original, '--ep', 'webgpu']);
    if (result.status === 0) return; // a machine with a WebGPU adapter
    expect(result.status).toBe(2);
    // Dawn (WebGPU's native library) prints its own Vulkan warning to stderr before we can speak;
    // our part is the last line, alone, with no stack trace.
    const lines = result.stderr.trim().split('\n');
    expect(lines[lines.length - 1]).toMatch(/^amp-rewrite: error \[RUNTIME_UNAVAILABLE\].*WebGPU/);
    expect(result.stderr).not.toMatch(/\bat .*\.js:\d+/);
  });
});
