/**
 * Typed errors with stable codes. The CLI renders `message` as one line and maps `code` to an
 * exit status; library users switch on `code`, never on message text.
 */
import { printable } from './printable.js';

export type AmpErrorCode =
  | 'FILE_NOT_FOUND'
  | 'READ_FAILED'
  | 'EMPTY_FILE'
  | 'TRUNCATED'
  | 'NOT_ONNX'
  | 'NOT_AN_AUDIT'
  | 'NEWER_IR'
  | 'EXTERNAL_DATA_MISSING'
  | 'EXTERNAL_DATA_OUT_OF_RANGE'
  | 'EXTERNAL_DATA_BAD_LOCATION'
  | 'MODEL_TOO_LARGE'
  | 'WRITE_FAILED'
  | 'BAD_OPTION'
  | 'UNKNOWN_OP'
  | 'BAD_GRAPH'
  | 'VALIDATION_FAILED'
  | 'TRAINING_CONTRACT'
  /** make-training met an op between a trainable parameter and the loss that has no gradient rule. */
  | 'NO_GRADIENT_RULE'
  | 'RUNTIME_UNAVAILABLE'
  | 'RUNTIME_FAILED'
  | 'DEVICE_UNSUPPORTED'
  /** The model breaks a rule of the ONNX IR (the checker would reject it). */
  | 'INVALID_MODEL'
  /** A path that would read or write outside what the user named (symlink escape, an output equal to an input). */
  | 'UNSAFE_PATH'
  /** An input tensor file for run/compare/bench that does not match the model's declared input. */
  | 'BAD_INPUT_TENSOR'
  /** A compare --expected folder, file or tensor that does not fit the model's outputs (missing, another type or shape). */
  | 'BAD_EXPECTED_OUTPUT'
  | 'REFERENCE_FAILED'
  /** A record handed to a page renderer (renderTrainingReport, renderBenchReport) with a field of the wrong shape. */
  | 'BAD_RECORD'
  /** report.nodes or report.scopes read from a rewrite run with audit: false, which gathers no audit. */
  | 'AUDIT_NOT_GATHERED';

/** Exit status for each kind of failure, as documented in the README and docs/cli.md. */
export const EXIT_CODES = {
  success: 0,
  validationFailed: 1,
  badInput: 2,
} as const;

export class AmpError extends Error {
  readonly code: AmpErrorCode;
  /** The file, node or tensor the error is about, when there is one. */
  readonly subject: string | undefined;

  constructor(code: AmpErrorCode, message: string, options: { subject?: string; cause?: unknown } = {}) {
    // One line whatever the model put in the names it quotes (a newline in an op type, an escape
    // sequence in a tensor name): each site should quote names through printable(), and this
    // holds where one does not. Escaping is idempotent, so a printable() name is left as it is.
    super(printable(message, Number.POSITIVE_INFINITY), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AmpError';
    this.code = code;
    this.subject = options.subject;
  }

  get exitCode(): number {
    return this.code === 'VALIDATION_FAILED' ? EXIT_CODES.validationFailed : EXIT_CODES.badInput;
  }
}

export function isAmpError(error: unknown): error is AmpError {
  return error instanceof AmpError;
}

const MODEL_FAULTS: ReadonlySet<string> = new Set(['BAD_GRAPH', 'INVALID_MODEL', 'UNKNOWN_OP']);

/** What the pass finds wrong with the model names the model (`source`, its file), as the loader's errors do. */
export function namingTheModel(error: unknown, source: string): unknown {
  if (!(error instanceof AmpError) || !MODEL_FAULTS.has(error.code)) return error;
  const prefix = `${printable(source)}: `;
  if (error.message.startsWith(prefix)) return error;
  return new AmpError(error.code, prefix + error.message, { ...(error.subject === undefined ? {} : { subject: error.subject }), cause: error });
}
