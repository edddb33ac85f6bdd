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
import { validateModel } from '../../src/passes/validate.js';

const F = DataType.FLOAT;

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
