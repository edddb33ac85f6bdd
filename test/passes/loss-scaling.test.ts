/**
 * The loss-scaling subgraphs, executed on ONNX Runtime on tiny training graphs: scale and unscale,
 * the all-finite check and the skipped step, the dynamic scale update, and the underflow case that
 * pure fp16 cannot train and dynamic loss scaling can.
 */
import { describe, expect, it } from 'vitest';
import { attr, GraphBuilder } from '../../src/builder/graph-builder.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { AmpError } from '../../src/onnx/errors.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { addLossScaling, DEFAULT_DYNAMIC_SCALE, parseLossScale, type LossScale } from '../../src/passes/loss-scaling.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { loadOrt } from '../../src/runtime/ort.js';

const F = DataType.FLOAT;

/** loss = ReduceSum(w * x); w_grad = x * loss_grad; w.next = w - lr * w_grad; counter.next = counter + 1. */
function tinyStep(): onnx.ModelProto {
  const b = new GraphBuilder('tiny_step');
  const w = b.input('w', F, [2]);
  const x = b.input('x', F, [2]);
  const counter = b.input('counter', DataType.INT64, []);
  const lr = b.scalar('lr', 0.5);
  const seed = b.scalar('loss_grad', 1);
  b.op('ReduceSum', [b.op('Mul', [w, x], {}, { name: 'product' })], { keepdims: attr.int(0) }, { name: 'loss', outputs: ['loss'] });
  const grad = b.op('Mul', [x, seed], {}, { name: 'w_grad', outputs: ['w_grad'] });
  b.op('Sub', [w, b.op('Mul', [lr, grad], {}, { name: 'step' })], {}, { name: 'update', outputs: ['w.next'] });
  b.op('Add', [counter, b.ints('one', [1])], {}, { name: 'count', outputs: ['counter.next'] });
  b.output('loss', F, []);
  b.output('w.next', F, [2]);
  b.output('counter.next', DataType.INT64, [1]);
  return b.model({ '': 17 });
}

async function runStep(model: onnx.IModelProto, feeds: { w: number[]; x: number[]; scale?: number; tracker?: number }) {
  const ort = await loadOrt();
  const session = await ort.InferenceSession.create(encodeModel(model));
  const inputs: Record<string, InstanceType<typeof ort.Tensor>> = {
    w: new ort.Tensor('float32', Float32Array.from(feeds.w), [2]),
    x: new ort.Tensor('float32', Float32Array.from(feeds.x), [2]),
    counter: new ort.Tensor('int64', BigInt64Array.of(7n), []),
  };
  if (session.inputNames.includes('amp.loss_scale')) inputs['amp.loss_scale'] = new ort.Tensor('float32', Float32Array.of(feeds.scale ?? 65536), []);
  if (session.inputNames.includes('amp.growth_tracker')) inputs['amp.growth_tracker'] = new ort.Tensor('int64', BigInt64Array.of(BigInt(feeds.tracker ?? 0)), []);
  const out = await session.run(inputs);
  await session.release();
  const read = (name: string) => (out[name] ? Array.from(out[name]!.data as ArrayLike<number | bigint>, (v) => (typeof v === 'bigint' ? Number(v) : v)) : undefined);
  return {
    w: read('w.next')!,
    counter: read('counter.next')![0],
    finite: read('amp.all_finite')?.[0],
    scale: read('amp.loss_scale.next')?.[0],
    tracker: read('amp.growth_tracker.next')?.[0],
  };
}

const scaled = (lossScale: LossScale = DEFAULT_DYNAMIC_SCALE) => addLossScaling(tinyStep(), lossScale).model;

