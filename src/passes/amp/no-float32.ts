/**
 * Why a node with a schema has no float32 data to convert, told truthfully: a control-flow node
 * (If, Loop, Scan) passes values to and from bodies that are painted as their own scopes; a node
 * that already computes in float16 or bfloat16 (a model converted before) is counted as such, so
 * the summary can say "already mixed precision" instead of "no allow-list ops".
 */
import { DataType, dataTypeName } from '../../onnx/data-types.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import type { GraphScope } from '../../onnx/graph.js';
import type { ElemTypes } from '../../onnx/type-inference.js';
import type { RuleCode } from './decisions.js';

const LOW_PRECISION = new Set<number>([DataType.FLOAT16, DataType.BFLOAT16]);

export interface NoFloat32 {
  rule: RuleCode;
  reason: string;
  /** The reduced-precision type the node already computes in ('float16', 'bfloat16'). */
  computesIn?: string;
}

export function whyNoFloat32(node: onnx.INodeProto, scope: GraphScope, types: ElemTypes): NoFloat32 {
  const bodies = scope.subgraphsOf(node);
  if (bodies.length) {
    return {
      rule: 'control-flow',
      reason: `control flow: the nodes of ${bodies.map((b) => b.path).join(', ')} are painted in their own scope; the values it passes keep their types`,
    };
  }
  const low = [...(node.input ?? []), ...(node.output ?? [])].map((name) => (name ? types.get(scope, name) : undefined)).find((t) => t !== undefined && LOW_PRECISION.has(t));
  if (low !== undefined) {
    const name = dataTypeName(low);
    return { rule: 'already-low-precision', reason: `already computes in ${name}: the model was converted before`, computesIn: name };
  }
  return { rule: 'no-float-compute', reason: 'no float32 data flows through it' };
}
