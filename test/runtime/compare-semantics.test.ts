/**
 * compare's semantics and the library's parity with the CLI: a candidate ONNX Runtime refuses is a
 * FAIL (exit 1) with its message in every numerics mode; the reference runs under the same
 * numerics as the candidate, so a model holding float16 values compared with itself has 0 error in
 * every mode; compareModels is the same implementation with the same defaults and figures.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareModels } from '../../src/api/execute.js';
import { compareWithExpected } from '../../src/api/compare-expected.js';
import { GraphBuilder } from '../../src/builder/graph-builder.js';
import { buildOverflowBeforeNorm } from '../../src/builder/recipes/fp16-failures.js';
import { DataType } from '../../src/onnx/data-types.js';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { corpusAvailable, corpusDir, repoRoot } from '../support/corpus.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-compare-semantics-'));
const bin = path.join(repoRoot, 'dist/cli/main.js');
const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
const MODES = ['auto', 'emulate', 'native'] as const;

function save(name: string, model: Parameters<typeof saveModel>[0]): string {
  const file = path.join(work, name);
  saveModel(model, file);
  return file;
}

/** MatMul(x: float32, W: float16 initializer): a type error ONNX Runtime refuses to load. */
function buildMixedTypeMatMul(): ReturnType<GraphBuilder['model']> {
  const b = new GraphBuilder('mixed_matmul');
  b.input('x', DataType.FLOAT, [2, 4]);
  b.initializer('W', [4, 3], new Uint8Array(24), DataType.FLOAT16);
  b.op('MatMul', ['x', 'W'], {}, { outputs: ['y'], name: 'matmul' });
  b.output('y', DataType.FLOAT, [2, 3]);
  return b.model();
}

function buildFp32MatMul(): ReturnType<GraphBuilder['model']> {
  const b = new GraphBuilder('matmul');
  b.input('x', DataType.FLOAT, [2, 4]);
  b.initializer('W', [4, 3], new Float32Array(12));
  b.op('MatMul', ['x', 'W'], {}, { outputs: ['y'], name: 'matmul' });
  b.output('y', DataType.FLOAT, [2, 3]);
  return b.model();
}

describe('a candidate ONNX Runtime refuses', () => {
  const reference = save('matmul.onnx', buildFp32MatMul());
  const broken = save('broken.onnx', buildMixedTypeMatMul());

  it('is FAIL with ONNX Runtime\'s message, exit 1, in every numerics mode (run says RUNTIME_FAILED)', () => {
    expect(cli(['run', broken]).status).toBe(2);
    for (const mode of MODES) {
      const result = cli(['compare', reference, broken, '--numerics', mode]);
      expect(result.status, `${mode}: ${result.stderr}`).toBe(1);
      expect(result.stdout).toMatch(/FAIL: ONNX Runtime refuses the candidate as it is on cpu: .*Type Error: Type parameter \(T\) of Optype \(MatMul\) bound to different types/);
      expect(result.stdout).not.toMatch(/PASS/);
    }
  });

  it('is FAIL with its message against golden outputs too (compare --expected, compareWithExpected), in every numerics mode', async () => {
    const golden = path.join(work, 'golden');
    expect(cli(['run', reference, '--save-outputs', golden, '-q']).status).toBe(0);
    for (const mode of MODES) {
      const result = cli(['compare', broken, '--expected', golden, '--numerics', mode]);
      expect(result.status, `${mode}: ${result.stderr}`).toBe(1);
      expect(result.stdout).toMatch(/FAIL: ONNX Runtime refuses the model as it is on cpu: .*Type Error: Type parameter \(T\) of Optype \(MatMul\) bound to different types/);
      expect(result.stdout).not.toMatch(/PASS/);
    }
    const json = JSON.parse(cli(['compare', broken, '--expected', golden, '--json']).stdout);
    expect(json).toMatchObject({ pass: false, outputs: [], candidateRefused: expect.stringMatching(/bound to different types/) });
    const report = await compareWithExpected(broken, golden);
    expect(report).toMatchObject({ pass: false, outputs: [], candidateRefused: expect.stringMatching(/bound to different types/) });
    // The reference itself still passes against its own outputs.
    expect((await compareWithExpected(reference, golden)).candidateRefused).toBeNull();
    expect(cli(['compare', reference, '--expected', golden]).status).toBe(0);
  });

  it('is pass: false with candidateRefused from the library', async () => {
    for (const numerics of MODES) {
      const result = await compareModels(reference, broken, { numerics });
      expect(result.pass).toBe(false);
      expect(result.candidateRefused).toMatch(/Type Error/);
      expect(result.outputs).toEqual([]);
    }
  });
});

