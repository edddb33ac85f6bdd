/**
 * ONNX Runtime's training graphs (onnxruntime-training's training_model.onnx, ORTModule's exports)
 * told apart from our step-graph contract: which of their nodes are gradient, loss, accumulator,
 * optimizer, loss-scale and all-finite ops (rules/ort-training.json), and, when loss scaling is
 * asked of such a graph, exactly what our contract finds missing there. Loss scaling is never
 * silently skipped: a graph it cannot be applied to is refused with the reason.
 */
import { AmpError } from '../../onnx/errors.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import { normalizeDomain } from '../../onnx/opsets.js';
import { printable } from '../../onnx/printable.js';
import { ruleFile } from '../../rules/rule-files.js';

export type OrtTrainingRole = 'loss' | 'loss-gradient' | 'gradient' | 'accumulator' | 'loss-scale' | 'all-finite' | 'optimizer';

export interface OrtTrainingOp {
  op: string;
  domain: string;
  role: OrtTrainingRole;
  precision: 'fp32' | 'fp16' | 'none';
  reason: string;
}

let rules: Map<string, OrtTrainingOp> | undefined;

export function ortTrainingRules(): ReadonlyMap<string, OrtTrainingOp> {
  if (!rules) {
    const file = ruleFile<{ ops: OrtTrainingOp[] }>('ort-training.json');
    rules = new Map(file.ops.map((entry) => [`${entry.domain}:${entry.op}`, entry]));
  }
  return rules;
}

export interface OrtTrainingNode {
  node: string;
  rule: OrtTrainingOp;
}

/** The main graph's nodes that are ONNX Runtime training ops, in graph order. */
export function ortTrainingNodes(model: onnx.IModelProto): OrtTrainingNode[] {
  const table = ortTrainingRules();
  const found: OrtTrainingNode[] = [];
  for (const node of model.graph?.node ?? []) {
    const rule = table.get(`${normalizeDomain(node.domain)}:${node.op_type ?? ''}`) ?? table.get(`com.microsoft:${node.op_type ?? ''}`);
    // A default-domain SoftmaxCrossEntropyLoss is ONNX's own op, not the training build's.
    if (rule && (normalizeDomain(node.domain) === rule.domain || (rule.domain === 'com.microsoft' && normalizeDomain(node.domain) === 'com.microsoft'))) {
      found.push({ node: node.name ?? '', rule });
    }
  }
  return found;
}

function countByOp(nodes: readonly OrtTrainingNode[], role: OrtTrainingRole): string {
  const counts = new Map<string, number>();
  for (const n of nodes) if (n.rule.role === role) counts.set(n.rule.op, (counts.get(n.rule.op) ?? 0) + 1);
  return [...counts].map(([op, n]) => (n > 1 ? `${op} x${n}` : op)).join(', ');
}

/**
 * Why loss scaling cannot be applied to an ONNX Runtime training graph, naming what our contract
 * needs and the graph does not have. Undefined when the graph has none of those ops.
 */
export function ortTrainingRefusal(model: onnx.IModelProto, asked: string): AmpError | undefined {
  const nodes = ortTrainingNodes(model);
  if (!nodes.length) return undefined;
  const has = (role: OrtTrainingRole) => nodes.some((n) => n.rule.role === role);
  const found: string[] = [];
  const missing: string[] = [];
  if (has('loss')) found.push(`a loss (${countByOp(nodes, 'loss')})`);
  if (has('loss-gradient')) found.push(`its gradient seeded inside ${countByOp(nodes, 'loss-gradient')} (no separate seed tensor to scale)`);
  else missing.push('a seed dLoss/dLoss');
  if (has('accumulator')) found.push(`gradients flowing into ${countByOp(nodes, 'accumulator')} (accumulated in place, not graph outputs)`);
  if (!has('optimizer')) missing.push('the optimizer update (onnxruntime-training keeps it in a separate optimizer_model.onnx), so no X.next outputs whose step could be skipped');
  if (has('loss-scale') || has('all-finite')) found.push(`ONNX Runtime's own loss scaling (${[countByOp(nodes, 'loss-scale'), countByOp(nodes, 'all-finite')].filter(Boolean).join(', ')})`);
  const shown = nodes.slice(0, 3).map((n) => `${n.rule.op} '${printable(n.node, 80)}'`).join(', ');
  return new AmpError(
    'TRAINING_CONTRACT',
    `${asked} cannot be applied: this is an ONNX Runtime training graph (${nodes.length} training op node${nodes.length > 1 ? 's' : ''}: ${shown}${nodes.length > 3 ? ', ...' : ''}); found ${found.join('; ') || 'no loss'}; missing ${missing.join('; ') || 'X.next outputs for the parameters'}. Rewrite it without loss scaling (--loss-scale none), or make a step graph from the forward model with amp-rewrite make-training`,
  );
}

/** The summary's line naming the ONNX Runtime training ops the rewrite left as they are, by role; undefined when none. */
export function ortTrainingSummary(model: onnx.IModelProto): { line: string; ops: Record<string, string> } | undefined {
  const nodes = ortTrainingNodes(model);
  if (!nodes.length) return undefined;
  const roles: OrtTrainingRole[] = ['loss', 'loss-gradient', 'gradient', 'accumulator', 'loss-scale', 'all-finite', 'optimizer'];
  const ops = Object.fromEntries(roles.map((role) => [role, countByOp(nodes, role)]).filter(([, list]) => list));
  const parts = Object.entries(ops).map(([role, list]) => `${role}: ${list}`);
  return { line: `ONNX Runtime training ops left as they are (rules/ort-training.json; loss scaling is not applied to this graph): ${parts.join('; ')}\n`, ops };
}
