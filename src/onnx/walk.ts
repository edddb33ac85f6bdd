/**
 * Visits every place in a model where a tensor or a graph can live: graph initializers, sparse
 * initializers, Constant-style attributes, subgraphs of control-flow nodes, functions and
 * training-info graphs. External data, type checks and the passes all need the same walk.
 */
import type { onnx } from './generated/onnx.js';

export interface GraphVisit {
  graph: onnx.IGraphProto;
  /** The node whose attribute holds this graph; undefined for top-level graphs. */
  owner: onnx.INodeProto | undefined;
  /** Dotted path for messages, e.g. "graph", "graph/If_0.then_branch". */
  path: string;
}

/**
 * Calls `visit` for every attribute of `nodes` that `holds` accepts, with its readable place
 * ("graph/If_0.then_branch"). Indexed loops that skip attribute-less nodes at once: the walks
 * below run several times per command over every node (load, checks, save), so their per-node
 * cost matters on big graphs, and the place string is built only for the attributes visited.
 */
function forEachAttribute(
  nodes: onnx.INodeProto[] | null | undefined,
  path: string,
  holds: (attribute: onnx.IAttributeProto) => boolean,
  visit: (attribute: onnx.IAttributeProto, node: onnx.INodeProto, where: string) => void,
): void {
  if (!nodes) return;
  for (let n = 0; n < nodes.length; n++) {
    const node = nodes[n] as onnx.INodeProto;
    const attributes = node.attribute;
    if (!attributes || attributes.length === 0) continue;
    for (let a = 0; a < attributes.length; a++) {
      const attribute = attributes[a] as onnx.IAttributeProto;
      if (holds(attribute)) visit(attribute, node, `${path}/${node.name || node.op_type}.${attribute.name}`);
    }
  }
}

const holdsGraph = (attribute: onnx.IAttributeProto): boolean => Boolean(attribute.g || attribute.graphs?.length);
const holdsTensor = (attribute: onnx.IAttributeProto): boolean =>
  Boolean(attribute.t || attribute.tensors?.length || attribute.sparse_tensor || attribute.sparse_tensors?.length);
const holdsTensorOrGraph = (attribute: onnx.IAttributeProto): boolean => holdsTensor(attribute) || holdsGraph(attribute);

export function forEachGraph(model: onnx.IModelProto, visit: (v: GraphVisit) => void): void {
  const walkGraph = (graph: onnx.IGraphProto, owner: onnx.INodeProto | undefined, path: string): void => {
    visit({ graph, owner, path });
    forEachAttribute(graph.node, path, holdsGraph, visitSubgraphs);
  };
  const visitSubgraphs = (attribute: onnx.IAttributeProto, node: onnx.INodeProto, base: string): void => {
    if (attribute.g) walkGraph(attribute.g, node, base);
    (attribute.graphs ?? []).forEach((graph, index) => walkGraph(graph, node, `${base}[${index}]`));
  };
  if (model.graph) walkGraph(model.graph, undefined, 'graph');
  (model.training_info ?? []).forEach((info, index) => {
    if (info.initialization) walkGraph(info.initialization, undefined, `training_info[${index}].initialization`);
    if (info.algorithm) walkGraph(info.algorithm, undefined, `training_info[${index}].algorithm`);
  });
  for (const fn of model.functions ?? []) forEachAttribute(fn.node, `function ${fn.name}`, holdsGraph, visitSubgraphs);
}

/** Calls `visit` for every TensorProto stored anywhere in the model. */
export function forEachTensor(model: onnx.IModelProto, visit: (tensor: onnx.ITensorProto, where: string) => void): void {
  const visitAttributeTensors = (attribute: onnx.IAttributeProto, _node: onnx.INodeProto, where: string): void => {
    if (attribute.t) visit(attribute.t, where);
    for (const tensor of attribute.tensors ?? []) visit(tensor, where);
    for (const sparse of [...(attribute.sparse_tensor ? [attribute.sparse_tensor] : []), ...(attribute.sparse_tensors ?? [])]) {
      if (sparse.values) visit(sparse.values, where);
      if (sparse.indices) visit(sparse.indices, where);
    }
  };
  /**
   * The graph's own tensors, then each subgraph's, in forEachGraph's order: one pass over the
   * nodes finds both the attributes' tensors and the subgraphs (walking the nodes once per kind
   * made a tensor walk two passes over every node, and a big graph's walks are memory-bound).
   */
  const walkGraph = (graph: onnx.IGraphProto, path: string): void => {
    for (const tensor of graph.initializer ?? []) visit(tensor, path);
    for (const sparse of graph.sparse_initializer ?? []) {
      if (sparse.values) visit(sparse.values, path);
      if (sparse.indices) visit(sparse.indices, path);
    }
    const subgraphs: Array<[onnx.IAttributeProto, string]> = [];
    forEachAttribute(graph.node, path, holdsTensorOrGraph, (attribute, node, where) => {
      if (holdsTensor(attribute)) visitAttributeTensors(attribute, node, where);
      if (holdsGraph(attribute)) subgraphs.push([attribute, where]);
    });
    for (const [attribute, base] of subgraphs) {
      if (attribute.g) walkGraph(attribute.g, base);
      (attribute.graphs ?? []).forEach((subgraph, index) => walkGraph(subgraph, `${base}[${index}]`));
    }
  };
  if (model.graph) walkGraph(model.graph, 'graph');
  (model.training_info ?? []).forEach((info, index) => {
    if (info.initialization) walkGraph(info.initialization, `training_info[${index}].initialization`);
    if (info.algorithm) walkGraph(info.algorithm, `training_info[${index}].algorithm`);
  });
  for (const fn of model.functions ?? []) {
    forEachAttribute(fn.node, `function ${fn.name}`, holdsGraph, (attribute, _node, base) => {
      if (attribute.g) walkGraph(attribute.g, base);
      (attribute.graphs ?? []).forEach((subgraph, index) => walkGraph(subgraph, `${base}[${index}]`));
    });
  }
  for (const fn of model.functions ?? []) forEachAttribute(fn.node, `function ${fn.name}`, holdsTensor, visitAttributeTensors);
}
