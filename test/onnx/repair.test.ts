/**
 * Tolerance where ONNX Runtime tolerates (src/onnx/repair.ts): two Constants writing one value
 * (a torch 1.6 GPT-2 export) and a Constant's graph output declared another type (a string label
 * declared float) load in ORT, so the rewrite repairs them as ORT reads them and says so in the
 * summary; what ORT refuses is still refused.
 */
import { describe, expect, it } from 'vitest';
import { attr, GraphBuilder, tensor } from '../../src/builder/graph-builder.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { onnx } from '../../src/onnx/generated/onnx.js';
import { repairTolerated } from '../../src/onnx/repair.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { renderSummary } from '../../src/report/summary.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { errorOf } from '../support/errors.js';

const F = DataType.FLOAT;

/** x -> Add(x, k) -> MatMul -> y, where Constants 'c1' and 'c2' both write k (c2 after the Add). */
function duplicateConstantModel(first: number[], second: number[]): onnx.ModelProto {
  const b = new GraphBuilder('dup');
  const constant = (name: string, values: number[]) => b.op('Constant', [], { value: attr.tensor(tensor('k', [2], Float32Array.from(values))) }, { name, outputs: ['k'] });
  constant('c1', first);
  const sum = b.op('Add', [b.input('x', F, [2, 2]), 'k'], {}, { name: 'add' });
  b.op('MatMul', [sum, b.initializer('w', [2, 2], Float32Array.of(1, 0.5, 0.25, 2))], {}, { name: 'mm', outputs: ['y'] });
  constant('c2', second);
  b.output('y', F, [2, 2]);
  return b.model({ '': 13 });
}

/** A MatMul beside a string label Constant whose graph output is declared float. */
function stringLabelModel(): onnx.ModelProto {
  const b = new GraphBuilder('labels');
  b.op('MatMul', [b.input('x', F, [2, 2]), b.initializer('w', [2, 2], new Float32Array(4).fill(0.5))], {}, { name: 'mm', outputs: ['y'] });
  b.output('y', F, [2, 2]);
  const labels = onnx.TensorProto.create({ name: 'labels', dims: [2], data_type: DataType.STRING, string_data: [Buffer.from('cat'), Buffer.from('dog')] });
  b.op('Constant', [], { value: attr.tensor(labels) }, { name: 'label_const', outputs: ['label'] });
  b.output('label', F, [2]);
  return b.model({ '': 13 });
}

async function runOrt(model: onnx.IModelProto, names: string[]): Promise<unknown[][]> {
  const ort = await loadOrt();
  const session = await ort.InferenceSession.create(encodeModel(model));
  try {
    const outputs = await session.run({ x: new ort.Tensor('float32', Float32Array.of(1, 2, 3, 4), [2, 2]) });
    return names.map((name) => Array.from(outputs[name]!.data as ArrayLike<unknown>));
  } finally {
    await session.release();
  }
}

describe('repairs of what ONNX Runtime tolerates', () => {
  it('two Constants writing one value with the same value: one is kept, the summary says so, ORT gives the same outputs', async () => {
    const original = duplicateConstantModel([1, 2], [1, 2]);
    const { model, report, modified } = rewriteModel(original);
    expect(modified).toBe(true);
    expect(renderSummary(report.amp.summary)).toContain(
      "Repaired: Constants 'c1', 'c2' all write 'k' (the same value): kept the last, as ONNX Runtime does (\"the model will use the latest encountered initializer\"), and dropped the others",
    );
    expect((model.graph?.node ?? []).filter((n) => n.op_type === 'Constant')).toHaveLength(1);
    // The input is not edited.
    expect((original.graph?.node ?? []).filter((n) => n.op_type === 'Constant')).toHaveLength(2);
    const [reference] = await runOrt(original, ['y']);
    const [amp] = await runOrt(model, ['y']);
    (amp as number[]).forEach((v, i) => expect(v).toBeCloseTo((reference as number[])[i] as number, 1));
  });

  it('with different values the last one is kept, as ORT reads the model', async () => {
    const original = duplicateConstantModel([1, 2], [50, 60]);
    const { model, report } = rewriteModel(original);
    expect(report.amp.summary.repairs?.[0]).toContain('(different values)');
    const kept = (model.graph?.node ?? []).find((n) => n.op_type === 'Constant');
    expect(kept?.name).toBe('c2');
    // Where the first stood: before the Add that reads it.
    expect((model.graph?.node ?? []).findIndex((n) => n.name === 'c2')).toBeLessThan((model.graph?.node ?? []).findIndex((n) => n.name === 'add'));
    const [reference] = await runOrt(original, ['y']);
    const [amp] = await runOrt(model, ['y']);
    (amp as number[]).forEach((v, i) => expect(v).toBeCloseTo((reference as number[])[i] as number, 0));
  });

  it('a string Constant feeding a graph output declared float: declared string, the MatMul still converts, ORT returns the same labels', async () => {
    const original = stringLabelModel();
    const { model, report } = rewriteModel(original);
    expect(renderSummary(report.amp.summary)).toContain(
      "Repaired: graph output 'label' is declared tensor(float) but Constant 'label_const' writes tensor(string): declared tensor(string), the type ONNX Runtime returns",
    );
    expect(report.amp.summary.converted).toBe(1);
    const [, referenceLabels] = await runOrt(original, ['y', 'label']);
    const [, labels] = await runOrt(model, ['y', 'label']);
    expect(labels).toEqual(['cat', 'dog']);
    expect(labels).toEqual(referenceLabels);
  });

  it('a model that needs no repair is returned as it is, and in place edits the input itself', () => {
    const clean = stringLabelModel();
    clean.graph!.output![1]!.type!.tensor_type!.elem_type = DataType.STRING;
    expect(repairTolerated(clean)).toEqual({ model: clean, repairs: [] });
    const broken = duplicateConstantModel([1, 2], [1, 2]);
    expect(repairTolerated(broken, { inPlace: true }).model).toBe(broken);
    expect((broken.graph?.node ?? []).filter((n) => n.op_type === 'Constant')).toHaveLength(1);
  });

  it('two nodes other than Constants writing one value are still refused (ONNX Runtime refuses them too)', () => {
    const b = new GraphBuilder('dup');
    const x = b.input('x', F, [2]);
    b.op('Relu', [x], {}, { name: 'r1', outputs: ['k'] });
    b.op('Neg', [x], {}, { name: 'r2', outputs: ['k'] });
    b.output('k', F, [2]);
    const error = errorOf(() => rewriteModel(b.model({ '': 13 })));
    expect(error.code).toBe('INVALID_MODEL');
    expect(error.message).toMatch(/'k' is defined twice/);
  });
});

describe('the summary of a repaired model with nothing to convert', () => {
  it('says the model is written with only the repairs, not unchanged', () => {
    const b = new GraphBuilder('dup');
    const constant = (name: string) => b.op('Constant', [], { value: attr.tensor(tensor('k', [2], Float32Array.of(1, 2))) }, { name, outputs: ['k'] });
    constant('c1');
    constant('c2');
    b.op('Add', [b.input('x', F, [2]), 'k'], {}, { name: 'add', outputs: ['y'] });
    b.output('y', F, [2]);
    const { report, modified } = rewriteModel(b.model({ '': 13 }));
    expect(modified).toBe(true);
    expect(renderSummary(report.amp.summary)).toContain('No allow-list ops found: nothing to convert, the model is written with only the repairs above.');
  });
});
