/**
 * ONNX Runtime training graphs: a small graph in the shape of onnxruntime-training's
 * training_model.onnx (forward Gemm/Relu, SoftmaxCrossEntropyLossInternal and its Grad, ReluGrad,
 * backward Gemms, InPlaceAccumulatorV2 per parameter; com.microsoft domain) is classified op by op
 * from rules/ort-training.json, rewrites without loss scaling, and refuses --loss-scale (and
 * --training on) with what is missing, never ignoring it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { attr, GraphBuilder } from '../../src/builder/graph-builder.js';
import { DataType } from '../../src/onnx/data-types.js';
import { DEFAULT_DYNAMIC_SCALE } from '../../src/passes/loss-scaling.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { ortTrainingNodes, ortTrainingRules } from '../../src/passes/training/ort-training.js';
import { repoRoot } from '../support/corpus.js';

const F = DataType.FLOAT;
const MS = 'com.microsoft';

export function ortTrainingModel() {
  const b = new GraphBuilder('ort_training_model');
  b.input('input', F, ['batch', 4]);
  b.input('labels', DataType.INT64, ['batch']);
  b.input('lazy_reset_grad', DataType.BOOL, [1]);
  for (const [name, dims] of [['fc1.weight', [8, 4]], ['fc2.weight', [3, 8]]] as const) {
    b.input(name, F, [...dims]);
    b.input(`${name}_grad.accumulation.buffer`, F, [...dims]);
  }
  const hidden = b.op('Gemm', ['input', 'fc1.weight'], { transB: attr.int(1) }, { name: 'fc1', outputs: ['hidden'] });
  const relu = b.op('Relu', [hidden], {}, { name: 'relu', outputs: ['relu'] });
  const logits = b.op('Gemm', [relu, 'fc2.weight'], { transB: attr.int(1) }, { name: 'fc2', outputs: ['logits'] });
  b.node('SoftmaxCrossEntropyLossInternal', [logits, 'labels'], { reduction: attr.string('mean') }, { name: 'loss', domain: MS, outputs: ['onnx::loss', 'log_prob'] });
  const seed = b.scalar('onnx::loss_grad', 1);
  const dLogits = b.op('SoftmaxCrossEntropyLossInternalGrad', [seed, 'log_prob', 'labels'], { reduction: attr.string('mean') }, { name: 'loss_grad', domain: MS, outputs: ['logits_grad'] });
  const dW2 = b.op('Gemm', [dLogits, relu], { transA: attr.int(1) }, { name: 'fc2_grad_w', outputs: ['fc2.weight_grad'] });
  const dRelu = b.op('Gemm', [dLogits, 'fc2.weight'], {}, { name: 'fc2_grad_x', outputs: ['relu_grad'] });
  const dHidden = b.op('ReluGrad', [dRelu, relu], {}, { name: 'relu_grad', domain: MS, outputs: ['hidden_grad'] });
  const dW1 = b.op('Gemm', [dHidden, 'input'], { transA: attr.int(1) }, { name: 'fc1_grad_w', outputs: ['fc1.weight_grad'] });
  for (const [name, grad] of [['fc1.weight', dW1], ['fc2.weight', dW2]] as const) {
    b.node('InPlaceAccumulatorV2', [`${name}_grad.accumulation.buffer`, grad, 'lazy_reset_grad'], {}, { name: `${name}_accumulate`, domain: MS, outputs: [`${name}_grad.accumulation.out`] });
    b.output(`${name}_grad.accumulation.out`, DataType.BOOL, [1]);
  }
  b.output('onnx::loss', F, []);
  return b.model({ '': 17, [MS]: 1 });
}

describe('ONNX Runtime training graphs', () => {
  it('every training op of the rules file has a role, a precision and a reason, and the source they follow is cited', () => {
    const file = JSON.parse(readFileSync(path.join(repoRoot, 'rules/ort-training.json'), 'utf8')) as { meaning: string; source: string };
    expect(file.source).toContain('mixed_precision_transformer.cc');
    for (const rule of ortTrainingRules().values()) {
      expect(['loss', 'loss-gradient', 'gradient', 'accumulator', 'loss-scale', 'all-finite', 'optimizer']).toContain(rule.role);
      expect(['fp32', 'fp16', 'none']).toContain(rule.precision);
      expect(rule.reason.length).toBeGreaterThan(20);
    }
  });

  it('classifies every com.microsoft node of a training_model.onnx-shaped graph', () => {
    const found = ortTrainingNodes(ortTrainingModel());
    expect(found.map((n) => `${n.node}:${n.rule.role}`)).toEqual([
      'loss:loss',
      'loss_grad:loss-gradient',
      'relu_grad:gradient',
      'fc1.weight_accumulate:accumulator',
      'fc2.weight_accumulate:accumulator',
    ]);
  });

  it('--loss-scale dynamic is refused with what is missing, with or without --training on; without it the rewrite runs', () => {
    const model = ortTrainingModel();
    const refusal = expect.objectContaining({
      code: 'TRAINING_CONTRACT',
      message: expect.stringMatching(/--loss-scale dynamic cannot be applied: this is an ONNX Runtime training graph \(5 training op nodes: .*found a loss \(SoftmaxCrossEntropyLossInternal\); .*InPlaceAccumulatorV2 x2.*missing the optimizer update/),
    });
    expect(() => rewriteModel(model, { lossScale: DEFAULT_DYNAMIC_SCALE })).toThrow(refusal);
    expect(() => rewriteModel(model, { lossScale: { kind: 'static', value: 128 } })).toThrow(expect.objectContaining({ code: 'TRAINING_CONTRACT', message: expect.stringContaining('--loss-scale static cannot be applied') }));
    expect(() => rewriteModel(model, { training: 'on' })).toThrow(expect.objectContaining({ code: 'TRAINING_CONTRACT', message: expect.stringContaining('--training on cannot be applied: this is an ONNX Runtime training graph') }));
    expect(() => rewriteModel(model, { training: 'off', lossScale: DEFAULT_DYNAMIC_SCALE })).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
    const plain = rewriteModel(model);
    expect(plain.report.training).toBeUndefined();
  });

  it('--loss-scale on an inference graph is an error, not a silent no-op; --loss-scale none is accepted', () => {
    const b = new GraphBuilder('inference');
    b.input('x', F, [2, 4]);
    b.initializer('w', [4, 4], new Float32Array(16).fill(0.5));
    b.op('MatMul', ['x', 'w'], {}, { outputs: ['y'] });
    b.output('y', F, [2, 4]);
    expect(() => rewriteModel(b.model(), { lossScale: DEFAULT_DYNAMIC_SCALE })).toThrow(expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringContaining('this is an inference graph') }));
    expect(rewriteModel(b.model(), { lossScale: { kind: 'none' } }).report.training).toBeUndefined();
  });
});

describe('the summary', () => {
  it('names every ONNX Runtime training op the rewrite left as it is, by role', async () => {
    const { ortTrainingSummary } = await import('../../src/passes/training/ort-training.js');
    const summary = ortTrainingSummary(ortTrainingModel());
    expect(summary?.ops).toEqual({ loss: 'SoftmaxCrossEntropyLossInternal', 'loss-gradient': 'SoftmaxCrossEntropyLossInternalGrad', gradient: 'ReluGrad', accumulator: 'InPlaceAccumulatorV2 x2' });
    expect(summary?.line).toMatch(/^ONNX Runtime training ops left as they are .*accumulator: InPlaceAccumulatorV2 x2\n$/);
  });
});

describe('on the command line', () => {
  it('the rewrite names the training ops in its summary; --loss-scale dynamic --strict exits 2 with the reason and writes nothing', async () => {
    const { spawnSync } = await import('node:child_process');
    const { existsSync, mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { saveModel } = await import('../../src/onnx/model-io.js');
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-ort-training-'));
    const file = path.join(dir, 'training_model.onnx');
    saveModel(ortTrainingModel(), file);
    const cli = (args: string[]) => spawnSync(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), ...args], { encoding: 'utf8', cwd: dir });
    const plain = cli([file, '-o', 'plain.onnx']);
    expect(plain.status).toBe(0);
    expect(plain.stdout).toContain('ONNX Runtime training ops left as they are (rules/ort-training.json; loss scaling is not applied to this graph): loss: SoftmaxCrossEntropyLossInternal; loss-gradient: SoftmaxCrossEntropyLossInternalGrad; gradient: ReluGrad; accumulator: InPlaceAccumulatorV2 x2');
    const scaled = cli([file, '-o', 'scaled.onnx', '--loss-scale', 'dynamic', '--strict']);
    expect(scaled.status).toBe(2);
    expect(scaled.stderr).toMatch(/^amp-rewrite: error \[TRAINING_CONTRACT\]: --loss-scale dynamic cannot be applied: this is an ONNX Runtime training graph/);
    expect(existsSync(path.join(dir, 'scaled.onnx'))).toBe(false);
  }, 60_000);
});
