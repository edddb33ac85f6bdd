/**
 * float16 crosses ONNX Runtime as bits on runtimes with Float16Array (Node.js 24 and later).
 * Node 20 has none, so this file installs a stand-in before ONNX Runtime first makes a tensor:
 * onnxruntime-common then wraps float16 bits in it both ways, as it wraps them in Node 24's
 * Float16Array, and onnxruntime-node's binding refuses it as input, as it refuses Node 24's (there
 * because it reads its byte length as 0, here because it is no Uint16Array). Vitest gives each test
 * file its own modules, so the stand-in reaches no other file. On Node 24 the real one stays.
 */
import { describe, expect, it } from 'vitest';
import { onnx, encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { float16BitsToFloat32 } from '../../src/onnx/float16.js';
import { feedsWithFloat16Bits, float16Bits, newTensor, withFloat16Bits } from '../../src/runtime/float16-bits.js';
import { inputsFromFiles } from '../../src/runtime/inputs.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { openSession } from '../../src/runtime/session.js';
import { model, node, valueInfo } from '../support/models.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const runtime = globalThis as { Float16Array?: unknown };
const nativeFloat16Array = typeof runtime.Float16Array === 'function';
/** 16-bit elements that are not a Uint16Array, as Float16Array is not. */
class StandInFloat16Array extends Int16Array {}
if (!nativeFloat16Array) runtime.Float16Array = StandInFloat16Array;
/** What onnxruntime-common wraps float16 bits in on this runtime. */
const Wrapper = runtime.Float16Array as new (buffer: ArrayBufferLike, byteOffset: number, length: number) => ArrayBufferView;

const bits = Uint16Array.of(0x3c00, 0x7bff, 0x0001, 0xfc00, 0x8000, 0x3555);

/** y = Identity(x) in float16, and z = Cast(x) to float32: bits out, and the values they mean. */
function float16Model(): Uint8Array {
  return encodeModel(
    model({
      input: [valueInfo('x', DataType.FLOAT16, [6])],
      output: [valueInfo('y', DataType.FLOAT16, [6]), valueInfo('z', DataType.FLOAT, [6])],
      node: [node('Identity', ['x'], ['y']), node('Cast', ['x'], ['z'], 'cast', { attribute: [onnx.AttributeProto.create({ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: DataType.FLOAT })] })],
    }),
  );
}

describe('float16 bits', () => {
  it('reads 16-bit data as bits over the same memory, and refuses other data', () => {
    expect(float16Bits(bits)).toBe(bits);
    const wrapped = new Wrapper(bits.buffer, 2, 3);
    const view = float16Bits(wrapped as never);
    expect(Array.from(view)).toEqual([0x7bff, 0x0001, 0xfc00]);
    expect(view.buffer).toBe(bits.buffer);
    expect(() => float16Bits(new Float32Array(2) as never)).toThrowError(/not 16-bit elements/);
  });

  it('hands a session bits for float16 feeds and leaves the caller\'s tensors and other feeds alone', async () => {
    const wrapped = { type: 'float16', dims: [6], data: new Wrapper(bits.buffer, 0, 6) };
    const other = { type: 'float32', dims: [1], data: Float32Array.of(1) };
    const feeds = { x: wrapped, w: other };
    const mended = feedsWithFloat16Bits(feeds);
    expect(mended).not.toBe(feeds);
    expect(mended.x.data).toBeInstanceOf(Uint16Array);
    expect(Array.from(mended.x.data as Uint16Array)).toEqual(Array.from(bits));
    expect([mended.x.type, mended.x.dims]).toEqual(['float16', [6]]);
    expect(wrapped.data).toBeInstanceOf(Wrapper);
    expect(mended.w).toBe(other);
    const asBits = { x: { type: 'float16', dims: [6], data: bits } };
    expect(feedsWithFloat16Bits(asBits)).toBe(asBits);
    // A tensor in GPU memory has no data to read here, and goes to ONNX Runtime as it is.
    const onGpu = { x: { type: 'float16', dims: [6], location: 'gpu-buffer', get data(): never { throw new Error('The data is not on CPU') } } };
    expect(feedsWithFloat16Bits(onGpu)).toBe(onGpu);

    const seen: unknown[] = [];
    const fake = {
      run: async (given: Record<string, { data: unknown }>) => {
        seen.push(given.x?.data);
        return { y: { type: 'float16', dims: [6], data: new Wrapper(bits.buffer, 0, 6) }, n: { type: 'float32', dims: [1], data: Float32Array.of(2) } };
      },
    };
    const results = (await withFloat16Bits(fake as never as { run: (...args: never[]) => Promise<never> }).run(feeds as never)) as Record<string, { data: unknown }>;
    expect(seen[0]).toBeInstanceOf(Uint16Array);
    expect(results.y?.data).toBeInstanceOf(Uint16Array);
    expect(Array.from(results.y?.data as Uint16Array)).toEqual(Array.from(bits));
    expect(results.n?.data).toEqual(Float32Array.of(2));
  });

  it('runs float16 in and out of ONNX Runtime as bits where onnxruntime-common wraps them', async () => {
    const ort = await loadOrt();
    const input = newTensor(ort, 'float16', bits, [6]);
    expect(input.data).toBeInstanceOf(Uint16Array);
    expect([(input.data as Uint16Array).buffer, Array.from(input.data as Uint16Array)]).toEqual([bits.buffer, Array.from(bits)]);
    // Unmended, ONNX Runtime's binding refuses the wrapped bits: the failure this file reproduces.
    const plain = await ort.InferenceSession.create(float16Model());
    await expect(plain.run({ x: new ort.Tensor('float16', bits, [6]) })).rejects.toThrow();
    await plain.release();

    const opened = await openSession(float16Model(), ['cpu']);
    const out = await opened.session.run({ x: input });
    expect(out.y?.data).toBeInstanceOf(Uint16Array);
    expect(Array.from(out.y?.data as Uint16Array)).toEqual(Array.from(bits));
    expect(Array.from(out.z?.data as Float32Array)).toEqual(Array.from(bits, float16BitsToFloat32));
    // A tensor ONNX Runtime made and wrapped (an output fed back, as training does) goes in too.
    const again = await opened.session.run({ x: out.y as never });
    expect(Array.from(again.y?.data as Uint16Array)).toEqual(Array.from(bits));
    await opened.session.release();
  });

  it('reads float16 inputs from .npy and JSON files as bits', async () => {
    const ort = await loadOrt();
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-f16-'));
    // Finite values: JSON has no inf.
    const finite = Uint16Array.of(0x3c00, 0x7bff, 0x0001, 0xbc00, 0x3555, 0x0400);
    const header = "{'descr': '<f2', 'fortran_order': False, 'shape': (6,), }".padEnd(117, ' ') + '\n';
    const npy = Buffer.concat([Buffer.from([0x93]), Buffer.from('NUMPY'), Buffer.from([1, 0, header.length, 0]), Buffer.from(header), Buffer.from(finite.buffer)]);
    writeFileSync(path.join(dir, 'x.npy'), npy);
    writeFileSync(path.join(dir, 'x.json'), JSON.stringify(Array.from(finite, float16BitsToFloat32)));
    const m = onnx.ModelProto.decode(float16Model());
    for (const file of ['x.npy', 'x.json']) {
      const feeds = inputsFromFiles(ort, m, [path.join(dir, file)]);
      expect(feeds.x?.data, file).toBeInstanceOf(Uint16Array);
      expect(Array.from(feeds.x?.data as Uint16Array), file).toEqual(Array.from(finite));
    }
  });
});
