import { closeSync, mkdtempSync, openSync, readFileSync, readdirSync, statSync, writeSync, ftruncateSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeModel, onnx } from '../../src/onnx/codec.js';
import { tensorRawBytes, isExternal } from '../../src/onnx/external-data.js';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import { forEachTensor } from '../../src/onnx/walk.js';
import { corpusAvailable, corpusDir } from '../support/corpus.js';
import { floatTensor, model, node, valueInfo } from '../support/models.js';
import { mainGraph } from '../support/models.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-ext-'));

function tensorsByName(m: onnx.IModelProto): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  forEachTensor(m, (t) => {
    const bytes = tensorRawBytes(t);
    if (bytes) out.set(t.name ?? '', Buffer.from(bytes));
  });
  return out;
}

// A real model with weights: a conformance test whose initializers hold float data.
const source = path.join(corpusDir, 'onnx-node-tests/test_gemm_default_single_elem_vector_bias/model.onnx');

describe('external data', () => {
  it('moves weights out, reads them back lazily, and embeds them again byte for byte', () => {
    const built = model({
      node: [node('Gemm', ['a', 'w', 'c'], ['y'])],
      input: [valueInfo('a', 1, [3, 4])],
      output: [valueInfo('y', 1, [3, 5])],
      initializer: [floatTensor('w', [4, 5], Array.from({ length: 20 }, (_, i) => i / 7)), floatTensor('c', [1], [0.5])],
    });
    const original = Buffer.from(encodeModel(built));
    const dirA = path.join(work, 'a');
    mkdirSync(dirA);
    saveModel(built, path.join(dirA, 'model.onnx'), { externalData: { location: 'weights.bin', sizeThreshold: 0 } });
    expect(readdirSync(dirA).sort()).toEqual(['model.onnx', 'weights.bin']);
    // Offsets are page aligned: the second tensor starts at 4096.
    expect(statSync(path.join(dirA, 'weights.bin')).size).toBe(4096 + 4);

    const loaded = loadModel(path.join(dirA, 'model.onnx'));
    let external = 0;
    forEachTensor(loaded, (t) => void (isExternal(t) && external++));
    expect(external).toBe(2);
    expect(tensorsByName(loaded)).toEqual(tensorsByName(built));

    // Same layout in another folder: the model bytes are unchanged and the data is copied.
    const dirB = path.join(work, 'b');
    mkdirSync(dirB);
    saveModel(loaded, path.join(dirB, 'model.onnx'));
    expect(readFileSync(path.join(dirB, 'model.onnx'))).toEqual(readFileSync(path.join(dirA, 'model.onnx')));
    expect(readFileSync(path.join(dirB, 'weights.bin'))).toEqual(readFileSync(path.join(dirA, 'weights.bin')));

    const dirC = path.join(work, 'c');
    mkdirSync(dirC);
    saveModel(loadModel(path.join(dirB, 'model.onnx')), path.join(dirC, 'model.onnx'), { externalData: 'embed' });
    expect(readFileSync(path.join(dirC, 'model.onnx'))).toEqual(original);
    expect(readdirSync(dirC)).toEqual(['model.onnx']);
  });

  it.skipIf(!corpusAvailable)('a corpus model saved unchanged is byte-identical', () => {
    const target = path.join(work, 'same.onnx');
    saveModel(loadModel(source), target);
    expect(readFileSync(target)).toEqual(readFileSync(source));
  });

  it('reads a tensor stored beyond 2 GiB in a data file (models over 2 GB)', () => {
    const dir = path.join(work, 'big');
    mkdirSync(dir);
    const offset = 3 * 2 ** 30; // 3 GiB into a sparse file: nothing is really written before it
    const payload = Buffer.from(new Float32Array([1.5, -2, 3.25]).buffer);
    const fd = openSync(path.join(dir, 'big.bin'), 'w');
    ftruncateSync(fd, offset);
    writeSync(fd, payload, 0, payload.length, offset);
    closeSync(fd);
    const m = model({
      node: [node('Identity', ['w'], ['y'])],
      output: [valueInfo('y', 1, [3])],
      initializer: [
        onnx.TensorProto.create({
          name: 'w',
          dims: [3],
          data_type: 1,
          data_location: onnx.TensorProto.DataLocation.EXTERNAL,
          external_data: [
            { key: 'location', value: 'big.bin' },
            { key: 'offset', value: String(offset) },
            { key: 'length', value: String(payload.length) },
          ].map((e) => onnx.StringStringEntryProto.create(e)),
        }),
      ],
    });
    const file = path.join(dir, 'model.onnx');
    saveModel(m, file, { externalData: 'keep' });
    const loaded = loadModel(file);
    expect(Buffer.from(tensorRawBytes(mainGraph(loaded).initializer[0]!)!)).toEqual(payload);
    // Saving next to the same data file copies nothing and leaves it as it was.
    saveModel(loaded, file);
    expect(statSync(path.join(dir, 'big.bin')).size).toBe(offset + payload.length);
  });
});
