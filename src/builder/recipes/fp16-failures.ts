/**
 * Models built to fail in float16 in one known place, between stacks of blocks that are safe in
 * float16 (MatMul, bias Add, Relu): the proof models of emulated numerics, calibration and tune.
 * - overflow-before-norm: a projection whose output reaches about 2e5 (above 65504) feeds a BatchNormalization
 *   (inference form, an infer-list op converted between the MatMuls) that brings it back to about 1.
 * - attention-overflow: attention scores (q.k before the 1/sqrt(d) scale) reach about 1.5e5.
 * - long-softmax-underflow: a softmax over 32768 positions where one "sink" position takes
 *   almost all the mass and the rest, about 1.5e-8 each, round to zero in float16; their values
 *   carry the whole output.
 * - embedding-range: token embeddings whose rows from 500 on are large, so a projection reaches 4e4
 *   (inside float16's range, beyond half of it) only for tokens that random [0, 10) inputs never draw.
 * Names of the offending nodes are exported so tests can assert exactly what gets pinned.
 */
import { DataType } from '../../onnx/data-types.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import { attr, GraphBuilder, randomNormal, seededRandom } from '../graph-builder.js';

export interface FailureSpec {
  /** Safe blocks before and after the failure point. */
  blocks?: number;
  width?: number;
  rows?: number;
  seed?: number;
}

function scaled(values: Float32Array, gain: number): Float32Array {
  return values.map((v) => v * gain);
}

/** `count` blocks of MatMul -> Add(bias) -> Relu named `<prefix><i>/...`. */
function safeBlocks(b: GraphBuilder, x: string, width: number, count: number, prefix: string, random: () => number, biasStd = 0.05): string {
  for (let i = 0; i < count; i++) {
    const w = b.initializer(`${prefix}${i}.w`, [width, width], randomNormal(width * width, Math.sqrt(2 / width), random));
    const bias = b.initializer(`${prefix}${i}.b`, [width], randomNormal(width, biasStd, random));
    const m = b.op('MatMul', [x, w], {}, { name: `${prefix}${i}/matmul` });
    const a = b.op('Add', [m, bias], {}, { name: `${prefix}${i}/bias` });
    x = b.op('Relu', [a], {}, { name: `${prefix}${i}/relu` });
  }
  return x;
}

export const OVERFLOW_NODES = ['big/proj', 'big/bias'] as const;

export function buildOverflowBeforeNorm(spec: FailureSpec = {}): onnx.ModelProto {
  const { blocks = 3, width = 32, rows = 4 } = spec;
  const random = seededRandom(spec.seed ?? 21);
  const b = new GraphBuilder('overflow_before_norm');
  let x = b.input('x', DataType.FLOAT, [rows, width]);
  x = safeBlocks(b, x, width, blocks, 'pre', random);
  const w = b.initializer('big.w', [width, width], scaled(randomNormal(width * width, Math.sqrt(2 / width), random), 5e4));
  const big = b.op('MatMul', [x, w], {}, { name: 'big/proj' });
  const biased = b.op('Add', [big, b.initializer('big.b', [width], randomNormal(width, 0.05, random))], {}, { name: 'big/bias' });
  // Stored statistics bring the values back to about 1: in a float16 chain the inf is already there.
  const stats = (name: string, value: number): string => b.initializer(`norm.${name}`, [width], new Float32Array(width).fill(value));
  const normed = b.op('BatchNormalization', [biased, stats('scale', 1), stats('bias', 0), stats('mean', 0), stats('var', 6e4 ** 2)], {}, { name: 'norm' });
  x = safeBlocks(b, normed, width, blocks, 'post', random);
  b.op('MatMul', [x, b.initializer('head.w', [width, 8], randomNormal(width * 8, Math.sqrt(1 / width), random))], {}, { name: 'head', outputs: ['y'] });
  b.output('y', DataType.FLOAT, [rows, 8]);
  return b.model({ '': 17 });
}

export const ATTENTION_NODES = ['attn/scores'] as const;

