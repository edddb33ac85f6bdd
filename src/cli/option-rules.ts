/**
 * Every option either applies to the command as given or is an error saying why, and every
 * number is a number within bounds (issue #26). The rules are tables, read by one check that the
 * command handler runs before any command (checkOptionRules), for the options typed on the line:
 *
 * - NUMBER_RULES: the bounds of a numeric option, by option name, whichever command has it. Any
 *   other numeric option must still be a plain finite number (`--x abc`, `--x ''` and `--x 0x10`
 *   are errors that quote what was typed; yargs would read NaN, 0 and 16).
 * - CONDITIONS: an option that applies only with another (--headroom needs --calibrate), with why.
 * - NOT_APPLICABLE (option-scope.ts): the options of a shared builder that a command does not use.
 * - A repeated option that takes one value is an error (givenOnce() in option-scope.ts).
 *
 * To add an option: declare it in its command's builder; if it takes a number, give its bounds
 * here; if it means something only with another option or another's absence, add a condition.
 * Rules that need the model (--dim naming no dimension, --loss-scale on an inference graph) are
 * checked where the model is loaded (checkDimNames(), rewriteModel()).
 */
import { AmpError } from '../onnx/errors.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { printable } from '../onnx/printable.js';

export interface NumberBounds {
  integer?: boolean;
  /** Inclusive bounds. */
  min?: number;
  max?: number;
  /** Exclusive lower bound (a scale or a factor that must be positive). */
  above?: number;
  below?: number;
}

const LARGEST_FLOAT32 = 3.4028234663852886e38;
const INT32_MAX = 2 ** 31 - 1;
/** Runs, warm-ups, epochs, steps: a million is already days of work; 1e12 is a typo. */
const COUNT: NumberBounds = { integer: true, min: 1, max: 1e6 };
const SIZE: NumberBounds = { integer: true, min: 1, max: INT32_MAX };
const TOLERANCE: NumberBounds = { min: 0, max: 1e30 };

export const NUMBER_RULES: Readonly<Record<string, NumberBounds>> = {
  // rewrite, inspect, tune, bench: calibration and loss scaling
  headroom: { above: 0, max: 65504 },
  'input-scale': { above: 0, max: LARGEST_FLOAT32 },
  'calibration-batches': { integer: true, min: 1, max: 1000 },
  'loss-scale-initial': { above: 0, max: LARGEST_FLOAT32 },
  'min-scale': { above: 0, max: LARGEST_FLOAT32 },
  'max-scale': { above: 0, max: LARGEST_FLOAT32 },
  'growth-factor': { min: 1, max: LARGEST_FLOAT32 },
  'backoff-factor': { above: 0, max: 1 },
  'growth-interval': { integer: true, min: 1, max: INT32_MAX },
  // run, compare, bench, tune
  seed: { integer: true, min: 0, max: 2 ** 32 - 1 },
  'dim-default': SIZE,
  atol: TOLERANCE,
  rtol: TOLERANCE,
  runs: COUNT,
  warmup: { integer: true, min: 0, max: 1e6 },
  'batch-start': SIZE,
  'max-batch': SIZE,
  // train (its --batch is bounded by the training examples, in train.ts)
  epochs: COUNT,
  'max-steps': { integer: true, min: 1, max: 1e9 },
  lr: { above: 0, max: 1e6 },
};

type Args = Readonly<Record<string, unknown>>;

export interface Condition {
  /** The commands the condition holds for ('rewrite' is the default command). */
  readonly commands: readonly string[];
  /** Whether the option applies, given the parsed arguments. */
  readonly applies: (args: Args) => boolean;
  /** Why not, when it does not: the error's text after `--option does not apply: `. */
  readonly why: string;
}

const calibrating = (args: Args): boolean => args.calibrate === true;
const randomInputs = (args: Args): boolean => !(Array.isArray(args.inputs) && args.inputs.length > 0);
const CALIBRATION_OPTION = (option: string): Condition => ({
  commands: ['rewrite'],
  applies: calibrating,
  why: `${option} is a --calibrate option, and this rewrite does not calibrate (add --calibrate, or drop ${option})`,
});
/** The verification (on unless --no-verify) and --calibrate run the model: their options apply to either. */
const running = (args: Args): boolean => args.calibrate === true || args.verify !== false;
const RUN_OPTION = (option: string): Condition => ({
  commands: ['rewrite'],
  applies: running,
  why: `${option} shapes the runs of the verification and --calibrate, and this rewrite runs neither (--no-verify without --calibrate): drop ${option}, or the --no-verify`,
});
const RANDOM_INPUT_OPTION = (option: string, commands: readonly string[]): Condition => ({
  commands,
  applies: randomInputs,
  why: `${option} shapes the random inputs, and --inputs gives the inputs (drop one of them)`,
});

