/**
 * Mistakes that change nothing (a --force-fp32 pattern that names no node, an op type no schema
 * knows, a misspelled AMP_REWRITE_ variable) are warnings on stderr, and errors under --strict.
 */
import { isKnownDomain, knownOpTypes } from '../onnx/schema.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { nodeMatcher } from '../passes/amp.js';

export { KNOWN_ENVIRONMENT, reportWarnings, unknownEnvironment } from './environment-warnings.js';

/** Patterns of --force-fp32/--force-fp16 that match none of the model's node names. */
export function unmatchedPatterns(flag: string, patterns: readonly string[], nodeNames: readonly string[]): string[] {
  const nodes: onnx.INodeProto[] = nodeNames.map((name) => ({ name }));
  return patterns
    .filter((pattern) => !nodes.some(nodeMatcher([pattern])))
    .map((pattern) => `${flag} ${pattern} matches no node of the model`);
}

/**
 * Rules that keep a node computing in float32 although --force-fp16 named it: an op that cannot
 * run in the target type (a deny-list op keeps its list then), --force-fp32 on the same node, a
 * value beyond the target type's range. (A node with no float32 compute has nothing to convert.)
 */
const PIN_NOT_APPLIED: ReadonlySet<string> = new Set(['schema-forbids', 'deny-list', 'force-fp32', 'weight-out-of-range', 'activation-out-of-range']);

/** Nodes a --force-fp16 pattern names that stay in float32 all the same, with why. */
export function unappliedForceFp16(patterns: readonly string[], nodes: ReadonlyArray<{ node: string; op: string; rule: string; reason: string }>): string[] {
  if (!patterns.length) return [];
  const matches = nodeMatcher(patterns);
  return nodes.filter((n) => PIN_NOT_APPLIED.has(n.rule) && matches({ name: n.node })).map((n) => `--force-fp16: ${n.op} '${n.node}' stays float32: ${n.reason}`);
}

/** Op types (`Op` or `domain:Op`) added to a list that no operator schema table documents. */
export function unknownOpTypes(source: string, ops: readonly string[]): string[] {
  return ops
    .filter((spec) => {
      const colon = spec.lastIndexOf(':');
      const domain = colon < 0 ? '' : spec.slice(0, colon);
      const op = spec.slice(colon + 1);
      return !isKnownDomain(domain) || !knownOpTypes(domain).includes(op);
    })
    .map((spec) => `${source} ${spec}: no operator schema table (ai.onnx, com.microsoft) has this op type; check its spelling`);
}
