/**
 * make-training beyond the rules: which initializers train, the refusals (an op without a rule, a
 * case a rule does not cover, a pattern that names nothing), the optimizers' first two steps
 * against PyTorch's formulas, the MSE head, and that the AMP rewrite with loss scaling takes the
 * result as it is. Pure and deterministic.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTrainer } from '../../../src/api/trainer.js';
import { attr, GraphBuilder } from '../../../src/builder/graph-builder.js';
import { encodeModel } from '../../../src/onnx/codec.js';
import { DataType } from '../../../src/onnx/data-types.js';
import type { onnx } from '../../../src/onnx/generated/onnx.js';
import { loadModel } from '../../../src/onnx/model-io.js';
import { makeTrainingStep, type MakeTrainingOptions } from '../../../src/passes/autodiff/make-training.js';
import type { OptimizerSpec } from '../../../src/passes/autodiff/optimizers.js';
import { rewriteModel } from '../../../src/passes/pipeline.js';
import { purePrecision } from '../../../src/passes/pure-precision.js';
import { validateModel } from '../../../src/onnx/validate.js';
import { loadOrt } from '../../../src/runtime/ort.js';

const F = DataType.FLOAT;
const fixture = (name: string) => loadModel(path.resolve('fixtures/torch-forward', `${name}.onnx`));
const ce: MakeTrainingOptions = { loss: { kind: 'cross-entropy' }, optimizer: { kind: 'adam' } };

/** y = x @ W (x [1,2], W [2,2] = [[1,2],[3,4]]) then `between` (Identity by default); loss L = sum(y * R), R = [[1,-1],[2,0.5]] broadcast over y's one row. */
function linear(between = 'Identity', attributes = {}): onnx.ModelProto {
  const b = new GraphBuilder('linear');
  b.input('x', F, [1, 2]);
  b.initializer('W', [2, 2], Float32Array.of(1, 2, 3, 4));
  const y = b.op(between, [b.op('MatMul', ['x', 'W'], {}, { name: 'matmul' })], attributes, { name: 'between' });
  b.op('ReduceSum', [b.op('Mul', [y, b.initializer('R', [2, 2], Float32Array.of(1, -1, 2, 0.5))])], { keepdims: attr.int(0) }, { name: 'loss_sum', outputs: ['L'] });
  b.output('L', F, []);
  return b.model({ '': 17 });
}

describe('trainable parameters', () => {
  it('weights train; BatchNormalization statistics and scalars of the computation stay frozen, each with its reason', () => {
    const { model, report } = makeTrainingStep(fixture('cnn-torchscript'), ce);
    expect(report.trainable.map((p) => p.name)).toContain('conv1.weight');
    expect(report.frozen).toContainEqual({ name: 'bn1.running_var', dims: [8], reason: expect.stringMatching(/BatchNormalization .* as input 4/) });
    const inputs = (model.graph?.input ?? []).map((i) => i.name);
    expect(inputs).toContain('conv1.weight');
    expect(inputs).not.toContain('bn1.running_var');
    expect((model.graph?.output ?? []).map((o) => o.name)).toContain('conv1.weight.next');
    // TorchScript stored bn2's weight and bias (ones, zeros) once with bn1's: the report says so.
    expect(report.shared.map((s) => s.parameter).sort()).toEqual(['bn1.bias', 'bn1.weight']);

    const b = new GraphBuilder('scaled');
    b.input('x', F, [1, 2]);
    b.initializer('W', [2, 2], Float32Array.of(1, 2, 3, 4));
    b.op('ReduceSum', [b.op('Mul', [b.op('MatMul', ['x', 'W']), b.scalar('half', 0.5)])], { keepdims: attr.int(0) }, { outputs: ['L'] });
    b.output('L', F, []);
    const scaled = makeTrainingStep(b.model(), { loss: { kind: 'output', output: 'L' }, optimizer: { kind: 'sgd' } }).report;
    expect(scaled.trainable.map((p) => p.name)).toEqual(['W']);
    expect(scaled.frozen).toEqual([{ name: 'half', dims: [], reason: expect.stringMatching(/^a rank-0 scalar/) }]);
  });

  it('--frozen and --trainable patterns choose; a pattern that names nothing is refused', () => {
    const frozen = makeTrainingStep(fixture('mlp-torchscript'), { ...ce, trainable: { frozen: ['fc1.*'] } });
    expect(frozen.report.trainable.map((p) => p.name)).toEqual(['fc2.weight', 'fc2.bias']);
    const inputs = (frozen.model.graph?.input ?? []).map((i) => i.name);
    expect(inputs).not.toContain('fc1.weight');
    expect((frozen.model.graph?.initializer ?? []).map((t) => t.name)).toContain('fc1.weight');
    const only = makeTrainingStep(fixture('mlp-torchscript'), { ...ce, trainable: { trainable: ['fc2.weight'] } });
    expect(only.report.trainable.map((p) => p.name)).toEqual(['fc2.weight']);
    expect(() => makeTrainingStep(fixture('mlp-torchscript'), { ...ce, trainable: { frozen: ['conv*'] } })).toThrow(expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringContaining("'conv*' names no float32 initializer") }));
  });
});

