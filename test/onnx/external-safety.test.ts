/**
 * External data is confined like ONNX Runtime confines it: the real path (after symlinks) of
 * every data file must be inside the model's real folder, and it must be a regular file (a FIFO
 * would hang the read, a folder or device is not data).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeModel, onnx } from '../../src/onnx/codec.js';
import { AmpError } from '../../src/onnx/errors.js';
import { setDataFileHook } from '../../src/onnx/external-files.js';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import { afterEach } from 'vitest';
import { readFloat32 } from '../../src/onnx/tensor-data.js';
import { floatTensor, mainGraph, model, node, valueInfo } from '../support/models.js';
import { errorOf } from '../support/errors.js';


const WEIGHTS = Float32Array.from([1, 2, 3, 4]);

/** Relu(x) with an initializer 'w' (4 floats) stored at `location`. */
function externalModel(location: string): Uint8Array {
  const m = model({
    node: [node('Relu', ['x'], ['y'])],
    input: [valueInfo('x', 1, [2])],
    output: [valueInfo('y', 1, [2])],
    initializer: [floatTensor('w', [4], [0, 0, 0, 0])],
  });
  const w = mainGraph(m).initializer[0]!;
  delete (w as Partial<onnx.TensorProto>).raw_data;
  w.data_location = onnx.TensorProto.DataLocation.EXTERNAL;
  w.external_data = [
    { key: 'location', value: location },
    { key: 'offset', value: '0' },
    { key: 'length', value: '16' },
  ].map((e) => onnx.StringStringEntryProto.create(e));
  return encodeModel(m);
}

describe('external data confinement', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'amp-ext-safety-'));
  const outside = path.join(root, 'outside');
  const modelDir = path.join(root, 'model');
  mkdirSync(outside);
  mkdirSync(modelDir);
  writeFileSync(path.join(outside, 'secret.bin'), Buffer.from(WEIGHTS.buffer));
  writeFileSync(path.join(modelDir, 'inside.bin'), Buffer.from(WEIGHTS.buffer));
  const modelAt = (name: string, location: string): string => {
    const file = path.join(modelDir, name);
    writeFileSync(file, externalModel(location));
    return file;
  };

  it('a symlink inside the folder that points outside it is refused', () => {
    symlinkSync(path.join(outside, 'secret.bin'), path.join(modelDir, 'link.bin'));
    const file = modelAt('link.onnx', 'link.bin');
    const e = errorOf(() => loadModel(file));
    expect(e.code).toBe('UNSAFE_PATH');
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain("tensor 'w': external data file 'link.bin' resolves to");
    expect(e.message).toContain('--allow-external-outside');
    // The explicit opt-in reads it.
    const allowed = loadModel(file, { allowExternalOutside: true });
    expect([...readFloat32(mainGraph(allowed).initializer[0]!)]).toEqual([...WEIGHTS]);
  });

  it('a symlinked sub-folder that leads outside is refused', () => {
    symlinkSync(outside, path.join(modelDir, 'sub'));
    expect(errorOf(() => loadModel(modelAt('sub.onnx', 'sub/secret.bin'))).code).toBe('UNSAFE_PATH');
  });

  it('a symlink that stays inside the folder is followed', () => {
    symlinkSync('inside.bin', path.join(modelDir, 'alias.bin'));
    const m = loadModel(modelAt('alias.onnx', 'alias.bin'));
    expect([...readFloat32(mainGraph(m).initializer[0]!)]).toEqual([...WEIGHTS]);
  });

  it('a FIFO as the data file is refused at once instead of hanging', () => {
    execFileSync('mkfifo', [path.join(modelDir, 'pipe.bin')]);
    const e = errorOf(() => loadModel(modelAt('fifo.onnx', 'pipe.bin')));
    expect(e.code).toBe('EXTERNAL_DATA_BAD_LOCATION');
    expect(e.message).toContain('is a FIFO; external data must be a regular file');
  });

  it('a FIFO as the model file is refused at once', () => {
    const fifo = path.join(modelDir, 'model-pipe.onnx');
    execFileSync('mkfifo', [fifo]);
    const e = errorOf(() => loadModel(fifo));
    expect(e.code).toBe('READ_FAILED');
    expect(e.message).toContain('not a regular file');
  });

  it('a folder as the data location is a typed error, not EISDIR', () => {
    mkdirSync(path.join(modelDir, 'weights.d'));
    const e = errorOf(() => loadModel(modelAt('dir.onnx', 'weights.d')));
    expect(e.code).toBe('EXTERNAL_DATA_BAD_LOCATION');
    expect(e.message).toContain('is a folder');
  });

  it('a device is refused even with --allow-external-outside', () => {
    symlinkSync('/dev/zero', path.join(modelDir, 'zero.bin'));
    const file = modelAt('zero.onnx', 'zero.bin');
    expect(errorOf(() => loadModel(file)).code).toBe('UNSAFE_PATH');
    const e = errorOf(() => loadModel(file, { allowExternalOutside: true }));
    expect(e.code).toBe('EXTERNAL_DATA_BAD_LOCATION');
    expect(e.message).toContain('is a device');
  });
});

