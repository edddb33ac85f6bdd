/**
 * Which options apply to which command. Several commands share option builders (bench and inspect
 * reuse the rewrite's), so yargs alone would accept an option that a command then ignores. Each
 * command lists here the shared options that do not apply to it, with why; giving one is an error.
 * A new command that shares a builder adds one entry.
 */
import type { Argv } from 'yargs';
import { AmpError } from '../onnx/errors.js';
import { printable } from '../onnx/printable.js';

export const NOT_APPLICABLE: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  inspect: {
    output: 'inspect writes no model',
    'dry-run': 'inspect writes no model',
    'external-data': 'inspect writes no model',
    state: 'inspect writes no model (--state chooses how a training model is written)',
    calibrate: 'inspect does not run the model',
    inputs: 'inspect does not run the model',
    dim: 'inspect does not run the model',
    headroom: 'inspect does not run the model',
    'input-scale': 'inspect does not run the model',
    'input-distribution': 'inspect does not run the model',
    'calibration-batches': 'inspect does not run the model',
    numerics: 'inspect does not run the model',
    verify: 'inspect does not run the model',
  },
  tune: {
    'dry-run': 'tune always writes its result (the model only when it passes the tolerance)',
    state: 'tune rewrites inference graphs; rewrite a training graph with the default command',
    calibrate: 'tune measures every node on its own inputs already (--inputs or random ones)',
    headroom: 'tune judges by the tolerance (--atol/--rtol/--metric), not a range headroom',
    training: 'tune rewrites inference graphs (training options belong to the default command)',
    loss: 'tune rewrites inference graphs (training options belong to the default command)',
    'loss-grad': 'tune rewrites inference graphs (training options belong to the default command)',
    'grad-suffix': 'tune rewrites inference graphs (training options belong to the default command)',
    'state-suffix': 'tune rewrites inference graphs (training options belong to the default command)',
    'loss-scale': 'tune rewrites inference graphs (training options belong to the default command)',
    'loss-scale-initial': 'tune rewrites inference graphs (training options belong to the default command)',
    'growth-factor': 'tune rewrites inference graphs (training options belong to the default command)',
    'backoff-factor': 'tune rewrites inference graphs (training options belong to the default command)',
    'growth-interval': 'tune rewrites inference graphs (training options belong to the default command)',
    'min-scale': 'tune rewrites inference graphs (training options belong to the default command)',
    'max-scale': 'tune rewrites inference graphs (training options belong to the default command)',
    'io-types': 'tune keeps the graph\'s input and output types (rewrite its result with --io-types)',
    verify: 'tune runs every attempt against the float32 model already, under its own tolerance',
  },
  bench: {
    output: 'bench writes no model (--out writes its results)',
    'dry-run': 'bench writes no model',
    'external-data': 'bench writes no model',
    state: 'bench writes no model (--state chooses how a training model is written)',
    calibrate: 'bench does not calibrate; rewrite with --calibrate, then bench the result against the original with compare',
    headroom: 'bench does not calibrate (a --calibrate option)',
    'input-scale': 'bench does not calibrate (a --calibrate option)',
    'input-distribution': 'bench does not calibrate (a --calibrate option)',
    'calibration-batches': 'bench does not calibrate (a --calibrate option)',
    numerics: 'bench does not calibrate (a --calibrate option)',
    'io-types': 'bench times the model as the rewrite leaves its inputs and outputs (rewrite with --io-types, then compare)',
    verify: 'bench checks the rewrite against the float32 model already (its accuracy check)',
  },
};

/** A command's --help does not list the shared options that are errors for it (hidden first; the builder may be async). */
export function withoutNotApplicable<R>(command: string, builder: (yargs: Argv) => R): (yargs: Argv) => R {
  return (yargs) => {
    let hidden = yargs;
    for (const option of Object.keys(NOT_APPLICABLE[command] ?? {})) hidden = hidden.hide(option);
    return builder(hidden);
  };
}

/**
 * Every option of a command that takes a value requires one: yargs reads `--weights` at the end of
 * the line, or `--weights -o out.onnx`, as the option left unset, and its default then applied
 * without a word. Options that take several values (arrays) keep their own rules, and so do the
 * `optionalValue` ones, which mean something given alone (train's `--json`: JSON on stdout).
 */
