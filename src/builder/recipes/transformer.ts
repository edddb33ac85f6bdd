/**
 * A pre-norm transformer (attention + MLP blocks) with an optional token-level
 * SoftmaxCrossEntropyLoss head: the fixture that shows the AMP pass's choices on the model
 * family that matters most, and the benchmark model at larger sizes.
 */
import { DataType } from '../../onnx/data-types.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import { attr, GraphBuilder, randomNormal, seededRandom } from '../graph-builder.js';

export interface TransformerSpec {
  batch: number;
  sequence: number;
  model: number;
  heads: number;
  ffn: number;
  layers: number;
  /** Vocabulary of the loss head; 0 for no loss (inference only). */
  vocab: number;
  seed?: number;
}

export function buildTransformer(spec: TransformerSpec): onnx.ModelProto {
  const { batch, sequence, model: d, heads, ffn, layers, vocab } = spec;
  const headDim = d / heads;
  if (!Number.isInteger(headDim)) throw new Error('model width must be a multiple of the head count');
  const random = seededRandom(spec.seed ?? 1);
  const b = new GraphBuilder('transformer');
  const weight = (name: string, rows: number, cols: number): string =>
    b.initializer(name, [rows, cols], randomNormal(rows * cols, 1 / Math.sqrt(rows), random));
  const vector = (name: string, size: number, value: number): string => b.initializer(name, [size], new Float32Array(size).fill(value));

  let x = b.input('x', DataType.FLOAT, [batch, sequence, d]);
  const headsShape = b.ints('heads_shape', [batch, sequence, heads, headDim]);
  const modelShape = b.ints('model_shape', [batch, sequence, d]);
  const scale = b.scalar('attention_scale', 1 / Math.sqrt(headDim));
  const sqrt2 = b.scalar('sqrt2', Math.SQRT2);
  const one = b.scalar('one', 1);
  const half = b.scalar('half', 0.5);

  for (let layer = 0; layer < layers; layer++) {
    const p = `l${layer}`;
    const ln1 = b.op('LayerNormalization', [x, vector(`${p}.ln1.g`, d, 1), vector(`${p}.ln1.b`, d, 0)], { axis: attr.int(-1) }, { name: `${p}/ln1` });
    const project = (kind: string): string => {
      const m = b.op('MatMul', [ln1, weight(`${p}.w${kind}`, d, d)], {}, { name: `${p}/${kind}_proj` });
      const biased = b.op('Add', [m, vector(`${p}.b${kind}`, d, 0)], {}, { name: `${p}/${kind}_bias` });
      const split = b.op('Reshape', [biased, headsShape], {}, { name: `${p}/${kind}_heads` });
      return b.op('Transpose', [split], { perm: attr.ints(kind === 'k' ? [0, 2, 3, 1] : [0, 2, 1, 3]) }, { name: `${p}/${kind}_transpose` });
    };
    const q = project('q');
    const k = project('k');
    const v = project('v');
    const scores = b.op('MatMul', [q, k], {}, { name: `${p}/scores` });
    const scaled = b.op('Mul', [scores, scale], {}, { name: `${p}/scale` });
    const probs = b.op('Softmax', [scaled], { axis: attr.int(-1) }, { name: `${p}/softmax` });
    const context = b.op('MatMul', [probs, v], {}, { name: `${p}/context` });
    const merged = b.op('Transpose', [context], { perm: attr.ints([0, 2, 1, 3]) }, { name: `${p}/merge_heads` });
    const flat = b.op('Reshape', [merged, modelShape], {}, { name: `${p}/merge_reshape` });
    const out = b.op('MatMul', [flat, weight(`${p}.wo`, d, d)], {}, { name: `${p}/out_proj` });
    const outBiased = b.op('Add', [out, vector(`${p}.bo`, d, 0)], {}, { name: `${p}/out_bias` });
    x = b.op('Add', [x, outBiased], {}, { name: `${p}/residual1` });

    const ln2 = b.op('LayerNormalization', [x, vector(`${p}.ln2.g`, d, 1), vector(`${p}.ln2.b`, d, 0)], { axis: attr.int(-1) }, { name: `${p}/ln2` });
    const up = b.op('MatMul', [ln2, weight(`${p}.w1`, d, ffn)], {}, { name: `${p}/mlp_up` });
    const upBiased = b.op('Add', [up, vector(`${p}.b1`, ffn, 0)], {}, { name: `${p}/mlp_up_bias` });
    // GELU written out with Erf, as exporters emit it before opset 20.
    const erf = b.op('Erf', [b.op('Div', [upBiased, sqrt2], {}, { name: `${p}/gelu_div` })], {}, { name: `${p}/gelu_erf` });
    const gate = b.op('Mul', [b.op('Add', [erf, one], {}, { name: `${p}/gelu_add` }), half], {}, { name: `${p}/gelu_half` });
    const gelu = b.op('Mul', [upBiased, gate], {}, { name: `${p}/gelu` });
    const down = b.op('MatMul', [gelu, weight(`${p}.w2`, ffn, d)], {}, { name: `${p}/mlp_down` });
    const downBiased = b.op('Add', [down, vector(`${p}.b2`, d, 0)], {}, { name: `${p}/mlp_down_bias` });
    x = b.op('Add', [x, downBiased], {}, { name: `${p}/residual2` });
  }
  const final = b.op('LayerNormalization', [x, vector('final_ln.g', d, 1), vector('final_ln.b', d, 0)], { axis: attr.int(-1) }, {
    name: 'final_ln',
    outputs: ['hidden'],
  });
  b.output(final, DataType.FLOAT, [batch, sequence, d]);
  if (vocab > 0) {
    const labels = b.input('labels', DataType.INT64, [batch * sequence]);
    const logits = b.op('MatMul', [final, weight('lm_head', d, vocab)], {}, { name: 'lm_head' });
    const rows = b.op('Reshape', [logits, b.ints('logits_shape', [batch * sequence, vocab])], {}, { name: 'logits_rows' });
    const loss = b.op('SoftmaxCrossEntropyLoss', [rows, labels], { reduction: attr.string('mean') }, { name: 'loss', outputs: ['loss'] });
    b.output(loss, DataType.FLOAT, []);
  }
  return b.model({ '': 17 });
}
