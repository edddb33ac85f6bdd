/**
 * Nodes that read only the shape of a float value (rules/shape-readers.json). Painted with what
 * they read, so they need no Cast, they are relabelled after painting (rule shape-only): they compute
 * nothing in float, and the summary counts them neither as converted nor as processable.
 */
import type { NodeDecision } from './decisions.js';
import { normalizeDomain } from '../../onnx/opsets.js';
import { opRuleEntries, opRuleTable } from './op-rules.js';

/** The shape readers as `domain:op` keys (the default domain as ''): the audit page folds them with shape arithmetic. */
export function shapeReaderKeys(): string[] {
  return opRuleEntries<{ op: string; domain?: string }>('shape-readers.json').map((entry) => `${normalizeDomain(entry.domain)}:${entry.op}`);
}

const shapeReaderOf = opRuleTable<{ op: string; domain?: string; reason: string }, string>('shape-readers.json', (entry) => entry.reason);

/**
 * Relabels the shape readers the painting processed (in place): rule shape-only, not processable,
 * color kept (a reader of a low-precision value stays painted with it, so it needs no Cast).
 */
export function relabelShapeReaders(decisions: readonly NodeDecision[], lowName: string): void {
  for (const decision of decisions) {
    if (!decision.processable && decision.color !== 'ALLOW') continue;
    const reason = shapeReaderOf(decision.node.domain, decision.node.op_type);
    if (!reason) continue;
    const reads = decision.color === 'ALLOW' ? `it reads a ${lowName} value as it is, no Cast` : 'it reads a float32 value';
    Object.assign(decision, { rule: 'shape-only', processable: false, reason: `${reason}: ${reads}, and computes nothing in float` });
  }
}
