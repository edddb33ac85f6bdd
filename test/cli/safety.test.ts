/**
 * The CLI against a hostile user: outputs that reach an input, report collisions, external data
 * escaping the model folder, models the checker rejects, names with terminal escapes. Each case
 * is exit 2 with one line naming the file, node or tensor, and no file is damaged.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeModel, onnx } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { saveModel } from '../../src/onnx/model-io.js';
import { repoRoot } from '../support/corpus.js';
import { floatTensor, model, node, valueInfo } from '../support/models.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');

function cli(args: string[], cwd?: string) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd, timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** y = MatMul(x, w) with a 2 KiB weight: converted by the pass. */
function matmul(name = 'mm'): onnx.ModelProto {
  return model({
    node: [node('MatMul', ['x', 'w'], ['y'], name)],
    input: [valueInfo('x', DataType.FLOAT, [1, 32])],
    output: [valueInfo('y', DataType.FLOAT, [1, 16])],
    initializer: [floatTensor('w', [32, 16], new Array(512).fill(0.5))],
  });
}

function setup(): { dir: string; input: string; bytes: Buffer } {
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-cli-safety-'));
  const input = path.join(dir, 'model.onnx');
  const bytes = Buffer.from(encodeModel(matmul()));
  writeFileSync(input, bytes);
  return { dir, input, bytes };
}

function expectRefused(result: ReturnType<typeof cli>, code: string): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toContain(`[${code}]`);
}

describe('the CLI never overwrites an input', () => {
  it('-o reaching the input through a symlinked folder', () => {
    const { dir, input, bytes } = setup();
    symlinkSync(dir, path.join(dir, 'via'));
    expectRefused(cli([input, '-o', path.join(dir, 'via', 'model.onnx')]), 'UNSAFE_PATH');
    expect(readFileSync(input).equals(bytes)).toBe(true);
  });

  it('-o reaching the input through /proc/self/cwd', () => {
    const { dir, input, bytes } = setup();
    expectRefused(cli(['model.onnx', '-o', '/proc/self/cwd/model.onnx'], dir), 'UNSAFE_PATH');
    expect(readFileSync(input).equals(bytes)).toBe(true);
  });

  it('-o through a symlink to the input', () => {
    const { dir, input, bytes } = setup();
    symlinkSync(input, path.join(dir, 'link.onnx'));
    expectRefused(cli([input, '-o', path.join(dir, 'link.onnx')]), 'UNSAFE_PATH');
    expect(readFileSync(input).equals(bytes)).toBe(true);
  });

  it("-o naming the input's external data file", () => {
    const { dir } = setup();
    const input = path.join(dir, 'ext.onnx');
    saveModel(matmul(), input, { externalData: { location: 'ext.data' } });
    const data = readFileSync(path.join(dir, 'ext.data'));
    const result = cli([input, '-o', path.join(dir, 'ext.data')]);
    expectRefused(result, 'UNSAFE_PATH');
    expect(result.stderr).toContain("external data of tensor 'w'");
    expect(readFileSync(path.join(dir, 'ext.data')).equals(data)).toBe(true);
  });

  it('--report equal to -o, to the input, or to another --report', () => {
    const { dir, input, bytes } = setup();
    const out = path.join(dir, 'out.onnx');
    expectRefused(cli([input, '-o', out, '--report', path.join(dir, 'same.md'), '--report', path.join(dir, 'via', '..', 'same.md')]), 'UNSAFE_PATH');
    expectRefused(cli([input, '-o', path.join(dir, 'out.md'), '--report', path.join(dir, 'out.md')]), 'UNSAFE_PATH');
    writeFileSync(path.join(dir, 'model.json'), '{}');
    expectRefused(cli([input, '--dry-run', '--report', path.join(dir, 'model.json'), '--rules', path.join(dir, 'model.json')]), 'UNSAFE_PATH');
    expect(readFileSync(input).equals(bytes)).toBe(true);
    expect(readFileSync(path.join(dir, 'model.json'), 'utf8')).toBe('{}');
    expect(existsSync(out)).toBe(false);
  });
});

describe('external data outside the model folder', () => {
  it('--external-data embed does not copy a file a symlink points at', () => {
    const { dir } = setup();
    const secretDir = mkdtempSync(path.join(tmpdir(), 'amp-secret-'));
    const modelDir = path.join(dir, 'm');
    mkdirSync(modelDir);
    saveModel(matmul(), path.join(secretDir, 'model.onnx'), { externalData: { location: 'weights.bin' } });
    writeFileSync(path.join(modelDir, 'model.onnx'), readFileSync(path.join(secretDir, 'model.onnx')));
    symlinkSync(path.join(secretDir, 'weights.bin'), path.join(modelDir, 'weights.bin'));
    const out = path.join(dir, 'embedded.onnx');
    const result = cli([path.join(modelDir, 'model.onnx'), '-o', out, '--external-data', 'embed']);
    expectRefused(result, 'UNSAFE_PATH');
    expect(result.stderr).toContain('--allow-external-outside');
    expect(existsSync(out)).toBe(false);
    expect(cli([path.join(modelDir, 'model.onnx'), '-o', out, '--external-data', 'embed', '--allow-external-outside', '-q']).code).toBe(0);
  });
});

