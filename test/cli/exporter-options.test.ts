/**
 * The command line on issue 11's cases: `inspect` on a model whose weights live in external
 * data (with and without the data file), and `--kv-cache fp16` on a decoder with past/present.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildKvDecoder } from '../../src/builder/recipes/exporter-graphs.js';
import { buildTransformer } from '../../src/builder/recipes/transformer.js';
import { DataType } from '../../src/onnx/data-types.js';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import { repoRoot } from '../support/corpus.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');
const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });

describe('inspect on a model with external data', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-inspect-ext-'));
  const file = path.join(dir, 'model.onnx');
  saveModel(buildTransformer({ batch: 2, sequence: 8, model: 32, heads: 4, ffn: 64, layers: 1, vocab: 16, seed: 3 }), file, {
    externalData: { location: 'model.onnx.data', sizeThreshold: 0 },
  });

  it('reads the weights it needs from the data file and prints the analysis (exit 0)', () => {
    const result = cli(['inspect', file]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/stored tensors: .*float/);
    expect(result.stdout).toMatch(/MatMul .*low precision/);
    expect(result.stdout).not.toMatch(/external data not available/);
  });

  it('without the data file, still describes the graph and says the weights were not checked', () => {
    renameSync(path.join(dir, 'model.onnx.data'), path.join(dir, 'moved.data'));
    try {
      const result = cli(['inspect', file]);
      expect(result.status).toBe(0);
      expect(result.stdout).toMatch(/external data not available .*model\.onnx\.data.*not checked/);
      expect(result.stdout).toMatch(/Automatic Mixed Precision pass summary/);
    } finally {
      renameSync(path.join(dir, 'moved.data'), path.join(dir, 'model.onnx.data'));
    }
  });
});

describe('--kv-cache', () => {
  it('fp16 writes a decoder whose past/present inputs and outputs are float16; the default keeps them float32', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-kv-'));
    const input = path.join(dir, 'decoder.onnx');
    saveModel(buildKvDecoder(), input);
    const typeOf = (file: string, name: string) =>
      [...(loadModel(file).graph?.input ?? []), ...(loadModel(file).graph?.output ?? [])].find((v) => v.name === name)?.type?.tensor_type?.elem_type;
    expect(cli([input, '-o', path.join(dir, 'keep.onnx'), '--quiet']).status).toBe(0);
    expect(typeOf(path.join(dir, 'keep.onnx'), 'past_key_values.0.key')).toBe(DataType.FLOAT);
    const fp16 = cli([input, '-o', path.join(dir, 'fp16.onnx'), '--kv-cache', 'fp16']);
    expect(fp16.status).toBe(0);
    expect(fp16.stdout).toMatch(/KV cache stored in FP16: 2 inputs, 2 outputs/);
    expect(typeOf(path.join(dir, 'fp16.onnx'), 'past_key_values.0.key')).toBe(DataType.FLOAT16);
    expect(typeOf(path.join(dir, 'fp16.onnx'), 'present.0.value')).toBe(DataType.FLOAT16);
  });
});
