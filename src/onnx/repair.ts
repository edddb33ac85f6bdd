/**
 * Repairs of what ONNX Runtime tolerates in a model it loads, made before the input check so the
 * rewrite loads what ORT runs; each repair is stated in the summary. Refusal stays for what ORT
 * refuses too, or what would make our output wrong.
 *   1. Two or more Constant nodes writing one value (a torch 1.6 GPT-2 export). ORT warns and
 *      loads: "Duplicate initializer (dense, sparse or ConstantNode): the model will use the latest
 *      encountered initializer" (onnxruntime/core/graph/graph.cc). We keep the last one, as ORT
 *      does, moved to where the first stood (a Constant reads nothing, so earlier is always valid),
 *      and drop the others.
 *   2. A graph output that a Constant writes, declared with another element type than the
 *      Constant's value (a string label Constant declared float). ORT loads it and returns the
 *      Constant's type; we declare the output as the Constant's type.
 */
import { cloneMessage } from './clone.js';
import { DataType, tensorTypeString } from './data-types.js';
import type { onnx } from './generated/onnx.js';
import { printable } from './printable.js';
import { holdsGraph } from './walk.js';

export interface RepairResult {
  model: onnx.IModelProto;
  /** One sentence per repair, for the summary; empty when the model needed none. */
  repairs: string[];
}

/**
 * The model with ORT-tolerated faults repaired. The input is edited only with `inPlace`; otherwise
 * a model needing repair is copied first (one that needs none is returned as it is).
 */
export function repairTolerated(model: onnx.IModelProto, options: { inPlace?: boolean } = {}): RepairResult {
  if (!model.graph || !needsRepair(model.graph)) return { model, repairs: [] };
  const target = options.inPlace ? model : cloneMessage(model);
  const repairs: string[] = [];
  repairGraph(target.graph as onnx.IGraphProto, repairs);
  return { model: target, repairs };
}

function needsRepair(graph: onnx.IGraphProto): boolean {
  return duplicateConstants(graph).size > 0 || mistypedConstantOutputs(graph).length > 0 || subgraphsOf(graph).some(needsRepair);
}

function subgraphsOf(graph: onnx.IGraphProto): onnx.IGraphProto[] {
  const found: onnx.IGraphProto[] = [];
  for (const node of graph.node ?? []) {
    for (const attribute of node.attribute ?? []) {
      if (!holdsGraph(attribute)) continue;
      if (attribute.g) found.push(attribute.g);
      for (const g of attribute.graphs ?? []) found.push(g);
    }
  }
  return found;
}

function repairGraph(graph: onnx.IGraphProto, repairs: string[]): void {
  repairDuplicateConstants(graph, repairs);
  for (const { output, constant, type } of mistypedConstantOutputs(graph)) {
    const tensorType = output.type?.tensor_type as onnx.TypeProto.ITensor;
    repairs.push(
      `graph output '${printable(output.name)}' is declared ${tensorTypeString(tensorType.elem_type ?? 0)} but Constant '${printable(constant.name || output.name)}' writes ${tensorTypeString(type)}: declared ${tensorTypeString(type)}, the type ONNX Runtime returns`,
    );
    tensorType.elem_type = type;
  }
  for (const subgraph of subgraphsOf(graph)) repairGraph(subgraph, repairs);
}

/** Value name -> the indices of the Constant nodes writing it, for values two or more Constants write (and no other node). */
function duplicateConstants(graph: onnx.IGraphProto): Map<string, number[]> {
  const writers = new Map<string, number[]>();
  const nodes = graph.node ?? [];
  for (let index = 0; index < nodes.length; index++) {
    for (const output of nodes[index]?.output ?? []) {
      if (!output) continue;
      const list = writers.get(output);
      if (list) list.push(index);
      else writers.set(output, [index]);
    }
  }
  const duplicates = new Map<string, number[]>();
  for (const [name, indices] of writers) {
    if (indices.length > 1 && indices.every((i) => nodes[i]?.op_type === 'Constant' && !nodes[i]?.domain && (nodes[i]?.output ?? []).length === 1)) duplicates.set(name, indices);
  }
  return duplicates;
}

function repairDuplicateConstants(graph: onnx.IGraphProto, repairs: string[]): void {
  const duplicates = duplicateConstants(graph);
  if (!duplicates.size) return;
  const nodes = graph.node as onnx.INodeProto[];
  const dropped = new Set<number>();
  for (const [name, indices] of duplicates) {
    const first = indices[0] as number;
    const last = indices[indices.length - 1] as number;
    const kept = nodes[last] as onnx.INodeProto;
    const same = indices.every((i) => sameValue(nodes[i] as onnx.INodeProto, kept));
    const names = indices.map((i) => `'${printable(nodes[i]?.name || `Constant#${i}`)}'`).join(', ');
    repairs.push(
      `Constants ${names} all write '${printable(name)}' (${same ? 'the same value' : 'different values'}): kept the last, as ONNX Runtime does ("the model will use the latest encountered initializer"), and dropped the others`,
    );
    nodes[first] = kept;
    for (const i of indices) if (i !== first) dropped.add(i);
  }
  graph.node = nodes.filter((_, i) => !dropped.has(i));
}

function sameValue(a: onnx.INodeProto, b: onnx.INodeProto): boolean {
  return JSON.stringify(a.attribute ?? []) === JSON.stringify(b.attribute ?? []);
}

/** The element type a Constant's value has, from whichever value attribute it carries. */
function constantType(node: onnx.INodeProto): number | undefined {
  const attribute = (node.attribute ?? [])[0];
  if (!attribute || (node.attribute ?? []).length !== 1) return undefined;
  switch (attribute.name) {
    case 'value': return attribute.t?.data_type ?? undefined;
    case 'value_float':
    case 'value_floats': return DataType.FLOAT;
    case 'value_int':
    case 'value_ints': return DataType.INT64;
    case 'value_string':
    case 'value_strings': return DataType.STRING;
    default: return undefined;
  }
}

function mistypedConstantOutputs(graph: onnx.IGraphProto): Array<{ output: onnx.IValueInfoProto; constant: onnx.INodeProto; type: number }> {
  const outputs = graph.output ?? [];
  if (!outputs.length) return [];
  const constants = new Map<string, onnx.INodeProto>();
  for (const node of graph.node ?? []) if (node.op_type === 'Constant' && !node.domain && node.output?.length === 1 && node.output[0]) constants.set(node.output[0], node);
  const found: Array<{ output: onnx.IValueInfoProto; constant: onnx.INodeProto; type: number }> = [];
  for (const output of outputs) {
    const constant = constants.get(output.name ?? '');
    const declared = output.type?.tensor_type?.elem_type;
    if (!constant || !declared) continue;
    const type = constantType(constant);
    if (type && type !== declared) found.push({ output, constant, type });
  }
  return found;
}
