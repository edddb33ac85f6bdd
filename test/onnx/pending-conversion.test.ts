/**
 * --weights fp16/bf16 on external weights: the copies stay pending and are converted chunk by
 * chunk as the output is written. The output is byte for byte what the in-memory conversion
 * gives (the same fixtures with embedded weights, and a model whose weights are external), in
 * every save mode.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/builder/graph-builder.js';
import { saveNotes } from '../../src/cli/rewrite-command.js';
import { encodeModel, onnx } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import type { AmpError } from '../../src/onnx/errors.js';
import { tensorRawBytes } from '../../src/onnx/external-data.js';
import { loadModel, saveModel, type SaveOptions } from '../../src/onnx/model-io.js';
import { pendingConversionOf } from '../../src/onnx/pending-conversion.js';
import { lowPrecisionCopy } from '../../src/onnx/tensor-data.js';
import { forEachTensor } from '../../src/onnx/walk.js';
import { ampRewrite, type AmpOptions } from '../../src/passes/amp.js';
import { model, node, valueInfo } from '../support/models.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-pending-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let runs = 0;

/** Every file a save wrote, by name, with its bytes. */
function savedFiles(loaded: onnx.ModelProto, options: AmpOptions, save: SaveOptions, materialize = false): Map<string, Buffer> {
  const dir = path.join(work, `run-${runs++}`);
  mkdirSync(dir);
  const { model: rewritten } = ampRewrite(loaded, options);
  if (materialize) {
    // The in-memory path: every copy made whole before the save, as the eager conversion held it.
    forEachTensor(rewritten, (tensor) => void tensor.raw_data);
  }
  saveModel(rewritten, path.join(dir, 'out.onnx'), save);
  return new Map(readdirSync(dir).map((name) => [name, readFileSync(path.join(dir, name))]));
}

/** The code and message of what `run` throws. */
function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return `${(error as AmpError).code} ${(error as Error).message}`;
  }
  return 'no error';
}

function pendingCount(m: onnx.IModelProto): number {
  let n = 0;
  forEachTensor(m, (tensor) => void (pendingConversionOf(tensor) && n++));
  return n;
}

const newDataFile: SaveOptions = { externalData: { location: 'out.onnx.data' } };

describe.each([
  ['transformer-block-weights-fp16', { weights: 'fp16' } as AmpOptions],
  ['transformer-block-bf16', { mode: 'bf16', weights: 'fp16' } as AmpOptions],
])('fixture %s with its weights moved to external data', (fixture, options) => {
  const file = path.resolve('fixtures', fixture, 'model.onnx');
  const embedded = loadModel(file);
  const dir = path.join(work, `${fixture}-external`);
  mkdirSync(dir);
  // The same threshold as the output's: the same tensors are in the data file either way.
  saveModel(embedded, path.join(dir, 'model.onnx'), { externalData: { location: 'model.onnx.data' } });
  const external = loadModel(path.join(dir, 'model.onnx'));

  it('has converted copies pending (nothing converted before the save)', () => {
    expect(pendingCount(ampRewrite(external, options).model)).toBeGreaterThan(0);
    expect(pendingCount(ampRewrite(embedded, options).model)).toBe(0);
  });

  it.each([
    ['embed', { externalData: 'embed' } as SaveOptions],
    ['a new data file', newDataFile],
  ])('saved with %s: byte-identical to the in-memory conversion of the embedded weights', (_mode, save) => {
    const fromEmbedded = savedFiles(embedded, options, save);
    const fromExternal = savedFiles(external, options, save);
    expect([...fromExternal.keys()]).toEqual([...fromEmbedded.keys()]);
    for (const [name, bytes] of fromEmbedded) expect(fromExternal.get(name)?.equals(bytes), name).toBe(true);
  });

  it('saved with keep: byte-identical to the copies made whole before the save', () => {
    const lazy = savedFiles(external, options, { externalData: 'keep' });
    const eager = savedFiles(external, options, { externalData: 'keep' }, true);
    expect([...lazy.keys()]).toEqual([...eager.keys()]);
    for (const [name, bytes] of eager) expect(lazy.get(name)?.equals(bytes), name).toBe(true);
  });
});

