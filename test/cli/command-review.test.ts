/**
 * The merged commands used carelessly or with hostile paths: every output is checked against
 * every input (symlinks and hard links included) before anything is written, options a command
 * ignores are refused with why, and --json prints one JSON document on stdout.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { repoRoot } from '../support/corpus.js';
import { floatTensor, model, node, valueInfo } from '../support/models.js';
import { saveModel } from '../../src/onnx/model-io.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');

function cli(args: string[], cwd: string) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd, timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A folder holding a copy of the conv-block fixture as model.onnx. */
function setup(): { dir: string; bytes: Buffer } {
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-cli-review-'));
  copyFileSync(path.join(repoRoot, 'fixtures/conv-block/model.onnx'), path.join(dir, 'model.onnx'));
  return { dir, bytes: readFileSync(path.join(dir, 'model.onnx')) };
}

function expectRefused(result: ReturnType<typeof cli>, code: string, text?: string): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toContain(`[${code}]`);
  if (text) expect(result.stderr).toContain(text);
}

describe('tune writes only files of its own', () => {
  it('--overrides naming the input model is refused before anything is written', () => {
    const { dir, bytes } = setup();
    expectRefused(cli(['tune', 'model.onnx', '-o', 'out.onnx', '--overrides', 'model.onnx'], dir), 'UNSAFE_PATH', '--overrides');
    expect(readFileSync(path.join(dir, 'model.onnx')).equals(bytes)).toBe(true);
    expect(existsSync(path.join(dir, 'out.onnx'))).toBe(false);
  });

  it('-o reaching the input through a symlink, and --report twice, are refused', () => {
    const { dir, bytes } = setup();
    symlinkSync('model.onnx', path.join(dir, 'link.onnx'));
    expectRefused(cli(['tune', 'link.onnx', '-o', 'model.onnx'], dir), 'UNSAFE_PATH', 'the input model');
    expectRefused(cli(['tune', 'model.onnx', '-o', 'out.onnx', '--report', 'a.json', '--report', 'a.json'], dir), 'UNSAFE_PATH', 'same file');
    expect(readFileSync(path.join(dir, 'model.onnx')).equals(bytes)).toBe(true);
  });

  it('--report a.html is an HTML page, and a --report with another extension is refused', () => {
    const { dir } = setup();
    const ok = cli(['tune', 'model.onnx', '-o', 'out.onnx', '--report', 'audit.html', '-q'], dir);
    expect(ok.code, ok.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'audit.html'), 'utf8')).toMatch(/^<!DOCTYPE html>/);
    expectRefused(cli(['tune', 'model.onnx', '-o', 'out2.onnx', '--report', 'model.onnx'], dir), 'BAD_OPTION', '.json, .md or .html');
  });

  it('--json prints one JSON document and nothing else on stdout', () => {
    const { dir } = setup();
    const result = cli(['tune', 'model.onnx', '-o', 'out.onnx', '--json'], dir);
    expect(result.code, result.stderr).toBe(0);
    const parsed = JSON.parse(result.stdout) as { pass: boolean; written: string[] };
    expect(parsed.pass).toBe(true);
    expect(parsed.written).toContain('out.onnx');
  });

  it('a NaN or negative tolerance is a bad option, not a search that fails or passes', () => {
    const { dir } = setup();
    expectRefused(cli(['tune', 'model.onnx', '-o', 'out.onnx', '--atol', 'NaN'], dir), 'BAD_OPTION', '--atol');
    expectRefused(cli(['tune', 'model.onnx', '-o', 'out.onnx', '--rtol', '-1'], dir), 'BAD_OPTION', '--rtol');
    expect(existsSync(path.join(dir, 'out.onnx'))).toBe(false);
  });

  it('rewrite options tune ignores are refused with why', () => {
    const { dir } = setup();
    for (const option of [['--state', 'inputs'], ['--dry-run'], ['--calibrate'], ['--headroom', '4'], ['--loss-scale', 'none']]) {
      expectRefused(cli(['tune', 'model.onnx', '-o', 'out.onnx', ...option], dir), 'BAD_OPTION', `${option[0]} does not apply to tune`);
    }
  });
});

describe('inspect --report', () => {
  it('never replaces the model through a symlink', () => {
    const { dir, bytes } = setup();
    symlinkSync('model.onnx', path.join(dir, 'audit.json'));
    expectRefused(cli(['inspect', 'model.onnx', '--report', 'audit.json'], dir), 'UNSAFE_PATH', 'the input model');
    expect(readFileSync(path.join(dir, 'model.onnx')).equals(bytes)).toBe(true);
  });

  it('--state is refused: inspect writes no model', () => {
    const { dir } = setup();
    expectRefused(cli(['inspect', 'model.onnx', '--state', 'inputs'], dir), 'BAD_OPTION', '--state does not apply to inspect');
  });
});

