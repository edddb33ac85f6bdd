/**
 * The one door every output goes through (src/onnx/safe-write.ts), from the command line: an
 * output naming a device, FIFO or folder is refused, not replaced; a report that cannot be
 * written leaves no model behind; AMP_REWRITE_PROFILE follows the same rules as any output.
 * Each case: exit 2, one line naming the file, nothing written.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { repoRoot } from '../support/corpus.js';
import { floatTensor, model, node, valueInfo } from '../support/models.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');

function cli(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, ...env } });
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

function setup(): { dir: string; input: string; bytes: Buffer } {
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-door-'));
  const input = path.join(dir, 'model.onnx');
  const bytes = Buffer.from(
    encodeModel(
      model({
        node: [node('MatMul', ['x', 'w'], ['y'], 'mm')],
        input: [valueInfo('x', DataType.FLOAT, [1, 32])],
        output: [valueInfo('y', DataType.FLOAT, [1, 16])],
        initializer: [floatTensor('w', [32, 16], new Array(512).fill(0.5))],
      }),
    ),
  );
  writeFileSync(input, bytes);
  return { dir, input, bytes };
}

function expectRefused(result: ReturnType<typeof cli>, code: string, mention: string): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toContain(`[${code}]`);
  expect(result.stderr).toContain(mention);
}

/** mknod/mkfifo in the test's folder; undefined where the system refuses (no privilege). */
function special(kind: 'device' | 'fifo', file: string): string | undefined {
  const made = kind === 'device' ? spawnSync('mknod', ['-m', '666', file, 'c', '1', '3']) : spawnSync('mkfifo', [file]);
  return made.status === 0 ? file : undefined;
}

const kindOf = (file: string): string => {
  const stats = lstatSync(file);
  return stats.isCharacterDevice() ? 'device' : stats.isFIFO() ? 'fifo' : stats.isDirectory() ? 'folder' : stats.isFile() ? 'file' : 'other';
};

describe('an output that is not a regular file is refused, never replaced', () => {
  it('-o naming a character device (mknod c 1 3, a fake /dev/null)', (context) => {
    const { dir, input } = setup();
    const device = special('device', path.join(dir, 'fakenull'));
    if (!device) return context.skip('mknod is not permitted here');
    expectRefused(cli([input, '-o', device]), 'UNSAFE_PATH', 'is a device');
    expect(kindOf(device)).toBe('device');
  });

  it('--report naming a FIFO: refused at once (no hang), and the model is not written either', () => {
    const { dir, input } = setup();
    const fifo = special('fifo', path.join(dir, 'fifo.json')) as string;
    const out = path.join(dir, 'out.onnx');
    expectRefused(cli([input, '-o', out, '--report', fifo]), 'UNSAFE_PATH', 'is a FIFO');
    expect(kindOf(fifo)).toBe('fifo');
    expect(existsSync(out)).toBe(false);
  });

  it('-o naming a folder, and -o through a symlink to a device', () => {
    const { dir, input } = setup();
    mkdirSync(path.join(dir, 'folder.onnx'));
    expectRefused(cli([input, '-o', path.join(dir, 'folder.onnx')]), 'UNSAFE_PATH', 'is a folder');
    expect(kindOf(path.join(dir, 'folder.onnx'))).toBe('folder');
    spawnSync('ln', ['-s', '/dev/null', path.join(dir, 'null.onnx')]);
    expectRefused(cli([input, '-o', path.join(dir, 'null.onnx')]), 'UNSAFE_PATH', 'is a device');
  });
});

describe('every output folder is checked before anything is written', () => {
  it('-o out.onnx --report /nonexistent/a.html: exit 2 and out.onnx is not written', () => {
    const { dir, input } = setup();
    const out = path.join(dir, 'out.onnx');
    expectRefused(cli([input, '-o', out, '--report', '/nonexistent-amp-door/a.html']), 'WRITE_FAILED', 'does not exist');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir)).toEqual(['model.onnx']);
  });

  it('--report under a regular file (not a folder): exit 2, nothing written', () => {
    const { dir, input } = setup();
    writeFileSync(path.join(dir, 'notes.txt'), 'x');
    const out = path.join(dir, 'out.onnx');
    expectRefused(cli([input, '-o', out, '--report', path.join(dir, 'notes.txt', 'a.json')]), 'WRITE_FAILED', 'notes.txt');
    expect(existsSync(out)).toBe(false);
  });

  it('a report and the model are committed together: both written, no temporary left', () => {
    const { dir, input } = setup();
    const result = cli([input, '-o', path.join(dir, 'out.onnx'), '--report', path.join(dir, 'a.json'), '-q']);
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'model.onnx', 'out.onnx']);
  });
});

describe('AMP_REWRITE_PROFILE goes through the same door', () => {
  it('naming the input model: refused before any work; the input is unchanged and no output written', () => {
    const { dir, input, bytes } = setup();
    const out = path.join(dir, 'x.onnx');
    expectRefused(cli([input, '-o', out], { AMP_REWRITE_PROFILE: input }), 'UNSAFE_PATH', 'AMP_REWRITE_PROFILE');
    expect(readFileSync(input).equals(bytes)).toBe(true);
    expect(existsSync(out)).toBe(false);
  });

  it('naming -o itself, a FIFO (no hang) or a missing folder: exit 2 in one line, no stack', () => {
    const { dir, input } = setup();
    const out = path.join(dir, 'x.onnx');
    expectRefused(cli([input, '-o', out], { AMP_REWRITE_PROFILE: out }), 'UNSAFE_PATH', 'AMP_REWRITE_PROFILE');
    const fifo = special('fifo', path.join(dir, 'profile.fifo')) as string;
    expectRefused(cli([input, '-o', out], { AMP_REWRITE_PROFILE: fifo }), 'UNSAFE_PATH', 'is a FIFO');
    expect(kindOf(fifo)).toBe('fifo');
    expectRefused(cli([input, '-o', out], { AMP_REWRITE_PROFILE: '/nonexistent-amp-door/p.json' }), 'WRITE_FAILED', 'AMP_REWRITE_PROFILE');
    expect(existsSync(out)).toBe(false);
  });

  it('naming a fresh file: written at exit as JSON, beside the model', () => {
    const { dir, input } = setup();
    const profile = path.join(dir, 'p.json');
    const result = cli([input, '-o', path.join(dir, 'x.onnx'), '-q'], { AMP_REWRITE_PROFILE: profile });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(readFileSync(profile, 'utf8'))).toHaveProperty('passMs');
    expect(readdirSync(dir).sort()).toEqual(['model.onnx', 'p.json', 'x.onnx']);
  });
});