describe('buffers, constants and tied weights (rules/parameters.json)', () => {
  /** x [3, 4] + table [3, 4] -> MatMul W [4, 3] (+ E^T's copy, + a bias read by Where's fill) -> sum. */
  function withBuffers(table: Float32Array): onnx.ModelProto {
    const b = new GraphBuilder('buffers');
    b.input('x', F, [3, 4]);
    b.input('keep', DataType.BOOL, [3, 3]);
    b.initializer('table', [3, 4], table);
    b.initializer('W', [4, 3], Float32Array.from({ length: 12 }, (_, k) => Math.sin(k + 1)));
    // E [3, 4] and its transposed copy ET [4, 3], as an exporter stores a tied output projection.
    const e = Float32Array.from({ length: 12 }, (_, k) => Math.cos(k + 2));
    b.initializer('E', [3, 4], e);
    b.initializer('ET', [4, 3], Float32Array.from({ length: 12 }, (_, k) => e[(k % 3) * 4 + Math.floor(k / 3)]!));
    b.initializer('zeros', [3], new Float32Array(3));
    b.initializer('head.bias', [1], Float32Array.of(0.5));
    b.initializer('temperature', [], Float32Array.of(2));
    const h = b.op('Add', ['x', 'table']);
    const y = b.op('Add', [b.op('MatMul', [h, 'W']), b.op('MatMul', [h, 'ET'])]);
    const gathered = b.op('Gather', ['E', b.initializer('ids', [2], BigInt64Array.of(0n, 2n))]);
    const masked = b.op('Where', ['keep', y, 'zeros']);
    const scaled = b.op('Mul', [b.op('Add', [masked, 'head.bias']), 'temperature']);
    b.op('Add', [b.op('ReduceSum', [scaled], { keepdims: attr.int(0) }), b.op('ReduceSum', [gathered], { keepdims: attr.int(0) })], {}, { outputs: ['L'] });
    b.output('L', F, []);
    return b.model({ '': 17 });
  }
  const sgd: MakeTrainingOptions = { loss: { kind: 'output', output: 'L' }, optimizer: { kind: 'sgd' } };
  const reasons = (report: ReturnType<typeof makeTrainingStep>['report']) => Object.fromEntries(report.frozen.map((f) => [f.name, f.reason]));
  // Row p: sin and cos of p times 1 and 0.01, in halves (every sin, then every cos).
  const halves = Float32Array.from([0, 1, 2].flatMap((p) => [Math.sin(p), Math.sin(p / 100), Math.cos(p), Math.cos(p / 100)]));

  it('a sinusoidal table, a fill Where reads and a rank-0 scalar are frozen; a one-element parameter trains; a transposed copy is tied', () => {
    const { report, model } = makeTrainingStep(withBuffers(halves), sgd);
    expect(report.trainable.map((p) => p.name)).toEqual(['W', 'E', 'head.bias']);
    expect(reasons(report)).toEqual({
      table: expect.stringMatching(/^a sinusoidal position table/),
      zeros: expect.stringMatching(/Where reads it/),
      temperature: expect.stringMatching(/^a rank-0 scalar/),
    });
    expect(report.tied).toEqual([{ parameter: 'E', copy: 'ET', transposed: true, reason: expect.stringMatching(/tied weight/) }]);
    expect((model.graph?.initializer ?? []).map((t) => t.name)).not.toContain('ET');
    expect((model.graph?.node ?? []).find((n) => n.output?.[0] === 'ET')).toMatchObject({ op_type: 'Transpose', input: ['E'] });
  });

  it('the same table of random values trains; --train-also trains a scalar; --untie trains the copy apart', () => {
    const random = Float32Array.from({ length: 12 }, (_, k) => Math.sin(3 * k + 0.3) * 0.7);
    expect(makeTrainingStep(withBuffers(random), sgd).report.trainable.map((p) => p.name)).toContain('table');
    const also = makeTrainingStep(withBuffers(halves), { ...sgd, trainable: { also: ['temperature'] } }).report;
    expect(also.trainable.map((p) => p.name)).toEqual(['W', 'E', 'head.bias', 'temperature']);
    const untied = makeTrainingStep(withBuffers(halves), { ...sgd, untie: true }).report;
    expect(untied.tied).toEqual([]);
    expect(untied.trainable.map((p) => p.name)).toEqual(['W', 'E', 'ET', 'head.bias']);
  });

  it('a mask of 0 and -inf and a -1e4 fill are frozen as masks, and zeros and ones of a normalization are not tied', () => {
    const causal = Float32Array.from([0, -Infinity, -Infinity, -Infinity, 0, 0, -Infinity, -Infinity, 0, 0, 0, -Infinity]);
    expect(reasons(makeTrainingStep(withBuffers(causal), sgd).report).table).toMatch(/^holds ±inf or NaN/);
    expect(reasons(makeTrainingStep(withBuffers(new Float32Array(12).fill(-1e4)), sgd).report).table).toMatch(/padding or mask fill/);
    const ln = makeTrainingStep(fixture('encoder-torchscript'), ce).report;
    expect(ln.tied).toEqual([]);
  });
});

