/**
 * Writes never damage what they do not own: outputs are checked against inputs and each other,
 * temporary files are exclusive, an existing data file is never overwritten, and a model with
 * its data file is committed so that a failure or a crash at any step leaves the complete old
 * set or the complete new set.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeModel, onnx } from '../../src/onnx/codec.js';
import { AmpError } from '../../src/onnx/errors.js';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import { OutputBatch, setWriteFaultHook, writeFileAtomically } from '../../src/onnx/safe-write.js';
import { readFloat32 } from '../../src/onnx/tensor-data.js';
import { repoRoot } from '../support/corpus.js';
import { floatTensor, mainGraph, model, node, valueInfo } from '../support/models.js';
import { errorOf } from '../support/errors.js';


/** Relu(x) with a 2 KiB weight 'w' filled with `value` (over the 1 KiB threshold for a data file). */
function weighted(value: number): onnx.ModelProto {
  return model({
    node: [node('Relu', ['x'], ['y'])],
    input: [valueInfo('x', 1, [2])],
    output: [valueInfo('y', 1, [2])],
    initializer: [floatTensor('w', [512], new Array(512).fill(value))],
  });
}

const weightOf = (file: string): number => readFloat32(mainGraph(loadModel(file)).initializer[0]!)[0] as number;
const fresh = (): string => mkdtempSync(path.join(tmpdir(), 'amp-write-'));
const tempFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.includes('.amp-rewrite-'));

afterEach(() => {
  setWriteFaultHook(undefined);
  vi.restoreAllMocks();
});

describe('outputs are never inputs', () => {
  it("-o naming the input's own external data file is refused and the weights survive", () => {
    const dir = fresh();
    const source = path.join(dir, 'model.onnx');
    saveModel(weighted(1), source, { externalData: { location: 'model.data' } });
    const before = readFileSync(path.join(dir, 'model.data'));
    const loaded = loadModel(source);
    const e = errorOf(() => saveModel(loaded, path.join(dir, 'model.data')));
    expect(e.code).toBe('UNSAFE_PATH');
    expect(e.message).toContain('is external data of the input');
    expect(readFileSync(path.join(dir, 'model.data')).equals(before)).toBe(true);
    expect(weightOf(source)).toBe(1);
  });

  it('a protected input reached through a symlinked folder or a hard link is refused', () => {
    const dir = fresh();
    const input = path.join(dir, 'in.onnx');
    writeFileSync(input, encodeModel(weighted(1)));
    symlinkSync(dir, path.join(dir, 'alias'));
    const protect = [{ path: input, role: 'the input model' }];
    expect(errorOf(() => saveModel(weighted(2), path.join(dir, 'alias', 'in.onnx'), { protect })).code).toBe('UNSAFE_PATH');
    linkSync(input, path.join(dir, 'hard.onnx'));
    expect(errorOf(() => saveModel(weighted(2), path.join(dir, 'hard.onnx'), { protect })).code).toBe('UNSAFE_PATH');
    expect(weightOf(input)).toBe(1);
  });
});