describe('loss-scaling subgraphs on ONNX Runtime', () => {
  it('scale and unscale are exact for powers of two', async () => {
    const result = await runStep(scaled(), { w: [1, 2], x: [0.1, -3.3], scale: 2 ** 20 });
    expect(result.w).toEqual(Array.from(Float32Array.from([1 - 0.5 * Math.fround(0.1), 2 + 0.5 * Math.fround(3.3)])));
    expect(result.finite).toBe(1);
    expect(result.counter).toBe(8);
  });

  for (const bad of [Infinity, -Infinity, NaN]) {
    it(`a ${bad} in a gradient sets all_finite false and leaves every state output equal to its input`, async () => {
      const result = await runStep(scaled(), { w: [1, 2], x: [bad, 1], scale: 1024, tracker: 5 });
      expect(result.finite).toBe(0);
      expect(result.w).toEqual([1, 2]);
      expect(result.counter).toBe(7); // the step counter is state too
      expect(result.scale).toBe(512); // halved
      expect(result.tracker).toBe(0); // reset
    });
  }

  it('the scale halves on overflow but not below min, doubles after growth_interval finite steps but not above max', async () => {
    const model = scaled({ ...DEFAULT_DYNAMIC_SCALE, growthInterval: 3, min: 1, max: 2 ** 24 });
    expect(await runStep(model, { w: [0, 0], x: [Infinity, 0], scale: 1 })).toMatchObject({ scale: 1, tracker: 0 });
    expect(await runStep(model, { w: [0, 0], x: [1, 1], scale: 256, tracker: 0 })).toMatchObject({ scale: 256, tracker: 1 });
    expect(await runStep(model, { w: [0, 0], x: [1, 1], scale: 256, tracker: 2 })).toMatchObject({ scale: 512, tracker: 0 });
    expect(await runStep(model, { w: [0, 0], x: [1, 1], scale: 2 ** 24, tracker: 2 })).toMatchObject({ scale: 2 ** 24, tracker: 0 });
  });

  it('static scaling keeps its scale and still skips a non-finite step', async () => {
    const model = scaled({ kind: 'static', value: 128 });
    expect(encodeModel(model).length).toBeGreaterThan(0);
    const ok = await runStep(model, { w: [1, 1], x: [2, 2] });
    expect(ok).toMatchObject({ w: [0, 0], finite: 1, scale: undefined });
    expect(await runStep(model, { w: [1, 1], x: [NaN, 2] })).toMatchObject({ w: [1, 1], finite: 0 });
  });

  it('parses --loss-scale and refuses nonsense', () => {
    expect(parseLossScale('none')).toEqual({ kind: 'none' });
    expect(parseLossScale('static:1024')).toEqual({ kind: 'static', value: 1024 });
    expect(parseLossScale('dynamic', { growthInterval: 10 })).toMatchObject({ kind: 'dynamic', growthInterval: 10, initial: 65536 });
    expect(() => parseLossScale('static:-1')).toThrowError(/expected dynamic, static/);
    expect(() => parseLossScale('dynamic', { min: 10, initial: 5 })).toThrowError(/min <= initial/);
  });
});

describe('the training contract', () => {
  it('refuses a graph without state outputs, saying what it looked for and which option to pass', () => {
    const b = new GraphBuilder('inference');
    b.op('Relu', [b.input('x', F, [2])], {}, { name: 'relu', outputs: ['y'] });
    b.output('y', F, [2]);
    try {
      rewriteModel(b.model(), { training: 'on' });
      expect.unreachable();
    } catch (error) {
      expect((error as AmpError).code).toBe('TRAINING_CONTRACT');
      expect((error as AmpError).message).toMatch(/looked for an output X\.next for some input X \(pass --state-suffix\)/);
    }
  });
  it('refuses a graph whose seed is missing, pointing at --loss-grad', () => {
    const model = tinyStep();
    model.graph!.initializer = model.graph!.initializer!.filter((t) => t.name !== 'loss_grad');
    expect(() => rewriteModel(model, { contract: { loss: 'loss' } })).toThrowError(/no seed 'loss_grad'.*pass --loss-grad/);
  });
  it('detects the contract and reports it', () => {
    const { report } = rewriteModel(tinyStep());
    expect(report.training?.contract).toMatchObject({ loss: 'loss', lossGrad: 'loss_grad', params: [{ name: 'w', grad: 'w_grad' }] });
    expect(report.training?.contract.state.map((s) => s.input)).toEqual(['w', 'counter']);
    expect(report.training?.stateGuarded).toBe(2);
  });
});