describe("where a derivative jumps, PyTorch's choice", () => {
  it('Max and ReduceMax share the gradient equally among tied inputs; Clip passes it at its bounds', async () => {
    const b = new GraphBuilder('ties');
    b.input('x', F, [3]);
    b.initializer('a', [3], Float32Array.of(1, 2, 3));
    b.initializer('c', [3], Float32Array.of(1, 0, 3));
    b.initializer('r', [4], Float32Array.of(5, 2, 6, 6));
    const max = b.op('Max', [b.op('Add', ['x', 'a']), b.op('Add', ['x', 'c'])]);
    const top = b.op('ReduceMax', ['r'], { keepdims: attr.int(0) });
    const clipped = b.op('Clip', ['r', b.scalar('low', 2), b.scalar('high', 5)]);
    b.op('Add', [b.op('Add', [b.op('ReduceSum', [max], { keepdims: attr.int(0) }), top]), b.op('ReduceSum', [clipped], { keepdims: attr.int(0) })], {}, { outputs: ['L'] });
    b.output('L', F, []);
    const { model } = makeTrainingStep(b.model({ '': 17 }), { loss: { kind: 'output', output: 'L' }, optimizer: { kind: 'sgd' }, exposeGradients: true, trainable: { trainable: ['a', 'c', 'r'] } });
    const ort = await loadOrt();
    const session = await ort.InferenceSession.create(encodeModel(model));
    const out = await session.run({ x: new ort.Tensor('float32', new Float32Array(3), [3]), lr: new ort.Tensor('float32', Float32Array.of(0), []) });
    await session.release();
    expect(Array.from(out['a_grad']!.data as Float32Array)).toEqual([0.5, 1, 0.5]);
    expect(Array.from(out['c_grad']!.data as Float32Array)).toEqual([0.5, 0, 0.5]);
    // ReduceMax: the two 6s share it; Clip 2..5: 1 at 5 and 2 (its bounds included), 0 at the 6s.
    expect(Array.from(out['r_grad']!.data as Float32Array)).toEqual([1, 1, 0.5, 0.5]);
  });
});

