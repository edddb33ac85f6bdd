/**
 * make-training trains what PyTorch trains (#36): on a GPT-style decoder (tied embeddings, learned
 * positions, a causal-mask buffer), an encoder (a sinusoidal position buffer, a -1e4 padding fill)
 * and a recommender (a Linear(d, 1) head), each exported by both of torch's exporters
 * (scripts/export-parameter-fixtures.py), the step trains exactly the nn.Parameters, every buffer
 * stays frozen, the tied copy is one parameter, loss and gradients equal torch.autograd's, and 8
 * AdamW steps follow torch.optim.AdamW's losses and parameters. A depthwise-separable CNN (ReLU6,
 * hard-swish, average pooling) checks those gradient rules the same way.
 *
 * ONNX names are not torch's (the exporters rename transposed weights `onnx::MatMul_*`, `val_*`),
 * so parameters are matched by value: each trainable initializer equals one nn.Parameter or its
 * transpose. Needs a Python with torch (test/support/python.ts); skipped with a message without.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeModel } from '../../../src/onnx/codec.js';
import { loadModel } from '../../../src/onnx/model-io.js';
import { readFloat32 } from '../../../src/onnx/tensor-data.js';
import { makeTrainingStep } from '../../../src/passes/autodiff/make-training.js';
import { createTrainer } from '../../../src/api/trainer.js';
import { loadOrt } from '../../../src/runtime/ort.js';
import { PYTHON_HINT, pythonWith } from '../../support/python.js';

const python = pythonWith('torch');
if (!python) console.warn(`[torch-parameters] skipped: no Python with torch (${PYTHON_HINT})`);
const script = path.resolve('scripts/export-parameter-fixtures.py');
const fixtures = path.resolve('fixtures/torch-parameters');

interface Reference {
  inputs: Record<string, { values: number[]; dims: number[]; type: 'float32' | 'int64' }>;
  target: { values: number[]; dims: number[]; kind: 'mse' | 'cross-entropy' };
  loss: number;
  parameters: Array<{ names: string[]; shape: number[]; values: number[]; grad: number[] }>;
  buffers: Array<{ name: string; values: number[] }>;
  /** 8 AdamW steps (PyTorch's defaults) on the same batch: each step's loss, and the parameters after. */
  trajectory: { lr: number; losses: number[]; parameters: number[][]; buffers: Record<string, number[]> };
}

const close = (a: ArrayLike<number>, b: ArrayLike<number>): boolean => a.length === b.length && Array.from(a).every((v, k) => v === b[k] || Math.abs(v - (b[k] as number)) <= 1e-6 * Math.max(1, Math.abs(v)));
const transpose = (values: ArrayLike<number>, rows: number, cols: number): number[] => Array.from({ length: rows * cols }, (_, k) => values[(k % rows) * cols + Math.floor(k / rows)] as number);

/**
 * The torch parameter an ONNX initializer holds: the one of its name, else (a renamed, transposed
 * copy) the first not yet matched whose values equal it, as they are or transposed.
 */
function matchParameter(reference: Reference, name: string, values: Float32Array, dims: number[], used: Set<number>): { index: number; transposed: boolean } | undefined {
  const named = reference.parameters.findIndex((p) => p.names.includes(name));
  if (named >= 0) return { index: named, transposed: false };
  for (const [index, p] of reference.parameters.entries()) {
    if (used.has(index) || reference.parameters[index]!.names.some((n) => n === name) || p.values.length !== values.length) continue;
    if (close(values, p.values)) return { index, transposed: false };
    if (dims.length === 2 && p.shape.length === 2 && close(values, transpose(p.values, p.shape[0]!, p.shape[1]!))) return { index, transposed: true };
  }
  return undefined;
}