/**
 * loss = 1e-8 * ReduceSum(x @ W): dLoss/dW = 1e-8 * x^T 1, below float16's smallest subnormal
 * (6e-8). In fp16 the gradient is 0 and W never moves; with the loss scaled by 65536 it is
 * 6.6e-4 in fp16 and W moves exactly as in fp32.
 */
function underflowStep(): onnx.ModelProto {
  const b = new GraphBuilder('underflow');
  const x = b.input('x', F, [2, 3]);
  const w = b.input('W', F, [3, 2]);
  const tiny = b.scalar('tiny', 1e-8);
  const y = b.op('MatMul', [x, w], {}, { name: 'forward' });
  b.op('Mul', [b.op('ReduceSum', [y], { keepdims: attr.int(0) }, { name: 'sum' }), tiny], {}, { name: 'loss', outputs: ['loss'] });
  const seed = b.scalar('loss_grad', 1);
  const dy = b.op('Expand', [b.op('Mul', [seed, tiny], {}, { name: 'dloss_dsum' }), b.ints('y_shape', [2, 2])], {}, { name: 'dy' });
  const grad = b.op('MatMul', [b.op('Transpose', [x], {}, { name: 'xT' }), dy], {}, { name: 'backward', outputs: ['W_grad'] });
  b.op('Sub', [w, b.op('Mul', [b.scalar('lr', 1e6), grad], {}, { name: 'step' })], {}, { name: 'update', outputs: ['W.next'] });
  b.output('loss', F, []);
  b.output('W.next', F, [3, 2]);
  return b.model({ '': 17 });
}

describe('gradient underflow', () => {
  const x = [1, 2, 3, 4, 5, 6];
  const w = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5];
  async function step(model: onnx.IModelProto): Promise<number[]> {
    const ort = await loadOrt();
    const session = await ort.InferenceSession.create(encodeModel(model));
    const feeds: Record<string, InstanceType<typeof ort.Tensor>> = {
      x: new ort.Tensor('float32', Float32Array.from(x), [2, 3]),
      W: new ort.Tensor('float32', Float32Array.from(w), [3, 2]),
    };
    if (session.inputNames.includes('amp.loss_scale')) {
      feeds['amp.loss_scale'] = new ort.Tensor('float32', Float32Array.of(65536), []);
      feeds['amp.growth_tracker'] = new ort.Tensor('int64', BigInt64Array.of(0n), []);
    }
    const out = await session.run(feeds);
    await session.release();
    return Array.from(out['W.next']!.data as Float32Array);
  }
  // dLoss/dW[i][j] = 1e-8 * sum over rows of x[:, i]; the update is lr (1e6) times that.
  const expected = [0.5 - 0.05, 0.5 - 0.05, 0.5 - 0.07, 0.5 - 0.07, 0.5 - 0.09, 0.5 - 0.09];

  it('fp32 moves W', async () => {
    (await step(underflowStep())).forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 6));
  });
  it('pure fp16 makes no progress: the gradient underflows to zero', async () => {
    expect(await step(ampRewrite(underflowStep(), { forceFp16: ['/.*/'] }).model)).toEqual(w);
  });
  it('AMP without loss scaling makes no progress either', async () => {
    expect(await step(rewriteModel(underflowStep(), { lossScale: { kind: 'none' } }).model)).toEqual(w);
  });
  it('AMP with dynamic loss scaling trains as fp32 does', async () => {
    const { model, report } = rewriteModel(underflowStep());
    expect(report.amp.nodes.find((n) => n.node === 'backward')?.color).toBe('ALLOW');
    (await step(model)).forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 3));
  });
});
