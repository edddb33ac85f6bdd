/**
 * The command line as a user meets it: the built `amp-rewrite` binary (npm test builds it first),
 * its output, files and exit codes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeModel } from '../../src/onnx/codec.js';
import { corpusAvailable, corpusDir, fixturesDir, repoRoot } from '../support/corpus.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');
const transformer = path.join(fixturesDir, 'transformer-block/model.onnx');

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const work = mkdtempSync(path.join(tmpdir(), 'amp-cli-'));

describe('amp-rewrite CLI', () => {
  it('rewrites the bundled transformer block and prints the Grappler-style summary', () => {
    const out = path.join(work, 'out.onnx');
    const { code, stdout } = cli([transformer, '-o', out]);
    expect(code).toBe(0);
    // The golden summary, then the verification's one line (its figures depend on the ONNX Runtime release: test/runtime/verify.test.ts).
    const golden = readFileSync(path.join(fixturesDir, 'transformer-block/expected.summary.txt'), 'utf8');
    expect(stdout.startsWith(golden)).toBe(true);
    expect(stdout.slice(golden.length)).toMatch(/^Verified: PASS on 1 batch of random inputs \(seed 0\)[^\n]*\n$/);
    expect(cli([transformer, '-o', out, '--no-verify']).stdout).toBe(golden);
    const written = decodeModel(readFileSync(out));
    expect(written.graph?.node?.some((n) => n.op_type === 'Cast')).toBe(true);
  });

  it('a plain rewrite ends without the heap teardown, yet after its printing, its warnings and its exit handlers', () => {
    const out = path.join(work, 'exit-early.onnx');
    const profile = path.join(work, 'exit-early-profile.json');
    const result = spawnSync(process.execPath, [bin, transformer, '-o', out, '--json', '--verbose'], {
      encoding: 'utf8',
      env: { ...process.env, AMP_REWRITE_PROFILE: profile, AMP_REWRITE_NOT_A_VARIABLE: '1' },
    });
    expect(result.status).toBe(0);
    // All of the JSON (op lists included) came through the pipe, and the warning through stderr.
    expect(JSON.parse(result.stdout).lists).toBeDefined();
    expect(result.stderr).toContain('amp-rewrite: warning: environment variable AMP_REWRITE_NOT_A_VARIABLE');
    // The profile is written by an 'exit' handler, which process.exit still runs.
    expect(JSON.parse(readFileSync(profile, 'utf8')).saveMs).toBeGreaterThan(0);
    expect(readdirSync(work).filter((file) => file.includes('.amp-rewrite-'))).toEqual([]);
  });

  it('a quiet rewrite without --report skips the FLOPs share and the lint; with a --report it computes them', () => {
    const profile = path.join(work, 'figures-profile.json');
    const quiet = cli([transformer, '-o', path.join(work, 'quiet.onnx'), '-q'], { AMP_REWRITE_PROFILE: profile });
    expect(quiet).toMatchObject({ code: 0, stdout: '' });
    const phases = JSON.parse(readFileSync(profile, 'utf8'));
    expect(phases.paintMs).toBeGreaterThan(0);
    expect(phases.shapeInferenceMs).toBeUndefined();
    expect(phases.matrixFiguresMs).toBeUndefined();

    const report = path.join(work, 'figures-report.json');
    expect(cli([transformer, '-o', path.join(work, 'reported.onnx'), '-q', '--report', report], { AMP_REWRITE_PROFILE: profile }).code).toBe(0);
    expect(JSON.parse(readFileSync(profile, 'utf8')).shapeInferenceMs).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(report, 'utf8')).summary.matrixFlops).toMatchObject({ unknownNodes: 0, nodes: 9 });
    // Same model either way.
    expect(readFileSync(path.join(work, 'quiet.onnx')).equals(readFileSync(path.join(work, 'reported.onnx')))).toBe(true);
  });

  it('writes the audit as JSON and Markdown', () => {
    const json = path.join(work, 'audit.json');
    const md = path.join(work, 'audit.md');
    expect(cli([transformer, '--dry-run', '-q', '--report', json, '--report', md]).code).toBe(0);
    const audit = JSON.parse(readFileSync(json, 'utf8'));
    const softmax = audit.nodes.find((n: { node: string }) => n.node === 'l0/softmax');
    expect(softmax).toMatchObject({ op: 'Softmax', color: 'DENY', rule: 'deny-list', list: 'deny' });
    const qProj = audit.nodes.find((n: { node: string }) => n.node === 'l0/q_proj');
    expect(qProj.castsAdded).toEqual(['layernormalization_0/to_fp16', 'l0.wq/to_fp16']);
    expect(audit.lists.allow.some((e: { op: string }) => e.op === 'MatMul')).toBe(true);
    const text = readFileSync(md, 'utf8');
    expect(text).toContain('| graph | l0/softmax | Softmax | fp32 | f32 → f32 | deny | deny-list |');
    expect(text).toContain('### allow');
  });

  it('--dry-run writes no model; --json prints the summary as JSON; --verbose prints the lists', () => {
    const out = path.join(work, 'dry.onnx');
    const { code, stdout } = cli([transformer, '-o', out, '--dry-run', '--json']);
    expect(code).toBe(0);
    expect(existsSync(out)).toBe(false);
    expect(JSON.parse(stdout)).toMatchObject({ mode: 'mixed_float16', allowConverted: 9, denyBlocking: 5 });
    expect(cli([transformer, "--dry-run", "--verbose"]).stdout).toMatch(/allow list \(\d+ ops\):\n(  .*\n)*  MatMul: matrix multiply/);
  });

  it('nothing to convert is a success and writes the model unchanged', () => {
    const source = path.join(work, 'relu.onnx');
    const built = spawnSync(process.execPath, ['-e', `
      import('${path.join(repoRoot, 'dist/index.js')}').then(({ encodeModel, onnx }) => {
        const vi = (n) => ({ name: n, type: { tensor_type: { elem_type: 1 } } });
        const m = onnx.ModelProto.create({ ir_version: 8, opset_import: [{ domain: '', version: 17 }],
          graph: { name: 'g', node: [{ op_type: 'Relu', input: ['x'], output: ['y'] }], input: [vi('x')], output: [vi('y')] } });
        require('node:fs').writeFileSync('${source}', encodeModel(m));
      });`]);
    expect(built.status).toBe(0);
    const out = path.join(work, 'relu.amp.onnx');
    const { code, stdout } = cli([source, '-o', out]);
    expect(code).toBe(0);
    expect(stdout).toContain('No allow-list ops found: nothing to convert');
    expect(readFileSync(out)).toEqual(readFileSync(source));
  });

  it('bad input: one line on stderr, exit 2, no stack trace, no output file', () => {
    const garbage = path.join(work, 'garbage.onnx');
    writeFileSync(garbage, 'this is not a model at all');
    const out = path.join(work, 'never.onnx');
    const { code, stderr } = cli([garbage, '-o', out]);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^amp-rewrite: error \[NOT_ONNX\]: .*garbage\.onnx: not an ONNX ModelProto/);
    expect(stderr).not.toMatch(/\bat .*\.js:\d+/);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(work).some((f) => f.includes('.amp-rewrite-'))).toBe(false);
  });

  it('bad options: exit 2 with a one-line message', () => {
    expect(cli([transformer]).stderr).toMatch(/no output file: pass -o/);
    expect(cli([transformer]).code).toBe(2);
    expect(cli([transformer, '-o', path.join(work, 'x.onnx'), '--mode', 'fp8']).code).toBe(2);
    const conflict = cli([transformer, '--dry-run', '--deny-add', 'MatMul']);
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toMatch(/MatMul is on two lists: allow \(default\) and deny \(command-line flags\)/);
    expect(cli([transformer, '--dry-run', '--report', 'audit.txt']).code).toBe(2);
    expect(cli([path.join(work, 'missing.onnx'), '--dry-run']).stderr).toMatch(/\[FILE_NOT_FOUND\]/);
  });

  it('AMP_REWRITE_ environment variables change the lists', () => {
    const { stdout } = cli([transformer, '--dry-run', '--json'], { AMP_REWRITE_ALLOWLIST_REMOVE: 'MatMul' });
    expect(JSON.parse(stdout).allowConverted).toBe(0);
  });

  it('inspect lists ops with what the pass would do', () => {
    const { code, stdout } = cli(['inspect', transformer]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/opsets: ai\.onnx 17/);
    expect(stdout).toMatch(/MatMul\s+9\s+allow\s+9 low precision/);
    expect(stdout).toMatch(/Softmax\s+1\s+deny\s+1 fp32 \(deny-list\)/);
  });

  it('--help explains the command, the options and the exit codes', () => {
    const { code, stdout } = cli(['--help']);
    expect(code).toBe(0);
    for (const text of ['--mode', '--weights', '--report', '--force-fp32', '--allow-add', 'Exit codes', 'AMP_REWRITE_ALLOWLIST_ADD']) expect(stdout).toContain(text);
  });

  it('the rewrite never loads ONNX Runtime', () => {
    const script = `
      const { createRequire } = await import('node:module');
      const { readFileSync } = await import('node:fs');
      const api = await import(${JSON.stringify(path.join(repoRoot, 'dist/index.js'))});
      api.ampRewrite(api.decodeModel(readFileSync(${JSON.stringify(transformer)})));
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('onnxruntime'));
      process.stdout.write(JSON.stringify(loaded));`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual([]);
  });

  it.skipIf(!corpusAvailable)('--calibrate keeps nodes that see values beyond float16 range in fp32', () => {
    const model = path.join(corpusDir, 'light-models/light_bvlc_alexnet.onnx');
    const plain = JSON.parse(cli([model, '--dry-run', '--json', '--no-verify']).stdout);
    const calibrated = cli([model, '--dry-run', '--json', '--calibrate']);
    expect(calibrated.code).toBe(0);
    const summary = JSON.parse(calibrated.stdout);
    expect(summary.converted).toBeLessThan(plain.converted);
    expect(summary.fp32Reasons.map((r: { rule: string }) => r.rule)).toContain('activation-out-of-range');
  });
});