export const CONDITIONS: Readonly<Record<string, readonly Condition[]>> = {
  inputs: [RUN_OPTION('--inputs')],
  headroom: [RUN_OPTION('--headroom')],
  numerics: [RUN_OPTION('--numerics')],
  'input-scale': [RUN_OPTION('--input-scale'), RANDOM_INPUT_OPTION('--input-scale', ['rewrite', 'tune'])],
  'input-distribution': [RUN_OPTION('--input-distribution'), RANDOM_INPUT_OPTION('--input-distribution', ['rewrite', 'tune'])],
  'calibration-batches': [CALIBRATION_OPTION('--calibration-batches'), RANDOM_INPUT_OPTION('--calibration-batches', ['rewrite', 'tune'])],
  'dim-default': [RANDOM_INPUT_OPTION('--dim-default', ['run', 'compare', 'bench'])],
  seed: [RANDOM_INPUT_OPTION('--seed', ['run', 'compare', 'bench'])],
  'batch-start': [{ commands: ['bench'], applies: (args) => args.batchSearch === true, why: '--batch-start is a --batch-search option (add --batch-search, or drop it)' }],
  'max-batch': [{ commands: ['bench'], applies: (args) => args.batchSearch === true, why: '--max-batch is a --batch-search option (add --batch-search, or drop it)' }],
};

/** yargs's key for an option: `dim-default` → `dimDefault`. */
function camelCase(name: string): string {
  return name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** A number as a user writes one: digits, a point, an exponent (no hex, no blanks, not empty). */
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The values typed after `--option` (or in `--option=value`), up to a `--` that ends the options. */
export function typedValues(tokens: readonly string[], option: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    if (token === '--') break;
    if (token === `--${option}` || token === `--${camelCase(option)}`) {
      if (i + 1 < tokens.length) values.push(tokens[i + 1] as string);
    } else if (token.startsWith(`--${option}=`)) values.push(token.slice(option.length + 3));
  }
  return values;
}

function describeBounds(bounds: NumberBounds): string {
  const parts: string[] = [];
  if (bounds.integer) parts.push('a whole number');
  if (bounds.above !== undefined) parts.push(`above ${bounds.above}`);
  if (bounds.min !== undefined) parts.push(`at least ${bounds.min}`);
  if (bounds.max !== undefined) parts.push(`at most ${bounds.max}`);
  return parts.join(', ');
}

/** BAD_OPTION unless `value` (as parsed) and `typed` (as written) are a number within `bounds`. */
export function checkNumber(option: string, value: unknown, typed: string | undefined, bounds: NumberBounds = {}): void {
  const shown = typed === undefined ? String(value) : typed === '' ? "''" : printable(typed, 40);
  if ((typed !== undefined && !PLAIN_NUMBER.test(typed)) || typeof value !== 'number' || !Number.isFinite(value)) {
    throw new AmpError('BAD_OPTION', `--${option} ${shown}: not a number${Object.keys(bounds).length ? ` (expected ${describeBounds(bounds)})` : ''}`, { subject: option });
  }
  const outside =
    (bounds.integer && !Number.isInteger(value)) ||
    (bounds.min !== undefined && value < bounds.min) ||
    (bounds.max !== undefined && value > bounds.max) ||
    (bounds.above !== undefined && !(value > bounds.above)) ||
    (bounds.below !== undefined && !(value < bounds.below));
  if (outside) throw new AmpError('BAD_OPTION', `--${option} ${shown}: must be ${describeBounds(bounds)}`, { subject: option });
}

/**
 * The table's checks for the options typed on the command line (`given`, long names): numbers
 * and their bounds, then the conditions. Throws BAD_OPTION naming the first option that fails.
 */
export function checkOptionRules(command: string, given: ReadonlySet<string>, args: Args, tokens: readonly string[]): void {
  for (const option of given) {
    const value = args[camelCase(option)] ?? args[option];
    const bounds = NUMBER_RULES[option];
    const typed = typedValues(tokens, option);
    if (bounds !== undefined || (typeof value === 'number' && typed.length)) checkNumber(option, value, typed[typed.length - 1], bounds);
  }
  for (const option of given) {
    for (const condition of CONDITIONS[option] ?? []) {
      if (condition.commands.includes(command) && !condition.applies(args)) {
        throw new AmpError('BAD_OPTION', `--${option} does not apply: ${condition.why}`, { subject: option });
      }
    }
  }
}

/** The symbolic dimension names of the main graph's inputs (what --dim sizes: random inputs, and the static shapes the figures infer from). */
function symbolicDims(model: onnx.IModelProto): Set<string> {
  const names = new Set<string>();
  for (const info of model.graph?.input ?? []) {
    for (const dim of info.type?.tensor_type?.shape?.dim ?? []) if (dim.dim_param) names.add(dim.dim_param);
  }
  return names;
}

/** BAD_OPTION for a --dim that names no symbolic dimension of the model (`--dim nosuch=3`), naming those it has. */
export function checkDimNames(model: onnx.IModelProto, dims: ReadonlyMap<string, number>, source: string): void {
  if (!dims.size) return;
  const known = symbolicDims(model);
  for (const name of dims.keys()) {
    if (known.has(name)) continue;
    const list = [...known].slice(0, 10).map((n) => printable(n, 40));
    throw new AmpError(
      'BAD_OPTION',
      `--dim ${printable(name, 80)}: ${printable(source)} has no symbolic dimension of that name (${list.length ? `it has ${list.join(', ')}${known.size > 10 ? ', …' : ''}` : 'all its dimensions are fixed'})`,
      { subject: name },
    );
  }
}