describe('Dropout in training mode', () => {
  it('the backward uses the mask its forward pass drew: dW is 0 or R / (1 - ratio), and L = sum(W * dW)', async () => {
    const b = new GraphBuilder('dropout');
    b.input('x', F, [4, 6]);
    b.initializer('W', [4, 6], Float32Array.from({ length: 24 }, (_, k) => 0.5 + k / 10));
    const r = b.initializer('R', [4, 6], Float32Array.from({ length: 24 }, (_, k) => 1 + (k % 5)));
    const dropped = b.op('Dropout', [b.op('Add', ['x', 'W']), b.scalar('ratio', 0.25), b.initializer('training', [], Uint8Array.of(1), DataType.BOOL)], { seed: attr.int(3) });
    b.op('ReduceSum', [b.op('Mul', [dropped, r])], { keepdims: attr.int(0) }, { outputs: ['L'] });
    b.output('L', F, []);
    const { model } = makeTrainingStep(b.model({ '': 17 }), { loss: { kind: 'output', output: 'L' }, optimizer: { kind: 'sgd' }, exposeGradients: true });
    const ort = await loadOrt();
    const session = await ort.InferenceSession.create(encodeModel(model));
    const out = await session.run({ x: new ort.Tensor('float32', new Float32Array(24), [4, 6]), lr: new ort.Tensor('float32', Float32Array.of(0), []) });
    await session.release();
    const grad = Array.from(out['W_grad']!.data as Float32Array);
    const kept = grad.map((g, k) => (g === 0 ? 0 : 1));
    grad.forEach((g, k) => expect([0, (1 + (k % 5)) / 0.75]).toContainEqual(expect.closeTo(g, 5)));
    expect(kept.filter((v) => v === 0).length).toBeGreaterThan(0);
    expect(kept.filter((v) => v === 1).length).toBeGreaterThan(0);
    const weights = Array.from({ length: 24 }, (_, k) => 0.5 + k / 10);
    expect((out['L']!.data as Float32Array)[0]).toBeCloseTo(weights.reduce((a, w, k) => a + w * grad[k]!, 0), 3);
  });
});

describe('refusals', () => {
  it('an op without a gradient rule between a parameter and the loss is NO_GRADIENT_RULE naming the op and the node', () => {
    expect(() => makeTrainingStep(linear('Cos'), { loss: { kind: 'output', output: 'L' }, optimizer: { kind: 'sgd' } })).toThrow(
      expect.objectContaining({ code: 'NO_GRADIENT_RULE', subject: 'between', message: expect.stringMatching(/no gradient rule for Cos \(node 'between'\)/) }),
    );
  });

  it('one refusal names every op and node without a rule, by op', () => {
    const b = new GraphBuilder('three');
    b.input('x', F, [1, 2]);
    b.initializer('W', [2, 2], Float32Array.of(1, 2, 3, 4));
    const y = b.op('Cos', [b.op('Sin', [b.op('Cos', [b.op('MatMul', ['x', 'W'])], {}, { name: 'cos_a' })], {}, { name: 'sin_a' })], {}, { name: 'cos_b' });
    b.op('ReduceSum', [y], { keepdims: attr.int(0) }, { outputs: ['L'] });
    b.output('L', F, []);
    expect(() => makeTrainingStep(b.model({ '': 17 }), { loss: { kind: 'output', output: 'L' }, optimizer: { kind: 'sgd' } })).toThrow(
      expect.objectContaining({ code: 'NO_GRADIENT_RULE', subject: 'cos_a', message: expect.stringContaining("no gradient rule for 2 ops (3 nodes) between the trainable parameters and the loss: Cos (nodes 'cos_a', 'cos_b'), Sin (node 'sin_a')") }),
    );
  });

  it('a case a rule does not cover is NO_GRADIENT_RULE saying what (auto_pad SAME_UPPER)', () => {
    const b = new GraphBuilder('same');
    b.input('x', F, [1, 2, 4, 4]);
    b.initializer('w', [2, 2, 3, 3], new Float32Array(36).fill(0.1));
    b.op('ReduceSum', [b.op('Conv', ['x', 'w'], { auto_pad: attr.string('SAME_UPPER') }, { name: 'same' })], { keepdims: attr.int(0) }, { outputs: ['L'] });
    b.output('L', F, []);
    expect(() => makeTrainingStep(b.model(), { loss: { kind: 'output', output: 'L' }, optimizer: { kind: 'sgd' } })).toThrow(
      expect.objectContaining({ code: 'NO_GRADIENT_RULE', message: expect.stringContaining("Conv (node 'same') does not cover auto_pad SAME_UPPER") }),
    );
  });

  it('cross-entropy on a model with several float outputs asks for --model-output; a non-scalar --loss output is refused', () => {
    const b = new GraphBuilder('two');
    b.input('x', F, [1, 2]);
    b.initializer('W', [2, 2], Float32Array.of(1, 2, 3, 4));
    const y = b.op('MatMul', ['x', 'W'], {}, { outputs: ['y'] });
    b.op('Relu', [y], {}, { outputs: ['z'] });
    b.output('y', F, [1, 2]);
    b.output('z', F, [1, 2]);
    expect(() => makeTrainingStep(b.model(), ce)).toThrow(expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringContaining('pass --model-output') }));
    expect(() => makeTrainingStep(b.model(), { loss: { kind: 'output', output: 'y' }, optimizer: { kind: 'sgd' } })).toThrow(expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringContaining('not a scalar') }));
  });
});

