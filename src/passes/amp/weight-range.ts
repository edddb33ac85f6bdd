/**
 * Weights float16 cannot hold. A Cast of a weight holding 1e5 to float16 gives inf at run time
 * whether the cast is stored (--weights fp16) or executed (--weights fp32), so every node that
 * reads such a weight stays fp32. bfloat16 has float32's range and needs no check.
 */
import { findAttribute } from '../../onnx/attributes.js';
import { DataType } from '../../onnx/data-types.js';
import { FLOAT16_MAX } from '../../onnx/float16.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import type { ModelGraph } from '../../onnx/graph.js';
import { largestFiniteMagnitude } from '../../onnx/tensor-data.js';
import { attributeTypedOps } from '../../onnx/type-inference.js';

export interface PinnedNode {
  rule: 'weight-out-of-range' | 'activation-out-of-range';
  reason: string;
  /** The input slot that reads the weight; -1 when the node is pinned whatever it converts. */
  inputIndex: number;
}

/** Nodes that read a float32 weight (initializer, Constant or ConstantOfShape value) outside float16's range. */
export function nodesReadingOutOfRangeWeights(graph: ModelGraph): Map<onnx.INodeProto, PinnedNode> {
  const pinned = new Map<onnx.INodeProto, PinnedNode>();
  const limit = FLOAT16_MAX + 16; // 65520 and above round to inf
  for (const scope of graph.scopes) {
    const weights: Array<[string, onnx.ITensorProto]> = [...scope.initializers].filter(([, t]) => t.data_type === DataType.FLOAT);
    for (const node of scope.currentNodes()) {
      // Constant's 'value', and the value tensor of the ops rules/dtype-attributes.json types from one (ConstantOfShape).
      const attribute = node.domain ? undefined : node.op_type === 'Constant' ? 'value' : attributeTypedOps().get(node.op_type ?? '')?.tensorAttribute;
      if (!attribute) continue;
      const value = findAttribute(node, attribute)?.t;
      const output = node.output?.[0];
      if (value?.data_type === DataType.FLOAT && output) weights.push([output, value]);
    }
    for (const [name, tensor] of weights) {
      const largest = largestFiniteMagnitude(tensor);
      if (largest < limit) continue;
      const readers = [scope, ...graph.scopes.filter((s) => s !== scope && s.resolve(name)?.scope === scope)];
      for (const reader of readers) {
        for (const use of reader.consumersOf(name)) {
          if (use.index < 0) continue;
          pinned.set(use.node, { rule: 'weight-out-of-range', reason: `reads weight '${name}' holding ${largest}, outside float16's range (65504)`, inputIndex: use.index });
        }
      }
    }
  }
  return pinned;
}

/**
 * Nodes of the main graph that read or write a value whose fp32 run (calibration) reached float16's
 * range: converting them would turn that value into inf.
 */
export function nodesSeeingOutOfRangeActivations(graph: ModelGraph, ranges: ReadonlyMap<string, number>): Map<onnx.INodeProto, PinnedNode> {
  const pinned = new Map<onnx.INodeProto, PinnedNode>();
  const limit = FLOAT16_MAX + 16;
  for (const node of graph.main.currentNodes()) {
    const name = [...(node.input ?? []), ...(node.output ?? [])].find((value) => (ranges.get(value) ?? 0) >= limit);
    if (name === undefined) continue;
    pinned.set(node, {
      rule: 'activation-out-of-range',
      reason: `'${name}' reached ${ranges.get(name)?.toExponential(3)} in the fp32 calibration run, beyond float16's range (65504)`,
      inputIndex: -1,
    });
  }
  return pinned;
}