describe('a model with external weights, float16 and bfloat16', () => {
  const random = seededRandom(13);
  // Three weights in one data file at unaligned offsets: one over 4 MiB (several chunks), one
  // below the 1024-byte threshold once converted, one outside float16's range.
  const shapes: Array<[string, number]> = [['big', 1_200_000], ['small', 300], ['wide', 4096]];
  const values = shapes.map(([, count]) => Float32Array.from({ length: count }, () => (random() - 0.5) * 2 ** Math.floor(random() * 44 - 34)));
  (values[0] as Float32Array)[1_100_001] = NaN;
  (values[0] as Float32Array)[7] = -65519;
  (values[2] as Float32Array)[5] = 1e6;
  const dir = path.join(work, 'external');
  mkdirSync(dir);
  let offset = 3;
  const parts: Buffer[] = [Buffer.alloc(3)];
  const initializer = shapes.map(([name, count], i) => {
    const bytes = Buffer.from((values[i] as Float32Array).buffer);
    parts.push(bytes);
    const tensor = onnx.TensorProto.create({
      name,
      dims: [count / 4, 4],
      data_type: DataType.FLOAT,
      data_location: onnx.TensorProto.DataLocation.EXTERNAL,
      external_data: [
        { key: 'location', value: 'weights.bin' },
        { key: 'offset', value: String(offset) },
        { key: 'length', value: String(bytes.length) },
      ].map((e) => onnx.StringStringEntryProto.create(e)),
    });
    offset += bytes.length;
    return tensor;
  });
  writeFileSync(path.join(dir, 'weights.bin'), Buffer.concat(parts));
  const built = model({
    node: shapes.map(([name, count]) => node('MatMul', [`x_${name}`, name], [`y_${name}`], name)),
    input: shapes.map(([name, count]) => valueInfo(`x_${name}`, DataType.FLOAT, [1, count / 4])),
    output: shapes.map(([name]) => valueInfo(`y_${name}`, DataType.FLOAT, [1, 4])),
    initializer,
  });
  writeFileSync(path.join(dir, 'model.onnx'), encodeModel(built));
  const loaded = loadModel(path.join(dir, 'model.onnx'));

  it.each([
    ['fp16', { weights: 'fp16' } as AmpOptions, 2],
    ['bf16', { mode: 'bf16', weights: 'fp16' } as AmpOptions, 3],
  ])('%s: each copy is the in-memory conversion, and every save mode writes the same bytes', (_name, options, converted) => {
    const { model: rewritten, report } = ampRewrite(loaded, options);
    expect(pendingCount(rewritten)).toBe(converted);
    expect(report.summary.weightsConverted).toHaveLength(converted);
    for (const tensor of rewritten.graph?.initializer ?? []) {
      if (!pendingConversionOf(tensor)) continue;
      const i = shapes.findIndex(([name]) => name === tensor.name);
      const inMemory = onnx.TensorProto.create({ name: tensor.name, dims: tensor.dims, data_type: DataType.FLOAT, raw_data: new Uint8Array((values[i] as Float32Array).buffer) });
      const eager = lowPrecisionCopy(inMemory, tensor.data_type as number);
      expect(eager.ok && Buffer.from(tensor.raw_data as Uint8Array).equals(Buffer.from(eager.tensor.raw_data as Uint8Array))).toBe(true);
      expect(pendingConversionOf(tensor)).toBeUndefined();
    }
    for (const save of [{ externalData: 'keep' }, { externalData: 'embed' }, newDataFile] as SaveOptions[]) {
      const lazy = savedFiles(loaded, options, save);
      const eager = savedFiles(loaded, options, save, true);
      expect([...lazy.keys()]).toEqual([...eager.keys()]);
      for (const [name, bytes] of eager) expect(lazy.get(name)?.equals(bytes), `${String(save.externalData)} ${name}`).toBe(true);
    }
  });

  it('keep: copies that would make the .onnx file too big go to <model>.data, the same bytes, and nothing is overwritten', () => {
    const { model: rewritten } = ampRewrite(loaded, { weights: 'fp16' });
    const converted = (rewritten.graph?.initializer ?? []).filter((t) => pendingConversionOf(t)).map((t) => t.name);
    expect(converted.sort()).toEqual(['big', 'small']);
    const embedded = savedFiles(loaded, { weights: 'fp16' }, { externalData: 'embed' });
    const inFile = loadModel(path.join(work, `run-${runs - 1}`, 'out.onnx'));
    const bytesOf = (m: onnx.IModelProto, name: string) => Buffer.from(tensorRawBytes((m.graph?.initializer ?? []).find((t) => t.name === name) as onnx.ITensorProto) as Uint8Array);

    // Within the limit (protobuf's 2 GiB by default): the copies are tensors of the .onnx file, as before.
    const within = path.join(work, 'within');
    mkdirSync(within);
    expect(saveModel(ampRewrite(loaded, { weights: 'fp16' }).model, path.join(within, 'out.onnx'), { externalData: 'keep' }).copiesMoved).toBeUndefined();
    // (keep copies the other weights' file beside an output in another folder)
    expect(readdirSync(within).sort()).toEqual(['out.onnx', 'weights.bin']);

    // Over it: 'big' (2.4 MB as float16) goes to out.onnx.data; 'small' (600 bytes) stays under the 1024-byte threshold.
    const over = path.join(work, 'over');
    mkdirSync(over);
    writeFileSync(path.join(over, 'out.onnx.data'), 'not ours');
    const result = saveModel(ampRewrite(loaded, { weights: 'fp16' }).model, path.join(over, 'out.onnx'), { externalData: 'keep', maxModelBytes: 1_000_000 });
    const fresh = path.join(over, 'out.onnx.1.data');
    expect(result.copiesMoved).toEqual({ file: fresh, tensors: 1, bytes: 2_400_000 });
    // What the command prints of it: where the copies went, and that the file there was left alone.
    expect(saveNotes([result])).toEqual([
      "External data: the converted copies of 1 external weight (2.3 MiB) would make the model file larger than protobuf's 2 GiB limit; they are in out.onnx.1.data",
      'External data: out.onnx.data already exists and was not overwritten; the weights are in out.onnx.1.data',
    ]);
    expect(readFileSync(path.join(over, 'out.onnx.data'), 'utf8')).toBe('not ours');
    expect(readdirSync(over).sort()).toEqual(['out.onnx', 'out.onnx.1.data', 'out.onnx.data', 'weights.bin']);
    expect(readFileSync(path.join(over, 'out.onnx')).length).toBeLessThan(1_000_000);
    const saved = loadModel(path.join(over, 'out.onnx'));
    const big = (saved.graph?.initializer ?? []).find((t) => t.name === 'big') as onnx.ITensorProto;
    expect(big.external_data?.find((e) => e.key === 'location')?.value).toBe('out.onnx.1.data');
    // The other weights keep their layout in the input's file.
    const wide = (saved.graph?.initializer ?? []).find((t) => t.name === 'wide') as onnx.ITensorProto;
    expect(wide.external_data?.find((e) => e.key === 'location')?.value).toBe('weights.bin');
    for (const name of ['big', 'small', 'wide']) expect(bytesOf(saved, name).equals(bytesOf(inFile, name)), name).toBe(true);
    expect(embedded.size).toBe(1);
    expect(failure(() => saveModel(rewritten, path.join(over, 'other.onnx'), { externalData: 'keep', maxModelBytes: Number.NaN }))).toMatch(/^BAD_OPTION maxModelBytes NaN/);
  });

  it('a data file changed after the plan is refused while writing, and nothing is written', () => {
    const { model: rewritten } = ampRewrite(loaded, { weights: 'fp16' });
    const data = path.join(dir, 'weights.bin');
    const original = readFileSync(data);
    const changed = Buffer.from(original);
    changed.writeFloatLE(1e9, 3 + 4 * 1000); // inside 'big', after it was found in range
    writeFileSync(data, changed);
    const out = path.join(work, 'changed');
    mkdirSync(out);
    try {
      expect(() => saveModel(rewritten, path.join(out, 'out.onnx'), newDataFile)).toThrow(/tensor 'big'.*outside float16's range/);
      expect(readdirSync(out)).toEqual([]);
      // Inside the .onnx file (keep): the copy is made whole while encoding and refused the same way.
      expect(failure(() => saveModel(rewritten, path.join(out, 'out.onnx'), { externalData: 'keep' }))).toMatch(/^EXTERNAL_DATA_OUT_OF_RANGE tensor 'big'.*outside float16's range/);
      expect(readdirSync(out)).toEqual([]);
      // Every weight converted (bf16), then the source removed from its folder: it is read through
      // the descriptor opened and checked at load (external-data.ts), never through the path again.
      const allConverted = ampRewrite(loaded, { mode: 'bf16', weights: 'fp16' }).model;
      rmSync(data);
      saveModel(allConverted, path.join(out, 'out.onnx'), { externalData: 'embed' });
      expect(readdirSync(out)).toEqual(['out.onnx']);
    } finally {
      writeFileSync(data, original);
    }
  });
});