/** With `layers` > 1, each layer starts with a LayerNormalization, its nodes are named attn<i>/..., and every layer's scores overflow. */
export function buildAttentionOverflow(spec: FailureSpec & { layers?: number } = {}): onnx.ModelProto {
  const { blocks = 2, width = 32, rows = 16, layers = 1 } = spec;
  const random = seededRandom(spec.seed ?? 22);
  const b = new GraphBuilder('attention_overflow');
  let x = b.input('x', DataType.FLOAT, [1, rows, width]);
  x = safeBlocks(b, x, width, blocks, 'pre', random);
  for (let layer = 0; layer < layers; layer++) {
    const p = layers === 1 ? 'attn' : `attn${layer}`;
    if (layers > 1) {
      // Pre-norm, as in transformers: every layer sees unit-scale inputs, so every layer's scores overflow.
      const ones = b.initializer(`${p}.ln.g`, [width], new Float32Array(width).fill(1));
      x = b.op('LayerNormalization', [x, ones, b.initializer(`${p}.ln.b`, [width], new Float32Array(width))], { axis: attr.int(-1) }, { name: `${p}/ln` });
    }
    const project = (kind: string, gain: number): string =>
      b.op('MatMul', [x, b.initializer(`${p}.w${kind}`, [width, width], scaled(randomNormal(width * width, Math.sqrt(1 / width), random), gain))], {}, { name: `${p}/${kind}_proj` });
    const q = project('q', 156);
    const k = project('k', 156);
    const v = project('v', 1);
    const kt = b.op('Transpose', [k], { perm: attr.ints([0, 2, 1]) }, { name: `${p}/k_transpose` });
    const scores = b.op('MatMul', [q, kt], {}, { name: `${p}/scores` });
    const scaledScores = b.op('Mul', [scores, b.scalar(`${p}.scale`, 1 / Math.sqrt(width))], {}, { name: `${p}/scale` });
    const probs = b.op('Softmax', [scaledScores], { axis: attr.int(-1) }, { name: `${p}/softmax` });
    const context = b.op('MatMul', [probs, v], {}, { name: `${p}/context` });
    x = safeBlocks(b, context, width, blocks, layers === 1 ? 'post' : `post${layer}_`, random);
  }
  b.op('MatMul', [x, b.initializer('head.w', [width, 8], randomNormal(width * 8, Math.sqrt(1 / width), random))], {}, { name: 'head', outputs: ['y'] });
  b.output('y', DataType.FLOAT, [1, rows, 8]);
  return b.model({ '': 17 });
}

export const UNDERFLOW_NODES = ['long/context'] as const;

export function buildLongSoftmaxUnderflow(spec: FailureSpec & { positions?: number } = {}): onnx.ModelProto {
  const { blocks = 2, width = 16, rows = 4, positions = 32768 } = spec;
  const random = seededRandom(spec.seed ?? 23);
  const b = new GraphBuilder('long_softmax_underflow');
  let x = b.input('x', DataType.FLOAT, [rows, width]);
  x = safeBlocks(b, x, width, blocks, 'pre', random);
  // Position 0 is the sink: logit 18 above the rest, so every other probability is about 1.5e-8.
  const sink = new Float32Array(positions);
  sink[0] = 18;
  const logits = b.op('MatMul', [x, b.initializer('long.w', [width, positions], randomNormal(width * positions, 0.02, random))], {}, { name: 'long/logits' });
  const biased = b.op('Add', [logits, b.initializer('long.sink', [positions], sink)], {}, { name: 'long/sink' });
  const probs = b.op('Softmax', [biased], { axis: attr.int(-1) }, { name: 'long/softmax' });
  // The sink's value row is zero: the output is carried by the small probabilities alone.
  const values = randomNormal(positions * width, 0.3, random).map((v, i) => (i < width ? 0 : 1 + v));
  const context = b.op('MatMul', [probs, b.initializer('long.values', [positions, width], values)], {}, { name: 'long/context' });
  x = safeBlocks(b, context, width, blocks, 'post', random, 0);
  b.op('MatMul', [x, b.initializer('head.w', [width, 8], randomNormal(width * 8, Math.sqrt(1 / width), random))], {}, { name: 'head', outputs: ['y'] });
  b.output('y', DataType.FLOAT, [rows, 8]);
  return b.model({ '': 17 });
}

/** The projection that reaches 4e4 and the two nodes that read its value (Relu, then the Mul that scales it down). */
export const EMBEDDING_NODES = ['act', 'proj', 'shrink'] as const;

export function buildEmbeddingRange(spec: { vocab?: number; tokens?: number; seed?: number } = {}): onnx.ModelProto {
  const { vocab = 1000, tokens = 16 } = spec;
  const random = seededRandom(spec.seed ?? 24);
  const width = 8;
  const b = new GraphBuilder('embedding_range');
  const ids = b.input('tokens', DataType.INT64, [1, tokens]);
  const table = randomNormal(vocab * width, 1, random).map((v, i) => (i >= (vocab / 2) * width ? 5000 : v));
  const flat = b.op('Reshape', [ids, b.ints('flat_shape', [tokens])], {}, { name: 'flatten_ids' });
  const embedded = b.op('Gather', [b.initializer('embedding', [vocab, width], table), flat], {}, { name: 'embed' });
  // Each output of 'proj' sums a row: 8 x 5000 = 4e4 for the large rows.
  const projected = b.op('MatMul', [embedded, b.initializer('proj.w', [width, width], new Float32Array(width * width).fill(1))], {}, { name: 'proj' });
  const activated = b.op('Relu', [projected], {}, { name: 'act' });
  const scaledDown = b.op('Mul', [activated, b.scalar('scale', 1e-4)], {}, { name: 'shrink' });
  b.op('MatMul', [scaledDown, b.initializer('out.w', [width, 4], randomNormal(width * 4, 0.3, random))], {}, { name: 'out', outputs: ['y'] });
  b.output('y', DataType.FLOAT, [tokens, 4]);
  return b.model({ '': 17 });
}
