/**
 * Mistakes that change nothing (a --force-fp32 pattern that names no node, an op type no schema
 * knows, a misspelled AMP_REWRITE_ variable) are warnings on stderr, and errors under --strict.
 */
import { AmpError } from '../onnx/errors.js';
import { isKnownDomain, knownOpTypes } from '../onnx/schema.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { nodeMatcher } from '../passes/amp.js';
import { LIST_NAMES } from '../passes/amp/op-lists.js';

/** Every AMP_REWRITE_ variable the tool reads; a new one is added here. */
export const KNOWN_ENVIRONMENT: readonly string[] = [
  ...LIST_NAMES.flatMap((list) => ['ADD', 'REMOVE'].map((action) => `AMP_REWRITE_${list.toUpperCase()}LIST_${action}`)),
  'AMP_REWRITE_DEBUG',
  'AMP_REWRITE_HEAP_SET',
  'AMP_REWRITE_CUDA_PROVIDER_DIR',
  // The browser the HTML report's benchmark and tests drive: set in the same shell that runs the tool.
  'AMP_REWRITE_CHROMIUM',
  'AMP_REWRITE_PROFILE',
];

export function unknownEnvironment(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.keys(env)
    .filter((name) => name.startsWith('AMP_REWRITE_') && !KNOWN_ENVIRONMENT.includes(name))
    .sort()
    .map((name) => `environment variable ${name} is not one amp-rewrite reads (known: ${KNOWN_ENVIRONMENT.join(', ')})`);
}

/** Patterns of --force-fp32/--force-fp16 that match none of the model's node names. */
export function unmatchedPatterns(flag: string, patterns: readonly string[], nodeNames: readonly string[]): string[] {
  const nodes: onnx.INodeProto[] = nodeNames.map((name) => ({ name }));
  return patterns
    .filter((pattern) => !nodes.some(nodeMatcher([pattern])))
    .map((pattern) => `${flag} ${pattern} matches no node of the model`);
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

/** Prints each warning on stderr, or under --strict throws the first as an error. */
export function reportWarnings(warnings: readonly string[], strict: boolean, stderr: (text: string) => void = (t) => process.stderr.write(t)): void {
  if (strict && warnings.length) throw new AmpError('BAD_OPTION', `${warnings[0]} (an error under --strict)`);
  for (const warning of warnings) stderr(`amp-rewrite: warning: ${warning}\n`);
}
