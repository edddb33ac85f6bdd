/**
 * Small models for golden tests, one behaviour each: a convolutional block, control flow with
 * MatMuls inside If branches and a Loop body, and a weight outside the float16 range.
 */
import { DataType } from '../../onnx/data-types.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import { attr, GraphBuilder, randomNormal, seededRandom } from '../graph-builder.js';

/** Conv -> BatchNormalization -> Relu -> Conv -> Add (residual) -> GlobalAveragePool -> Flatten -> Gemm -> Softmax. */
export function buildConvBlock(): onnx.ModelProto {
  const random = seededRandom(7);
  const b = new GraphBuilder('conv_block');
  const x = b.input('image', DataType.FLOAT, [1, 3, 16, 16]);
  const w1 = b.initializer('conv1.w', [8, 3, 3, 3], randomNormal(8 * 3 * 9, 0.2, random));
  const stem = b.op('Conv', [x, w1], { pads: attr.ints([1, 1, 1, 1]) }, { name: 'stem' });
  const bnParams = ['scale', 'bias', 'mean', 'var'].map((p, i) => b.initializer(`bn.${p}`, [8], new Float32Array(8).fill(i === 0 || i === 3 ? 1 : 0)));
  const bn = b.op('BatchNormalization', [stem, ...bnParams], {}, { name: 'bn' });
  const relu = b.op('Relu', [bn], {}, { name: 'relu' });
  const w2 = b.initializer('conv2.w', [8, 8, 3, 3], randomNormal(8 * 8 * 9, 0.1, random));
  const conv2 = b.op('Conv', [relu, w2], { pads: attr.ints([1, 1, 1, 1]) }, { name: 'conv2' });
  const residual = b.op('Add', [relu, conv2], {}, { name: 'residual' });
  const pooled = b.op('GlobalAveragePool', [residual], {}, { name: 'pool' });
  const flat = b.op('Flatten', [pooled], {}, { name: 'flatten' });
  const fc = b.op('Gemm', [flat, b.initializer('fc.w', [8, 10], randomNormal(80, 0.3, random)), b.initializer('fc.b', [10], new Float32Array(10))], {}, { name: 'fc' });
  b.op('Softmax', [fc], { axis: attr.int(1) }, { name: 'softmax', outputs: ['probabilities'] });
  b.output('probabilities', DataType.FLOAT, [1, 10]);
  return b.model({ '': 15 });
}

/** An If whose branches each hold a MatMul reading an outer weight, and a Loop whose body runs a MatMul per step. */
export function buildControlFlow(): onnx.ModelProto {
  const random = seededRandom(11);
  const b = new GraphBuilder('control_flow');
  const x = b.input('x', DataType.FLOAT, [2, 4]);
  const flag = b.input('use_first', DataType.BOOL, []);
  const w = b.initializer('w', [4, 4], randomNormal(16, 0.5, random));
  const branch = (name: string, op: string): onnx.GraphProto => {
    const g = new GraphBuilder(name, `${name}/`);
    const m = g.op('MatMul', [x, w], {}, { name: `${name}/matmul` });
    g.op(op, [m], {}, { name: `${name}/${op.toLowerCase()}`, outputs: [`${name}_out`] });
    g.output(`${name}_out`, DataType.FLOAT, [2, 4]);
    return g.graph();
  };
  const chosen = b.op('If', [flag], { then_branch: attr.graph(branch('then', 'Relu')), else_branch: attr.graph(branch('else', 'Sigmoid')) }, { name: 'if' });
  const body = new GraphBuilder('body', 'body/');
  body.input('i', DataType.INT64, []);
  body.input('cond_in', DataType.BOOL, []);
  body.input('state', DataType.FLOAT, [2, 4]);
  const stepped = body.op('MatMul', ['state', w], {}, { name: 'body/matmul' });
  body.op('Tanh', [stepped], {}, { name: 'body/tanh', outputs: ['state_out'] });
  body.op('Identity', ['cond_in'], {}, { name: 'body/cond', outputs: ['cond_out'] });
  body.output('cond_out', DataType.BOOL, []);
  body.output('state_out', DataType.FLOAT, [2, 4]);
  const trips = b.ints('trips', [3]);
  const trip = b.op('Squeeze', [trips], {}, { name: 'trip_count' });
  const looped = b.op('Loop', [trip, '', chosen], { body: attr.graph(body.graph()) }, { name: 'loop', outputs: ['y'] });
  b.output(looped, DataType.FLOAT, [2, 4]);
  return b.model({ '': 17 });
}

/** A MatMul whose weight holds 1e5, beyond float16's 65504: --weights fp16 must keep it fp32 and say so. */
export function buildOutOfRangeWeight(): onnx.ModelProto {
  const b = new GraphBuilder('out_of_range');
  const x = b.input('x', DataType.FLOAT, [1, 2]);
  const big = b.initializer('big', [2, 2], Float32Array.of(1e5, 0, 0, 1));
  const small = b.initializer('small', [2, 2], Float32Array.of(0.5, 0.25, -1, 2));
  const h = b.op('MatMul', [x, small], {}, { name: 'first' });
  b.op('MatMul', [h, big], {}, { name: 'second', outputs: ['y'] });
  b.output('y', DataType.FLOAT, [1, 2]);
  return b.model({ '': 17 });
}