describe('rewriting to the same -o again', () => {
  it('keeps one data file under one stable name, replaced each time, with nothing orphaned', () => {
    const { dir } = setup();
    const input = path.join(dir, 'in', 'model.onnx');
    mkdirSync(path.dirname(input));
    saveModel(matmul(), input, { externalData: { location: 'model.onnx.data' } });
    const out = path.join(dir, 'out');
    mkdirSync(out);
    // Gathered in a named file, kept in the input's layout (copied beside the output), and
    // gathered under a name another model's data file already has.
    writeFileSync(path.join(out, 'taken.data'), 'another model reads this');
    const runs: Array<[string, string[], string[]]> = [
      ['gathered.onnx', ['--external-data', 'weights.data'], ['gathered.onnx', 'weights.data']],
      ['kept.onnx', ['--weights', 'fp32'], ['kept.onnx', 'model.onnx.data']],
      ['beside.onnx', ['--external-data', 'taken.data'], ['beside.onnx', 'beside.onnx.taken.data']],
    ];
    for (const [name, options, files] of runs) {
      for (let run = 1; run <= 3; run++) {
        const result = cli([input, '-o', path.join(out, name), '-q', '--no-verify', ...options]);
        expect(result.code, result.stderr).toBe(0);
        const written = readdirSync(out).filter((f) => f.startsWith(name.replace('.onnx', '')) || files.includes(f));
        expect(written.sort(), `${name}, run ${run}`).toEqual([...files].sort());
        expect(cli([path.join(out, name), '--dry-run', '-q', '--no-verify']).code, `${name} loads, run ${run}`).toBe(0);
      }
    }
    expect(readdirSync(out).sort()).toEqual([...runs.flatMap(([, , files]) => files), 'taken.data'].sort());
    expect(readFileSync(path.join(out, 'taken.data'), 'utf8')).toBe('another model reads this');
  });
});

describe('bad models are exit 2, not crashes', () => {
  it('a 2-byte file with no graph', () => {
    const { dir } = setup();
    writeFileSync(path.join(dir, 'tiny.onnx'), Uint8Array.from([0x08, 0x07]));
    const result = cli([path.join(dir, 'tiny.onnx'), '-o', path.join(dir, 'tiny.out.onnx')]);
    expectRefused(result, 'INVALID_MODEL');
    expect(result.stderr).toContain('the model has no graph');
    expectRefused(cli(['inspect', path.join(dir, 'tiny.onnx')]), 'INVALID_MODEL');
  });

  it('a float weight whose raw length is not a multiple of 4', () => {
    const { dir } = setup();
    const m = matmul();
    const w = m.graph!.initializer![0]!;
    w.raw_data = (w.raw_data as Uint8Array).subarray(0, 2047);
    writeFileSync(path.join(dir, 'odd.onnx'), encodeModel(m));
    const result = cli([path.join(dir, 'odd.onnx'), '-o', path.join(dir, 'odd.out.onnx')]);
    expectRefused(result, 'INVALID_MODEL');
    expect(result.stderr).toContain("tensor 'w' (graph): float [32,16] needs 2048 bytes of raw_data, it has 2047");
  });

  it('control characters and huge names are escaped and cut in errors', () => {
    const { dir } = setup();
    const evil = `\u001b[2J\u001b[31m${'x'.repeat(100_000)}`;
    const m = matmul();
    m.graph!.initializer!.push(floatTensor(evil, [1], [1]), floatTensor(evil, [1], [1]));
    writeFileSync(path.join(dir, 'evil.onnx'), encodeModel(m));
    const result = cli([path.join(dir, 'evil.onnx'), '--dry-run']);
    expectRefused(result, 'INVALID_MODEL');
    expect(result.stderr).not.toContain('\u001b');
    expect(result.stderr).toContain('\\x1b[2J');
    expect(result.stderr.length).toBeLessThan(1000);
  });
});

describe('names in the summary', () => {
  it('terminal escapes in node names never reach stdout raw, and long names are cut', () => {
    const { dir } = setup();
    const evil = `\u001b]0;owned\u0007\u001b[2J${'n'.repeat(50_000)}`;
    const m = model({
      node: [node('MatMul', ['x', 'w'], ['h'], 'mm'), node('Softmax', ['h'], ['y'], evil)],
      input: [valueInfo('x', DataType.FLOAT, [1, 32])],
      output: [valueInfo('y', DataType.FLOAT, [1, 16])],
      initializer: [floatTensor('w', [32, 16], new Array(512).fill(0.5))],
    });
    writeFileSync(path.join(dir, 'names.onnx'), encodeModel(m));
    for (const extra of [[], ['--json']]) {
      const result = cli([path.join(dir, 'names.onnx'), '--dry-run', ...extra]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      if (extra.length) expect(() => JSON.parse(result.stdout)).not.toThrow();
      else {
        expect(result.stdout).toContain('\\x1b]0;owned\\x07');
        expect(result.stdout.length).toBeLessThan(5000);
      }
    }
  });
});

describe('nothing to convert', () => {
  it('writes the input byte for byte even when its encoding is not canonical', () => {
    const { dir } = setup();
    const relu = model({ node: [node('Relu', ['x'], ['y'])], input: [valueInfo('x', 1, [2])], output: [valueInfo('y', 1, [2])] });
    const canonical = Buffer.from(encodeModel(relu));
    // ir_version (field 1, 2 bytes) moved to the end: valid protobuf, but not what an encoder writes.
    const reordered = Buffer.concat([canonical.subarray(2), canonical.subarray(0, 2)]);
    expect(canonical[0]).toBe(0x08);
    const input = path.join(dir, 'relu.onnx');
    writeFileSync(input, reordered);
    const out = path.join(dir, 'relu.out.onnx');
    const result = cli([input, '-o', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('nothing to convert');
    expect(readFileSync(out).equals(reordered)).toBe(true);
    expect(readdirSync(dir).filter((f) => f.includes('.amp-rewrite-'))).toEqual([]);
  });
});