describe('a data file swapped during a run is never read', () => {
  afterEach(() => setDataFileHook(undefined));
  const root = mkdtempSync(path.join(tmpdir(), 'amp-ext-swap-'));
  const secret = path.join(root, 'secret.bin');
  writeFileSync(secret, Buffer.from(Float32Array.from([666, 666, 666, 666]).buffer));
  let n = 0;
  const fresh = (): { dir: string; file: string; data: string } => {
    const dir = path.join(root, `m${n++}`);
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'w.bin'), Buffer.from(WEIGHTS.buffer));
    writeFileSync(path.join(dir, 'model.onnx'), externalModel('w.bin'));
    return { dir, file: path.join(dir, 'model.onnx'), data: path.join(dir, 'w.bin') };
  };
  /** Replaces the data file by a symlink to the outside secret, or by a FIFO. */
  const swap = (data: string, to: 'symlink' | 'fifo'): void => {
    renameSync(data, `${data}.orig`);
    if (to === 'symlink') symlinkSync(secret, data);
    else execFileSync('mkfifo', [data]);
  };

  it('swapped after the load (a symlink to an outside file, or a FIFO): the save copies the bytes checked at load', () => {
    for (const to of ['symlink', 'fifo'] as const) {
      const { dir, file, data } = fresh();
      const m = loadModel(file);
      swap(data, to);
      // Another folder: 'keep' copies w.bin there, the read the issue caught reopening the path.
      const outDir = path.join(dir, 'out');
      mkdirSync(outDir);
      saveModel(m, path.join(outDir, 'model.onnx'));
      expect(new Float32Array(Uint8Array.from(readFileSync(path.join(outDir, 'w.bin'))).buffer), to).toEqual(WEIGHTS);
      expect(readFloat32(mainGraph(m).initializer[0]!), to).toEqual(WEIGHTS);
      // And embedding reads the same descriptor.
      saveModel(m, path.join(outDir, 'embedded.onnx'), { externalData: 'embed' });
      expect(readFloat32(mainGraph(loadModel(path.join(outDir, 'embedded.onnx'))).initializer[0]!), to).toEqual(WEIGHTS);
    }
  });

  it('swapped between the path checks and the open: O_NOFOLLOW refuses the symlink, the FIFO is refused on its descriptor', () => {
    for (const to of ['symlink', 'fifo'] as const) {
      const { file, data } = fresh();
      setDataFileHook((step, real) => {
        if (step === 'checked' && real === data) swap(data, to);
      });
      const e = errorOf(() => loadModel(file));
      expect(e.code, to).toBe(to === 'symlink' ? 'UNSAFE_PATH' : 'EXTERNAL_DATA_BAD_LOCATION');
      expect(e.message, to).toContain(to === 'symlink' ? 'became a symbolic link after it was checked' : 'is a FIFO');
      setDataFileHook(undefined);
      rmSync(data);
    }
  });
});
