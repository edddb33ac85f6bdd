/**
 * String tensors in a model, as ONNX Runtime's own `squeezenet_tensor_input` test model holds its
 * class labels: a Constant (opset 9, whose schema lists only float types for the output) and an
 * initializer, each a graph output. The ONNX checker and ONNX Runtime accept such a model; the
 * rewrite converts the classifier, keeps the strings byte for byte, and its verification passes.
 */
import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../../src/builder/graph-builder.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { onnx } from '../../src/onnx/generated/onnx.js';
import { validateModel } from '../../src/onnx/validate.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { rewriteAndVerify } from '../../src/api/verify.js';

const LABELS = Array.from({ length: 8 }, (_, i) => `class ${i}: ünïcode ${'x'.repeat(i)}`);

function stringTensor(name: string, values: string[]): onnx.TensorProto {
  return onnx.TensorProto.create({ name, data_type: DataType.STRING, dims: [values.length], string_data: values.map((v) => new TextEncoder().encode(v)) });
}

function classifierWithLabels(): onnx.ModelProto {
  const b = new GraphBuilder('squeezenet_labels');
  const x = b.input('data_0', DataType.FLOAT, [1, 3, 16, 16]);
  const weights = Float32Array.from({ length: 8 * 3 * 3 * 3 }, (_, i) => Math.sin(i * 1.3) * 0.2);
  const w = b.initializer('conv_w', [8, 3, 3, 3], weights);
  const conv = b.op('Conv', [x, w], { pads: { kind: 'ints', value: [1, 1, 1, 1] } }, { name: 'conv' });
  const pooled = b.op('GlobalAveragePool', [b.op('Relu', [conv], {}, { name: 'relu' })], {}, { name: 'pool' });
  b.op('Softmax', [b.op('Flatten', [pooled], {}, { name: 'flatten' })], {}, { name: 'softmax', outputs: ['softmaxout_1'] });
  b.node('Constant', [], { value: { kind: 'tensor', value: stringTensor('labels_value', LABELS) } }, { name: 'labels', outputs: ['ClassLabels'] });
  b.output('softmaxout_1', DataType.FLOAT, [1, 8]);
  b.output('ClassLabels', DataType.STRING, [8]);
  b.output('label_table', DataType.STRING, [2]);
  const model = b.model({ '': 9 });
  model.graph?.initializer?.push(stringTensor('label_table', ['cat', 'dog']));
  return model;
}

describe('string tensors in Constants and initializers', () => {
  it('validate as ONNX Runtime takes them: a Constant-9 holding strings is no type error', () => {
    expect(validateModel(classifierWithLabels())).toEqual([]);
  });

  it('a Relu on uint16 is still refused: only outputs typed by attributes go unchecked', () => {
    const b = new GraphBuilder('g');
    b.op('Relu', [b.input('x', DataType.UINT16, [2])], {}, { name: 'relu', outputs: ['y'] });
    b.output('y', DataType.UINT16, [2]);
    expect(validateModel(b.model()).map((p) => p.message)).toEqual([expect.stringMatching(/input 'x' is tensor\(uint16\), not one of/)]);
  });

  it('the rewrite converts the classifier, keeps the strings, runs and verifies', async () => {
    const { model, report } = ampRewrite(classifierWithLabels());
    expect(report.nodes.find((n) => n.node === 'conv')?.color).toBe('ALLOW');
    const labels = model.graph?.node?.find((n) => n.name === 'labels')?.attribute?.[0]?.t?.string_data?.map((s) => new TextDecoder().decode(s));
    expect(labels).toEqual(LABELS);

    const ort = await import('onnxruntime-node');
    const session = await ort.InferenceSession.create(encodeModel(model));
    const outputs = await session.run({ data_0: new ort.Tensor('float32', new Float32Array(3 * 16 * 16).fill(0.5), [1, 3, 16, 16]) });
    expect(Array.from(outputs.ClassLabels?.data as string[])).toEqual(LABELS);
    expect(Array.from(outputs.label_table?.data as string[])).toEqual(['cat', 'dog']);
    expect(outputs.softmaxout_1?.type).toBe('float32');

    const verified = await rewriteAndVerify(classifierWithLabels(), {});
    expect(verified.verification.status).toBe('pass');
  }, 120_000);
});
