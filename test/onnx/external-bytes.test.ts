/**
 * External data given as bytes (onnx/external-bytes.ts, the web page's and rewriteBytes's way): the
 * same location and range checks as the loader's on files (external-data.ts checkedLocation and
 * checkedRange, shared), found by the resolved location or by the file's name, embedded as the
 * loader's `--external-data embed` embeds them.
 */
import { describe, expect, it } from 'vitest';
import { decodeModel, encodeModel, onnx } from '../../src/onnx/codec.js';
import { embedExternalBytes } from '../../src/onnx/external-bytes.js';
import { normalizedLocation } from '../../src/onnx/external-data.js';

/** A model with one external float tensor 'w' of 4 values at `location`, `offset` bytes in. */
function externalModel(location: string, offset = 0, length = 16): onnx.ModelProto {
  const w = onnx.TensorProto.create({
    name: 'w',
    dims: [4],
    data_type: onnx.TensorProto.DataType.FLOAT,
    data_location: onnx.TensorProto.DataLocation.EXTERNAL,
    external_data: [
      { key: 'location', value: location },
      { key: 'offset', value: String(offset) },
      { key: 'length', value: String(length) },
    ].map((e) => onnx.StringStringEntryProto.create(e)),
  });
  return decodeModel(encodeModel({ ir_version: 8, opset_import: [{ domain: '', version: 17 }], graph: { name: 'g', initializer: [w], output: [{ name: 'w' }] } }));
}

const data = new Uint8Array(Float32Array.from([9, 1, 2, 3, 4]).buffer);

describe('embedExternalBytes', () => {
  it('copies the range into raw_data, the file found by its resolved location or by its name', () => {
    for (const [location, given] of [['w.data', 'w.data'], ['./sub//w.data', 'sub/w.data'], ['sub/../w.data', 'w.data'], ['weights/w.data', 'w.data']]) {
      const model = externalModel(location as string, 4);
      expect(embedExternalBytes(model, new Map([[given as string, data]]))).toBe(1);
      const w = model.graph!.initializer![0]!;
      expect(Array.from(new Float32Array(w.raw_data!.slice().buffer))).toEqual([1, 2, 3, 4]);
      expect(w.data_location).toBe(onnx.TensorProto.DataLocation.DEFAULT);
      expect(w.external_data).toEqual([]);
    }
  });

  it('refuses a location outside the model folder, a range past the end, and a file not given, naming the tensor', () => {
    for (const location of ['../w.data', '/etc/w.data', 'a/../../w.data']) {
      expect(() => embedExternalBytes(externalModel(location), new Map([['w.data', data]]))).toThrowError(/tensor 'w': external data location .* must be a path inside the model's folder/);
    }
    expect(() => embedExternalBytes(externalModel('w.data', 8), new Map([['w.data', data]]))).toThrowError(/tensor 'w': external data w\.data bytes 8\.\.24 run past the end of the file \(20 bytes\)/);
    expect(() => embedExternalBytes(externalModel('w.data'), new Map())).toThrowError(/tensor 'w': its external data file w\.data was not given/);
  });

  it('resolves a location as Node resolves a relative path', async () => {
    const { posix } = await import('node:path');
    for (const location of ['a/../b', '../x', 'a/../../x', './w.data', 'a//b/./c', 'x/y/../../z', '..']) {
      expect(normalizedLocation(location) || '.').toBe(posix.normalize(location).replace(/\/$/, ''));
    }
  });
});
