/**
 * Every gradient rule of src/passes/autodiff/gradient-rules.ts against central finite differences
 * in float64 on ONNX Runtime (gradient-check.ts): broadcasting in both directions, every attribute
 * branch a rule has (Gemm's transposes, strided and dilated Conv, keepdims, negative axes, Slice's
 * clamping), and a test that the table has a case for each of its entries.
 */
import { describe, expect, it } from 'vitest';
import { DataType } from '../../../src/onnx/data-types.js';
import { GRADIENT_RULES } from '../../../src/passes/autodiff/gradient-rules.js';
import { attr, checkGradients, FD_TOLERANCE, node, type GradientCase } from './gradient-check.js';

const unaryCase = (op: string, offset = 0, attributes = {}): GradientCase => ({
  name: op,
  params: [{ name: 'x', dims: [2, 3], offset }],
  build: (b) => node(b, op, ['x'], attributes)[0] as string,
  output: [2, 3],
});

/** Ops (or their gradients' ops) without a float64 kernel on ONNX Runtime 1.29's CPU provider: checked in float32. */
const FLOAT32_ONLY = new Set(['LSTM bidirectional with bias and initial states, Y', 'LSTM forward without bias or initial state, Y_c', 'GRU bidirectional linear_before_reset 1 (as PyTorch exports), Y_h', 'GRU reverse linear_before_reset 0 with bias, Y', 'AveragePool 3x3 stride 2 pad 1 (pads not counted)', 'AveragePool 2x2 pads counted, ceil_mode adding no window', 'AveragePool 2 stride 1, 1-D, a row no window reads', 'Conv grouped (2 groups of 2 channels, 3 outputs each), stride 2 pad 1', 'Conv depthwise (group = channels), dilation 2', 'Conv stride 2 pad 1 with bias (6x6 input: the last window ends on the last row)', 'Conv dilation 2, asymmetric pads', 'Conv stride 2, a row no window reads', 'Erf', 'Gelu', 'GlobalAveragePool', 'Elu', 'Softplus', 'HardSigmoid', 'HardSwish on [-4.5, 4.5] (all three pieces)']);

