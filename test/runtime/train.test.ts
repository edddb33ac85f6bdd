/**
 * The seeds' experiment at CPU size: the MNIST MLP (784 -> 32 -> 32 -> 10, SGD with momentum)
 * trained as fp32 and as the AMP rewrite with dynamic loss scaling, same initial weights and
 * batches. AMP's test accuracy must be within 1 point of fp32's.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildMlpTrainingStep, withInitialState } from '../../src/builder/recipes/training.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { loadMnist } from '../../src/runtime/mnist.js';
import { train } from '../../src/runtime/train.js';
import { repoRoot } from '../support/corpus.js';

const mlp = () => withInitialState(buildMlpTrainingStep({ inputSize: 784, hidden: 32, hiddenLayers: 2, classes: 10, batch: 'batch', optimizer: 'sgd-momentum', seed: 2 }));

describe('MNIST', () => {
  it('loads 10,000 real digits, split deterministically', () => {
    const a = loadMnist({ seed: 1 });
    const b = loadMnist({ seed: 1 });
    expect(a.train.count + a.test.count).toBe(10000);
    expect(a.test.count).toBeGreaterThan(1900);
    expect(Array.from(a.train.labels.slice(0, 50))).toEqual(Array.from(b.train.labels.slice(0, 50)));
    expect(new Set(Array.from(a.test.labels, Number)).size).toBe(10);
  });

  it('AMP with dynamic loss scaling reaches fp32 test accuracy within 1 point (250 steps, batch 64)', async () => {
    const data = loadMnist({ seed: 0 });
    const options = { epochs: 1, batch: 64, lr: 0.05, providers: ['cpu' as const], maxSteps: 250, seed: 0 };
    const fp32 = await train(mlp(), data, options);
    const amp = await train(rewriteModel(mlp()).model, data, options);
    const [f, a] = [fp32.epochs[0]!, amp.epochs[0]!];
    console.log(`[mnist] fp32 loss ${f.meanLoss.toFixed(4)} acc ${(100 * f.testAccuracy).toFixed(2)}%; amp loss ${a.meanLoss.toFixed(4)} acc ${(100 * a.testAccuracy).toFixed(2)}%, scale ${a.lossScale}, skipped ${a.skippedSteps}`);
    expect(f.testAccuracy).toBeGreaterThan(0.85);
    expect(Math.abs(a.testAccuracy - f.testAccuracy)).toBeLessThanOrEqual(0.01);
    expect(a.lossScale).toBe(65536);
    expect(a.skippedSteps).toBe(0);
  });

  it('the train command compares fp32, amp and fp16 in one table and writes JSON', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-train-'));
    const graph = path.join(dir, 'mlp.onnx');
    writeFileSync(graph, encodeModel(mlp()));
    const json = path.join(dir, 'results.json');
    const result = spawnSync(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), 'train', graph, '--compare', 'fp32,amp,fp16', '--max-steps', '20', '--json', json], {
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/variant +provider +loss scaling +final loss +test accuracy +ms\/step +skipped +loss scale\nfp32 +cpu +none .*\namp +cpu +dynamic .* 65536\nfp16 +cpu +none /);
    const record = JSON.parse(readFileSync(json, 'utf8'));
    expect(record.results.map((r: { variant: string }) => r.variant)).toEqual(['fp32', 'amp', 'fp16']);
  });
});