export function valuesRequired<R extends Argv | PromiseLike<Argv>>(
  builder: (yargs: Argv) => R,
  optionalValue: readonly string[] = [],
): (yargs: Argv) => Promise<Argv> {
  return async (yargs) => {
    const built = (await builder(yargs)) as Argv;
    const declared = (built as unknown as { getOptions(): unknown }).getOptions() as {
      string: string[];
      number: string[];
      array: string[];
      boolean: string[];
      choices: Record<string, unknown>;
    };
    const several = new Set([...declared.array, ...declared.boolean, ...optionalValue]);
    // An option with choices and no type (--mode, --weights) takes a value too.
    const valued = [...new Set([...declared.string, ...declared.number, ...Object.keys(declared.choices)])].filter((key) => !several.has(key));
    const once = new Set([...declared.string, ...declared.number, ...declared.boolean, ...Object.keys(declared.choices)].filter((key) => !declared.array.includes(key)));
    const checked = built.check((argv) => givenOnce(argv, once));
    return valued.length ? checked.requiresArg(valued) : checked;
  };
}

/**
 * The one rule for a repeated option: an option that takes one value (or a flag) given twice is
 * an error, whichever the values (`-o a.onnx -o b.onnx`, `--target cuda --target cpu`,
 * `--quiet --quiet`). yargs would hand the command an array where it expects one value; taking the
 * last (or first) silently could write where the user did not mean. Options that take several
 * values (`--report`, `--force-fp32`, `--dim`, `--inputs`) are declared `array: true` and repeat.
 */
export function givenOnce(argv: Readonly<Record<string, unknown>>, once: ReadonlySet<string>): true {
  for (const key of once) {
    const value = argv[key];
    if (Array.isArray(value)) {
      const shown = value.map((v) => printable(String(v), 60)).join(', ');
      throw new AmpError('BAD_OPTION', `${key.length === 1 ? '-' : '--'}${key} given ${value.length} times (${shown}): give it once`, { subject: key });
    }
  }
  return true;
}

/** The one-letter aliases the commands define. */
export const SHORT_ALIASES: Readonly<Record<string, string>> = { o: 'output', q: 'quiet', v: 'verbose', h: 'help' };

/** `dryRun` → `dry-run`, as the option is documented. */
function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * The long names of the options typed on the command line (aliases resolved, `--no-x` read as x),
 * up to a `--` that ends the options.
 */
export function givenOptions(tokens: readonly string[], aliases: Readonly<Record<string, string>>): Set<string> {
  const given = new Set<string>();
  for (const token of tokens) {
    if (token === '--') break;
    const long = /^--(?:no-)?([^=]+)/.exec(token);
    if (long) {
      given.add(kebab(long[1] as string));
      continue;
    }
    const short = /^-([A-Za-z]+)$/.exec(token);
    if (short) for (const letter of short[1] as string) given.add(aliases[letter] ?? letter);
  }
  return given;
}

/**
 * Throws BAD_OPTION for a list option given without a value: yargs reads `--report` at the end of
 * the line (or before another option) as an empty list, and no report would be written without a
 * word. (Options of one value are held to theirs by valuesRequired().)
 */
export function checkListValues(given: ReadonlySet<string>, args: Readonly<Record<string, unknown>>): void {
  for (const option of given) {
    const value = args[option];
    if (Array.isArray(value) && value.length === 0) throw new AmpError('BAD_OPTION', `--${option} needs a value`, { subject: option });
  }
}

/** Throws BAD_OPTION for the first given option that `command` does not use. */
export function checkOptionsApply(command: string, given: ReadonlySet<string>): void {
  const excluded = NOT_APPLICABLE[command] ?? {};
  for (const option of given) {
    const why = excluded[option];
    if (why !== undefined) throw new AmpError('BAD_OPTION', `--${option} does not apply to ${command}: ${why}`, { subject: option });
  }
}

/**
 * A first word that is neither a command nor a model file is a mistyped command: say so, rather
 * than what yargs would say about the words after it.
 */
export function unknownCommand(first: string | undefined, commands: readonly string[], isFile: (path: string) => boolean): AmpError | undefined {
  if (first === undefined || first.startsWith('-') || commands.includes(first) || isFile(first)) return undefined;
  if (!/^[a-z][a-z0-9-]*$/.test(first)) return undefined;
  return new AmpError('BAD_OPTION', `unknown command '${first}' (commands: ${commands.join(', ')}; or a model file to rewrite)`, { subject: first });
}
