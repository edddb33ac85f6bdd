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

/** Whether an attribute holds a graph (If's branches, Loop's and Scan's bodies). */
export const holdsGraph = (attribute: onnx.IAttributeProto): boolean => Boolean(attribute.g || attribute.graphs?.length);
const holdsTensor = (attribute: onnx.IAttributeProto): boolean =>
  Boolean(attribute.t || attribute.tensors?.length || attribute.sparse_tensor || attribute.sparse_tensors?.length);
const holdsTensorOrGraph = (attribute: onnx.IAttributeProto): boolean => holdsTensor(attribute) || holdsGraph(attribute);

/** A walk's step for one graph: the graph, the node whose attribute holds it (undefined at the top) and its path. */
type GraphWalker = (graph: onnx.IGraphProto, owner: onnx.INodeProto | undefined, path: string) => void;

/** Hands `walk` the graph or graphs of a graph attribute of `node`, each with its path. */
function walkSubgraphs(attribute: onnx.IAttributeProto, node: onnx.INodeProto, base: string, walk: GraphWalker): void {
  if (attribute.g) walk(attribute.g, node, base);
  (attribute.graphs ?? []).forEach((graph, index) => walk(graph, node, `${base}[${index}]`));
}

/**
 * Hands `walk` each graph a model holds outside other graphs: the main graph, the training-info
 * graphs, then the subgraphs of its functions' nodes. `walk` goes on into a graph's own subgraphs.
 */
function walkTopGraphs(model: onnx.IModelProto, walk: GraphWalker): void {
  if (model.graph) walk(model.graph, undefined, 'graph');
  (model.training_info ?? []).forEach((info, index) => {
    if (info.initialization) walk(info.initialization, undefined, `training_info[${index}].initialization`);
    if (info.algorithm) walk(info.algorithm, undefined, `training_info[${index}].algorithm`);
  });
  for (const fn of model.functions ?? []) {
    forEachAttribute(fn.node, `function ${fn.name}`, holdsGraph, (attribute, node, base) => walkSubgraphs(attribute, node, base, walk));
  }
}

export function forEachGraph(model: onnx.IModelProto, visit: (v: GraphVisit) => void): void {
  const walkGraph: GraphWalker = (graph, owner, path) => {
    visit({ graph, owner, path });
    forEachAttribute(graph.node, path, holdsGraph, visitSubgraphs);
  };
  const visitSubgraphs = (attribute: onnx.IAttributeProto, node: onnx.INodeProto, base: string): void => walkSubgraphs(attribute, node, base, walkGraph);
  walkTopGraphs(model, walkGraph);
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
  const walkGraph: GraphWalker = (graph, _owner, path) => {
    const initializer = graph.initializer ?? [];
    for (let i = 0; i < initializer.length; i++) visit(initializer[i] as onnx.ITensorProto, path);
    for (const sparse of graph.sparse_initializer ?? []) {
      if (sparse.values) visit(sparse.values, path);
      if (sparse.indices) visit(sparse.indices, path);
    }
    const subgraphs: Array<[onnx.IAttributeProto, onnx.INodeProto, string]> = [];
    forEachAttribute(graph.node, path, holdsTensorOrGraph, (attribute, node, where) => {
      if (holdsTensor(attribute)) visitAttributeTensors(attribute, node, where);
      if (holdsGraph(attribute)) subgraphs.push([attribute, node, where]);
    });
    for (const [attribute, node, base] of subgraphs) walkSubgraphs(attribute, node, base, walkGraph);
  };
  walkTopGraphs(model, walkGraph);
  for (const fn of model.functions ?? []) forEachAttribute(fn.node, `function ${fn.name}`, holdsTensor, visitAttributeTensors);
}