describe.skipIf(!python)('make-training trains exactly the nn.Parameters of torch exports', () => {
  let references: Record<string, Reference> = {};
  it('torch computes the reference', () => {
    references = JSON.parse(execFileSync(python as string, [script, 'reference'], { encoding: 'utf8', timeout: 300_000, maxBuffer: 1 << 26 }).replace(/-?Infinity/g, (m) => (m.startsWith('-') ? '-1e999' : '1e999')));
    expect(Object.keys(references).sort()).toEqual(['decoder', 'encoder', 'gru', 'lstm', 'mobilenet', 'recommender', 'resnet', 'separable']);
  }, 300_000);

  // resnet and mobilenet train their BatchNormalization live: exported in training mode, which
  // only the TorchScript exporter does (torch 2.13's dynamo exporter drops BatchNormalization there).
  const exporters: Record<string, string[]> = { resnet: ['torchscript'], mobilenet: ['torchscript'] };
  for (const name of ['decoder', 'encoder', 'recommender', 'separable', 'resnet', 'mobilenet', 'lstm', 'gru']) {
    for (const exporter of exporters[name] ?? ['torchscript', 'dynamo']) {
      it(`${name} (${exporter}): the parameters train, the buffers stay frozen, gradients equal torch's`, async () => {
        const reference = references[name] as Reference;
        const forward = loadModel(path.join(fixtures, `${name}-${exporter}.onnx`));
        const mse = reference.target.kind === 'mse';
        const { model, report } = makeTrainingStep(forward, { loss: { kind: mse ? 'mse' : 'cross-entropy' }, optimizer: { kind: 'sgd' }, exposeGradients: true });
        const initializers = new Map((forward.graph?.initializer ?? []).map((t) => [t.name ?? '', t]));

        // Every trainable initializer is one nn.Parameter (or its transpose), and each nn.Parameter trains once.
        // Named ones first, so that a renamed copy is matched among the parameters left.
        const used = new Set(report.trainable.map((p) => reference.parameters.findIndex((q) => q.names.includes(p.name))).filter((i) => i >= 0));
        const matched = report.trainable.map((p) => {
          const match = matchParameter(reference, p.name, readFloat32(initializers.get(p.name)!), p.dims, used);
          if (match) used.add(match.index);
          return { name: p.name, dims: p.dims, match };
        });
        // An LSTM's or GRU's weights are torch's regrouped (both directions stacked, the gates
        // reordered ifgo -> iofc, rzn -> zrh, the two biases joined): the ONNX tensors left and the
        // torch parameters left hold the same elements, compared as sorted lists.
        const regrouped = report.unrolled.length ? matched.filter((m) => !m.match) : [];
        const torchLeft = reference.parameters.filter((_, i) => !used.has(i));
        const sameElements = (ours: number[], theirs: number[], tolerance: number, what: string): void => {
          expect(ours.length, what).toBe(theirs.length);
          const [a, b] = [[...ours].sort((x, y) => x - y), [...theirs].sort((x, y) => x - y)];
          expect(Math.max(0, ...a.map((v, k) => Math.abs(v - b[k]!))), what).toBeLessThan(tolerance);
        };
        if (regrouped.length) sameElements(regrouped.flatMap((m) => Array.from(readFloat32(initializers.get(m.name)!))), torchLeft.flatMap((p) => p.values), 1e-7, 'the regrouped recurrent weights');
        expect(matched.filter((m) => !m.match && !regrouped.includes(m)).map((m) => m.name), 'trainable, but no nn.Parameter').toEqual([]);
        expect([...matched.filter((m) => m.match).map((m) => m.match!.index), ...(regrouped.length ? reference.parameters.map((_, i) => i).filter((i) => !used.has(i)) : [])].sort((a, b) => a - b)).toEqual(reference.parameters.map((_, i) => i));
        // Every buffer stays frozen, with a reason.
        for (const buffer of reference.buffers) {
          const frozen = report.frozen.find((f) => close(readFloat32(initializers.get(f.name)!), buffer.values.map((v) => (Math.abs(v) > 3e38 ? Math.sign(v) * Infinity : v))));
          expect(frozen, `buffer ${buffer.name} is frozen`).toBeDefined();
        }
        if (name === 'decoder' && exporter === 'torchscript') {
          // The output projection is stored again as emb.weight transposed: one parameter.
          expect(report.tied).toEqual([{ parameter: 'emb.weight', copy: 'onnx::MatMul_44', transposed: true, reason: expect.stringMatching(/tied weight/) }]);
        }

        const ort = await loadOrt();
        const session = await ort.InferenceSession.create(encodeModel(model));
        const feeds: Record<string, InstanceType<typeof ort.Tensor>> = { lr: new ort.Tensor('float32', Float32Array.of(0), []) };
        for (const [input, data] of Object.entries(reference.inputs)) {
          feeds[input] = data.type === 'int64' ? new ort.Tensor('int64', BigInt64Array.from(data.values.map((v) => BigInt(v))), data.dims) : new ort.Tensor('float32', Float32Array.from(data.values), data.dims);
        }
        feeds[mse ? 'targets' : 'labels'] = mse
          ? new ort.Tensor('float32', Float32Array.from(reference.target.values), reference.target.dims)
          : new ort.Tensor('int64', BigInt64Array.from(reference.target.values.map((v) => BigInt(v))), reference.target.dims);
        const out = await session.run(feeds);
        await session.release();
        expect((out.loss!.data as Float32Array)[0]).toBeCloseTo(reference.loss, 5);
        if (regrouped.length) {
          const scale = Math.max(...torchLeft.flatMap((p) => p.grad.map(Math.abs)));
          sameElements(regrouped.flatMap((m) => Array.from(out[`${m.name}_grad`]!.data as Float32Array).map((v) => v / scale)), torchLeft.flatMap((p) => p.grad.map((v) => v / scale)), 1e-4, 'the regrouped recurrent gradients');
        }
        for (const m of matched.filter((entry) => entry.match)) {
          const torchParam = reference.parameters[m.match!.index]!;
          const theirs = m.match!.transposed ? transpose(torchParam.grad, torchParam.shape[0]!, torchParam.shape[1]!) : torchParam.grad;
          const ours = out[`${m.name}_grad`]!.data as Float32Array;
          // A floor for gradients that are 0 in exact arithmetic (a bias added to every softmax score).
          const scale = Math.max(...theirs.map(Math.abs), 1e-3);
          const worst = Math.max(...theirs.map((v, k) => Math.abs((ours[k] as number) - v)));
          expect(worst / scale, `${m.name} (${torchParam.names.join(' = ')}): worst ${worst} against ${scale}`).toBeLessThan(1e-4);
        }

        // 8 AdamW steps on the same batch, the state carried by the trainer: the losses and the parameters after.
        const adamw = makeTrainingStep(forward, { loss: { kind: mse ? 'mse' : 'cross-entropy' }, optimizer: { kind: 'adamw' }, lr: reference.trajectory.lr });
        const trainer = await createTrainer(adamw.model);
        const data: Record<string, { data: number[]; dims: number[] }> = { lr: { data: [reference.trajectory.lr], dims: [] } };
        for (const [input, fed] of Object.entries(reference.inputs)) data[input] = { data: fed.values, dims: fed.dims };
        data[mse ? 'targets' : 'labels'] = { data: reference.target.values, dims: reference.target.dims };
        const losses: number[] = [];
        for (let step = 0; step < reference.trajectory.losses.length; step++) losses.push((await trainer.step(data)).loss);
        const state = trainer.state();
        await trainer.release();
        // BatchNormalization's running statistics are state the step carries, as torch's buffers.
        for (const statistic of adamw.report.runningStatistics) {
          const initial = readFloat32(initializers.get(statistic)!);
          const buffer = reference.buffers.find((b) => b.name === statistic) ?? reference.buffers.find((b) => close(initial, b.values));
          expect(buffer, `${statistic} is a torch buffer`).toBeDefined();
          const ours = Array.from(state.get(statistic)!.data as Float32Array);
          const theirs = reference.trajectory.buffers[buffer!.name]!;
          const worst = Math.max(...theirs.map((v, k) => Math.abs((ours[k] as number) - v) / Math.max(1, Math.abs(v))));
          expect(worst, `${statistic} (${buffer!.name}) after 8 steps`).toBeLessThan(1e-4);
        }
        if (exporters[name]) expect(adamw.report.runningStatistics.length).toBeGreaterThan(0);
        losses.forEach((loss, step) => expect(loss, `loss at step ${step + 1}`).toBeCloseTo(reference.trajectory.losses[step]!, 4));
        if (regrouped.length) {
          const after = reference.parameters.map((_, i) => i).filter((i) => !used.has(i)).flatMap((i) => reference.trajectory.parameters[i]!);
          sameElements(regrouped.flatMap((m) => Array.from(state.get(m.name)!.data as Float32Array)), after, 1e-4, 'the regrouped recurrent weights after 8 steps');
        }
        for (const m of matched.filter((entry) => entry.match)) {
          const torchParam = reference.parameters[m.match!.index]!;
          const after = reference.trajectory.parameters[m.match!.index]!;
          const theirs = m.match!.transposed ? transpose(after, torchParam.shape[0]!, torchParam.shape[1]!) : after;
          const ours = Array.from(state.get(m.name)!.data as Float32Array);
          // An element whose gradient is 0 in exact arithmetic (a key's bias under softmax, a bias
          // added to every score) moves by Adam's normalisation of rounding noise alone, up to lr a
          // step in either framework and in no agreed direction: it is left out.
          const grad = m.match!.transposed ? transpose(torchParam.grad, torchParam.shape[0]!, torchParam.shape[1]!) : torchParam.grad;
          const largest = Math.max(...reference.parameters.flatMap((p) => p.grad.map(Math.abs)));
          const worst = Math.max(0, ...theirs.map((v, k) => (Math.abs(grad[k]!) <= 1e-6 * largest ? 0 : Math.abs((ours[k] as number) - v))));
          expect(worst, `${m.name} (${torchParam.names.join(' = ')}) after 8 steps`).toBeLessThan(1e-4);
        }
      }, 60_000);
    }
  }
});