export const CASES: Record<string, GradientCase[]> = {
  Add: [{ name: 'Add broadcast [2,3]+[3]', params: [{ name: 'a', dims: [2, 3] }, { name: 'b', dims: [3] }], build: (b) => b.op('Add', ['a', 'b']), output: [2, 3] }],
  Sub: [{ name: 'Sub broadcast both ways [2,1,3]-[4,1]', params: [{ name: 'a', dims: [2, 1, 3] }, { name: 'b', dims: [4, 1] }], build: (b) => b.op('Sub', ['a', 'b']), output: [2, 4, 3] }],
  Mul: [{ name: 'Mul [2,3]*[1,3]', params: [{ name: 'a', dims: [2, 3] }, { name: 'b', dims: [1, 3] }], build: (b) => b.op('Mul', ['a', 'b']), output: [2, 3] }],
  Div: [{ name: 'Div [2,3]/[3]', params: [{ name: 'a', dims: [2, 3] }, { name: 'b', dims: [3], offset: 3 }], build: (b) => b.op('Div', ['a', 'b']), output: [2, 3] }],
  Pow: [
    { name: 'Pow base and exponent', params: [{ name: 'a', dims: [2, 3], offset: 3 }, { name: 'e', dims: [1] }], build: (b) => b.op('Pow', ['a', 'e']), output: [2, 3] },
    { name: 'Pow by a constant 2', params: [{ name: 'a', dims: [2, 3] }], build: (b) => b.op('Pow', ['a', b.scalar('two', 2)]), output: [2, 3] },
  ],
  MatMul: [
    { name: 'MatMul [2,3,4]@[4,5]', params: [{ name: 'a', dims: [2, 3, 4] }, { name: 'b', dims: [4, 5] }], build: (b) => b.op('MatMul', ['a', 'b']), output: [2, 3, 5] },
    { name: 'MatMul [2,1,3,4]@[2,4,3] batch broadcast', params: [{ name: 'a', dims: [2, 1, 3, 4] }, { name: 'b', dims: [2, 4, 3] }], build: (b) => b.op('MatMul', ['a', 'b']), output: [2, 2, 3, 3] },
  ],
  Gemm: [0, 1].flatMap((ta) =>
    [0, 1].map((tb): GradientCase => ({
      name: `Gemm transA=${ta} transB=${tb} alpha 0.5 beta 2`,
      params: [{ name: 'a', dims: ta ? [4, 3] : [3, 4] }, { name: 'b', dims: tb ? [5, 4] : [4, 5] }, { name: 'c', dims: [5] }],
      build: (b) => b.op('Gemm', ['a', 'b', 'c'], { transA: attr.int(ta), transB: attr.int(tb), alpha: attr.float(0.5), beta: attr.float(2) }),
      output: [3, 5],
    })),
  ),
  Conv: [
    {
      name: 'Conv grouped (2 groups of 2 channels, 3 outputs each), stride 2 pad 1',
      params: [{ name: 'x', dims: [2, 4, 5, 5] }, { name: 'w', dims: [6, 2, 3, 3] }, { name: 'bias', dims: [6] }],
      build: (b) => b.op('Conv', ['x', 'w', 'bias'], { group: attr.int(2), strides: attr.ints([2, 2]), pads: attr.ints([1, 1, 1, 1]) }),
      output: [2, 6, 3, 3],
    },
    {
      name: 'Conv depthwise (group = channels), dilation 2',
      params: [{ name: 'x', dims: [2, 3, 6, 6] }, { name: 'w', dims: [3, 1, 3, 3] }],
      build: (b) => b.op('Conv', ['x', 'w'], { group: attr.int(3), dilations: attr.ints([2, 2]), pads: attr.ints([2, 2, 2, 2]) }),
      output: [2, 3, 6, 6],
    },
    {
      name: 'Conv stride 2 pad 1 with bias (6x6 input: the last window ends on the last row)',
      params: [{ name: 'x', dims: [2, 2, 6, 6] }, { name: 'w', dims: [3, 2, 3, 3] }, { name: 'bias', dims: [3] }],
      build: (b) => b.op('Conv', ['x', 'w', 'bias'], { strides: attr.ints([2, 2]), pads: attr.ints([1, 1, 1, 1]) }),
      output: [2, 3, 3, 3],
    },
    {
      name: 'Conv stride 2, a row no window reads',
      params: [{ name: 'x', dims: [1, 1, 6, 6] }, { name: 'w', dims: [2, 1, 3, 3] }],
      build: (b) => b.op('Conv', ['x', 'w'], { strides: attr.ints([2, 2]) }),
      output: [1, 2, 2, 2],
    },
    {
      name: 'Conv dilation 2, asymmetric pads',
      params: [{ name: 'x', dims: [1, 2, 6, 5] }, { name: 'w', dims: [2, 2, 2, 3] }],
      build: (b) => b.op('Conv', ['x', 'w'], { dilations: attr.ints([2, 2]), pads: attr.ints([0, 1, 1, 0]) }),
      output: [1, 2, 5, 2],
    },
  ],
  BatchNormalization: [
    {
      name: 'BatchNormalization inference mode',
      params: [{ name: 'x', dims: [2, 3, 2, 2] }, { name: 'scale', dims: [3] }, { name: 'bias', dims: [3] }],
      build: (b) => {
        const mean = b.initializer('mean', [3], Float32Array.of(0.1, -0.2, 0.3));
        const variance = b.initializer('var', [3], Float32Array.of(0.5, 1.5, 2));
        return b.op('BatchNormalization', ['x', 'scale', 'bias', mean, variance], { epsilon: attr.float(1e-3) });
      },
      output: [2, 3, 2, 2],
    },
    {
      name: 'BatchNormalization training mode (batch statistics)',
      params: [{ name: 'x', dims: [3, 2, 2, 2] }, { name: 'scale', dims: [2] }, { name: 'bias', dims: [2] }],
      build: (b) => {
        const mean = b.initializer('mean', [2], Float32Array.of(0.1, -0.2));
        const variance = b.initializer('var', [2], Float32Array.of(0.5, 1.5));
        const [y] = b.node('BatchNormalization', ['x', 'scale', 'bias', mean, variance], { epsilon: attr.float(1e-3), training_mode: attr.int(1), momentum: attr.float(0.9) }, { count: 3 }) as [string, string, string];
        return y;
      },
      output: [3, 2, 2, 2],
      opset: 15,
    },
  ],
  LayerNormalization: [
    { name: 'LayerNormalization axis -1', params: [{ name: 'x', dims: [2, 3, 4] }, { name: 'scale', dims: [4] }, { name: 'bias', dims: [4] }], build: (b) => b.op('LayerNormalization', ['x', 'scale', 'bias'], { epsilon: attr.float(1e-5) }), output: [2, 3, 4] },
    { name: 'LayerNormalization axis 1 (two normalised axes), no bias', params: [{ name: 'x', dims: [2, 3, 4] }, { name: 'scale', dims: [3, 4] }], build: (b) => b.op('LayerNormalization', ['x', 'scale'], { axis: attr.int(1) }), output: [2, 3, 4] },
  ],
  Relu: [unaryCase('Relu')],
  LeakyRelu: [unaryCase('LeakyRelu', 0, { alpha: attr.float(0.2) })],
  Sigmoid: [unaryCase('Sigmoid')],
  Tanh: [unaryCase('Tanh')],
  Exp: [unaryCase('Exp')],
  Log: [unaryCase('Log', 4)],
  Sqrt: [unaryCase('Sqrt', 4)],
  Reciprocal: [unaryCase('Reciprocal', 4)],
  Neg: [unaryCase('Neg')],
  Abs: [unaryCase('Abs')],
  Erf: [unaryCase('Erf')],
  Gelu: [{ ...unaryCase('Gelu'), opset: 20 }, { ...unaryCase('Gelu', 0, { approximate: attr.string('tanh') }), name: 'Gelu tanh', opset: 20 }],
  Softmax: [unaryCase('Softmax'), { ...unaryCase('Softmax', 0, { axis: attr.int(0) }), name: 'Softmax axis 0' }],
  LogSoftmax: [unaryCase('LogSoftmax', 0, { axis: attr.int(1) })],
  Identity: [unaryCase('Identity')],
  Reshape: [{ name: 'Reshape', params: [{ name: 'x', dims: [2, 3] }], build: (b) => b.op('Reshape', ['x', b.ints('shape', [3, -1])]), output: [3, 2] }],
  Flatten: [{ name: 'Flatten axis 2', params: [{ name: 'x', dims: [2, 3, 2] }], build: (b) => b.op('Flatten', ['x'], { axis: attr.int(2) }), output: [6, 2] }],
  Squeeze: [{ name: 'Squeeze', params: [{ name: 'x', dims: [2, 1, 3] }], build: (b) => b.op('Squeeze', ['x', b.ints('axes', [1])]), output: [2, 3] }],
  Unsqueeze: [{ name: 'Unsqueeze', params: [{ name: 'x', dims: [2, 3] }], build: (b) => b.op('Unsqueeze', ['x', b.ints('axes', [0, -1])]), output: [1, 2, 3, 1] }],
  Dropout: [{ name: 'Dropout (inference)', params: [{ name: 'x', dims: [2, 3] }], build: (b) => b.op('Dropout', ['x', b.scalar('ratio', 0.5)]), output: [2, 3] }],
  Cast: [{ name: 'Cast float to float', params: [{ name: 'x', dims: [2, 3] }], build: (b) => b.op('Cast', ['x'], { to: attr.int(DataType.FLOAT) }), output: [2, 3] }],
  Transpose: [
    { name: 'Transpose perm', params: [{ name: 'x', dims: [2, 3, 4] }], build: (b) => b.op('Transpose', ['x'], { perm: attr.ints([1, 2, 0]) }), output: [3, 4, 2] },
    { name: 'Transpose default (reversed)', params: [{ name: 'x', dims: [2, 3, 4] }], build: (b) => b.op('Transpose', ['x']), output: [4, 3, 2] },
  ],
  Expand: [{ name: 'Expand [3,1] to [2,3,4]', params: [{ name: 'x', dims: [3, 1] }], build: (b) => b.op('Expand', ['x', b.ints('shape', [2, 3, 4])]), output: [2, 3, 4] }],
  Where: [
    {
      name: 'Where mask, broadcast second branch',
      params: [{ name: 'a', dims: [2, 3] }, { name: 'b', dims: [3] }],
      build: (b) => b.op('Where', [b.initializer('mask', [2, 3], Uint8Array.of(1, 0, 1, 0, 0, 1), DataType.BOOL), 'a', 'b']),
      output: [2, 3],
    },
  ],
  ReduceMean: [
    { name: 'ReduceMean axes attribute keepdims 0 (opset 17)', params: [{ name: 'x', dims: [2, 3, 4] }], build: (b) => b.op('ReduceMean', ['x'], { axes: attr.ints([-1, 0]), keepdims: attr.int(0) }), output: [3] },
    { name: 'ReduceMean axes input keepdims 1 (opset 18)', params: [{ name: 'x', dims: [2, 3, 4] }], build: (b) => b.op('ReduceMean', ['x', b.ints('axes', [1])]), output: [2, 1, 4], opset: 18 },
    { name: 'ReduceMean over all axes', params: [{ name: 'x', dims: [2, 3] }], build: (b) => b.op('ReduceMean', ['x'], { keepdims: attr.int(0) }), output: [] },
  ],
  ReduceSum: [{ name: 'ReduceSum axes input keepdims 0', params: [{ name: 'x', dims: [2, 3, 4] }], build: (b) => b.op('ReduceSum', ['x', b.ints('axes', [0, 2])], { keepdims: attr.int(0) }), output: [3] }],
  GlobalAveragePool: [{ name: 'GlobalAveragePool', params: [{ name: 'x', dims: [2, 3, 4, 5] }], build: (b) => b.op('GlobalAveragePool', ['x']), output: [2, 3, 1, 1] }],
  MaxPool: [
    { name: 'MaxPool 2x2 stride 2', params: [{ name: 'x', dims: [2, 2, 4, 4] }], build: (b) => b.op('MaxPool', ['x'], { kernel_shape: attr.ints([2, 2]), strides: attr.ints([2, 2]) }), output: [2, 2, 2, 2] },
    { name: 'MaxPool 3x3 stride 1 pad 1 (overlapping windows)', params: [{ name: 'x', dims: [1, 2, 4, 4] }], build: (b) => b.op('MaxPool', ['x'], { kernel_shape: attr.ints([3, 3]), pads: attr.ints([1, 1, 1, 1]) }), output: [1, 2, 4, 4] },
  ],
  Gather: [
    {
      name: 'Gather embeddings with repeated indices',
      params: [{ name: 'table', dims: [5, 3] }],
      build: (b) => b.op('Gather', ['table', b.initializer('ids', [2, 3], BigInt64Array.of(0n, 4n, 4n, 2n, 0n, 4n), DataType.INT64)]),
      output: [2, 3, 3],
    },
    {
      name: "Gather axis 1 with a negative index (an RNN's last step x[:, -1])",
      params: [{ name: 'x', dims: [2, 4, 3] }],
      build: (b) => b.op('Gather', ['x', b.initializer('last', [], BigInt64Array.of(-1n), DataType.INT64)], { axis: attr.int(1) }),
      output: [2, 3],
    },
    {
      name: 'Gather axis -1, 2-D indices, repeated',
      params: [{ name: 'x', dims: [2, 3, 4] }],
      build: (b) => b.op('Gather', ['x', b.initializer('cols', [2, 2], BigInt64Array.of(3n, 0n, 3n, 1n), DataType.INT64)], { axis: attr.int(-1) }),
      output: [2, 3, 2, 2],
    },
  ],
  CumSum: [
    { name: 'CumSum axis 1', params: [{ name: 'x', dims: [2, 4] }], build: (b) => b.op('CumSum', ['x', b.initializer('axis', [], BigInt64Array.of(1n), DataType.INT64)]), output: [2, 4] },
    {
      name: 'CumSum axis 0 exclusive reverse',
      params: [{ name: 'x', dims: [3, 2] }],
      build: (b) => b.op('CumSum', ['x', b.initializer('axis', [], BigInt64Array.of(0n), DataType.INT64)], { exclusive: attr.int(1), reverse: attr.int(1) }),
      output: [3, 2],
    },
  ],
  Tile: [{ name: 'Tile [2,3] by [2,1,] then [1,3]', params: [{ name: 'x', dims: [2, 3] }], build: (b) => b.op('Tile', ['x', b.ints('repeats', [2, 3])]), output: [4, 9] }],
  Pad: [{ name: 'Pad constant 1 before, 2 after on axis 1', params: [{ name: 'x', dims: [2, 3] }], build: (b) => b.op('Pad', ['x', b.ints('pads', [0, 1, 0, 2]), b.scalar('value', 0.5)]), output: [2, 6] }],
  AveragePool: [
    {
      name: 'AveragePool 3x3 stride 2 pad 1 (pads not counted)',
      params: [{ name: 'x', dims: [1, 2, 5, 5] }],
      build: (b) => b.op('AveragePool', ['x'], { kernel_shape: attr.ints([3, 3]), strides: attr.ints([2, 2]), pads: attr.ints([1, 1, 1, 1]) }),
      output: [1, 2, 3, 3],
    },
    {
      name: 'AveragePool 2x2 pads counted, ceil_mode adding no window',
      params: [{ name: 'x', dims: [2, 1, 4, 4] }],
      build: (b) => b.op('AveragePool', ['x'], { kernel_shape: attr.ints([2, 2]), strides: attr.ints([2, 2]), pads: attr.ints([1, 1, 1, 1]), count_include_pad: attr.int(1), ceil_mode: attr.int(1) }),
      output: [2, 1, 3, 3],
    },
    { name: 'AveragePool 2 stride 1, 1-D, a row no window reads', params: [{ name: 'x', dims: [1, 3, 6] }], build: (b) => b.op('AveragePool', ['x'], { kernel_shape: attr.ints([2]), strides: attr.ints([2]) }), output: [1, 3, 3] },
  ],
  // Not rules of the table: make-training writes LSTM and GRU as their steps in standard ops (unroll-recurrent.ts).
  LSTM: [
    {
      name: 'LSTM bidirectional with bias and initial states, Y',
      params: [{ name: 'x', dims: [3, 2, 3] }, { name: 'w', dims: [2, 8, 3] }, { name: 'r', dims: [2, 8, 2] }, { name: 'bias', dims: [2, 16] }, { name: 'h0', dims: [2, 2, 2] }, { name: 'c0', dims: [2, 2, 2] }],
      build: (b) => b.node('LSTM', ['x', 'w', 'r', 'bias', '', 'h0', 'c0'], { hidden_size: attr.int(2), direction: attr.string('bidirectional') }, { count: 3 })[0] as string,
      output: [3, 2, 2, 2],
    },
    {
      name: 'LSTM forward without bias or initial state, Y_c',
      params: [{ name: 'x', dims: [4, 2, 3] }, { name: 'w', dims: [1, 8, 3] }, { name: 'r', dims: [1, 8, 2] }],
      build: (b) => b.node('LSTM', ['x', 'w', 'r'], { hidden_size: attr.int(2) }, { count: 3 })[2] as string,
      output: [1, 2, 2],
    },
  ],
  GRU: [
    {
      name: 'GRU bidirectional linear_before_reset 1 (as PyTorch exports), Y_h',
      params: [{ name: 'x', dims: [3, 2, 3] }, { name: 'w', dims: [2, 6, 3] }, { name: 'r', dims: [2, 6, 2] }, { name: 'bias', dims: [2, 12] }, { name: 'h0', dims: [2, 2, 2] }],
      build: (b) => b.node('GRU', ['x', 'w', 'r', 'bias', '', 'h0'], { hidden_size: attr.int(2), direction: attr.string('bidirectional'), linear_before_reset: attr.int(1) }, { count: 2 })[1] as string,
      output: [2, 2, 2],
    },
    {
      name: 'GRU reverse linear_before_reset 0 with bias, Y',
      params: [{ name: 'x', dims: [3, 2, 3] }, { name: 'w', dims: [1, 6, 3] }, { name: 'r', dims: [1, 6, 2] }, { name: 'bias', dims: [1, 12] }],
      build: (b) => b.node('GRU', ['x', 'w', 'r', 'bias'], { hidden_size: attr.int(2), direction: attr.string('reverse') }, { count: 2 })[0] as string,
      output: [3, 1, 2, 2],
    },
  ],
  Elu: [unaryCase('Elu', 0, { alpha: attr.float(0.7) })],
  Softplus: [unaryCase('Softplus')],
  HardSigmoid: [unaryCase('HardSigmoid', 0, { alpha: attr.float(0.3), beta: attr.float(0.4) })],
  HardSwish: [{ ...unaryCase('HardSwish'), name: 'HardSwish on [-4.5, 4.5] (all three pieces)', params: [{ name: 'x', dims: [2, 3], scale: 3 }] }],
  Clip: [
    { name: 'Clip 0..6 as ReLU6 (inputs)', params: [{ name: 'x', dims: [2, 4], scale: 4, offset: 2 }], build: (b) => b.op('Clip', ['x', b.scalar('low', 0), b.scalar('high', 6)]), output: [2, 4] },
    { name: 'Clip with a max only', params: [{ name: 'x', dims: [2, 3] }], build: (b) => b.op('Clip', ['x', '', b.scalar('high', 0.2)]), output: [2, 3] },
  ],
  Sum: [{ name: 'Sum of three, broadcast [2,3],[3],[2,1]', params: [{ name: 'a', dims: [2, 3] }, { name: 'b', dims: [3] }, { name: 'c', dims: [2, 1] }], build: (b) => b.op('Sum', ['a', 'b', 'c']), output: [2, 3] }],
  Einsum: [
    ['ij,jk->ik', [[2, 3], [3, 4]], [2, 4]],
    ['bhqd,bhkd->bhqk (attention scores)', [[1, 2, 3, 4], [1, 2, 5, 4]], [1, 2, 3, 5]],
    ['i,i-> (a dot product)', [[4], [4]], []],
    ['ij->j (a sum: the gradient expanded back)', [[3, 2]], [2]],
    ['ij,jk (implicit output ik)', [[2, 3], [3, 2]], [2, 2]],
  ].map(([label, dims, output]): GradientCase => {
    const equation = (label as string).split(' ')[0] as string;
    const names = (dims as number[][]).map((_, k) => `x${k}`);
    return {
      name: `Einsum ${label as string}`,
      params: (dims as number[][]).map((d, k) => ({ name: names[k]!, dims: d })),
      build: (b) => b.op('Einsum', names, { equation: attr.string(equation) }),
      output: output as number[],
    };
  }),
  Max: [{ name: 'Max of three, broadcast [2,3],[3],[2,1]', params: [{ name: 'a', dims: [2, 3] }, { name: 'b', dims: [3] }, { name: 'c', dims: [2, 1] }], build: (b) => b.op('Max', ['a', 'b', 'c']), output: [2, 3] }],
  Min: [{ name: 'Min of two', params: [{ name: 'a', dims: [2, 3] }, { name: 'b', dims: [2, 3] }], build: (b) => b.op('Min', ['a', 'b']), output: [2, 3] }],
  ReduceMax: [
    { name: 'ReduceMax axes attribute keepdims 0 (opset 17)', params: [{ name: 'x', dims: [2, 3, 4] }], build: (b) => b.op('ReduceMax', ['x'], { axes: attr.ints([1]), keepdims: attr.int(0) }), output: [2, 4] },
    { name: 'ReduceMax axes input keepdims 1 (opset 18)', params: [{ name: 'x', dims: [2, 3, 4] }], build: (b) => b.op('ReduceMax', ['x', b.ints('axes', [0, 2])]), output: [1, 3, 1], opset: 18 },
  ],
  ReduceMin: [{ name: 'ReduceMin over all axes', params: [{ name: 'x', dims: [2, 3] }], build: (b) => b.op('ReduceMin', ['x'], { keepdims: attr.int(0) }), output: [] }],
  GatherElements: [
    {
      name: 'GatherElements axis 1 with repeated indices',
      params: [{ name: 'x', dims: [2, 3] }],
      build: (b) => b.op('GatherElements', ['x', b.initializer('ix', [2, 4], BigInt64Array.of(0n, 2n, 2n, 1n, 1n, 1n, 0n, 2n), DataType.INT64)], { axis: attr.int(1) }),
      output: [2, 4],
    },
  ],
  Concat: [{ name: 'Concat axis 1', params: [{ name: 'a', dims: [2, 1] }, { name: 'b', dims: [2, 3] }, { name: 'c', dims: [2, 2] }], build: (b) => b.op('Concat', ['a', 'b', 'c'], { axis: attr.int(-1) }), output: [2, 6] }],
  Split: [
    {
      name: 'Split, one output unused',
      params: [{ name: 'x', dims: [2, 5] }],
      build: (b) => {
        const [first, , third] = b.node('Split', ['x', b.ints('split', [1, 2, 2])], { axis: attr.int(1) }, { count: 3 }) as [string, string, string];
        return b.op('Concat', [first, third], { axis: attr.int(1) });
      },
      output: [2, 3],
    },
  ],
  Slice: [
    {
      name: 'Slice negative start, end past the dim, two axes',
      params: [{ name: 'x', dims: [3, 4, 5] }],
      build: (b) => b.op('Slice', ['x', b.ints('starts', [-3, 1]), b.ints('ends', [1000, 3]), b.ints('axes', [2, 0])]),
      output: [2, 4, 3],
    },
  ],
};

describe('gradient rules against float64 finite differences', () => {
  it('every rule in the table has at least one case', () => {
    expect(Object.keys(GRADIENT_RULES).filter((op) => !CASES[op]?.length)).toEqual([]);
  });

  for (const [op, cases] of Object.entries(CASES)) {
    for (const c of cases) {
      it(`${op}: ${c.name}`, async () => {
        const result = await checkGradients(c);
        expect(result.elements).toBeGreaterThan(0);
        expect(result.precision).toBe(FLOAT32_ONLY.has(c.name) ? 'float32' : 'float64');
        expect(result.worst, result.where).toBeLessThan(FD_TOLERANCE[result.precision]);
      });
    }
  }
});


describe('docs/training.md', () => {
  it("lists exactly the table's gradient rules", async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(new URL('../../../docs/training.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const listed = /\*\*Gradient rules\*\* \([^)]*\): ([A-Za-z, ]+)\./.exec(readme)?.[1]?.split(', ');
    expect(listed).toEqual(Object.keys(GRADIENT_RULES).sort());
  });
});
