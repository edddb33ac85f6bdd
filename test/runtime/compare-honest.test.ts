/**
 * An honest compare: non-finite values counted per output with error figures only over finite
 * pairs, emulated numerics by default on the CPU provider, a failing reference model as a typed
 * error, symbolic dimensions defaulted with a notice, the tolerance rule printed, JSON for CI.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOverflowBeforeNorm } from '../../src/builder/recipes/fp16-failures.js';
import { buildMlpInference } from '../../src/builder/recipes/mlp.js';
import { saveModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { compareOutput } from '../../src/runtime/compare.js';
import { renderComparison } from '../../src/cli/execute-commands.js';
import { repoRoot } from '../support/corpus.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-compare-'));
const bin = path.join(repoRoot, 'dist/cli/main.js');
const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
const t = (values: number[]) => ({ type: 'float32', dims: [values.length], data: Float32Array.from(values) });

function save(name: string, model: Parameters<typeof saveModel>[0]): string {
  const file = path.join(work, name);
  saveModel(model, file);
  return file;
}

describe('comparison figures', () => {
  it('an output that is all NaN has no error figures, only its NaN count, and fails', () => {
    const result = compareOutput('y', t([1, 2, 3]), t([NaN, NaN, NaN]), { atol: 1, rtol: 1 });
    expect(result).toMatchObject({ finite: 0, candidateNaN: 3, candidateInf: 0, candidateNonFinite: 3, mismatched: 3, pass: false });
    expect(result.maxAbsError).toBeNaN();
    expect(result.cosine).toBeNaN();
    const line = renderComparison([result]).split('\n')[1] as string;
    expect(line).toMatch(/\s3\s+0\s+n\/a\s+n\/a\s+n\/a\s+0\/0\s+3\/0\s+FAIL/);
    expect(JSON.parse(JSON.stringify(result)).maxAbsError).toBeNull();
  });

  it('figures over the finite pairs, inf counted apart from NaN', () => {
    const result = compareOutput('y', t([1, 2, 4, Infinity]), t([1, 2.5, Infinity, Infinity]), { atol: 0, rtol: 0.5 });
    expect(result).toMatchObject({ finite: 2, maxAbsError: 0.5, referenceInf: 1, candidateInf: 2, candidateNaN: 0, mismatched: 1 });
  });
});

describe('compare command', () => {
  const original = save('overflow.onnx', buildOverflowBeforeNorm());
  const amp = save('overflow.amp.onnx', ampRewrite(buildOverflowBeforeNorm()).model);

  it('fails under emulated numerics (the default on cpu) where native CPU numerics pass', () => {
    const emulated = cli(['compare', original, amp, '--json']);
    expect(emulated.status, emulated.stderr).toBe(1);
    const report = JSON.parse(emulated.stdout);
    expect(report).toMatchObject({ provider: 'cpu', numerics: 'emulate', pass: false, tolerance: { atol: 0.01, rtol: 0.01, atolFloor: 1e-5 } });
    expect(report.outputs[0].candidateNonFinite).toBeGreaterThan(0);
    expect(report.tolerance.rule).toMatch(/max\(atol \* max\|reference\|, atol-floor\) \+ rtol \* \|reference\|/);
    expect(report.outputs[0].decidedBy).toBe('non-finite');
    const native = cli(['compare', original, amp, '--numerics', 'native']);
    expect(native.status, native.stderr).toBe(0);
    expect(native.stdout).toMatch(/numerics: native/);
    expect(native.stdout).toMatch(/tolerance: atol 0.01, atol-floor 0.00001, rtol 0.01: an element passes when/);
  });

  it('compares a bfloat16 model on the CPU provider with emulation (with a notice); natively it is a FAIL, exit 1', () => {
    const model = buildMlpInference({ batch: 4, input: 16, hidden: 32, layers: 2, classes: 10, seed: 3 });
    const fp32 = save('mlp.onnx', model);
    const bf16 = save('mlp.bf16.onnx', ampRewrite(model, { mode: 'bf16' }).model);
    const emulated = cli(['compare', fp32, bf16, '--atol', '0.05', '--rtol', '0.05']);
    expect(emulated.status, emulated.stderr).toBe(0);
    expect(emulated.stdout).toMatch(/numerics: emulated/);
    expect(emulated.stdout).toMatch(/notice: the candidate does not run as it is on cpu \(.*Could not find an implementation for Gemm/);
    const native = cli(['compare', fp32, bf16, '--numerics', 'native']);
    expect(native.status).toBe(1);
    expect(native.stdout).toMatch(/FAIL: ONNX Runtime refuses the candidate as it is on cpu: the candidate model cannot be loaded: Could not find an implementation/);
  });

  it('a reference model ONNX Runtime cannot run is a typed error (exit 2) saying so', () => {
    const model = buildMlpInference({ batch: 4, input: 16, hidden: 32, layers: 2, classes: 10, seed: 3 });
    const bf16 = save('ref.bf16.onnx', ampRewrite(model, { mode: 'bf16' }).model);
    const result = cli(['compare', bf16, save('mlp2.onnx', model)]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^amp-rewrite: error \[REFERENCE_FAILED\]: the reference model cannot be loaded/);
  });

  it('symbolic dimensions default to 1 (or --dim-default) with a notice', () => {
    const model = buildMlpInference({ batch: 'batch', input: 8, hidden: 8, layers: 1, classes: 4 });
    const fp32 = save('dyn.onnx', model);
    const fp16 = save('dyn.amp.onnx', ampRewrite(model).model);
    const plain = cli(['compare', fp32, fp16]);
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/notice: input 'features' dimension 0 \('batch'\) set to 1; give it with --dim batch=<size>/);
    const three = cli(['compare', fp32, fp16, '--dim-default', '3', '--json']);
    expect(JSON.parse(three.stdout).notices).toEqual(["input 'features' dimension 0 ('batch') set to 3; give it with --dim batch=<size>"]);
    const given = cli(['compare', fp32, fp16, '--dim', 'batch=2', '--json']);
    expect(JSON.parse(given.stdout).notices).toEqual([]);
    expect(cli(['compare', fp32, fp16, '--dim-default', '0']).status).toBe(2);
  });
});