describe('optimizers: two steps against PyTorch formulas', () => {
  // dL/dy = R summed over its broadcast rows = [3, -0.5]; dL/dW = x^T [3, -0.5] for x = [1, 2], the same on every step (L is linear in W).
  const grad = [3, -0.5, 6, -1];
  const gradOf = (w: number[], wd: number) => grad.map((g, i) => g + wd * (w[i] as number));
  const lr = 0.1;
  const reference: Record<string, (steps: number) => number[]> = {
    sgd: (steps) => {
      let w = [1, 2, 3, 4];
      for (let s = 0; s < steps; s++) w = w.map((v, i) => v - lr * (grad[i] as number));
      return w;
    },
    momentum: (steps) => {
      let w = [1, 2, 3, 4];
      let v = [0, 0, 0, 0];
      for (let s = 0; s < steps; s++) {
        v = v.map((m, i) => 0.8 * m + (grad[i] as number));
        w = w.map((p, i) => p - lr * (v[i] as number));
      }
      return w;
    },
    adamw: (steps) => {
      let w = [1, 2, 3, 4];
      let m = [0, 0, 0, 0];
      let v = [0, 0, 0, 0];
      for (let t = 1; t <= steps; t++) {
        m = m.map((a, i) => 0.9 * a + 0.1 * (grad[i] as number));
        v = v.map((a, i) => 0.999 * a + 0.001 * (grad[i] as number) ** 2);
        w = w.map((p, i) => p * (1 - lr * 0.05) - (lr * ((m[i] as number) / (1 - 0.9 ** t))) / (Math.sqrt((v[i] as number) / (1 - 0.999 ** t)) + 1e-8));
      }
      return w;
    },
    adam: (steps) => {
      let w = [1, 2, 3, 4];
      let m = [0, 0, 0, 0];
      let v = [0, 0, 0, 0];
      for (let t = 1; t <= steps; t++) {
        const g = gradOf(w, 0.01);
        m = m.map((a, i) => 0.5 * a + 0.5 * (g[i] as number));
        v = v.map((a, i) => 0.9 * a + 0.1 * (g[i] as number) ** 2);
        w = w.map((p, i) => p - (lr * ((m[i] as number) / (1 - 0.5 ** t))) / (Math.sqrt((v[i] as number) / (1 - 0.9 ** t)) + 1e-3));
      }
      return w;
    },
    rmsprop: (steps) => {
      let w = [1, 2, 3, 4];
      let sq = [0, 0, 0, 0];
      for (let s = 0; s < steps; s++) {
        sq = sq.map((a, i) => 0.9 * a + 0.1 * (grad[i] as number) ** 2);
        w = w.map((p, i) => p - (lr * (grad[i] as number)) / (Math.sqrt(sq[i] as number) + 1e-8));
      }
      return w;
    },
  };
  const specs: Record<string, OptimizerSpec> = {
    sgd: { kind: 'sgd' },
    momentum: { kind: 'momentum', momentum: 0.8 },
    adamw: { kind: 'adamw', weightDecay: 0.05 },
    adam: { kind: 'adam', beta1: 0.5, beta2: 0.9, epsilon: 1e-3, weightDecay: 0.01 },
    rmsprop: { kind: 'rmsprop', rho: 0.9 },
  };
  for (const [name, spec] of Object.entries(specs)) {
    it(`${name}`, async () => {
      // R is a [2,2] weight by how it is consumed; only W trains here.
      const { model } = makeTrainingStep(linear(), { loss: { kind: 'output', output: 'L' }, optimizer: spec, trainable: { trainable: ['W'] } });
      const trainer = await createTrainer(model);
      for (let s = 0; s < 2; s++) await trainer.step({ x: { data: [1, 2], dims: [1, 2] }, lr: { data: [lr], dims: [] } });
      const w = Array.from(trainer.state().get('W')!.data as Float32Array);
      await trainer.release();
      const expected = (reference[name] as (steps: number) => number[])(2);
      w.forEach((v, i) => expect(v, `W[${i}]`).toBeCloseTo(expected[i] as number, 5));
    });
  }
});

