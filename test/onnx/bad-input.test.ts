import { mkdtempSync, readFileSync, writeFileSync, readdirSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeModel, encodeModel, onnx } from '../../src/onnx/codec.js';
import { AmpError } from '../../src/onnx/errors.js';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import { floatTensor, model, node, valueInfo } from '../support/models.js';
import { mainGraph } from '../support/models.js';
import { errorOf } from '../support/errors.js';


const reluModel = model({
  node: [node('Relu', ['x'], ['y'])],
  input: [valueInfo('x', 1, [2])],
  output: [valueInfo('y', 1, [2])],
  initializer: [floatTensor('w', [4], [1, 2, 3, 4])],
});

describe('bad input gives a typed one-line error', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-bad-'));
  const write = (name: string, bytes: Uint8Array | string): string => {
    const file = path.join(dir, name);
    writeFileSync(file, bytes);
    return file;
  };

  it('empty file', () => {
    const e = errorOf(() => loadModel(write('empty.onnx', new Uint8Array())));
    expect(e.code).toBe('EMPTY_FILE');
    expect(e.message).toContain('empty.onnx');
  });

  it('missing file', () => {
    expect(errorOf(() => loadModel(path.join(dir, 'nope.onnx'))).code).toBe('FILE_NOT_FOUND');
  });

  it('truncated file names the byte where it ends', () => {
    const bytes = encodeModel(reluModel);
    const cut = bytes.subarray(0, bytes.length - 7);
    const e = errorOf(() => loadModel(write('cut.onnx', cut)));
    expect(e.code).toBe('TRUNCATED');
    expect(e.message).toContain(`byte ${cut.length}`);
    expect(e.message.split('\n')).toHaveLength(1);
  });

  it('a text file is not ONNX', () => {
    const e = errorOf(() => loadModel(write('model.json', '{"graph": {"node": []}}\n')));
    expect(e.code).toBe('NOT_ONNX');
    expect(e.message).toMatch(/^.*model\.json: not an ONNX ModelProto/);
  });

  it('a protobuf that is not a model is not ONNX', () => {
    const tensorBytes = onnx.TensorProto.encode(onnx.TensorProto.create({ dims: [], name: 'x', data_type: 1 })).finish();
    // TensorProto field 8 (name) collides with ModelProto.opset_import; neither ir_version nor graph is present.
    expect(errorOf(() => decodeModel(tensorBytes)).code).toBe('NOT_ONNX');
  });

  it('a newer IR version is refused unless allowed', () => {
    const newer = onnx.ModelProto.decode(encodeModel(reluModel));
    newer.ir_version = 15 as unknown as typeof newer.ir_version;
    const bytes = encodeModel(newer);
    const e = errorOf(() => decodeModel(bytes, { source: 'newer.onnx' }));
    expect(e.code).toBe('NEWER_IR');
    expect(e.message).toContain('--allow-newer-ir');
    expect(decodeModel(bytes, { allowNewerIr: true }).graph?.node?.length).toBe(1);
  });

  it('unknown fields survive a decode/encode cycle', () => {
    const bytes = encodeModel(reluModel);
    // Field 99 (varint 7) at model level, as a newer ONNX could write it.
    const extra = Buffer.concat([Buffer.from(bytes), Buffer.from([0x98, 0x06, 0x07])]);
    expect(Buffer.compare(Buffer.from(encodeModel(decodeModel(extra))), extra)).toBe(0);
  });

  describe('external data', () => {
    const external = (location: string, offset: number, length: number): onnx.ModelProto => {
      const m = onnx.ModelProto.decode(encodeModel(reluModel));
      const w = mainGraph(m).initializer[0]!;
      delete (w as Partial<onnx.TensorProto>).raw_data;
      w.data_location = onnx.TensorProto.DataLocation.EXTERNAL;
      w.external_data = [
        { key: 'location', value: location },
        { key: 'offset', value: String(offset) },
        { key: 'length', value: String(length) },
      ].map((e) => onnx.StringStringEntryProto.create(e));
      return m;
    };

    it('missing data file', () => {
      const file = write('ext-missing.onnx', encodeModel(external('absent.bin', 0, 16)));
      const e = errorOf(() => loadModel(file));
      expect(e.code).toBe('EXTERNAL_DATA_MISSING');
      expect(e.message).toContain("tensor 'w'");
      expect(e.message).toContain('absent.bin');
    });

    it('offset past the end of the data file', () => {
      write('short.bin', new Uint8Array(8));
      const file = write('ext-short.onnx', encodeModel(external('short.bin', 4, 16)));
      expect(errorOf(() => loadModel(file)).code).toBe('EXTERNAL_DATA_OUT_OF_RANGE');
    });

    it('a location outside the model folder', () => {
      const file = write('ext-escape.onnx', encodeModel(external('../etc/passwd', 0, 16)));
      expect(errorOf(() => loadModel(file)).code).toBe('EXTERNAL_DATA_BAD_LOCATION');
    });

    it("'ignore' loads the model without its data files", () => {
      const file = path.join(dir, 'ext-missing.onnx');
      expect(loadModel(file, { externalData: 'ignore' }).graph?.initializer).toHaveLength(1);
    });
  });

  it('a failed save leaves no file behind', () => {
    const outDir = path.join(dir, 'out');
    mkdirSync(outDir);
    const m = onnx.ModelProto.decode(encodeModel(reluModel));
    const w = mainGraph(m).initializer[0]!;
    w.data_location = onnx.TensorProto.DataLocation.EXTERNAL; // external, but never resolved from a file
    w.external_data = [onnx.StringStringEntryProto.create({ key: 'location', value: 'w.bin' })];
    const e = errorOf(() => saveModel(m, path.join(outDir, 'model.onnx')));
    expect(e.code).toBe('EXTERNAL_DATA_MISSING');
    expect(readdirSync(outDir)).toEqual([]);
  });

  it('save replaces the target atomically and leaves no temporary file', () => {
    const outDir = path.join(dir, 'atomic');
    mkdirSync(outDir);
    const target = path.join(outDir, 'model.onnx');
    writeFileSync(target, 'old contents');
    saveModel(reluModel, target);
    expect(readdirSync(outDir)).toEqual(['model.onnx']);
    expect(Buffer.compare(readFileSync(target), Buffer.from(encodeModel(reluModel)))).toBe(0);
  });
});
