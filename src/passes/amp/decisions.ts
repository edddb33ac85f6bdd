/** What the AMP pass decided for each node, and why: the audit trail every report renders from. */
import type { onnx } from '../../onnx/generated/onnx.js';
import type { GraphScope } from '../../onnx/graph.js';
import type { ListName } from './op-lists.js';

export type Color = 'ALLOW' | 'DENY' | 'NONE';

/** Stable codes for why a node got its color; tests assert these, not prose. */
export type RuleCode =
  | 'allow-list'
  | 'force-fp16'
  | 'target-kernel'
  | 'deny-list'
  | 'deny-upstream'
  | 'between-allow'
  | 'infer-after-allow'
  | 'clear-flood'
  | 'cast-retarget'
  | 'cast-folded'
  | 'force-fp32'
  | 'weight-out-of-range'
  | 'activation-out-of-range'
  | 'integer-valued'
  | 'angle-input'
  | 'runtime-hazard'
  | 'shape-only'
  | 'schema-forbids'
  | 'not-between-allow'
  | 'fp32-stream'
  | 'unlisted'
  | 'no-float-compute'
  | 'control-flow'
  | 'local-function'
  | 'already-low-precision'
  | 'constant-source'
  | 'unknown-type'
  | 'non-tensor-types'
  | 'no-schema'
  | 'quantized-unit'
  | 'no-allow-ops';

export interface NodeDecision {
  node: onnx.INodeProto;
  scope: GraphScope;
  /** The list the op is on, if any. */
  list: ListName | undefined;
  color: Color;
  rule: RuleCode;
  reason: string;
  /** Whether the node takes part in painting (float32 compute, types and schema known, not pinned). */
  processable: boolean;
  /** Names of the Cast nodes added on this node's input edges. */
  castsAdded: string[];
  /** Casts added after this node's outputs (a graph output keeps its type through one). */
  castsOnOutputs?: string[];
  /** Casts the pass inserted next to this (the model's own) Cast and folded into it (cast-fold.ts). */
  castsFolded?: string[];
  /** Clamps (Max nodes, mask-fill.ts) the pass put before the float16 Casts this node reads or is. */
  masksClamped?: string[];
  /** Set when the node already computes in a reduced-precision type ('float16', 'bfloat16'). */
  computesIn?: string;
}

// How messages name a node; declared with the other model text in onnx/printable.ts (the model
// validator below the passes names nodes the same way).
export { describeNode } from '../../onnx/printable.js';

/** Rules that keep a node fp32 although it computes on float32 data (a Set made once: this is asked per node). */
const KEPT_FLOAT32_RULES: ReadonlySet<RuleCode> = new Set<RuleCode>(['force-fp32', 'weight-out-of-range', 'activation-out-of-range', 'integer-valued', 'angle-input', 'runtime-hazard', 'unknown-type', 'non-tensor-types']);

/** Whether a node computes on float32 data at all (as opposed to moving ints or making constants). */
export function computesOnFloat32(decision: NodeDecision): boolean {
  return decision.processable || KEPT_FLOAT32_RULES.has(decision.rule);
}
