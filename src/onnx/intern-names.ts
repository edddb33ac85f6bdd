/**
 * Makes equal value names in a decoded model one string instance. The decoder creates a new string
 * for every occurrence, so a value's name exists once in its producer's output list, once per
 * consumer's input list and again in its initializer or value_info. Strings are immutable and
 * compared by value, so sharing them changes nothing but the heap (about 90 bytes per node on a
 * transformer); the pass's name-keyed maps then hash each distinct name once, not once per copy.
 */
import type { onnx } from './generated/onnx.js';

type Named = { name?: string | null };

export function internNames(model: onnx.IModelProto): void {
  const table = new Map<string, string>();
  const intern = (name: string): string => {
    const known = table.get(name);
    if (known !== undefined) return known;
    table.set(name, name);
    return name;
  };
  const internList = (names: string[] | null | undefined): void => {
    if (!names) return;
    for (let i = 0; i < names.length; i++) names[i] = intern(names[i] as string);
  };
  const internNamed = (values: Named[] | null | undefined): void => {
    if (!values) return;
    for (let i = 0; i < values.length; i++) {
      const value = values[i] as Named;
      if (value.name) value.name = intern(value.name);
    }
  };
  const internNodes = (nodes: onnx.INodeProto[] | null | undefined): void => {
    if (!nodes) return;
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i] as onnx.INodeProto;
      internList(node.input);
      internList(node.output);
      // A handful of op types repeat once per node.
      if (node.op_type) node.op_type = intern(node.op_type);
    }
  };
  const internGraph = (graph: onnx.IGraphProto): void => {
    internNodes(graph.node);
    internNamed(graph.initializer);
    internNamed(graph.input);
    internNamed(graph.output);
    internNamed(graph.value_info);
  };
  // Subgraphs of control-flow nodes share names with their outer graph (captured values).
  const internSubgraphs = (nodes: onnx.INodeProto[] | null | undefined): void => {
    for (const node of nodes ?? []) {
      for (const attribute of node.attribute ?? []) {
        if (attribute.g) visitGraph(attribute.g);
        for (const graph of attribute.graphs ?? []) visitGraph(graph);
      }
    }
  };
  const visitGraph = (graph: onnx.IGraphProto): void => {
    internGraph(graph);
    internSubgraphs(graph.node);
  };
  if (model.graph) visitGraph(model.graph);
  for (const info of model.training_info ?? []) {
    if (info.initialization) visitGraph(info.initialization);
    if (info.algorithm) visitGraph(info.algorithm);
  }
  for (const fn of model.functions ?? []) {
    internNodes(fn.node);
    internSubgraphs(fn.node);
    internList(fn.input);
    internList(fn.output);
    internNamed(fn.value_info);
  }
}
