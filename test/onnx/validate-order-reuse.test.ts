/**
 * Validation of a graph model the pass kept up to date skips the per-node order check when the
 * topological order its type inference just computed proves the node list in order (every read
 * after its producer, one definition per name). Every edit that could break that proof must send
 * it back to the full check: these tests break the graph in each such way through the graph
 * model's own edit methods and expect the same problems as a fresh graph model reports.
 */
import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../../src/builder/graph-builder.js';
import { DataType } from '../../src/onnx/data-types.js';
import { onnx } from '../../src/onnx/codec.js';
import { ModelGraph } from '../../src/onnx/graph.js';
import { opsetsOf } from '../../src/onnx/opsets.js';
import { inferElemTypes } from '../../src/onnx/type-inference.js';
import { sortGraph } from '../../src/passes/amp/graph-order.js';
import { validateModel } from '../../src/onnx/validate.js';

const F = DataType.FLOAT;

function valueInfoOf(name: string, elemType?: number): onnx.ValueInfoProto {
  return onnx.ValueInfoProto.create({ name, ...(elemType ? { type: { tensor_type: { elem_type: elemType } } } : {}) });
}

/** x -> Relu(a) -> Abs(b) -> Neg(y), an initializer w added to a by Add(c). */
function chain(): onnx.ModelProto {
  const b = new GraphBuilder('g');
  const x = b.input('x', F, [2]);
  const w = b.initializer('w', [2], new Float32Array([1, 2]));
  b.op('Relu', [x], {}, { name: 'relu', outputs: ['a'] });
  b.op('Add', ['a', w], {}, { name: 'add', outputs: ['c'] });
  b.op('Abs', ['c'], {}, { name: 'abs', outputs: ['b'] });
  b.op('Neg', ['b'], {}, { name: 'neg', outputs: ['y'] });
  b.output('y', F, [2]);
  return b.model();
}

function castNode(name: string, input: string, output: string): onnx.NodeProto {
  return onnx.NodeProto.create({ name, op_type: 'Cast', input: [input], output: [output], attribute: [onnx.AttributeProto.create({ name: 'to', type: 2, i: F })] });
}

/** Edits the model through its graph model as the pass does, then validates with the kept graph. */
function editAndValidate(edit: (graph: ModelGraph) => void): { kept: string[]; fresh: string[]; proved: boolean } {
  const model = chain();
  const graph = new ModelGraph(model);
  sortGraph(graph);
  const opsets = opsetsOf(model);
  inferElemTypes(graph, opsets);
  edit(graph);
  graph.commit();
  graph.refreshOuterReferences();
  const types = inferElemTypes(graph, opsets);
  const proved = graph.main.orderedReads() !== undefined;
  const kept = validateModel(model, graph, types).map((p) => `${p.node}: ${p.message}`);
  const fresh = validateModel(model).map((p) => `${p.node}: ${p.message}`);
  return { kept, fresh, proved };
}