describe('loss heads and the rewrite', () => {
  it('mse: loss = mean((y - t)^2) and dL/dW = x^T 2(y - t)/n, in float64', async () => {
    const b = new GraphBuilder('regression');
    b.input('x', F, [2, 2]);
    b.initializer('W', [2, 3], Float32Array.of(1, 2, 3, 4, 5, 6));
    b.op('MatMul', ['x', 'W'], {}, { outputs: ['y'] });
    b.output('y', F, [2, 3]);
    const { model } = makeTrainingStep(b.model(), { loss: { kind: 'mse' }, optimizer: { kind: 'sgd' }, exposeGradients: true });
    const ort = await loadOrt();
    const session = await ort.InferenceSession.create(encodeModel(purePrecision(model, DataType.DOUBLE)));
    const x = [1, -1, 0.5, 2];
    const t = [0, 1, 2, 3, 4, 5];
    const out = await session.run({ x: new ort.Tensor('float64', Float64Array.from(x), [2, 2]), targets: new ort.Tensor('float64', Float64Array.from(t), [2, 3]), lr: new ort.Tensor('float64', Float64Array.of(0), []) });
    await session.release();
    const W = [1, 2, 3, 4, 5, 6];
    const y = [0, 1].flatMap((r) => [0, 1, 2].map((c) => (x[r * 2] as number) * (W[c] as number) + (x[r * 2 + 1] as number) * (W[3 + c] as number)));
    const d = y.map((v, i) => v - (t[i] as number));
    expect((out.loss!.data as Float64Array)[0]).toBeCloseTo(d.reduce((a, v) => a + v * v, 0) / 6, 10);
    const dW = [0, 1].flatMap((k) => [0, 1, 2].map((c) => [0, 1].reduce((a, r) => a + (x[r * 2 + k] as number) * ((2 * (d[r * 3 + c] as number)) / 6), 0)));
    Array.from(out.W_grad!.data as Float64Array).forEach((v, i) => expect(v).toBeCloseTo(dW[i] as number, 10));
  });

  it('the AMP rewrite with dynamic loss scaling takes the step graph as it is: every parameter gradient unscaled, every state tensor guarded', () => {
    const { model, report } = makeTrainingStep(fixture('encoder-dynamo'), ce);
    expect(validateModel(model)).toEqual([]);
    const amp = rewriteModel(model, { training: 'on' });
    const scaling = amp.report.training;
    expect(scaling?.contract.loss).toBe('loss');
    expect(scaling?.contract.lossGrad).toBe('loss_grad');
    expect(scaling?.gradientsUnscaled).toBe(report.trainable.length);
    expect(scaling?.stateGuarded).toBe(report.trainable.length + report.optimizerState.length);
  });

  it('pure and deterministic: the input model is unchanged and two runs write the same bytes', () => {
    const forward = fixture('encoder-torchscript');
    const before = encodeModel(forward);
    const first = encodeModel(makeTrainingStep(forward, ce).model);
    expect(Buffer.from(encodeModel(forward)).equals(Buffer.from(before))).toBe(true);
    expect(Buffer.from(encodeModel(makeTrainingStep(forward, ce).model)).equals(Buffer.from(first))).toBe(true);
  });
});