describe('the reference runs under the same numerics', () => {
  it('a model holding float16 values compared with itself has 0 error in every mode', async () => {
    // The rewrite of a model whose activation overflows float16: emulation turns it into inf, so an
    // unemulated reference would differ from the emulated candidate everywhere.
    const amp = save('overflow.amp.onnx', ampRewrite(buildOverflowBeforeNorm()).model);
    const transformer = save('transformer.amp.onnx', ampRewrite(loadModel(path.join(repoRoot, 'fixtures/transformer-block/model.onnx'))).model);
    for (const model of [amp, transformer]) {
      for (const mode of MODES) {
        const result = cli(['compare', model, model, '--numerics', mode, '--json']);
        expect(result.status, `${model} ${mode}: ${result.stderr}`).toBe(0);
        const report = JSON.parse(result.stdout);
        expect(report.pass).toBe(true);
        for (const output of report.outputs) {
          expect(output.mismatched).toBe(0);
          // 0 error where there are finite values; NaN/inf exactly where the reference has them.
          if (output.finite > 0) expect(output.maxAbsError).toBe(0);
          expect(output.candidateNonFinite).toBe(output.referenceNonFinite);
        }
        if (model === amp && mode !== 'native') expect(report.outputs[0].referenceNonFinite).toBeGreaterThan(0);
      }
    }
  });
});

describe('compareModels is the CLI\'s compare', () => {
  const pairs: Array<[string, string, string]> = [];
  const overflow = save('overflow.onnx', buildOverflowBeforeNorm());
  pairs.push(['overflow', overflow, save('overflow2.amp.onnx', ampRewrite(buildOverflowBeforeNorm()).model)]);
  if (corpusAvailable) {
    const squeezenet = path.join(corpusDir, 'light-models/light_squeezenet.onnx');
    pairs.push(['squeezenet', squeezenet, save('squeezenet.amp.onnx', ampRewrite(loadModel(squeezenet)).model)]);
  } else console.warn('[corpus] missing: the SqueezeNet pair is skipped');

  it.each(pairs)('%s: the same figures from the API as from the CLI, in every numerics mode', async (name, reference, candidate) => {
    for (const numerics of MODES) {
      const fromCli = cli(['compare', reference, candidate, '--numerics', numerics, '--json']);
      expect([0, 1], fromCli.stderr).toContain(fromCli.status);
      const fromApi = await compareModels(reference, candidate, { numerics, ep: 'cpu' });
      expect(JSON.parse(JSON.stringify(fromApi))).toEqual(JSON.parse(fromCli.stdout));
      expect(fromCli.status).toBe(fromApi.pass ? 0 : 1);
      if (numerics !== 'native') {
        // Emulated, the float16 overflow shows: SqueezeNet's logits are NaN, the overflow model has inf.
        expect(fromApi.pass, name).toBe(false);
        expect(fromApi.outputs[0]?.candidateNonFinite).toBeGreaterThan(0);
        expect(fromApi.outputs[0]?.decidedBy).toBe('non-finite');
      } else expect(fromApi.pass, name).toBe(true);
    }
  });

  it('defaults to emulation on cpu, takes ep as a string or a list, and refuses unknown keys', async () => {
    const [, reference, candidate] = pairs[0] as [string, string, string];
    const byDefault = await compareModels(reference, candidate);
    expect(byDefault).toMatchObject({ numerics: 'emulate', provider: 'cpu', pass: false });
    expect((await compareModels(reference, candidate, { ep: ['cpu'] })).outputs).toEqual(byDefault.outputs);
    expect((await compareModels(reference, candidate, { ep: 'cpu' })).outputs).toEqual(byDefault.outputs);
    await expect(compareModels(reference, candidate, { ep: 'gpu' })).rejects.toThrow(/option ep: expected 'auto', one of 'cuda', 'webgpu', 'cpu', a comma list/);
    await expect(compareModels(reference, candidate, { numerics: 'emulated' as 'emulate' })).rejects.toThrow(/option numerics: expected one of 'auto', 'emulate', 'native'/);
    await expect(compareModels(reference, candidate, { numeric: 'native' } as never)).rejects.toMatchObject({
      code: 'BAD_OPTION',
      message: expect.stringMatching(/unknown option 'numeric' \(valid: inputs, dims, seed, ep, atol, rtol, atolFloor, numerics, dimDefault\)/),
    });
  });
});
