/** `amp-rewrite example`: the graphs it writes are the recipes' training steps, and train feeds the learning rate they record. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildAttentionTrainingStep, buildMlpTrainingStep, withInitialState } from '../../src/builder/recipes/training.js';
import { encodeModel } from '../../src/onnx/codec.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { repoRoot } from '../support/corpus.js';

const cli = (args: string[]) => spawnSync(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), ...args], { encoding: 'utf8' });
const dir = mkdtempSync(path.join(tmpdir(), 'amp-example-'));

/** The written model without its metadata, and the learning rate the metadata records. */
function written(file: string): { bytes: Uint8Array; lr: string | undefined } {
  const model = loadModel(file);
  const lr = model.metadata_props?.find((p) => p.key === 'amp-rewrite.train.lr')?.value ?? undefined;
  model.metadata_props = [];
  return { bytes: encodeModel(model), lr };
}
const bytesOf = (model: onnx.ModelProto) => encodeModel(model);

describe('amp-rewrite example', () => {
  it("defaults to the README table's graph: MLP 784-64-64-10, RMSprop with epsilon 1e-8, lr 1e-3", () => {
    const file = path.join(dir, 'mlp.onnx');
    const result = cli(['example', 'mlp', '-o', file]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const recipe = withInitialState(buildMlpTrainingStep({ inputSize: 784, hidden: 64, hiddenLayers: 2, classes: 10, batch: 'batch', optimizer: 'rmsprop', seed: 1 }));
    const { bytes, lr } = written(file);
    expect(Buffer.from(bytes).equals(Buffer.from(bytesOf(recipe)))).toBe(true);
    expect(lr).toBe('0.001');
  });

  it('passes width, depth, optimizer, batch, epsilon and seed to the recipe', () => {
    const file = path.join(dir, 'mlp-adam.onnx');
    const result = cli(['example', 'mlp', '-o', file, '--hidden', '8', '--layers', '1', '--optimizer', 'adam', '--batch', '16', '--epsilon', '1e-4', '--seed', '5', '--lr', '0.01']);
    expect(result.status).toBe(0);
    const recipe = withInitialState(
      buildMlpTrainingStep({ inputSize: 784, hidden: 8, hiddenLayers: 1, classes: 10, batch: 16, optimizer: 'adam', seed: 5, constants: { eps: 1e-4 } }),
    );
    const { bytes, lr } = written(file);
    expect(Buffer.from(bytes).equals(Buffer.from(bytesOf(recipe)))).toBe(true);
    expect(lr).toBe('0.01');
    const mismatch = cli(['train', file, '--batch', '32', '--max-steps', '1', '-q']);
    expect(mismatch.status).toBe(2);
    expect(mismatch.stderr).toMatch(/fixed batch of 16: pass --batch 16/);
  });

  it('writes the attention recipe over 28 rows of 28 pixels', () => {
    const file = path.join(dir, 'attention.onnx');
    expect(cli(['example', 'attention', '-o', file, '--optimizer', 'sgd']).status).toBe(0);
    const recipe = withInitialState(buildAttentionTrainingStep({ sequence: 28, width: 28, classes: 10, batch: 'batch', optimizer: 'sgd-momentum', seed: 1 }));
    expect(Buffer.from(written(file).bytes).equals(Buffer.from(bytesOf(recipe)))).toBe(true);
  });

  it('refuses options that do not apply, with exit 2', () => {
    for (const args of [
      ['example', 'attention', '-o', path.join(dir, 'x.onnx'), '--hidden', '8'],
      ['example', 'mlp', '-o', path.join(dir, 'x.onnx'), '--optimizer', 'sgd', '--epsilon', '1e-4'],
      ['example', 'mlp', '-o', path.join(dir, 'x.onnx'), '--layers', '0'],
    ]) {
      const result = cli(args);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(/BAD_OPTION/);
    }
  });

  it('train feeds the learning rate the example records unless --lr is given', () => {
    const file = path.join(dir, 'small.onnx');
    expect(cli(['example', 'mlp', '-o', file, '--hidden', '8', '--lr', '0.002']).status).toBe(0);
    const json = path.join(dir, 'run.json');
    const result = cli(['train', file, '--max-steps', '2', '-q', '--json', json]);
    expect(result.status).toBe(0);
    expect(JSON.parse(readFileSync(json, 'utf8')).lr).toBe(0.002);
    expect(cli(['train', file, '--max-steps', '2', '-q', '--json', json, '--lr', '0.5']).status).toBe(0);
    expect(JSON.parse(readFileSync(json, 'utf8')).lr).toBe(0.5);
  });
});
