/**
 * Models in the shapes real exporters produce, for the fixtures and tests of issue 11:
 * an unsorted graph (as onnxconverter-common's test models are), a BERT encoder after ONNX
 * Runtime's transformer fusion, a decoder layer with rotary embeddings, grouped-query attention
 * and a past/present key-value cache, and a dynamo-style model made of local functions.
 */
import { DataType } from '../../onnx/data-types.js';
import { onnx } from '../../onnx/generated/onnx.js';
import { attr, GraphBuilder, randomNormal, seededRandom } from '../graph-builder.js';

const F = DataType.FLOAT;
const MS = 'com.microsoft';

/** MatMul -> Relu -> MatMul -> Softmax, with the node list written backwards (still a valid graph). */
export function buildUnsorted(): onnx.ModelProto {
  const random = seededRandom(11);
  const b = new GraphBuilder('unsorted');
  const x = b.input('x', F, [2, 8]);
  const w1 = b.initializer('w1', [8, 8], randomNormal(64, 0.3, random));
  const w2 = b.initializer('w2', [8, 4], randomNormal(32, 0.3, random));
  const h1 = b.op('MatMul', [x, w1], {}, { name: 'mm1', outputs: ['h1'] });
  const h2 = b.op('Relu', [h1], {}, { name: 'relu', outputs: ['h2'] });
  const h3 = b.op('MatMul', [h2, w2], {}, { name: 'mm2', outputs: ['h3'] });
  b.op('Softmax', [h3], { axis: attr.int(-1) }, { name: 'softmax', outputs: ['y'] });
  b.output('y', F, [2, 4]);
  b.nodes.reverse();
  return b.model();
}

const DYNAMO_DOMAIN = 'pkg.torch.model';

function localFunction(name: string, inputs: string[], outputs: string[], nodes: onnx.NodeProto[], opset: number, attributes: onnx.AttributeProto[] = []): onnx.FunctionProto {
  return onnx.FunctionProto.create({
    name,
    domain: DYNAMO_DOMAIN,
    input: inputs,
    output: outputs,
    node: nodes,
    attribute_proto: attributes,
    opset_import: [onnx.OperatorSetIdProto.create({ domain: '', version: opset }), onnx.OperatorSetIdProto.create({ domain: DYNAMO_DOMAIN, version: 1 })],
  });
}

function fnNode(opType: string, inputs: string[], outputs: string[], name: string, extra: Partial<onnx.INodeProto> = {}): onnx.NodeProto {
  return onnx.NodeProto.create({ op_type: opType, input: inputs, output: outputs, name, ...extra });
}

/**
 * The shape torch.onnx.export(dynamo=True) gives a model: every submodule is a model-local
 * function (here Linear, and Block calling Linear twice with a LeakyRelu whose slope is the
 * call's attribute), weights are graph initializers passed to the calls, and the main graph is
 * a few calls plus the head.
 */
export function buildDynamoFunctions(): onnx.ModelProto {
  const random = seededRandom(17);
  const opset = 18;
  const b = new GraphBuilder('main_graph');
  const x = b.input('x', F, [2, 16]);
  const weights = (prefix: string, rows: number, cols: number) => [
    b.initializer(`${prefix}.weight`, [rows, cols], randomNormal(rows * cols, 0.25, random)),
    b.initializer(`${prefix}.bias`, [cols], randomNormal(cols, 0.1, random)),
  ];
  const [w1, b1] = weights('block.fc1', 16, 32) as [string, string];
  const [w2, b2] = weights('block.fc2', 32, 16) as [string, string];
  const [w3, b3] = weights('head', 16, 8) as [string, string];
  const slope = onnx.AttributeProto.create({ name: 'slope', type: onnx.AttributeProto.AttributeType.FLOAT, f: 0.1 });
  b.node('Block', [x, w1, b1, w2, b2], {}, { name: 'block_1', outputs: ['block_out'], domain: DYNAMO_DOMAIN });
  b.nodes[b.nodes.length - 1]!.attribute = [slope];
  const residual = b.op('Add', [x, 'block_out'], {}, { name: 'residual' });
  const logits = b.op('Linear', [residual, w3, b3], {}, { name: 'head_1', outputs: ['logits'], domain: DYNAMO_DOMAIN });
  b.op('Softmax', [logits], { axis: attr.int(-1) }, { name: 'softmax', outputs: ['probs'] });
  b.output('probs', F, [2, 8]);

  const linear = localFunction('Linear', ['input', 'weight', 'bias'], ['out'], [
    fnNode('MatMul', ['input', 'weight'], ['mm'], 'matmul'),
    fnNode('Add', ['mm', 'bias'], ['out'], 'add'),
  ], opset);
  const leakyAlpha = onnx.AttributeProto.create({ name: 'alpha', type: onnx.AttributeProto.AttributeType.FLOAT, ref_attr_name: 'slope' });
  const block = localFunction('Block', ['input', 'w1', 'b1', 'w2', 'b2'], ['out'], [
    fnNode('Linear', ['input', 'w1', 'b1'], ['h'], 'fc1', { domain: DYNAMO_DOMAIN }),
    fnNode('LeakyRelu', ['h'], ['act'], 'act', { attribute: [leakyAlpha] }),
    fnNode('Linear', ['act', 'w2', 'b2'], ['out'], 'fc2', { domain: DYNAMO_DOMAIN }),
  ], opset, [onnx.AttributeProto.create({ name: 'slope', type: onnx.AttributeProto.AttributeType.FLOAT, f: 0.01 })]);
  const model = b.model({ '': opset, [DYNAMO_DOMAIN]: 1 }, 'pytorch');
  model.functions = [linear, block];
  return model;
}
