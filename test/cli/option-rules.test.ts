/**
 * The rules every option follows (issue #26): an option that takes a value is given once (a
 * repeat is BAD_OPTION, never "internal error" nor a silent pick), every option applies to the
 * command as given or is an error saying why, and numbers are numbers within bounds.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturesDir, repoRoot } from '../support/corpus.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');
const transformer = path.join(fixturesDir, 'transformer-block/model.onnx');
/** Inputs with symbolic dimensions batch and sequence. */
const bert = path.join(fixturesDir, 'exporter-bert-fused/model.onnx');
const trainingGraph = path.join(fixturesDir, 'mlp-training-adam/model.onnx');
const work = mkdtempSync(path.join(tmpdir(), 'amp-option-rules-'));

function cli(args: string[]) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AMP_REWRITE_')));
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: clean });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('a repeated option', () => {
  it('that takes one value is BAD_OPTION "given 2 times", for every command, and nothing is written', () => {
    const a = path.join(work, 'a.onnx');
    const b = path.join(work, 'b.onnx');
    for (const [args, option] of [
      [[transformer, '-o', a, '-o', b], '--output'],
      [[transformer, '--dry-run', '--target', 'cuda', '--target', 'cpu'], '--target'],
      [[transformer, '--dry-run', '--rules', 'a.json', '--rules', 'b.json'], '--rules'],
      [[transformer, '--dry-run', '--kv-cache', 'fp16', '--kv-cache', 'keep'], '--kv-cache'],
      [[transformer, '--dry-run', '--loss-scale-initial', '1', '--loss-scale-initial', '2'], '--loss-scale-initial'],
      [['run', transformer, '--ep', 'cpu', '--ep', 'cuda'], '--ep'],
      [['inspect', transformer, '--mode', 'bf16', '--mode', 'fp16'], '--mode'],
      [['compare', transformer, transformer, '--atol', '1', '--atol', '2'], '--atol'],
    ] as const) {
      const { code, stderr } = cli([...args]);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr, args.join(' ')).toMatch(new RegExp(`^amp-rewrite: error \\[BAD_OPTION\\]: ${option} given 2 times \\([^)]*\\): give it once`));
      expect(stderr).not.toMatch(/internal error/);
    }
    expect(existsSync(a) || existsSync(b)).toBe(false);
  });

  it('that takes several values (--report, --force-fp32, --dim) repeats', () => {
    const { code, stderr } = cli([bert, '--dry-run', '-q', '--force-fp32', '/x/', '--force-fp32', '/y/', '--dim', 'batch=2', '--dim', 'sequence=3']);
    expect(stderr).not.toMatch(/given 2 times/);
    expect(code).toBe(0);
  });
});

