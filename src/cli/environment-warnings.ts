/**
 * The warnings every command checks before it runs (an AMP_REWRITE_ variable the tool does not
 * read), and how warnings are reported. Apart from warnings.ts, which needs the operator schemas
 * and the pass, so that a command that runs neither does not load them.
 */
import { AmpError } from '../onnx/errors.js';
import { printable } from '../onnx/printable.js';
import { LIST_NAMES } from '../passes/amp/op-lists.js';
import { writeStderr } from './standard-streams.js';

/** Every AMP_REWRITE_ variable the tool reads; a new one is added here. */
export const KNOWN_ENVIRONMENT: readonly string[] = [
  ...LIST_NAMES.flatMap((list) => ['ADD', 'REMOVE'].map((action) => `AMP_REWRITE_${list.toUpperCase()}LIST_${action}`)),
  'AMP_REWRITE_DEBUG',
  'AMP_REWRITE_HEAP_SET',
  'AMP_REWRITE_CUDA_PROVIDER_DIR',
  // The browser the HTML report's benchmark and tests drive: set in the same shell that runs the tool.
  'AMP_REWRITE_CHROMIUM',
  'AMP_REWRITE_PROFILE',
  'AMP_REWRITE_PROGRESS_AFTER_MS',
];

export function unknownEnvironment(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.keys(env)
    .filter((name) => name.startsWith('AMP_REWRITE_') && !KNOWN_ENVIRONMENT.includes(name))
    .sort()
    .map((name) => `environment variable ${name} is not one amp-rewrite reads (known: ${KNOWN_ENVIRONMENT.join(', ')})`);
}

/** Prints each warning on stderr, or under --strict throws the first as an error. */
export function reportWarnings(warnings: readonly string[], strict: boolean, stderr: (text: string) => void = writeStderr): void {
  if (strict && warnings.length) throw new AmpError('BAD_OPTION', `${warnings[0]} (an error under --strict)`);
  // One line each whatever a name or value holds (an escape sequence in a variable's name): the
  // same escaping as the errors' (AmpError), idempotent on text already escaped.
  for (const warning of warnings) stderr(`amp-rewrite: warning: ${printable(warning, Number.POSITIVE_INFINITY)}\n`);
}
