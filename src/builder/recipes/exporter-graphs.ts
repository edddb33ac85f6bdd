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
