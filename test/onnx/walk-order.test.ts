/**
 * forEachTensor walks each graph's nodes once, finding attribute tensors and subgraphs in the same
 * pass. Its visits must stay those of the walk built on forEachGraph (each graph's tensors, then
 * its subgraphs'): the order decides which problem a check reports first and where a new data file
 * puts each tensor. The reference below is that walk, kept here as the specification.
 */
import { describe, expect, it } from 'vitest';
import { onnx } from '../../src/onnx/codec.js';
import { forEachGraph, forEachTensor } from '../../src/onnx/walk.js';
import { floatTensor, model, node } from '../support/models.js';

function referenceVisits(m: onnx.IModelProto): string[] {
  const visits: string[] = [];
  const visit = (tensor: onnx.ITensorProto, where: string): void => void visits.push(`${tensor.name}@${where}`);
  const attributeTensors = (nodes: onnx.INodeProto[] | null | undefined, path: string): void => {
    for (const n of nodes ?? []) {
      for (const attribute of n.attribute ?? []) {
        const where = `${path}/${n.name || n.op_type}.${attribute.name}`;
        if (attribute.t) visit(attribute.t, where);
        for (const tensor of attribute.tensors ?? []) visit(tensor, where);
        for (const sparse of [...(attribute.sparse_tensor ? [attribute.sparse_tensor] : []), ...(attribute.sparse_tensors ?? [])]) {
          if (sparse.values) visit(sparse.values, where);
          if (sparse.indices) visit(sparse.indices, where);
        }
      }
    }
  };
  forEachGraph(m, ({ graph, path }) => {
    for (const tensor of graph.initializer ?? []) visit(tensor, path);
    for (const sparse of graph.sparse_initializer ?? []) {
      if (sparse.values) visit(sparse.values, path);
      if (sparse.indices) visit(sparse.indices, path);
    }
    attributeTensors(graph.node, path);
  });
  for (const fn of m.functions ?? []) attributeTensors(fn.node, `function ${fn.name}`);
  return visits;
}

function visitsOf(m: onnx.IModelProto): string[] {
  const visits: string[] = [];
  forEachTensor(m, (tensor, where) => void visits.push(`${tensor.name}@${where}`));
  return visits;
}

const tensorAttribute = (name: string, tensor: string): onnx.AttributeProto =>
  onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.TENSOR, t: floatTensor(tensor, [1], [1]) });

/** A graph with an initializer, a Constant and, `depth` times down, an If whose branches repeat the pattern. */
function nested(prefix: string, depth: number): onnx.GraphProto {
  const nodes = [node('Constant', [], [`${prefix}c`], `${prefix}const`, { attribute: [tensorAttribute('value', `${prefix}ct`)] })];
  if (depth > 0) {
    nodes.push(
      node('If', [`${prefix}c`], [`${prefix}y`], `${prefix}if`, {
        attribute: [
          onnx.AttributeProto.create({ name: 'then_branch', type: onnx.AttributeProto.AttributeType.GRAPH, g: nested(`${prefix}t`, depth - 1) }),
          onnx.AttributeProto.create({ name: 'else_branch', type: onnx.AttributeProto.AttributeType.GRAPH, g: nested(`${prefix}e`, depth - 1) }),
        ],
      }),
      // A later node's tensor: visited before the If's subgraphs, as each graph's tensors come first.
      node('Constant', [], [`${prefix}d`], `${prefix}late`, {
        attribute: [
          onnx.AttributeProto.create({ name: 'value', type: onnx.AttributeProto.AttributeType.TENSORS, tensors: [floatTensor(`${prefix}l1`, [1], [2]), floatTensor(`${prefix}l2`, [1], [3])] }),
          onnx.AttributeProto.create({
            name: 'bodies',
            type: onnx.AttributeProto.AttributeType.GRAPHS,
            graphs: [nested(`${prefix}b0`, 0), nested(`${prefix}b1`, 0)],
            t: floatTensor(`${prefix}both`, [1], [4]),
          }),
          onnx.AttributeProto.create({
            name: 'sparse',
            type: onnx.AttributeProto.AttributeType.SPARSE_TENSOR,
            sparse_tensor: onnx.SparseTensorProto.create({ values: floatTensor(`${prefix}sv`, [1], [5]), indices: floatTensor(`${prefix}si`, [1], [0]) }),
          }),
        ],
      }),
    );
  }
  return onnx.GraphProto.create({
    name: prefix,
    node: nodes,
    initializer: [floatTensor(`${prefix}w`, [1], [0])],
    sparse_initializer: [onnx.SparseTensorProto.create({ values: floatTensor(`${prefix}spv`, [1], [6]), indices: floatTensor(`${prefix}spi`, [1], [0]) })],
  });
}

describe('forEachTensor', () => {
  it('visits every tensor in the order of the walk built on forEachGraph', () => {
    const m = model({});
    m.graph = nested('g', 3);
    m.training_info = [onnx.TrainingInfoProto.create({ initialization: nested('init', 1), algorithm: nested('algo', 1) })];
    m.functions = [
      onnx.FunctionProto.create({
        name: 'f',
        node: [
          node('Constant', [], ['fc'], 'fconst', { attribute: [tensorAttribute('value', 'ft')] }),
          node('If', ['fc'], ['fy'], 'fif', {
            attribute: [onnx.AttributeProto.create({ name: 'then_branch', type: onnx.AttributeProto.AttributeType.GRAPH, g: nested('fthen', 1) })],
          }),
        ],
      }),
    ];
    const expected = referenceVisits(m);
    expect(expected.length).toBeGreaterThan(60);
    expect(visitsOf(m)).toEqual(expected);
  });

  it('walks a model without graph, nodes or attributes', () => {
    expect(visitsOf(onnx.ModelProto.create({}))).toEqual([]);
    expect(visitsOf(model({ initializer: [floatTensor('w', [1], [0])] }))).toEqual(['w@graph']);
  });
});
