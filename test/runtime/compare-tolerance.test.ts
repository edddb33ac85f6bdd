/**
 * The tolerance rule's absolute floor on a real near-zero output: a detection head's sigmoid
 * probability map (Conv, then Sigmoid of logits near -20: probabilities around 1e-8, where float16
 * has only subnormals 6e-8 apart). Its float16 rewrite is off by about 1e-7, noise no float16 model
 * can avoid, which atol * max|reference| alone fails on about a hundred elements; the floor (1e-5)
 * passes it and says it decided.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GraphBuilder, randomNormal, seededRandom } from '../../src/builder/graph-builder.js';
import { DataType } from '../../src/onnx/data-types.js';
import { saveModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { compareOutput, judgeTensors, scaledTolerance } from '../../src/runtime/compare.js';
import { repoRoot } from '../support/corpus.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-compare-tolerance-'));
const bin = path.join(repoRoot, 'dist/cli/main.js');
const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });

/** A probability-map head: Conv 3x3 (16 -> 1 channel) with bias -20, then Sigmoid. */
function buildProbabilityMap(): ReturnType<GraphBuilder['model']> {
  const random = seededRandom(11);
  const b = new GraphBuilder('prob_map');
  b.input('image', DataType.FLOAT, [1, 16, 32, 32]);
  b.initializer('w', [1, 16, 3, 3], randomNormal(144, 0.3, random));
  b.initializer('bias', [1], Float32Array.of(-20));
  const logits = b.op('Conv', ['image', 'w', 'bias'], { pads: { kind: 'ints', value: [1, 1, 1, 1] } }, { name: 'head_conv' });
  b.op('Sigmoid', [logits], {}, { outputs: ['probability'], name: 'sigmoid' });
  b.output('probability', DataType.FLOAT, [1, 1, 32, 32]);
  return b.model();
}

describe('the absolute floor of the tolerance', () => {
  const reference = path.join(work, 'prob.onnx');
  const candidate = path.join(work, 'prob.amp.onnx');
  saveModel(buildProbabilityMap(), reference);
  saveModel(ampRewrite(buildProbabilityMap()).model, candidate);

  it('passes a near-zero probability map whose error is float16 noise, saying the floor decided; without the floor it fails', () => {
    const floored = cli(['compare', reference, candidate, '--json']);
    expect(floored.status, floored.stderr).toBe(0);
    const output = JSON.parse(floored.stdout).outputs[0];
    expect(output.maxAbsError).toBeGreaterThan(1e-8);
    expect(output.maxAbsError).toBeLessThan(1e-6);
    expect(output.decidedBy).toBe('atol-floor');
    expect(output.worstRatio).toBeLessThanOrEqual(1);

    const bare = cli(['compare', reference, candidate, '--atol-floor', '0']);
    expect(bare.status).toBe(1);
    expect(bare.stdout).toMatch(/FAIL \(\d+ outside tolerance\) \[atol\]/);
    const negative = cli(['compare', reference, candidate, '--atol-floor', '-1']);
    expect(negative.status).toBe(2);
    expect(negative.stderr).toMatch(/BAD_OPTION.*atol-floor/);
  });

  it('the library takes the same floor and refuses a bad one', async () => {
    const { compareModels } = await import('../../src/api/execute.js');
    const floored = await compareModels(reference, candidate);
    expect(floored.outputs[0]).toMatchObject({ pass: true, decidedBy: 'atol-floor' });
    expect((await compareModels(reference, candidate, { atolFloor: 0 })).pass).toBe(false);
    await expect(compareModels(reference, candidate, { atolFloor: -1 })).rejects.toMatchObject({ code: 'BAD_OPTION', message: expect.stringMatching(/option atolFloor/) });
  });

  it('on a large output the scaled atol decides; rtol decides where |reference| dominates', () => {
    const t = (values: number[]) => ({ type: 'float32', dims: [values.length], data: Float32Array.from(values) });
    expect(scaledTolerance(t([12, -3]), 0.01, 0.01, 1e-5)).toEqual({ atol: 0.12, rtol: 0.01, absoluteFrom: 'atol' });
    const scaled = judgeTensors('logits', t([12, 0.5]), t([12, 0.6]), { atol: 0.01, rtol: 0.01, atolFloor: 1e-5 });
    expect(scaled).toMatchObject({ pass: true, decidedBy: 'atol' });
    expect(scaled.worstRatio).toBeCloseTo(0.1 / 0.125, 6);
    const relative = compareOutput('y', t([1000, 1]), t([1005, 1]), { atol: 0.5, rtol: 0.01 });
    expect(relative).toMatchObject({ pass: true, decidedBy: 'rtol' });
    expect(judgeTensors('y', t([1]), undefined, { atol: 0, rtol: 0, atolFloor: 0 })).toMatchObject({ pass: false, decidedBy: 'missing' });
  });
});