describe('report', () => {
  function withAudit(): { dir: string; audit: Buffer } {
    const { dir } = setup();
    const written = cli(['model.onnx', '--dry-run', '-q', '--report', 'audit.json'], dir);
    expect(written.code, written.stderr).toBe(0);
    return { dir, audit: readFileSync(path.join(dir, 'audit.json')) };
  }

  it('-o reaching the audit through a symlink or a hard link is refused, the audit intact', () => {
    const { dir, audit } = withAudit();
    symlinkSync('audit.json', path.join(dir, 'soft.html'));
    linkSync(path.join(dir, 'audit.json'), path.join(dir, 'hard.html'));
    expectRefused(cli(['report', 'audit.json', '-o', 'soft.html'], dir), 'UNSAFE_PATH', 'the input audit');
    expectRefused(cli(['report', 'audit.json', '-o', 'hard.html'], dir), 'UNSAFE_PATH', 'the input audit');
    expect(readFileSync(path.join(dir, 'audit.json')).equals(audit)).toBe(true);
  });

  it('a FIFO or a folder as the audit is exit 2 at once, not a hang', () => {
    const { dir } = setup();
    const fifo = spawnSync('mkfifo', [path.join(dir, 'fifo.json')]);
    if (fifo.status === 0) expectRefused(cli(['report', 'fifo.json', '-o', 'page.html'], dir), 'READ_FAILED', 'FIFO');
    expectRefused(cli(['report', '.', '-o', 'page.html'], dir), 'READ_FAILED', 'folder');
  });

  it('--json prints JSON, -q prints nothing', () => {
    const { dir } = withAudit();
    const json = cli(['report', 'audit.json', '-o', 'page.html', '--json'], dir);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ wrote: 'page.html', nodes: 9 });
    const quiet = cli(['report', 'audit.json', '-o', 'page2.html', '-q'], dir);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toBe('');
  });
});

describe('--rules', () => {
  it('a FIFO is exit 2 at once, not a hang', () => {
    const { dir } = setup();
    if (spawnSync('mkfifo', [path.join(dir, 'rules.json')]).status !== 0) return;
    expectRefused(cli(['model.onnx', '--dry-run', '--rules', 'rules.json'], dir), 'READ_FAILED', '--rules');
  });
});

describe('example', () => {
  it('a huge --hidden is a bad option, not an internal error', () => {
    const { dir } = setup();
    expectRefused(cli(['example', 'mlp', '-o', 'ex.onnx', '--hidden', '1e12'], dir), 'BAD_OPTION', '--hidden');
    expectRefused(cli(['example', 'mlp', '-o', 'ex.onnx', '--lr', 'Infinity'], dir), 'BAD_OPTION', '--lr');
    expectRefused(cli(['example', 'mlp', '-o', 'ex.onnx', '--seed', 'NaN'], dir), 'BAD_OPTION', '--seed');
    expect(existsSync(path.join(dir, 'ex.onnx'))).toBe(false);
  });

  it('--json prints JSON, -q prints nothing', () => {
    const { dir } = setup();
    const json = cli(['example', 'mlp', '-o', 'ex.onnx', '--json'], dir);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ wrote: 'ex.onnx', kind: 'mlp' });
    const quiet = cli(['example', 'mlp', '-o', 'ex2.onnx', '-q'], dir);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toBe('');
  });
});

describe('run --save-outputs, bench --out, train --json FILE', () => {
  it('run --save-outputs naming a file is exit 2, not an internal error', () => {
    const { dir, bytes } = setup();
    expectRefused(cli(['run', 'model.onnx', '--save-outputs', 'model.onnx'], dir), 'WRITE_FAILED', 'must be a folder');
    expect(readFileSync(path.join(dir, 'model.onnx')).equals(bytes)).toBe(true);
  });

  it('run --save-outputs never replaces an --inputs file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-cli-review-'));
    const identity = model({
      node: [node('Identity', ['x'], ['y'], 'copy')],
      input: [valueInfo('x', DataType.FLOAT, [1, 4])],
      output: [valueInfo('y', DataType.FLOAT, [1, 4])],
    });
    writeFileSync(path.join(dir, 'identity.onnx'), encodeModel(identity));
    const saved = cli(['run', 'identity.onnx', '--save-outputs', 'out'], dir);
    expect(saved.code, saved.stderr).toBe(0);
    const input = readFileSync(path.join(dir, 'out', 'output_0.pb'));
    // out/output_0.pb fed as x, and y saved into out/ again: the output file would be the input file.
    expectRefused(cli(['run', 'identity.onnx', '--save-outputs', 'out', '--inputs', 'x=out/output_0.pb'], dir), 'UNSAFE_PATH', 'an --inputs file');
    expect(readFileSync(path.join(dir, 'out', 'output_0.pb')).equals(input)).toBe(true);
  });

  it('bench --out naming the input model is refused before any run', () => {
    const { dir, bytes } = setup();
    expectRefused(cli(['bench', 'model.onnx', '--out', 'model.onnx', '--runs', '1', '--warmup', '0', '--isolation', 'in-process'], dir), 'UNSAFE_PATH', '--out');
    expect(readFileSync(path.join(dir, 'model.onnx')).equals(bytes)).toBe(true);
    expectRefused(cli(['bench', 'model.onnx', '--state', 'inputs'], dir), 'BAD_OPTION', '--state does not apply to bench');
    expectRefused(cli(['bench', 'model.onnx', '--batch-search', '--max-batch', '-1'], dir), 'BAD_OPTION', '--max-batch');
  });

  it('train --json FILE naming the graph is refused before training; bad counts are bad options', () => {
    const { dir } = setup();
    expect(cli(['example', 'mlp', '-o', 'step.onnx', '-q'], dir).code).toBe(0);
    const bytes = readFileSync(path.join(dir, 'step.onnx'));
    expectRefused(cli(['train', 'step.onnx', '--json', 'step.onnx', '--max-steps', '1', '-q'], dir), 'UNSAFE_PATH', '--json');
    expect(readFileSync(path.join(dir, 'step.onnx')).equals(bytes)).toBe(true);
    expectRefused(cli(['train', 'step.onnx', '--max-steps', '-1'], dir), 'BAD_OPTION', '--max-steps');
    expectRefused(cli(['train', 'step.onnx', '--epochs', '1.5'], dir), 'BAD_OPTION', '--epochs');
    expectRefused(cli(['train', 'step.onnx', '--batch', '1e12', '--max-steps', '1'], dir), 'BAD_OPTION', 'training examples');
  });
});

