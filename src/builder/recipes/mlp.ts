/** The seeds' MLP for inference: input -> (Dense -> ReLU) x layers -> Dense -> Softmax. */
import { DataType } from '../../onnx/data-types.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import { attr, GraphBuilder, randomNormal, seededRandom } from '../graph-builder.js';

export interface MlpSpec {
  batch: number | string;
  input: number;
  hidden: number;
  layers: number;
  classes: number;
  seed?: number;
}

export function buildMlpInference(spec: MlpSpec): onnx.ModelProto {
  const random = seededRandom(spec.seed ?? 1);
  const b = new GraphBuilder('mlp');
  let x = b.input('features', DataType.FLOAT, [spec.batch, spec.input]);
  let width = spec.input;
  for (let i = 0; i < spec.layers; i++) {
    const w = b.initializer(`dense${i}.weight`, [width, spec.hidden], randomNormal(width * spec.hidden, Math.sqrt(2 / width), random));
    const bias = b.initializer(`dense${i}.bias`, [spec.hidden], new Float32Array(spec.hidden));
    x = b.op('Relu', [b.op('Gemm', [x, w, bias], {}, { name: `dense${i}` })], {}, { name: `relu${i}` });
    width = spec.hidden;
  }
  const w = b.initializer('head.weight', [width, spec.classes], randomNormal(width * spec.classes, Math.sqrt(1 / width), random));
  const logits = b.op('Gemm', [x, w, b.initializer('head.bias', [spec.classes], new Float32Array(spec.classes))], {}, { name: 'head' });
  b.op('Softmax', [logits], { axis: attr.int(-1) }, { name: 'softmax', outputs: ['probabilities'] });
  b.output('probabilities', DataType.FLOAT, [spec.batch, spec.classes]);
  return b.model({ '': 17 });
}
