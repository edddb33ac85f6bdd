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

export function forEachGraph(model: onnx.IModelProto, visit: (v: GraphVisit) => void): void {
  const walkGraph = (graph: onnx.IGraphProto, owner: onnx.INodeProto | undefined, path: string): void => {
    visit({ graph, owner, path });
    walkNodesSubgraphs(graph.node, path);
  };
  // Indexed loops that skip attribute-less nodes at once: this walk runs several times per command
  // over every node (load, checks, save), so its per-node cost matters on big graphs.
  const walkNodesSubgraphs = (nodes: onnx.INodeProto[] | null | undefined, path: string): void => {
    if (!nodes) return;
    for (let n = 0; n < nodes.length; n++) {
      const node = nodes[n] as onnx.INodeProto;
      const attributes = node.attribute;
      if (!attributes || attributes.length === 0) continue;
      for (let a = 0; a < attributes.length; a++) {
        const attribute = attributes[a] as onnx.IAttributeProto;
        // Most attributes hold no graph; their path string is never built.
        if (!attribute.g && !attribute.graphs?.length) continue;
        const base = `${path}/${node.name || node.op_type}.${attribute.name}`;
        if (attribute.g) walkGraph(attribute.g, node, base);
        (attribute.graphs ?? []).forEach((graph, index) => walkGraph(graph, node, `${base}[${index}]`));
      }
    }
  };
  if (model.graph) walkGraph(model.graph, undefined, 'graph');
  (model.training_info ?? []).forEach((info, index) => {
    if (info.initialization) walkGraph(info.initialization, undefined, `training_info[${index}].initialization`);
    if (info.algorithm) walkGraph(info.algorithm, undefined, `training_info[${index}].algorithm`);
  });
  for (const fn of model.functions ?? []) walkNodesSubgraphs(fn.node, `function ${fn.name}`);
}

/** Calls `visit` for every TensorProto stored anywhere in the model. */
export function forEachTensor(model: onnx.IModelProto, visit: (tensor: onnx.ITensorProto, where: string) => void): void {
  const visitNodesAttributes = (nodes: onnx.INodeProto[] | null | undefined, path: string): void => {
    if (!nodes) return;
    for (let n = 0; n < nodes.length; n++) {
      const node = nodes[n] as onnx.INodeProto;
      const attributes = node.attribute;
      if (!attributes || attributes.length === 0) continue;
      for (let a = 0; a < attributes.length; a++) {
        const attribute = attributes[a] as onnx.IAttributeProto;
        // Most attributes hold no tensor; their path string and sparse list are never built.
        if (!attribute.t && !attribute.tensors?.length && !attribute.sparse_tensor && !attribute.sparse_tensors?.length) continue;
        const where = `${path}/${node.name || node.op_type}.${attribute.name}`;
        if (attribute.t) visit(attribute.t, where);
        for (const tensor of attribute.tensors ?? []) visit(tensor, where);
        const sparse = [...(attribute.sparse_tensor ? [attribute.sparse_tensor] : []), ...(attribute.sparse_tensors ?? [])];
        for (const s of sparse) {
          if (s.values) visit(s.values, where);
          if (s.indices) visit(s.indices, where);
        }
      }
    }
  };
  forEachGraph(model, ({ graph, path }) => {
    for (const tensor of graph.initializer ?? []) visit(tensor, path);
    for (const sparse of graph.sparse_initializer ?? []) {
      if (sparse.values) visit(sparse.values, path);
      if (sparse.indices) visit(sparse.indices, path);
    }
    visitNodesAttributes(graph.node, path);
  });
  for (const fn of model.functions ?? []) {
    visitNodesAttributes(fn.node, `function ${fn.name}`);
  }
}