describe('validation reuses the order the type inference proved', () => {
  it('an unbroken edit (a Cast placed after its producer) is proved in order and valid', () => {
    const { kept, fresh, proved } = editAndValidate((graph) => {
      const relu = graph.main.producerOf('a')!.node;
      graph.main.renameNodeOutput(relu, 0, 'a_raw');
      graph.main.insertNodeAfter(relu, castNode('cast', 'a_raw', 'a'));
    });
    expect(proved).toBe(true);
    expect(kept).toEqual([]);
    expect(fresh).toEqual([]);
  });

  it('a Cast placed before its producer: out of order, the full check names it', () => {
    const { kept, fresh, proved } = editAndValidate((graph) => {
      const relu = graph.main.producerOf('a')!.node;
      graph.main.renameNodeOutput(relu, 0, 'a_raw');
      graph.main.insertNodeAfter(null, castNode('early', 'a_raw', 'a'));
    });
    expect(proved).toBe(false);
    expect(kept).toEqual([expect.stringMatching(/^early: Cast 'early' reads 'a_raw' before anything in graph defines it/)]);
    expect(kept).toEqual(fresh);
  });

  it('a reader rewired to a name nothing defines', () => {
    const { kept, fresh } = editAndValidate((graph) => {
      const abs = graph.main.producerOf('b')!.node;
      graph.main.setInput(abs, 0, 'nowhere');
    });
    expect(kept).toEqual([expect.stringMatching(/^abs: Abs 'abs' reads 'nowhere' before anything in graph defines it/)]);
    expect(kept).toEqual(fresh);
  });

  it('a node reading its own output', () => {
    const { kept, fresh } = editAndValidate((graph) => {
      const abs = graph.main.producerOf('b')!.node;
      graph.main.setInput(abs, 0, 'b');
    });
    expect(kept).toEqual([expect.stringMatching(/^abs: Abs 'abs' reads 'b' before anything in graph defines it/)]);
    expect(kept).toEqual(fresh);
  });

  it('a second producer of a value, placed in order', () => {
    const { kept, fresh } = editAndValidate((graph) => {
      const relu = graph.main.producerOf('a')!.node;
      graph.main.insertNodeAfter(relu, castNode('again', 'x', 'c'));
    });
    expect(kept).toEqual([expect.stringMatching(/^add: Add 'add' writes 'c', which already has a producer in graph/)]);
    expect(kept).toEqual(fresh);
  });

  it("an output renamed onto another node's output", () => {
    const { kept, fresh } = editAndValidate((graph) => {
      const side = onnx.NodeProto.create({ name: 'side', op_type: 'Relu', input: ['x'], output: ['s'] });
      graph.main.insertNodeAfter(graph.main.producerOf('y')!.node, side);
      graph.main.renameNodeOutput(side, 0, 'y');
    });
    expect(kept).toEqual([expect.stringMatching(/^side: Relu 'side' writes 'y', which already has a producer in graph/)]);
    expect(kept).toEqual(fresh);
  });

  it('a new node writing an initializer', () => {
    const { kept, fresh } = editAndValidate((graph) => {
      graph.main.insertNodeAfter(graph.main.producerOf('a')!.node, castNode('shadow', 'x', 'w'));
    });
    expect(kept).toEqual([expect.stringMatching(/^shadow: Cast 'shadow' writes 'w', which already has a producer in graph/)]);
    expect(kept).toEqual(fresh);
  });

  it('an output renamed onto an initializer (its reader following it)', () => {
    const { kept, fresh } = editAndValidate((graph) => {
      const relu = graph.main.producerOf('a')!.node;
      graph.main.renameNodeOutput(relu, 0, 'w');
      graph.main.setInput(graph.main.producerOf('c')!.node, 0, 'w');
    });
    expect(kept).toEqual([expect.stringMatching(/^relu: Relu 'relu' writes 'w', which already has a producer in graph/)]);
    expect(kept).toEqual(fresh);
  });

  it('a node added to the node list behind the graph model after the order was computed', () => {
    const model = chain();
    const graph = new ModelGraph(model);
    sortGraph(graph);
    const types = inferElemTypes(graph, opsetsOf(model));
    expect(graph.main.orderedReads()).toBeDefined();
    graph.main.graph.node!.push(castNode('sneaked', 'nowhere', 'z'));
    expect(graph.main.orderedReads()).toBeUndefined();
    expect(validateModel(model, graph, types).map((p) => p.message)).toEqual([expect.stringMatching(/Cast 'sneaked' reads 'nowhere' before anything/)]);
  });

  it('a type problem in a list in order: the inference saw it as it typed the node', () => {
    const model = chain();
    const w = model.graph!.initializer!.find((t) => t.name === 'w')!;
    w.data_type = DataType.FLOAT16;
    w.raw_data = new Uint8Array(4);
    w.float_data = [];
    const graph = new ModelGraph(model);
    const opsets = opsetsOf(model);
    const types = inferElemTypes(graph, opsets);
    expect(graph.main.orderedReads()).toBeDefined();
    expect(types.nodeTypesCheckedOn(graph.main, opsets)).toBeNull();
    expect(validateModel(model, graph, types).map((p) => p.message)).toEqual([
      expect.stringMatching(/Add 'add': 'a' is tensor\(float\) but 'w' is tensor\(float16\), both bound to T/),
    ]);
  });

  it('types inferred before an edit are not taken for the edited list', () => {
    const model = chain();
    const graph = new ModelGraph(model);
    const opsets = opsetsOf(model);
    const types = inferElemTypes(graph, opsets);
    expect(types.nodeTypesCheckedOn(graph.main, opsets)).toBe(graph.main.lastOrder());
    graph.main.setInput(graph.main.producerOf('c')!.node, 1, 'x');
    graph.commit();
    inferElemTypes(graph, opsets);
    expect(types.nodeTypesCheckedOn(graph.main, opsets)).not.toBe(graph.main.lastOrder());
  });

  it('types inferred on the list before an edit do not vouch for the edited list', () => {
    const model = chain();
    model.graph!.initializer!.push(onnx.TensorProto.create({ name: 'h', dims: [2], data_type: DataType.FLOAT16, raw_data: new Uint8Array(4) }));
    const graph = new ModelGraph(model);
    const opsets = opsetsOf(model);
    const before = inferElemTypes(graph, opsets);
    graph.main.setInput(graph.main.producerOf('c')!.node, 1, 'h');
    graph.commit();
    graph.main.topologicalOrder();
    expect(graph.main.orderedReads()).toBeDefined();
    expect(validateModel(model, graph, before).map((p) => p.message)).toEqual([
      expect.stringMatching(/Add 'add': 'a' is tensor\(float\) but 'h' is tensor\(float16\), both bound to T/),
    ]);
  });

  it('a body in order is only trusted when the graph around it is: an outer value retyped after the body was typed', () => {
    // The If reads 'v' from the Cast after it (the producer the map keeps); the Cast before it,
    // which reads the If's output, writes 'v' again once the body has been typed with float16.
    const body = (branch: string) =>
      onnx.GraphProto.create({ name: branch, node: [onnx.NodeProto.create({ name: `add_${branch}`, op_type: 'Add', input: ['v', 'h'], output: [`t_${branch}`] })], output: [valueInfoOf(`t_${branch}`)] });
    const model = onnx.ModelProto.create({
      ir_version: 9,
      opset_import: [onnx.OperatorSetIdProto.create({ domain: '', version: 17 })],
      graph: onnx.GraphProto.create({
        name: 'g',
        input: [valueInfoOf('x', F), valueInfoOf('cond', DataType.BOOL)],
        initializer: [onnx.TensorProto.create({ name: 'h', dims: [2], data_type: DataType.FLOAT16, raw_data: new Uint8Array(4) })],
        node: [
          onnx.NodeProto.create({
            name: 'if',
            op_type: 'If',
            input: ['cond'],
            output: ['y'],
            attribute: [onnx.AttributeProto.create({ name: 'then_branch', type: 5, g: body('then') }), onnx.AttributeProto.create({ name: 'else_branch', type: 5, g: body('else') })],
          }),
          onnx.NodeProto.create({ name: 'widen', op_type: 'Cast', input: ['y'], output: ['v'], attribute: [onnx.AttributeProto.create({ name: 'to', type: 2, i: F })] }),
          onnx.NodeProto.create({ name: 'narrow', op_type: 'Cast', input: ['x'], output: ['v'], attribute: [onnx.AttributeProto.create({ name: 'to', type: 2, i: DataType.FLOAT16 })] }),
        ],
        output: [valueInfoOf('v')],
      }),
    });
    const graph = new ModelGraph(model);
    const types = inferElemTypes(graph, opsetsOf(model));
    expect(graph.scopes[1]!.orderedReads()).toBeDefined();
    const messages = validateModel(model, graph, types).map((p) => `${p.node}: ${p.message}`);
    expect(messages).toContainEqual(expect.stringMatching(/^add_then: Add 'add_then': 'v' is tensor\(float\) but 'h' is tensor\(float16\)/));
    expect(messages).toContainEqual(expect.stringMatching(/^narrow: Cast 'narrow' writes 'v', which already has a producer/));
  });

  it('two producers in the input itself', () => {
    const model = chain();
    // Placed first, so every read still follows the producer the map keeps (the later one).
    model.graph!.node!.unshift(castNode('twice', 'x', 'c'));
    const graph = new ModelGraph(model);
    const types = inferElemTypes(graph, opsetsOf(model));
    expect(graph.main.orderedReads()).toBeUndefined();
    expect(validateModel(model, graph, types).map((p) => p.message)).toEqual([expect.stringMatching(/Add 'add' writes 'c', which already has a producer/)]);
  });

  it('no order computed since the last edit: the full check runs', () => {
    const model = chain();
    const graph = new ModelGraph(model);
    const types = inferElemTypes(graph, opsetsOf(model));
    expect(graph.main.orderedReads()).toEqual(['x', 'w']);
    graph.main.setInput(graph.main.producerOf('y')!.node, 0, 'later');
    graph.main.insertNodeAfter(graph.main.producerOf('y')!.node, castNode('late', 'x', 'later'));
    graph.commit();
    expect(graph.main.orderedReads()).toBeUndefined();
    expect(validateModel(model, graph, types).map((p) => p.message)).toContainEqual(expect.stringMatching(/Neg 'neg' reads 'later' before anything/));
  });
});