describe('data files', () => {
  it('an existing data file of another model is never overwritten; the new one gets a name derived from the output', () => {
    const dir = fresh();
    const other = path.join(dir, 'other.onnx');
    saveModel(weighted(7), other, { externalData: { location: 'weights.bin' } });
    const result = saveModel(weighted(3), path.join(dir, 'mine.onnx'), { externalData: { location: 'weights.bin' } });
    expect(result.renamedData).toEqual([{ requested: path.join(dir, 'weights.bin'), actual: path.join(dir, 'mine.onnx.weights.bin') }]);
    expect(weightOf(other)).toBe(7);
    expect(weightOf(path.join(dir, 'mine.onnx'))).toBe(3);
  });

  it('replacing a model keeps its data file under one stable name, and leaves nothing orphaned', () => {
    const dir = fresh();
    const target = path.join(dir, 'out.onnx');
    saveModel(weighted(1), path.join(dir, 'other.onnx'), { externalData: { location: 'weights.bin' } });
    // weights.bin is the other model's: the output's data goes to out.onnx.weights.bin, and stays there.
    for (const weight of [2, 3, 4]) {
      const result = saveModel(weighted(weight), target, { externalData: { location: 'weights.bin' } });
      expect(result.renamedData).toEqual([{ requested: path.join(dir, 'weights.bin'), actual: path.join(dir, 'out.onnx.weights.bin') }]);
      expect(result.written).toEqual([path.join(dir, 'out.onnx.weights.bin'), target]);
      expect(weightOf(target)).toBe(weight);
      expect(readdirSync(dir).sort()).toEqual(['other.onnx', 'out.onnx', 'out.onnx.weights.bin', 'weights.bin']);
    }
    expect(weightOf(path.join(dir, 'other.onnx'))).toBe(1);
    // A data file the output itself named is replaced under that name.
    for (const weight of [5, 6, 7]) {
      const result = saveModel(weighted(weight), path.join(dir, 'mine.onnx'), { externalData: { location: 'mine.bin' } });
      expect(result.renamedData).toEqual([]);
      expect(weightOf(path.join(dir, 'mine.onnx'))).toBe(weight);
    }
    expect(readdirSync(dir).sort()).toEqual(['mine.bin', 'mine.onnx', 'other.onnx', 'out.onnx', 'out.onnx.weights.bin', 'weights.bin']);
    // Gathered elsewhere, the old data file named after the output goes.
    const moved = saveModel(weighted(8), target, { externalData: { location: 'gathered.bin' } });
    expect(moved.removed).toEqual([path.join(dir, 'out.onnx.weights.bin')]);
    expect(readdirSync(dir).sort()).toEqual(['gathered.bin', 'mine.bin', 'mine.onnx', 'other.onnx', 'out.onnx', 'weights.bin']);
  });

  it('a failure at any step before the commit leaves the old set complete and nothing new', () => {
    for (const step of ['data-placed', 'model-written']) {
      const dir = fresh();
      const target = path.join(dir, 'out.onnx');
      saveModel(weighted(1), target, { externalData: { location: 'out.data' } });
      const before = readdirSync(dir).sort();
      setWriteFaultHook((at) => {
        if (at === step) throw new Error(`injected fault at ${at}`);
      });
      const e = errorOf(() => saveModel(weighted(2), target, { externalData: { location: 'out.data' } }));
      expect(e.code).toBe('WRITE_FAILED');
      expect(e.message).toContain('nothing was written');
      setWriteFaultHook(undefined);
      expect(readdirSync(dir).sort()).toEqual(before);
      expect(weightOf(target)).toBe(1);
    }
  });

  it('a kill -9 at any step leaves a complete old or new set (never the old model with new data)', () => {
    const script = path.join(repoRoot, 'dist/onnx/safe-write.js');
    // The second save replaces out.data, which the first model reads: its data goes in under an
    // interim name, and takes out.data's name only after the commit (data-replaced, model-repointed).
    for (const [step, expected] of [['data-placed', 1], ['model-written', 1], ['model-committed', 2], ['data-replaced', 2], ['model-repointed', 2]] as const) {
      const dir = fresh();
      const target = path.join(dir, 'out.onnx');
      saveModel(weighted(1), target, { externalData: { location: 'out.data' } });
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', `
        const { setWriteFaultHook } = await import(${JSON.stringify(script)});
        const { saveModel } = await import(${JSON.stringify(path.join(repoRoot, 'dist/onnx/model-io.js'))});
        const { onnx } = await import(${JSON.stringify(path.join(repoRoot, 'dist/onnx/codec.js'))});
        const m = onnx.ModelProto.decode(Buffer.from(${JSON.stringify(Buffer.from(encodeModel(weighted(2))).toString('base64'))}, 'base64'));
        setWriteFaultHook((at) => { if (at === ${JSON.stringify(step)}) process.kill(process.pid, 'SIGKILL'); });
        saveModel(m, ${JSON.stringify(target)}, { externalData: { location: 'out.data' } });
      `]);
      expect(child.signal, step).toBe('SIGKILL');
      expect(weightOf(target), step).toBe(expected);
    }
    // Without a crash, one data file under its name.
    const dir = fresh();
    const target = path.join(dir, 'out.onnx');
    saveModel(weighted(1), target, { externalData: { location: 'out.data' } });
    const order: string[] = [];
    setWriteFaultHook((at) => order.push(at));
    saveModel(weighted(2), target, { externalData: { location: 'out.data' } });
    setWriteFaultHook(undefined);
    expect(order).toEqual(['model-written', 'data-placed', 'model-committed', 'data-replaced', 'file-committed', 'model-repointed']);
    expect(readdirSync(dir).sort()).toEqual(['out.data', 'out.onnx']);
    expect(weightOf(target)).toBe(2);
  });
});

describe('a batch of outputs (the door)', () => {
  it('a failure after some files are committed puts the old ones back: nothing was written', () => {
    const dir = fresh();
    const report = path.join(dir, 'a.json');
    writeFileSync(report, 'old report');
    const target = path.join(dir, 'out.onnx');
    const batch = new OutputBatch();
    batch.stage(report, '--report', Buffer.from('{}'));
    saveModel(weighted(2), target, { externalData: { location: 'out.data' }, batch });
    expect(tempFiles(dir)).toHaveLength(3);
    setWriteFaultHook((at) => {
      if (at === 'file-committed') throw Object.assign(new Error('injected'), { code: 'EIO' });
    });
    const e = errorOf(() => batch.commit());
    expect(e.code).toBe('WRITE_FAILED');
    expect(e.message).toContain(`the output model ${target}: cannot write (EIO); nothing was written, the old files are as they were`);
    expect(readFileSync(report, 'utf8')).toBe('old report');
    // The model's data file went again with the model: nothing reads it; no backup is left.
    expect(readdirSync(dir).sort()).toEqual(['a.json']);
  });

  it('a failure while staging removes every temporary and says nothing was written', () => {
    const dir = fresh();
    const batch = new OutputBatch();
    batch.stage(path.join(dir, 'a.md'), '--report', Buffer.from('x'));
    mkdirSync(path.join(dir, 'b.json'));
    const e = errorOf(() => batch.stage(path.join(dir, 'b.json'), '--report', Buffer.from('y')));
    expect(e.code).toBe('UNSAFE_PATH');
    expect(e.message).toContain('is a folder');
    expect(readdirSync(dir)).toEqual(['b.json']);
  });

  it('the model is committed after every other file of its batch', () => {
    const dir = fresh();
    const order: string[] = [];
    const batch = new OutputBatch();
    saveModel(weighted(2), path.join(dir, 'out.onnx'), { externalData: { location: 'out.data' }, batch });
    batch.stage(path.join(dir, 'a.html'), '--report', Buffer.from('<p>'));
    setWriteFaultHook((at) => order.push(at));
    expect(batch.commit().map((f) => path.basename(f))).toEqual(['out.data', 'a.html', 'out.onnx']);
    expect(order).toEqual(['data-placed', 'file-committed', 'model-committed']);
  });

  it('writeFileAtomically refuses a FIFO instead of replacing it', () => {
    const dir = fresh();
    const fifo = path.join(dir, 'report.json');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(errorOf(() => writeFileAtomically(fifo, Buffer.from('x'))).message).toContain('is a FIFO');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });
});

describe('temporary files', () => {
  it('are exclusive: a symlink planted at the temporary name is never written through', () => {
    const dir = fresh();
    const outside = path.join(fresh(), 'victim.txt');
    writeFileSync(outside, 'precious');
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const temp = `.report.md.amp-rewrite-${process.pid}-${(0.5).toString(36).slice(2, 10)}.tmp`;
    symlinkSync(outside, path.join(dir, temp));
    expect(() => writeFileAtomically(path.join(dir, 'report.md'), Buffer.from('new'))).toThrow(/EEXIST/);
    expect(readFileSync(outside, 'utf8')).toBe('precious');
    expect(existsSync(path.join(dir, 'report.md'))).toBe(false);
  });

  it('are removed when SIGTERM or SIGINT arrives, and the process still dies of the signal', () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const dir = fresh();
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', `
        const { createTemporary } = await import(${JSON.stringify(path.join(repoRoot, 'dist/onnx/safe-write.js'))});
        createTemporary(${JSON.stringify(path.join(dir, 'model.onnx'))});
        process.kill(process.pid, '${signal}');
        setTimeout(() => {}, 10_000);
      `], { timeout: 20_000 });
      expect(child.signal).toBe(signal);
      expect(tempFiles(dir)).toEqual([]);
    }
  });

  it('are gone after a successful save', () => {
    const dir = fresh();
    mkdirSync(path.join(dir, 'x'));
    saveModel(weighted(1), path.join(dir, 'x', 'm.onnx'), { externalData: { location: 'm.data' } });
    expect(tempFiles(path.join(dir, 'x'))).toEqual([]);
  });
});
