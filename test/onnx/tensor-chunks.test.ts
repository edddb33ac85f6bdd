/**
 * Weights read through a fixed buffer: every storage form (raw_data at an unaligned offset,
 * float_data, external file) gives the same values across chunk boundaries, converted copies match
 * the one-value reference, and a tensor over 4 GiB (a sparse file) is scanned and rewritten
 * around in bounded memory.
 */
import { closeSync, existsSync, ftruncateSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/builder/graph-builder.js';
import { encodeModel, onnx } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { float32ToBfloat16Bits, float32ToFloat16Bits } from '../../src/onnx/float16.js';
import { checkModel } from '../../src/onnx/check-model.js';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import { forEachFloat32Chunk } from '../../src/onnx/tensor-chunks.js';
import { largestFiniteMagnitude, lowPrecisionCopy } from '../../src/onnx/tensor-data.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { model, node, valueInfo } from '../support/models.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-chunks-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function externalTensor(name: string, dims: number[], location: string, offset: number, length: number): onnx.TensorProto {
  return onnx.TensorProto.create({
    name,
    dims,
    data_type: DataType.FLOAT,
    data_location: onnx.TensorProto.DataLocation.EXTERNAL,
    external_data: [
      onnx.StringStringEntryProto.create({ key: 'location', value: location }),
      onnx.StringStringEntryProto.create({ key: 'offset', value: String(offset) }),
      onnx.StringStringEntryProto.create({ key: 'length', value: String(length) }),
    ],
  });
}

/** A model whose only weight is `w`, read by a MatMul; saved to `file` and loaded back. */
function loadedWith(weight: onnx.TensorProto, file: string): onnx.ModelProto {
  const rows = Number(weight.dims?.[0]);
  const built = model({
    node: [node('MatMul', ['x', 'w'], ['y'])],
    input: [valueInfo('x', DataType.FLOAT, [1, rows])],
    output: [valueInfo('y', DataType.FLOAT, [1, 4])],
    initializer: [weight],
  });
  writeFileSync(file, encodeModel(built));
  return loadModel(file);
}

describe('weights read through a fixed buffer', () => {
  const random = seededRandom(5);
  const values = Float32Array.from({ length: 1_500_003 }, () => (random() - 0.5) * 2 ** Math.floor(random() * 40 - 30));
  values[1_234_567] = -60000.5;
  values[17] = NaN;
  values[18] = -Infinity;

  it('gives every value once, in order, from raw_data at an odd offset, float_data and an external file', () => {
    const bytes = new Uint8Array(values.byteLength + 1);
    bytes.set(new Uint8Array(values.buffer), 1);
    const raw = onnx.TensorProto.create({ name: 'raw', dims: [values.length], data_type: DataType.FLOAT, raw_data: bytes.subarray(1) });
    const typed = onnx.TensorProto.create({ name: 'typed', dims: [values.length], data_type: DataType.FLOAT, float_data: Array.from(values) });
    writeFileSync(path.join(work, 'w.bin'), Buffer.concat([Buffer.alloc(12), Buffer.from(values.buffer)]));
    const external = loadedWith(externalTensor('w', [values.length / 3, 3], 'w.bin', 12, values.byteLength), path.join(work, 'm.onnx')).graph!.initializer![0]!;
    for (const tensor of [raw, typed, external]) {
      const seen = new Float32Array(values.length);
      let next = 0;
      forEachFloat32Chunk(
        tensor,
        (bits, first) => {
          expect(first).toBe(next);
          seen.set(new Float32Array(bits.buffer, bits.byteOffset, bits.length), first);
          next += bits.length;
        },
        4096,
      );
      expect(next).toBe(values.length);
      expect(Buffer.from(seen.buffer).equals(Buffer.from(values.buffer))).toBe(true);
      expect(largestFiniteMagnitude(tensor)).toBe(60000.5);
    }
  });

  it('gives a small weight at an odd offset whole, in one chunk', () => {
    const small = values.slice(1_234_000, 1_235_001);
    const bytes = new Uint8Array(small.byteLength + 3);
    bytes.set(new Uint8Array(small.buffer), 3);
    const raw = onnx.TensorProto.create({ name: 'small', dims: [small.length], data_type: DataType.FLOAT, raw_data: bytes.subarray(3) });
    const chunks: Array<[Float32Array, number]> = [];
    forEachFloat32Chunk(raw, (bits, first) => chunks.push([new Float32Array(bits.buffer, bits.byteOffset, bits.length).slice(), first]));
    expect(chunks.length).toBe(1);
    expect(chunks[0]![1]).toBe(0);
    expect(Buffer.from(chunks[0]![0].buffer).equals(Buffer.from(small.buffer))).toBe(true);
    expect(largestFiniteMagnitude(raw)).toBe(60000.5);
  });

  it('converts across chunk boundaries exactly as the one-value reference', () => {
    const tensor = onnx.TensorProto.create({ name: 'w', dims: [values.length], data_type: DataType.FLOAT, raw_data: new Uint8Array(values.buffer) });
    for (const [target, reference] of [
      [DataType.FLOAT16, float32ToFloat16Bits],
      [DataType.BFLOAT16, float32ToBfloat16Bits],
    ] as const) {
      const copy = lowPrecisionCopy(tensor, target);
      if (!copy.ok) throw new Error(copy.reason);
      const bits = new Uint16Array(copy.tensor.raw_data.buffer, copy.tensor.raw_data.byteOffset, values.length);
      const expected = Uint16Array.from(values, (v) => reference(v));
      expect(Buffer.from(bits.buffer).equals(Buffer.from(expected.buffer))).toBe(true);
      expect(copy.tensor.data_type).toBe(target);
    }
  });

  it('refuses an fp16 copy of a weight beyond float16 range, naming the magnitude', () => {
    const big = Float32Array.from([1, 2, -70000]);
    const tensor = onnx.TensorProto.create({ name: 'w', dims: [3], data_type: DataType.FLOAT, raw_data: new Uint8Array(big.buffer) });
    expect(lowPrecisionCopy(tensor, DataType.FLOAT16)).toEqual({ ok: false, reason: "holds 70000 in magnitude, outside float16's range (65504)" });
    const copy = lowPrecisionCopy(tensor, DataType.BFLOAT16);
    expect(copy.ok).toBe(true);
  });

  it('a float32 tensor over 4 GiB in a sparse file: scanned, its reader kept fp32, saved, in bounded memory', () => {
    const length = 2 ** 32 + 16; // 2^30 + 4 values
    const file = path.join(work, 'huge.bin');
    const fd = openSync(file, 'w');
    try {
      ftruncateSync(fd, length);
      writeSync(fd, Buffer.from(Float32Array.from([0.25]).buffer), 0, 4, 0);
      // Beyond 4 GiB: a value outside float16's range that only a scan past 2^32 bytes can see.
      writeSync(fd, Buffer.from(Float32Array.from([-70000]).buffer), 0, 4, 2 ** 32 + 8);
    } finally {
      closeSync(fd);
    }
    const loaded = loadedWith(externalTensor('w', [length / 16, 4], 'huge.bin', 0, length), path.join(work, 'huge.onnx'));
    // The command's input check takes it too: a weight in external data is never held whole.
    expect(() => checkModel(loaded)).not.toThrow();
    const { model: rewritten, report } = ampRewrite(loaded, { weights: 'fp16' });
    const matmul = report.nodes.find((n) => n.node === 'y');
    expect(matmul?.rule).toBe('weight-out-of-range');
    expect(matmul?.reason).toContain('70000');
    saveModel(rewritten, path.join(work, 'huge.amp.onnx'));
    const again = loadModel(path.join(work, 'huge.amp.onnx')).graph!.initializer![0]!;
    expect(again.external_data?.find((e) => e.key === 'length')?.value).toBe(String(length));
    // Reading the weight whole would take over 4 GiB (VmHWM: this worker's own peak, where Linux has it).
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(existsSync('/proc/self/status') ? readFileSync('/proc/self/status', 'utf8') : '');
    expect(hwm ? Number(hwm[1]) * 1024 : process.resourceUsage().maxRSS * 1024).toBeLessThan(2 ** 31);
  });
});
