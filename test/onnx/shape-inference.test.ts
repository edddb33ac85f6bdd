import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { onnx } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { longToNumber } from '../../src/onnx/external-data.js';
import { GraphScope, ModelGraph, ValueIndex } from '../../src/onnx/graph.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { broadcastShapes, inferShapes, inferShapesAndValues, matmulShape, ShapesById, ShapeTable } from '../../src/onnx/shape-inference.js';
import { staticInputs, withStaticDims } from '../../src/passes/amp/static-dims.js';
import { corpusAvailable, corpusDir, corpusModels, repoRoot } from '../support/corpus.js';
import { model, node, valueInfo } from '../support/models.js';

/** Fully known declared dims of a value, or undefined. */
function declaredDims(info: onnx.IValueInfoProto): number[] | undefined {
  const shape = info.type?.tensor_type?.shape;
  if (!shape) return undefined;
  const dims: number[] = [];
  for (const d of shape.dim ?? []) {
    if (!Object.hasOwn(d, 'dim_value') || d.dim_value == null) return undefined;
    dims.push(longToNumber(d.dim_value));
  }
  return dims;
}

function int64Tensor(name: string, values: number[], dims: number[] = [values.length]): onnx.TensorProto {
  return onnx.TensorProto.create({ name, dims, data_type: DataType.INT64, int64_data: values });
}

