/**
 * Patterns a released ONNX Runtime mishandles in a low-precision type (rules/runtime-hazards.json),
 * found before painting and painted as pins (rule runtime-hazard): the node stays float32 and the
 * Casts go around it, an equivalent graph those releases load.
 */
import { intsAttribute } from '../../onnx/attributes.js';
import type { ModelGraph } from '../../onnx/graph.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import { normalizeDomain } from '../../onnx/opsets.js';
import { describeNode } from './decisions.js';
import type { PinnedNode } from './weight-range.js';
import { ruleFile } from '../../rules/rule-files.js';

interface RuntimeHazard {
  id: string;
  op: string;
  domain?: string;
  /** The node's perm attribute is one of these (Transpose). */
  perms?: number[][];
  /** Ops of which one reads an output of the node. */
  readBy: string[];
  /** What happens, in a line: the node's reason. */
  effect: string;
  releases: string;
  reproduction: string;
  reason: string;
}

let cachedHazards: RuntimeHazard[] | undefined;
function hazards(): RuntimeHazard[] {
  cachedHazards ??= ruleFile<{ hazards: RuntimeHazard[] }>('runtime-hazards.json').hazards;
  return cachedHazards;
}

function samePerm(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((axis, i) => axis === b[i]);
}

function matches(hazard: RuntimeHazard, node: onnx.INodeProto): boolean {
  if (node.op_type !== hazard.op || normalizeDomain(node.domain) !== normalizeDomain(hazard.domain)) return false;
  if (hazard.perms) {
    const perm = intsAttribute(node, 'perm');
    if (!perm || !hazard.perms.some((listed) => samePerm(listed, perm))) return false;
  }
  return true;
}

/** The nodes a runtime hazard keeps float32, in every scope. */
export function runtimeHazardPins(graph: ModelGraph): Map<onnx.INodeProto, PinnedNode> {
  const pins = new Map<onnx.INodeProto, PinnedNode>();
  const listed = hazards();
  for (const scope of graph.scopes) {
    for (const node of scope.currentNodes()) {
      const hazard = listed.find((h) => matches(h, node));
      if (!hazard) continue;
      const reader = (node.output ?? []).flatMap((name) => (name ? scope.consumersOf(name) : [])).find((use) => use.index >= 0 && hazard.readBy.includes(use.node.op_type ?? '') && normalizeDomain(use.node.domain) === '');
      if (!reader) continue;
      pins.set(node, {
        rule: 'runtime-hazard',
        reason: `${describeNode(node)} read by ${describeNode(reader.node)}: ${hazard.effect} (rules/runtime-hazards.json: ${hazard.id})`,
        inputIndex: -1,
      });
    }
  }
  return pins;
}
