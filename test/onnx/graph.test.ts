import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { onnx } from '../../src/onnx/codec.js';
import { ModelGraph } from '../../src/onnx/graph.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { corpusAvailable, corpusDir, corpusModels } from '../support/corpus.js';
import { model, node, valueInfo } from '../support/models.js';
import { mainGraph } from '../support/models.js';

const load = (relative: string) => loadModel(path.join(corpusDir, relative), { externalData: 'ignore' });

describe('graph model over the corpus', () => {
  it.skipIf(!corpusAvailable)('every input of every node resolves, in every scope, and file order is topological', () => {
    const problems: string[] = [];
    for (const relative of corpusModels()) {
      const graph = new ModelGraph(load(relative));
      for (const scope of graph.scopes) {
        for (const n of scope.currentNodes()) {
          for (const name of n.input ?? []) {
            if (name && !scope.resolve(name)) problems.push(`${relative} ${scope.path}: '${name}' of ${n.op_type} unresolved`);
          }
        }
        const { order, blocked } = scope.topologicalOrder();
        if (blocked.length) problems.push(`${relative} ${scope.path}: ${blocked.length} nodes not placed`);
        expect(order.length + blocked.length).toBe(scope.currentNodes().length);
      }
    }
    expect(problems).toEqual([]);
  });

  it.skipIf(!corpusAvailable)('If branches are scopes of their own', () => {
    const graph = new ModelGraph(load('onnx-node-tests/test_if/model.onnx'));
    const ifNode = graph.main.currentNodes().find((n) => n.op_type === 'If')!;
    expect(graph.main.subgraphsOf(ifNode).map((b) => b.path).sort()).toEqual(['graph/If.else_branch', 'graph/If.then_branch']);
    expect(graph.main.subgraphsOf(ifNode)).toHaveLength(2);
  });

  it.skipIf(!corpusAvailable)('a Loop body reads an outer value through the Loop node', () => {
    const graph = new ModelGraph(load('onnx-node-tests/test_range_float_type_positive_delta_expanded/model.onnx'));
    const body = graph.scopes.find((s) => s.owner?.op_type === 'Loop')!;
    expect([...body.outerReferences]).toEqual(['delta']);
    expect(body.resolve('delta')?.scope).toBe(graph.main);
    for (const name of body.inputs.keys()) expect(body.resolve(name)?.scope).toBe(body);
    expect(graph.main.consumersOf('delta').some((use) => use.node === body.owner && use.index === -1)).toBe(true);
  });

  it.skipIf(!corpusAvailable)('a reference two scopes deep resolves to the middle scope and counts as a use by both owners', () => {
    const graph = new ModelGraph(load('onnx-node-tests/test_loop16_seq_none/model.onnx'));
    const inner = graph.scopes.find((s) => s.path === 'graph/Loop.body/If.else_branch')!;
    const body = inner.parent!;
    expect([...inner.outerReferences]).toEqual(['opt_seq_in']);
    expect(inner.resolve('opt_seq_in')?.scope).toBe(body);
    expect(body.consumersOf('opt_seq_in').some((use) => use.node === inner.owner && use.index === -1)).toBe(true);
    expect(body.outerReferences.has('opt_seq_in')).toBe(false);
  });

  it.skipIf(!corpusAvailable)('topological order restores a shuffled real model (ResNet50)', () => {
    const m = load('light-models/light_resnet50.onnx');
    const nodes = mainGraph(m).node;
    const reversed = [...nodes].reverse();
    mainGraph(m).node = reversed;
    const { order, blocked } = new ModelGraph(m).main.topologicalOrder();
    expect(blocked).toEqual([]);
    const seen = new Set<string>([...mainGraph(m).input.map((i) => i.name ?? ""), ...mainGraph(m).initializer.map((t) => t.name ?? "")]);
    for (const n of order as onnx.NodeProto[]) {
      for (const name of n.input) if (name) expect(seen.has(name), `${n.name} reads ${name} before it is made`).toBe(true);
      for (const name of n.output) seen.add(name);
    }
  });
});

describe('graph edits', () => {
  const build = () =>
    new ModelGraph(
      model({
        node: [node('MatMul', ['x', 'w'], ['h']), node('Relu', ['h'], ['y'])],
        input: [valueInfo('x', 1, [2, 2]), valueInfo('w', 1, [2, 2])],
        output: [valueInfo('y', 1, [2, 2])],
      }),
    );

  it('inserts a node right after its anchor, rewires a consumer and commits', () => {
    const graph = build();
    const scope = graph.main;
    const matmul = scope.producerOf('h')!.node;
    const relu = scope.consumersOf('h')[0]!.node;
    const castName = graph.uniqueName('h/to_fp32');
    const cast = node('Cast', ['h'], [castName], graph.uniqueName('h/to_fp32'));
    scope.insertNodeAfter(matmul, cast);
    scope.setInput(relu, 0, castName);
    expect(scope.consumersOf('h').map((u) => u.node)).toEqual([cast]);
    expect(scope.consumersOf(castName).map((u) => u.node)).toEqual([relu]);
    expect(cast.name).toBe('h/to_fp32_1');
    graph.commit();
    expect(mainGraph(graph.model).node.map((n) => n.op_type)).toEqual(['MatMul', 'Cast', 'Relu']);
  });

  it('removes a node and its edges', () => {
    const graph = build();
    const relu = graph.main.producerOf('y')!.node;
    graph.main.removeNode(relu);
    expect(graph.main.producerOf('y')).toBeUndefined();
    expect(graph.main.consumersOf('h')).toEqual([]);
    graph.commit();
    expect(mainGraph(graph.model).node.map((n) => n.op_type)).toEqual(['MatMul']);
  });

  it('unique names never collide with existing values or each other', () => {
    const graph = build();
    expect(graph.uniqueName('h')).toBe('h_1');
    expect(graph.uniqueName('h')).toBe('h_2');
    expect(graph.uniqueName('fresh')).toBe('fresh');
  });

  it('declared element types come from inputs, value_info, initializers and Constant nodes', () => {
    const m = model({
      node: [
        node('Constant', [], ['c'], 'c', {
          attribute: [onnx.AttributeProto.create({ name: 'value', type: 4, t: onnx.TensorProto.create({ data_type: 10, dims: [] }) })],
        }),
        node('Add', ['x', 'c'], ['y']),
      ],
      input: [valueInfo('x', 10)],
      output: [valueInfo('y', 10)],
      initializer: [onnx.TensorProto.create({ name: 'k', data_type: 7, dims: [1] })],
    });
    const scope = new ModelGraph(m).main;
    expect(scope.declaredElemType('x')).toBe(10);
    expect(scope.declaredElemType('c')).toBe(10);
    expect(scope.declaredElemType('k')).toBe(7);
    expect(scope.declaredElemType('y')).toBe(10);
  });
});
