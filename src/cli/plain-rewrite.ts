/**
 * The plain rewrite command line, `amp-rewrite model.onnx -o out.onnx [-q] [--mode bf16] ...`,
 * read without yargs: loading yargs (its locale files, string-width's Unicode tables, its many
 * modules) costs about 50 ms, a third of the rewrite's start-up. Only a command line that is
 * trivially plain is read here; anything else returns undefined and goes to yargs exactly as
 * before: another command, --help or --version, an unknown or numeric option, an option given
 * twice, `--x=y`, `-qv`, `--no-x`, `--`, a value that starts with '-', is empty, 'true' or
 * 'false', a choice yargs would reject, a second positional, or a model named like a command.
 * What it returns is what yargs hands the rewrite's handler for the same tokens, key for key
 * (test/cli/plain-rewrite.test.ts compares both over every combination of these forms).
 */
import type { Options } from 'yargs';
import { commandHandler, COMMAND_NAMES, STRICT_OPTION } from './command-runner.js';

export { exitOnceWritten } from './command-runner.js';
import { REWRITE_OPTIONS, runRewrite, type RewriteArgs } from './rewrite-command.js';

/**
 * The options a plain command line may use: every flag and every string-valued option. Numbers
 * are left to yargs (it reads '1e3', '0x10' and ' 2 ' as numbers in ways not worth repeating).
 */
function plainOption(spec: Options): boolean {
  return spec.type !== 'number' && spec.type !== 'count';
}

/** What yargs names `--kv-cache` in the parsed arguments besides itself (yargs-parser's camel-case expansion). */
function camelCase(name: string): string {
  return name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** Every key yargs sets for an option: its name, the camel-case form, its aliases. */
function keysOf(name: string, spec: Options): string[] {
  const aliases = spec.alias === undefined ? [] : typeof spec.alias === 'string' ? [spec.alias] : [...spec.alias];
  return [...new Set([name, camelCase(name), ...aliases])];
}

const ALL_OPTIONS: ReadonlyArray<readonly [string, Options]> = [...REWRITE_OPTIONS, ['strict', STRICT_OPTION]];

/** `--name` and `-alias` of each plain option. */
const FLAGS: ReadonlyMap<string, readonly [string, Options]> = new Map(
  ALL_OPTIONS.filter(([, spec]) => plainOption(spec)).flatMap(([name, spec]) => [
    [`--${name}`, [name, spec] as const],
    ...keysOf(name, spec)
      .filter((key) => key.length === 1)
      .map((letter) => [`-${letter}`, [name, spec] as const] as const),
  ]),
);

/** A token yargs reads as the string itself wherever it stands: not an option, a boolean word or yargs's `help` command. (Numbers stay strings: the options here are strings and yargs parses no positional numbers.) */
function plainWord(token: string): boolean {
  return token !== '' && !token.startsWith('-') && token !== 'true' && token !== 'false' && token !== 'help';
}

function setOption(args: Record<string, unknown>, name: string, spec: Options, value: unknown): void {
  for (const key of keysOf(name, spec)) args[key] = value;
}

/** The rewrite's arguments when `tokens` (the command line without node and the script) are plain; otherwise undefined. */
export function plainRewriteArgs(tokens: readonly string[]): RewriteArgs | undefined {
  if (tokens.length === 0 || COMMAND_NAMES.includes(tokens[0] as string)) return undefined;
  const args: Record<string, unknown> = { _: [] };
  for (const [name, spec] of ALL_OPTIONS) {
    if (spec.default !== undefined) setOption(args, name, spec, Array.isArray(spec.default) ? [] : spec.default);
  }
  const given = new Set<string>();
  let model: string | undefined;
  for (let at = 0; at < tokens.length; at++) {
    const token = tokens[at] as string;
    if (!token.startsWith('-')) {
      if (model !== undefined || !plainWord(token) || COMMAND_NAMES.includes(token)) return undefined;
      model = token;
      continue;
    }
    const option = FLAGS.get(token);
    if (!option) return undefined;
    const [name, spec] = option;
    if (spec.type === 'boolean') {
      if (given.has(name)) return undefined;
      given.add(name);
      setOption(args, name, spec, true);
      continue;
    }
    const value = tokens[++at];
    if (value === undefined || !plainWord(value)) return undefined;
    if (spec.choices !== undefined && !(spec.choices as readonly unknown[]).includes(value)) return undefined;
    if (spec.array) {
      // yargs reads every word after an array option into it: a plain one is followed by an option or nothing.
      const next = tokens[at + 1];
      if (next !== undefined && !next.startsWith('-')) return undefined;
      setOption(args, name, spec, [...(given.has(name) ? (args[name] as string[]) : []), value]);
    } else {
      if (given.has(name)) return undefined;
      setOption(args, name, spec, value);
    }
    given.add(name);
  }
  if (model === undefined) return undefined;
  args.model = model;
  args.$0 = 'amp-rewrite';
  return args as RewriteArgs;
}

/**
 * Runs the rewrite when `tokens` are plain and returns true; returns false, having done nothing,
 * when they are not (yargs reads them then).
 */
export async function runPlainRewrite(tokens: readonly string[]): Promise<boolean> {
  const args = plainRewriteArgs(tokens);
  if (!args) return false;
  await commandHandler(tokens, runRewrite)(args);
  return true;
}
