/**
 * What the audit says about each node's numerics: a stable id (its name, or `Op#index` in its
 * graph for an unnamed node), the precision it computes in after the rewrite, and the element
 * types of its inputs and outputs after the rewrite.
 */
import { DataType, dataTypeName } from '../../onnx/data-types.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import type { GraphScope } from '../../onnx/graph.js';
import type { ElemTypes } from '../../onnx/type-inference.js';
import type { NodeDecision } from './decisions.js';

export type Precision = 'fp32' | 'fp16' | 'bf16' | '-';

/** Short element-type names, as the audit's legend lists them. */
const SHORT: Readonly<Record<number, string>> = {
  [DataType.FLOAT]: 'f32',
  [DataType.FLOAT16]: 'f16',
  [DataType.BFLOAT16]: 'bf16',
  [DataType.DOUBLE]: 'f64',
  [DataType.INT64]: 'i64',
  [DataType.INT32]: 'i32',
  [DataType.INT16]: 'i16',
  [DataType.INT8]: 'i8',
  [DataType.UINT64]: 'u64',
  [DataType.UINT32]: 'u32',
  [DataType.UINT16]: 'u16',
  [DataType.UINT8]: 'u8',
  [DataType.BOOL]: 'bool',
  [DataType.STRING]: 'str',
};

const FLOATS = new Set<number>([DataType.FLOAT, DataType.FLOAT16, DataType.BFLOAT16, DataType.DOUBLE]);

export function shortTypeName(code: number | undefined): string {
  return code === undefined ? '?' : (SHORT[code] ?? dataTypeName(code));
}

/**
 * Ids for every node, from each graph's node list as it was before the rewrite inserted Casts (so
 * indices are the file's): only unnamed nodes get an entry, the others' id is their name.
 */
export function nodeIds(nodeLists: Iterable<readonly onnx.INodeProto[]>): Map<onnx.INodeProto, string> {
  const ids = new Map<onnx.INodeProto, string>();
  for (const nodes of nodeLists) {
    for (let index = 0; index < nodes.length; index++) {
      const node = nodes[index] as onnx.INodeProto;
      if (!node.name) ids.set(node, `${node.op_type ?? '?'}#${index}`);
    }
  }
  return ids;
}

export interface NodeTypes {
  precision: Precision;
  inputTypes: string[];
  outputTypes: string[];
}

/** Types after the rewrite: `types` must describe the rewritten graph. An omitted optional input is ''. */
export function nodeTypes(decision: NodeDecision, types: ElemTypes, target: number): NodeTypes {
  const typeOf = (scope: GraphScope, name: string | null | undefined) => (name ? types.get(scope, name) : undefined);
  const inputs = (decision.node.input ?? []).map((name) => typeOf(decision.scope, name));
  const outputs = (decision.node.output ?? []).map((name) => typeOf(decision.scope, name));
  const all = [...inputs, ...outputs];
  const precision: Precision =
    decision.color === 'ALLOW'
      ? target === DataType.BFLOAT16
        ? 'bf16'
        : 'fp16'
      : all.some((t) => t !== undefined && FLOATS.has(t))
        ? 'fp32'
        : '-';
  return {
    precision,
    inputTypes: (decision.node.input ?? []).map((name, i) => (name ? shortTypeName(inputs[i]) : '')),
    outputTypes: (decision.node.output ?? []).map((name, i) => (name ? shortTypeName(outputs[i]) : '')),
  };
}