describe('--allow-external-outside', () => {
  it('is honoured by inspect and bench, not silently ignored', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-cli-review-'));
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'amp-cli-elsewhere-'));
    const matmul = model({
      node: [node('MatMul', ['x', 'w'], ['y'], 'mm')],
      input: [valueInfo('x', DataType.FLOAT, [1, 32])],
      output: [valueInfo('y', DataType.FLOAT, [1, 16])],
      initializer: [floatTensor('w', [32, 16], new Array(512).fill(0.5))],
    });
    saveModel(matmul, path.join(elsewhere, 'model.onnx'), { externalData: { location: 'weights.bin' } });
    copyFileSync(path.join(elsewhere, 'model.onnx'), path.join(dir, 'model.onnx'));
    symlinkSync(path.join(elsewhere, 'weights.bin'), path.join(dir, 'weights.bin'));
    expectRefused(cli(['inspect', 'model.onnx'], dir), 'UNSAFE_PATH', '--allow-external-outside');
    const inspected = cli(['inspect', 'model.onnx', '--allow-external-outside'], dir);
    expect(inspected.code, inspected.stderr).toBe(0);
    const benched = cli(['bench', 'model.onnx', '--allow-external-outside', '--runs', '1', '--warmup', '0', '--isolation', 'in-process', '-q'], dir);
    expect(benched.stderr).not.toContain('UNSAFE_PATH');
  });
});

describe('-q on run and compare', () => {
  it('prints nothing; compare still says pass or fail by its exit code', () => {
    const { dir } = setup();
    const run = cli(['run', 'model.onnx', '-q', '--save-outputs', 'out'], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect(existsSync(path.join(dir, 'out', 'output_0.pb'))).toBe(true);
    const same = cli(['compare', 'model.onnx', 'model.onnx', '-q'], dir);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toBe('');
  });
});

describe('--help lists what the command takes', () => {
  it('inspect, tune and bench --help leave out the shared options that are errors for them', () => {
    const { dir } = setup();
    const listed = (command: string) => cli([command, '--help'], dir).stdout;
    expect(listed('inspect')).not.toMatch(/--dry-run|--calibrate|--external-data|-o, --output/);
    expect(listed('tune')).not.toMatch(/--dry-run|--calibrate|--headroom|--state |--loss-scale /);
    expect(listed('tune')).toMatch(/--output +where to write the tuned model/);
    expect(listed('bench')).not.toMatch(/--dry-run|--calibrate|--state /);
    // bench's own --report: its charts page, not the rewrite's audit.
    expect(listed('bench')).toMatch(/--report +write the figures as charts/);
    expect(listed('inspect')).toMatch(/--report/);
  });

  it('inspect --report audit.html, as its --help says, draws the page', () => {
    const { dir } = setup();
    const result = cli(['inspect', 'model.onnx', '-q', '--report', 'audit.html'], dir);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'audit.html'), 'utf8')).toMatch(/^<!DOCTYPE html>/);
  });
});

describe('tune on a training step graph', () => {
  it('is refused: the list-based pass alone would drop loss scaling and the fp32 state guards', () => {
    const { dir } = setup();
    expect(cli(['example', 'mlp', '-o', 'step.onnx', '-q'], dir).code).toBe(0);
    expectRefused(cli(['tune', 'step.onnx', '-o', 'tuned.onnx'], dir), 'BAD_OPTION', 'training step graph');
    expect(existsSync(path.join(dir, 'tuned.onnx'))).toBe(false);
  });
});
