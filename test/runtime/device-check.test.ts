/** The CUDA device check of run, bench and train, with a faked device query (no GPU needed). */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBench, runRun, type BenchArgs, type RunArgs } from '../../src/cli/execute-commands.js';
import { runTrain, type TrainArgs } from '../../src/cli/train-command.js';
import { AmpError } from '../../src/onnx/errors.js';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { checkCudaDevice, lowPrecisionTypesOf, parseGpuList, type DeviceQuery } from '../../src/runtime/device-check.js';
import { fixturesDir } from '../support/corpus.js';

const gpu = (name: string, computeCapability: number): DeviceQuery => () => [{ name, computeCapability }];
const H100 = gpu('NVIDIA H100 80GB HBM3', 9.0);
const T4 = gpu('Tesla T4', 7.5);
const P100 = gpu('Tesla P100-PCIE-16GB', 6.0);
const fp16 = new Set(['float16'] as const);
const bf16 = new Set(['bfloat16'] as const);

describe('parseGpuList', () => {
  it('reads name and compute capability per line, names with commas included', () => {
    expect(parseGpuList('NVIDIA H100 80GB HBM3, 9.0\nTesla T4, 7.5\n\n')).toEqual([
      { name: 'NVIDIA H100 80GB HBM3', computeCapability: 9 },
      { name: 'Tesla T4', computeCapability: 7.5 },
    ]);
    expect(parseGpuList('Odd, Name, 8.6')).toEqual([{ name: 'Odd, Name', computeCapability: 8.6 }]);
    expect(parseGpuList('garbage')).toEqual([]);
  });
});

describe('checkCudaDevice', () => {
  it('does not query the device unless CUDA is the first provider', () => {
    const never: DeviceQuery = () => {
      throw new Error('queried');
    };
    expect(checkCudaDevice(['cpu'], bf16, 'm.onnx', never)).toBeUndefined();
    expect(checkCudaDevice(['webgpu', 'cuda'], bf16, 'm.onnx', never)).toBeUndefined();
  });

  it('refuses bfloat16 below compute capability 8.0, naming the GPU and the model', () => {
    expect(() => checkCudaDevice(['cuda'], bf16, 'm.onnx', T4)).toThrow(AmpError);
    expect(() => checkCudaDevice(['cuda'], bf16, 'm.onnx', T4)).toThrow(/m\.onnx computes in bfloat16.*8\.0 or newer; Tesla T4 has 7\.5/);
    expect(checkCudaDevice(['cuda'], bf16, 'm.onnx', gpu('NVIDIA A100', 8.0))?.notes).toEqual(['device: NVIDIA A100, compute capability 8.0']);
  });

  it('warns for float16 below 7.0 (no Tensor Cores), and not at 7.0 or above', () => {
    expect(checkCudaDevice(['cuda'], fp16, 'm.onnx', P100)?.notes[1]).toMatch(/^warning: Tesla P100.*no Tensor Cores/);
    expect(checkCudaDevice(['cuda'], fp16, 'm.onnx', gpu('Tesla V100', 7.0))?.notes).toHaveLength(1);
    expect(checkCudaDevice(['cuda'], new Set(), 'm.onnx', P100)?.notes).toHaveLength(1);
  });

  it('says so when the device cannot be queried', () => {
    expect(checkCudaDevice(['cuda'], bf16, 'm.onnx', () => null)).toEqual({ device: null, notes: [expect.stringContaining('compute capability unknown')] });
    expect(checkCudaDevice(['cuda', 'webgpu', 'cpu'], bf16, 'm.onnx', () => null)).toBeUndefined();
    expect(() => checkCudaDevice(['cuda', 'cpu'], bf16, 'm.onnx', T4)).toThrow(/Tesla T4/);
  });
});

describe('lowPrecisionTypesOf', () => {
  const model = loadModel(path.join(fixturesDir, 'transformer-block', 'model.onnx'));
  it('finds the reduced types a rewritten model computes in', () => {
    expect([...lowPrecisionTypesOf(model)]).toEqual([]);
    expect([...lowPrecisionTypesOf(rewriteModel(model).model)]).toEqual(['float16']);
    expect([...lowPrecisionTypesOf(rewriteModel(model, { mode: 'bf16' }).model)]).toEqual(['bfloat16']);
  });
});

describe('the commands check the device before running on CUDA', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'amp-device-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const transformer = loadModel(path.join(fixturesDir, 'transformer-block', 'model.onnx'));
  const bf16File = path.join(dir, 'bf16.onnx');
  saveModel(rewriteModel(transformer, { mode: 'bf16' }).model, bf16File);
  const silent = () => {};
  const code = async (promise: Promise<unknown>) => promise.then(() => 'ok', (error: AmpError) => error.code);

  it('run refuses a bfloat16 model on a T4', async () => {
    const args: RunArgs = { model: bf16File, ep: 'cuda', inputs: [], dim: [], dimDefault: 1, seed: 0, json: false };
    expect(await code(runRun(args, silent, { queryDevice: T4 }))).toBe('DEVICE_UNSUPPORTED');
  });

  it('bench refuses --mode bf16 on a T4', async () => {
    const args = {
      model: path.join(fixturesDir, 'transformer-block', 'model.onnx'), mode: 'bf16', weights: 'fp32', report: [], quiet: true, json: false, verbose: false,
      dryRun: false, forceFp32: [], forceFp16: [], allowNewerIr: false, externalData: 'keep', calibrate: false, training: 'auto',
      inputs: [], dim: [], target: 'cuda', ep: 'cuda', seed: 0, runs: 1, warmup: 0,
    } as unknown as BenchArgs;
    expect(await code(runBench(args, silent, { queryDevice: T4 }))).toBe('DEVICE_UNSUPPORTED');
  });

  it('train refuses a bfloat16 training graph on a T4', async () => {
    const trainFile = path.join(dir, 'train-bf16.onnx');
    saveModel(rewriteModel(loadModel(path.join(fixturesDir, 'mlp-training-adam', 'model.onnx')), { mode: 'bf16' }).model, trainFile);
    const args = { graph: trainFile, data: 'mnist', epochs: 1, batch: 8, lr: 0.01, ep: 'cuda', seed: 0, quiet: true } as unknown as TrainArgs;
    expect(await code(runTrain(args, silent, { queryDevice: T4 }))).toBe('DEVICE_UNSUPPORTED');
  });
});