describe('every option applies to the command as given, or is an error saying why', () => {
  it.each([
    [[transformer, '--dry-run', '--no-verify', '--inputs', 'nothere.pb'], '--inputs does not apply: --inputs shapes the runs of the verification and --calibrate, and this rewrite runs neither'],
    [[transformer, '--dry-run', '--no-verify', '--headroom', '4'], '--headroom does not apply: --headroom shapes the runs of the verification and --calibrate'],
    [[transformer, '--dry-run', '--no-verify', '--numerics', 'native'], '--numerics does not apply: --numerics shapes the runs of the verification and --calibrate'],
    [[transformer, '--dry-run', '--calibration-batches', '3'], '--calibration-batches does not apply: --calibration-batches is a --calibrate option'],
    [['inspect', transformer, '--no-verify'], '--verify does not apply to inspect: inspect does not run the model'],
    [['tune', transformer, '-o', 'x.onnx', '--verify'], '--verify does not apply to tune'],
    [[transformer, '--dry-run', '--calibrate', '--inputs', 'x.pb', '--input-scale', '2'], '--input-scale does not apply: --input-scale shapes the random inputs, and --inputs gives the inputs'],
    [['run', transformer, '--inputs', 'x.pb', '--seed', '3'], '--seed does not apply: --seed shapes the random inputs, and --inputs gives the inputs'],
    [['bench', transformer, '--max-batch', '64'], '--max-batch does not apply: --max-batch is a --batch-search option'],
    [[transformer, '--dry-run', '--loss-scale', 'dynamic'], '--loss-scale and its growth/backoff/interval/min/max options (lossScale) apply to training graphs, and this is an inference graph'],
    [[transformer, '--dry-run', '--growth-factor', '3'], '--loss-scale and its growth/backoff/interval/min/max options (lossScale) apply to training graphs'],
    [[bert, '--dry-run', '-q', '--dim', 'nosuch=3'], '--dim nosuch: '],
    [['run', bert, '--dim', 'nosuch=3'], '--dim nosuch: the model has no symbolic dimension of that name (it has batch, sequence)'],
  ] as const)('%j', (args, message) => {
    const { code, stderr } = cli([...args]);
    expect(stderr).toContain(`[BAD_OPTION]: ${message}`);
    expect(code).toBe(2);
  });

  it('--dim naming a dimension of a rewrite model is taken, quiet or not', () => {
    expect(cli([bert, '--dry-run', '-q', '--dim', 'batch=8']).code).toBe(0);
    const { code, stderr } = cli([bert, '--dry-run', '-q', '--dim', 'nosuch=3']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/has no symbolic dimension of that name \(it has batch, sequence\)/);
  });

  it('--loss-scale options on a training graph are taken', () => {
    expect(cli([trainingGraph, '--dry-run', '-q', '--loss-scale', 'dynamic', '--growth-factor', '3']).code).toBe(0);
  });

  it('--rules with an unknown key under a list, or a list that is not an object, is BAD_OPTION naming it', () => {
    const rules = path.join(work, 'rules.json');
    writeFileSync(rules, JSON.stringify({ allow: { bogus: ['MatMul'] } }));
    expect(cli([transformer, '--dry-run', '--rules', rules]).stderr).toMatch(/\[BAD_OPTION\]: --rules .*rules\.json: allow\.bogus is not a change \(expected add or remove\)/);
    writeFileSync(rules, JSON.stringify({ deny: ['Softmax'] }));
    expect(cli([transformer, '--dry-run', '--rules', rules]).stderr).toMatch(/deny must be an object/);
  });
});

describe('numbers are numbers, within bounds, quoted as typed', () => {
  it.each([
    [['compare', transformer, transformer, '--rtol', ''], "--rtol '': not a number"],
    [['compare', transformer, transformer, '--rtol', '0x10'], '--rtol 0x10: not a number'],
    [['compare', transformer, transformer, '--atol', 'NaN'], '--atol NaN: not a number'],
    [[transformer, '--dry-run', '--calibrate', '--headroom', 'abc'], '--headroom abc: not a number (expected above 0, at most 65504)'],
    [[transformer, '--dry-run', '--calibrate', '--headroom', '0'], '--headroom 0: must be above 0, at most 65504'],
    [['bench', transformer, '--runs', '1e12'], '--runs 1e12: must be a whole number, at least 1, at most 1000000'],
    [['bench', transformer, '--runs', '2.5'], '--runs 2.5: must be a whole number'],
    [['run', transformer, '--seed', '-1'], '--seed -1: must be a whole number, at least 0'],
    [[trainingGraph, '--dry-run', '--backoff-factor', '2'], '--backoff-factor 2: must be above 0, at most 1'],
    [['train', trainingGraph, '--epochs', '1e12'], '--epochs 1e12: must be a whole number, at least 1, at most 1000000'],
  ] as const)('%j', (args, message) => {
    const { code, stderr } = cli([...args]);
    expect(stderr).toContain(`[BAD_OPTION]: ${message}`);
    // What was typed, never yargs's reading of it (NaN for abc, 0 for '').
    if (!args.includes('NaN' as never)) expect(stderr).not.toMatch(/NaN/);
    expect(code).toBe(2);
  });
});