function attr(name: string, value: number | number[] | string): onnx.AttributeProto {
  if (typeof value === 'string') return onnx.AttributeProto.create({ name, s: Buffer.from(value), type: onnx.AttributeProto.AttributeType.STRING });
  if (Array.isArray(value)) return onnx.AttributeProto.create({ name, ints: value, type: onnx.AttributeProto.AttributeType.INTS });
  return onnx.AttributeProto.create({ name, i: value, type: onnx.AttributeProto.AttributeType.INT });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('static shape inference', () => {
  it.skipIf(!corpusAvailable)('agrees with every fully declared graph-output shape of the node tests (declarations stripped first)', () => {
    let checked = 0;
    let unknown = 0;
    const disagreements: string[] = [];
    for (const relative of corpusModels('onnx-node-tests')) {
      const m = loadModel(path.join(corpusDir, relative), { externalData: 'ignore' });
      const g = m.graph as onnx.GraphProto;
      const expected = new Map<string, number[]>();
      for (const info of g.output ?? []) {
        const dims = declaredDims(info);
        if (dims && info.name) expected.set(info.name, dims);
        // Inference must not see the answer.
        if (info.type?.tensor_type) info.type.tensor_type.shape = null;
      }
      g.value_info = [];
      const graph = new ModelGraph(m);
      const shapes = inferShapes(graph);
      for (const [name, dims] of expected) {
        // An output that is a graph input or initializer is known from its seed, not inferred.
        if (!graph.main.producerOf(name)) continue;
        const inferred = shapes.get(name);
        if (!inferred) {
          unknown++;
          if (process.env.AMP_DEBUG_SHAPES) console.log(`unknown: ${relative} ${graph.main.producerOf(name)?.node.op_type} ${name}`);
          continue;
        }
        checked++;
        if (JSON.stringify(inferred) !== JSON.stringify(dims)) {
          disagreements.push(`${relative} '${name}' (${graph.main.producerOf(name)?.node.op_type}): inferred [${inferred}], declared [${dims}]`);
        }
      }
    }
    console.log(`[shapes] ${checked} declared output shapes checked against inference, ${unknown} not inferred`);
    expect(disagreements).toEqual([]);
    expect(checked).toBeGreaterThan(300);
  });

  it.skipIf(!corpusAvailable)('infers the output and every Conv output of the light models', () => {
    const files = corpusModels('light-models');
    expect(files.length).toBeGreaterThan(0);
    for (const relative of files) {
      const m = loadModel(path.join(corpusDir, relative), { externalData: 'ignore' });
      const g = m.graph as onnx.GraphProto;
      const expected = new Map((g.output ?? []).map((info) => [info.name ?? '', declaredDims(info)]));
      for (const info of g.output ?? []) if (info.type?.tensor_type) info.type.tensor_type.shape = null;
      g.value_info = [];
      const graph = new ModelGraph(m);
      const shapes = inferShapes(graph);
      for (const [name, dims] of expected) {
        expect(shapes.get(name), `${relative} output '${name}'`).toBeDefined();
        if (dims) expect(shapes.get(name), `${relative} output '${name}'`).toEqual(dims);
      }
      const convs = (g.node ?? []).filter((n) => n.op_type === 'Conv');
      for (const conv of convs) expect(shapes.get(conv.output?.[0] ?? ''), `${relative} Conv '${conv.name}'`).toBeDefined();
    }
  });

  it('knows the output of every MatMul of the transformer fixture', () => {
    const m = loadModel(path.join(repoRoot, 'fixtures/transformer-block/model.onnx'), { externalData: 'ignore' });
    const graph = new ModelGraph(m);
    const shapes = inferShapes(graph);
    const matmuls = (m.graph?.node ?? []).filter((n) => n.op_type === 'MatMul');
    expect(matmuls.length).toBeGreaterThan(0);
    for (const matmul of matmuls) expect(shapes.get(matmul.output?.[0] ?? ''), `MatMul '${matmul.name}'`).toBeDefined();
  });

  it('follows shape values through Shape, Gather, Unsqueeze, Concat into Reshape', () => {
    const m = model({
      input: [valueInfo('x', DataType.FLOAT, [2, 8, 32])],
      initializer: [int64Tensor('zero', [0], []), int64Tensor('one', [1], []), int64Tensor('heads', [4, 8])],
      node: [
        node('Shape', ['x'], ['shape']),
        node('Gather', ['shape', 'zero'], ['batch'], 'gather_batch', { attribute: [attr('axis', 0)] }),
        node('Gather', ['shape', 'one'], ['seq']),
        node('Unsqueeze', ['batch', 'zero'], ['batch_1d']),
        node('Unsqueeze', ['seq', 'zero'], ['seq_1d']),
        node('Concat', ['batch_1d', 'seq_1d', 'heads'], ['target'], 'concat', { attribute: [attr('axis', 0)] }),
        node('Reshape', ['x', 'target'], ['y']),
        node('Transpose', ['y'], ['t'], 'transpose', { attribute: [attr('perm', [0, 2, 1, 3])] }),
        node('MatMul', ['t', 't_T'], ['scores']),
        node('Transpose', ['t'], ['t_T'], 'transpose_k', { attribute: [attr('perm', [0, 1, 3, 2])] }),
        node('Slice', ['scores', 'zero', 'minus_one', 'last_axis'], ['sliced']),
      ],
      output: [valueInfo('sliced', DataType.FLOAT)],
    });
    (m.graph as onnx.GraphProto).initializer.push(int64Tensor('minus_one', [-1]), int64Tensor('last_axis', [-1]));
    const { shapes, values } = inferShapesAndValues(new ModelGraph(m));
    expect(values.get('target')?.data).toEqual([2, 8, 4, 8]);
    expect(shapes.get('y')).toEqual([2, 8, 4, 8]);
    expect(shapes.get('t')).toEqual([2, 4, 8, 8]);
    expect(shapes.get('scores')).toEqual([2, 4, 8, 8]);
    expect(shapes.get('sliced')).toEqual([2, 4, 8, 7]);
  });

  it('handles Conv, pooling with ceil_mode, Flatten and Gemm', () => {
    const m = model({
      input: [valueInfo('x', DataType.FLOAT, [1, 3, 15, 15]), valueInfo('w', DataType.FLOAT, [8, 3, 3, 3]), valueInfo('fc', DataType.FLOAT, [10, 392])],
      node: [
        node('Conv', ['x', 'w'], ['c'], 'conv', { attribute: [attr('strides', [2, 2]), attr('pads', [1, 1, 1, 1])] }),
        node('Conv', ['x', 'w'], ['same'], 'conv_same', { attribute: [attr('strides', [2, 2]), attr('auto_pad', 'SAME_UPPER')] }),
        node('MaxPool', ['c'], ['p'], 'pool', { attribute: [attr('kernel_shape', [2, 2]), attr('strides', [2, 2]), attr('ceil_mode', 1)] }),
        node('Flatten', ['p'], ['f']),
        node('Gemm', ['f', 'fc'], ['logits'], 'gemm', { attribute: [attr('transB', 1)] }),
        node('ConvTranspose', ['c', 'wt'], ['up'], 'deconv', { attribute: [attr('strides', [2, 2]), attr('pads', [1, 1, 1, 1]), attr('output_padding', [1, 1])] }),
      ],
    });
    (m.graph as onnx.GraphProto).input.push(valueInfo('wt', DataType.FLOAT, [8, 4, 3, 3]));
    const shapes = inferShapes(new ModelGraph(m));
    expect(shapes.get('c')).toEqual([1, 8, 8, 8]);
    expect(shapes.get('same')).toEqual([1, 8, 8, 8]);
    expect(shapes.get('p')).toEqual([1, 8, 4, 4]);
    expect(shapes.get('f')).toEqual([1, 128]);
    // 128 != 392: Gemm's inner dims disagree, so its output stays unknown instead of guessed.
    expect(shapes.get('logits')).toBeUndefined();
    expect(shapes.get('up')).toEqual([1, 4, 16, 16]);
  });

  it('never throws on odd models', () => {
    const m = model({
      input: [valueInfo('x', DataType.FLOAT, [2, 3])],
      node: [
        node('Reshape', ['x', 'missing'], ['a']),
        node('Concat', ['x', 'a'], ['b']),
        node('Conv', ['x', 'x'], ['c']),
        node('MatMul', ['x', 'x'], ['d']),
        node('Slice', ['x'], ['e']),
        node('Einsum', ['x', 'x'], ['f'], 'einsum', { attribute: [attr('equation', 'ij,kj->ik')] }),
      ],
    });
    const shapes = inferShapes(new ModelGraph(m));
    expect(shapes.get('a')).toBeUndefined();
    expect(shapes.get('d')).toBeUndefined();
    expect(shapes.get('f')).toEqual([2, 2]);
  });
});

describe('shared shapes', () => {
  it('gives values of one shape one frozen array, initializers and declared inputs included', () => {
    const m = model({
      input: [valueInfo('x', DataType.FLOAT, [2, 8])],
      initializer: [onnx.TensorProto.create({ name: 'w', dims: [8, 8], data_type: DataType.FLOAT, raw_data: new Uint8Array(256) }), onnx.TensorProto.create({ name: 'b', dims: [8], data_type: DataType.FLOAT, raw_data: new Uint8Array(32) })],
      node: [node('MatMul', ['x', 'w'], ['y']), node('Add', ['y', 'b'], ['z']), node('Relu', ['z'], ['r']), node('Transpose', ['w'], ['wt'])],
    });
    const shapes = inferShapes(new ModelGraph(m));
    const rows = shapes.get('x');
    expect(rows).toEqual([2, 8]);
    for (const name of ['y', 'z', 'r']) expect(shapes.get(name), name).toBe(rows);
    expect(shapes.get('wt')).toBe(shapes.get('w'));
    for (const shape of shapes.values()) expect(Object.isFrozen(shape)).toBe(true);
    expect(() => (rows as number[]).push(1)).toThrow(TypeError);
  });

  it('keeps shapes by value id exactly as a Map of names would, for indexed and unindexed names', () => {
    const m = loadModel(path.join(repoRoot, 'fixtures/transformer-block/model.onnx'), { externalData: 'ignore' });
    const graph = new ModelGraph(m);
    const indexed = (m.graph?.node ?? []).flatMap((n) => [...(n.input ?? []), ...(n.output ?? [])]).filter(Boolean);
    expect(indexed.length).toBeGreaterThan(10);
    const names = [...new Set(indexed)].slice(0, 40).concat(['not/in/the/index', 'another unknown name']);
    const shapesList = [Object.freeze([1, 2]), Object.freeze([3]), Object.freeze([]), Object.freeze([1, 2])];
    const byId = new ShapesById(graph.main);
    const reference = new Map<string, readonly number[]>();
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 48271) % 2147483647;
      return seed % n;
    };
    const sorted = (entries: Iterable<[string, readonly number[]]>) => [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (let step = 0; step < 400; step++) {
      const name = names[random(names.length)] as string;
      if (random(4) === 0) expect(byId.delete(name), `delete ${name}`).toBe(reference.delete(name));
      else {
        const shape = shapesList[random(shapesList.length)] as readonly number[];
        byId.set(name, shape);
        reference.set(name, shape);
      }
      const probe = names[random(names.length)] as string;
      expect(byId.get(probe), probe).toBe(reference.get(probe));
      expect(byId.has(probe), probe).toBe(reference.has(probe));
      expect(byId.size).toBe(reference.size);
    }
    expect(reference.size).toBeGreaterThan(5);
    expect(sorted(byId)).toEqual(sorted(reference));
    expect(sorted(byId.entries())).toEqual(sorted(reference.entries()));
    expect([...byId.keys()].sort()).toEqual([...reference.keys()].sort());
    expect([...byId.values()].length).toBe(reference.size);
    const visited: string[] = [];
    byId.forEach((shape, name) => {
      expect(shape).toBe(reference.get(name));
      visited.push(name);
    });
    expect(visited.sort()).toEqual([...reference.keys()].sort());
  });

  it('reads the ids of node names from the hint table: the same shapes as without it, and no node name hashed', () => {
    const sortedEntries = (shapes: ReadonlyMap<string, readonly number[]>) => [...shapes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const files = [
      path.join(repoRoot, 'fixtures/transformer-block/model.onnx'),
      path.join(repoRoot, 'fixtures/conv-block/model.onnx'),
      ...(corpusAvailable ? corpusModels('light-models').slice(0, 6).map((relative) => path.join(corpusDir, relative)) : []),
    ];
    for (const file of files) {
      const m = loadModel(file, { externalData: 'ignore' });
      const graph = new ModelGraph(m);
      graph.main.topologicalOrder();
      const idOf = vi.spyOn(ValueIndex.prototype, 'idOf');
      const hinted = inferShapes(graph);
      // Only the seeds (initializers, graph inputs) are looked up by name.
      const seeds = graph.main.initializers.size + graph.main.inputs.size + (m.graph?.sparse_initializer?.length ?? 0);
      expect(idOf.mock.calls.length, file).toBeLessThanOrEqual(seeds);
      idOf.mockClear();
      const noHints = vi.spyOn(GraphScope.prototype, 'valueIdHints').mockReturnValue(undefined);
      const plain = inferShapes(graph);
      expect(idOf.mock.calls.length, file).toBeGreaterThan(seeds);
      noHints.mockRestore();
      idOf.mockRestore();
      expect(hinted.size, file).toBeGreaterThan(0);
      expect(sortedEntries(hinted), file).toEqual(sortedEntries(plain));
    }
  });

  it('interns a copy of valid dims only, and keeps a computed -0 apart from 0', () => {
    const table = new ShapeTable();
    const dims = [4, 1, 16];
    const shape = table.intern(dims);
    dims[0] = 5;
    expect(shape).toEqual([4, 1, 16]);
    expect(table.intern([4, 1, 16])).toBe(shape);
    expect(table.intern([4, 1])).not.toBe(shape);
    expect(table.intern([])).toBe(table.intern([]));
    for (const bad of [[-1], [2, 1.5], [Number.NaN], [2 ** 60]]) expect(table.intern(bad), String(bad)).toBeUndefined();
    expect(table.intern([0, 3])).toEqual([0, 3]);
    expect(Object.is(table.intern([-0, 3])?.[0], -0)).toBe(true);
  });

  it('broadcasts to an operand without a new array, and multiplies matrices by numpy rules', () => {
    const act = [2, 16, 64];
    expect(broadcastShapes([act, [64]])).toBe(act);
    expect(broadcastShapes([[64], act])).toBe(act);
    expect(broadcastShapes([[1, 4], [3, 1]])).toEqual([3, 4]);
    expect(broadcastShapes([[2, 4], [3, 4]])).toBeUndefined();
    expect(broadcastShapes([])).toEqual([]);
    expect(matmulShape([2, 16, 64], [64, 32])).toEqual([2, 16, 32]);
    expect(matmulShape([5, 1, 16, 64], [3, 64, 8])).toEqual([5, 3, 16, 8]);
    expect(matmulShape([64], [64, 32])).toEqual([32]);
    expect(matmulShape([2, 16, 64], [64])).toEqual([2, 16]);
    expect(matmulShape([64], [64])).toEqual([]);
    expect(matmulShape([2, 16, 64], [32, 8])).toBeUndefined();
    expect(matmulShape([2, 16, 64], [3, 64, 8])).toBeUndefined();
    expect(matmulShape([], [3])).toBeUndefined();
  });
});

describe('--dim sizes', () => {
  it('infers from staticInputs() what it infers over the withStaticDims() view, without a second graph model', () => {
    const cases: Array<[string, Record<string, number>]> = [
      ['exporter-bert-fused', { batch: 2, sequence: 16 }],
      ['exporter-decoder-kv', { batch: 3, sequence: 1, past_sequence: 7 }],
      ['attention-training-sgd', { batch: 5 }],
      ['mlp-training-adam', { batch: 4 }],
    ];
    for (const [fixture, sizes] of cases) {
      const m = loadModel(path.join(repoRoot, 'fixtures', fixture, 'model.onnx'), { externalData: 'ignore' });
      const dims = new Map(Object.entries(sizes));
      const entries = (shapes: ReadonlyMap<string, readonly number[]>) => [...shapes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const over = inferShapesAndValues(new ModelGraph(withStaticDims(m, dims)));
      const given = inferShapesAndValues(new ModelGraph(m), { inputs: staticInputs(m, dims) });
      expect(entries(given.shapes), fixture).toEqual(entries(over.shapes));
      expect(new Map(given.values), fixture).toEqual(new Map(over.values));
      // The sizes were used: more is known than without them.
      expect(given.shapes.size, fixture).toBeGreaterThan(inferShapes(new ModelGraph(m)).size);
    }
    expect(() => staticInputs(loadModel(path.join(repoRoot, 'fixtures/mlp-training-adam/model.onnx'), { externalData: 'ignore' }), new Map([['batchh', 4]]))).toThrow(/batchh/);
  });
});
