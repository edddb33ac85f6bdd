/**
 * Options as a user types them: each command accepts only what it uses, --json means JSON alone on
 * stdout, typos are named (unknown commands, options of another command, patterns and ops that match
 * nothing, unknown AMP_REWRITE_ variables), and --strict turns those warnings into errors.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildMlpTrainingStep, withInitialState } from '../../src/builder/recipes/training.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { fixturesDir, repoRoot } from '../support/corpus.js';
import { floatTensor, model, node, valueInfo } from '../support/models.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');
const transformer = path.join(fixturesDir, 'transformer-block/model.onnx');
const trainingGraph = path.join(fixturesDir, 'mlp-training-adam/model.onnx');
const work = mkdtempSync(path.join(tmpdir(), 'amp-options-'));

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AMP_REWRITE_')));
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...clean, ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('commands and their options', () => {
  it('names an unknown command as such', () => {
    const { code, stderr } = cli(['frobnicate', transformer]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^amp-rewrite: error \[BAD_OPTION\]: unknown command 'frobnicate' \(commands: [a-z, ]*\binspect\b[a-z, ]*\bbench\b/);
  });

  it('every option error is one line', () => {
    const { code, stderr } = cli([transformer, '--dry-run', '--mode', 'fp8']);
    expect(code).toBe(2);
    expect(stderr).toBe("amp-rewrite: error [BAD_OPTION]: --mode must be one of fp16, bf16 (got 'fp8')\n");
  });

  it('an option that takes a value and is given none is an error, never its default taken silently', () => {
    const out = path.join(work, 'valueless.onnx');
    // At the end of the line, before another option, for the rewrite (plain and through yargs) and other commands.
    for (const args of [
      [transformer, '-o', out, '--weights'],
      [transformer, '--weights', '-o', out],
      [transformer, '--mode', '--dry-run'],
      [transformer, '--dry-run', '--target'],
      [transformer, '-o'],
      ['inspect', transformer, '--weights'],
      ['compare', transformer, transformer, '--atol'],
      ['train', trainingGraph, '--epochs', '--json'],
      // List options: yargs reads them as an empty list.
      [transformer, '-o', out, '--report'],
      [transformer, '--report', '--dry-run'],
      ['inspect', transformer, '--force-fp32'],
    ]) {
      const { code, stderr } = cli(args);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr, args.join(' ')).toMatch(/^amp-rewrite: error \[BAD_OPTION\]: -{1,2}[a-z0-9-]+ needs a value( \(see amp-rewrite --help\))?\n$/);
      expect(existsSync(out)).toBe(false);
    }
    // Values that look like options stay values where yargs reads them so: a negative number.
    expect(cli([transformer, '--dry-run', '-q', '--headroom', '-1']).stderr).not.toMatch(/needs a value/);
  });

  it('an option of another command is an error that says so', () => {
    const train = cli(['train', trainingGraph, '--mode', 'bf16']);
    expect(train.code).toBe(2);
    expect(train.stderr).toMatch(/--mode is not an option of train/);
    const inspect = cli(['inspect', transformer, '-o', path.join(work, 'never.onnx')]);
    expect(inspect.code).toBe(2);
    expect(inspect.stderr).toMatch(/--output does not apply to inspect: inspect writes no model/);
    expect(existsSync(path.join(work, 'never.onnx'))).toBe(false);
    expect(cli(['inspect', transformer, '--calibrate']).stderr).toMatch(/--calibrate does not apply to inspect/);
    // bench's --report is its page of charts, an HTML file; the audit formats are the rewrite's.
    expect(cli(['bench', transformer, '--report', path.join(work, 'b.md')]).stderr).toMatch(/--report .*b\.md: bench's report is an HTML page of charts: name a \.html file/);
    expect(cli(['bench', transformer, '--report', path.join(work, 'b.html'), '--report', path.join(work, 'c.html')]).stderr).toMatch(/--report: bench writes one page; given 2/);
    expect(cli(['train', trainingGraph, '--report', path.join(work, 't.json'), '--max-steps', '1']).stderr).toMatch(/--report .*t\.json: the training report is an HTML page: name a \.html file/);
    expect(cli(['train', trainingGraph, '--report', path.join(work, 't.html'), '--json', path.join(work, 't.html'), '--max-steps', '1']).stderr).toMatch(/UNSAFE_PATH.*t\.html/);
    for (const file of ['b.md', 'b.html', 'c.html', 't.json', 't.html']) expect(existsSync(path.join(work, file))).toBe(false);
  });

  it('inspect --report writes the audit', () => {
    const md = path.join(work, 'inspect.md');
    const json = path.join(work, 'inspect.json');
    const { code, stdout } = cli(['inspect', transformer, '--report', md, '--report', json, '-q']);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(readFileSync(md, 'utf8')).toContain('l0/softmax');
    expect(JSON.parse(readFileSync(json, 'utf8')).nodes.length).toBeGreaterThan(30);
  });

  it('--json prints JSON alone on stdout, --verbose included, for rewrite and inspect', () => {
    const rewrite = JSON.parse(cli([transformer, '--dry-run', '--json', '--verbose']).stdout);
    expect(rewrite).toMatchObject({ mode: 'mixed_float16', allowConverted: 9 });
    expect(rewrite.lists.allow.some((e: { op: string }) => e.op === 'MatMul')).toBe(true);
    const inspect = JSON.parse(cli(['inspect', transformer, '--json', '--verbose']).stdout);
    expect(inspect.opsets).toEqual([{ domain: 'ai.onnx', version: 17 }]);
    expect(inspect.ops.find((o: { op: string }) => o.op === 'MatMul')).toMatchObject({ count: 9, list: 'allow' });
    expect(inspect.summary.allowConverted).toBe(9);
    expect(inspect.lists.deny.length).toBeGreaterThan(0);
  });

  it('bench --json --verbose prints JSON alone, and a FAIL row exits 1', () => {
    // y = x·W with W = 4000: for inputs of a few units y passes float16's 65504 once converted.
    const overflow = path.join(work, 'overflow.onnx');
    const w = Array.from({ length: 64 * 4 }, () => 4000);
    writeFileSync(
      overflow,
      encodeModel(model({ node: [node('MatMul', ['x', 'w'], ['y'])], initializer: [floatTensor('w', [64, 4], w)], input: [valueInfo('x', 1, [2, 64])], output: [valueInfo('y', 1, [2, 4])] })),
    );
    const inputs = path.join(work, 'x.json');
    writeFileSync(inputs, JSON.stringify({ dims: [2, 64], data: Array.from({ length: 128 }, () => 1) }));
    const failing = cli(['bench', overflow, '--runs', '1', '--warmup', '0', '--inputs', inputs, '--json', '--verbose']);
    const record = JSON.parse(failing.stdout);
    expect(record.accuracy[0].pass).toBe(false);
    expect(record.lists.allow.length).toBeGreaterThan(0);
    expect(failing.code).toBe(1);
    const passing = cli(['bench', transformer, '--runs', '1', '--warmup', '0', '--json']);
    expect(passing.code).toBe(0);
    expect(JSON.parse(passing.stdout).accuracy.every((r: { pass: boolean }) => r.pass)).toBe(true);
  });

  it('train --json alone prints the results as JSON, and nothing else, on stdout', () => {
    const graph = path.join(work, 'mnist-mlp.onnx');
    writeFileSync(graph, encodeModel(withInitialState(buildMlpTrainingStep({ inputSize: 784, hidden: 16, hiddenLayers: 1, classes: 10, batch: 'batch', optimizer: 'sgd-momentum', seed: 1 }))));
    const { code, stdout } = cli(['train', graph, '--compare', 'fp32,amp', '--max-steps', '3', '--json']);
    expect(code).toBe(0);
    const record = JSON.parse(stdout);
    expect(record.results.map((r: { variant: string }) => r.variant)).toEqual(['fp32', 'amp']);
  });

  it('warns about a --force-fp32 pattern that matches nothing, an op in no schema table, an unknown AMP_REWRITE_ variable', () => {
    const { code, stderr } = cli([transformer, '--dry-run', '-q', '--force-fp32', 'no_such_node', '--force-fp16', '/^l0\\//', '--allow-add', 'FooOp'], {
      AMP_REWRITE_DENY_ADD: 'Softmax',
    });
    expect(code).toBe(0);
    expect(stderr).toContain('amp-rewrite: warning: --force-fp32 no_such_node matches no node of the model');
    expect(stderr).not.toContain('/^l0\\//');
    expect(stderr).toContain('amp-rewrite: warning: --allow-add FooOp: no operator schema table');
    expect(stderr).toContain('amp-rewrite: warning: environment variable AMP_REWRITE_DENY_ADD is not one amp-rewrite reads');
    expect(cli([transformer, '--dry-run', '-q', '--allow-add', 'com.microsoft:FusedMatMul']).stderr).toBe('');
    const rules = path.join(work, 'rules.json');
    writeFileSync(rules, JSON.stringify({ clear: { add: ['Idnetity'] } }));
    expect(cli([transformer, '--dry-run', '-q', '--rules', rules]).stderr).toContain(`amp-rewrite: warning: --rules ${rules}: clear.add Idnetity: no operator schema table`);
  });

  it('warnings print names and values escaped, as errors do: no raw control character reaches the terminal', () => {
    const { stderr } = cli([transformer, '--dry-run', '-q'], { 'AMP_REWRITE_X\u001b[31mRED': '1', AMP_REWRITE_ALLOWLIST_ADD: 'Foo\u001b[2J,Bar' });
    // eslint-disable-next-line no-control-regex
    expect(stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(stderr).toContain('amp-rewrite: warning: environment variable AMP_REWRITE_X\\x1b[31mRED is not one amp-rewrite reads');
    expect(stderr).toContain('AMP_REWRITE_ALLOWLIST_ADD Foo\\x1b[2J');
  });

  it('--force-fp16 converts a deny-list op it names, and warns of a pinned op that cannot run in float16', () => {
    const report = path.join(work, 'forced.json');
    expect(cli([transformer, '--dry-run', '-q', '--force-fp16', 'l0/softmax', '--report', report]).stderr).toBe('');
    const softmax = JSON.parse(readFileSync(report, 'utf8')).nodes.find((n: { node: string }) => n.node === 'l0/softmax');
    expect([softmax.color, softmax.rule]).toEqual(['ALLOW', 'force-fp16']);
    const mvn = path.join(work, 'mvn.onnx');
    writeFileSync(mvn, encodeModel(model({ node: [node('MeanVarianceNormalization', ['x'], ['y'], 'mvn')], input: [valueInfo('x', 1, [2, 3, 4, 4])], output: [valueInfo('y', 1, [2, 3, 4, 4])] })));
    const warned = cli([mvn, '--dry-run', '-q', '--force-fp16', 'mvn']);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(/^amp-rewrite: warning: --force-fp16: MeanVarianceNormalization 'mvn' stays float32: MeanVarianceNormalization is on the deny list: [^;]+; --force-fp16 not applied: .*function body/);
    expect(cli([mvn, '--dry-run', '-q', '--force-fp16', 'mvn', '--strict']).code).toBe(2);
  });

  it('--strict makes those warnings errors', () => {
    const out = path.join(work, 'strict.onnx');
    const pattern = cli([transformer, '-o', out, '--force-fp32', 'no_such_node', '--strict']);
    expect(pattern.code).toBe(2);
    expect(pattern.stderr).toMatch(/^amp-rewrite: error \[BAD_OPTION\]: --force-fp32 no_such_node matches no node of the model \(an error under --strict\)\n$/);
    expect(existsSync(out)).toBe(false);
    expect(cli([transformer, '--dry-run', '--allow-add', 'FooOp', '--strict']).code).toBe(2);
    expect(cli(['inspect', transformer, '--strict'], { AMP_REWRITE_DENY_ADD: 'x' }).code).toBe(2);
  });

  it('--external-data takes keep, embed or a file name, not a typo', () => {
    const out = path.join(work, 'ext.onnx');
    const { code, stderr } = cli([transformer, '-o', out, '--external-data', 'bogus']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--external-data bogus: expected keep, embed, or a file name/);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(path.join(work, 'bogus'))).toBe(false);
    expect(cli([transformer, '-o', out, '--external-data', 'ext.onnx.data']).code).toBe(0);
    expect(existsSync(path.join(work, 'ext.onnx.data'))).toBe(true);
  });

  it('--mode bf16 --loss-scale dynamic adds dynamic loss scaling; bf16 alone adds none', () => {
    const scaled = JSON.parse(cli([trainingGraph, '--dry-run', '--json', '--mode', 'bf16', '--loss-scale', 'dynamic']).stdout);
    expect(scaled.mode).toBe('mixed_bfloat16');
    expect(scaled.training.lossScale.kind).toBe('dynamic');
    expect(scaled.training.inputsAdded).toContain('amp.loss_scale');
    const plain = JSON.parse(cli([trainingGraph, '--dry-run', '--json', '--mode', 'bf16']).stdout);
    expect(plain.training.lossScale.kind).toBe('none');
    const fp16 = JSON.parse(cli([trainingGraph, '--dry-run', '--json']).stdout);
    expect(fp16.training.lossScale.kind).toBe('dynamic');
  });
});
