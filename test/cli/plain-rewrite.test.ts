/**
 * The plain rewrite's reader (src/cli/plain-rewrite.ts) skips yargs at start-up; it must never
 * read a command line differently from yargs. For every command line it accepts, yargs (the real
 * parser of command-line.ts) must run the rewrite with the same arguments, key for key; the
 * combinations below mix plain forms with every form it must leave to yargs.
 */
import { describe, expect, it } from 'vitest';
import { commandLineParser, registeredCommands } from '../../src/cli/command-line.js';
import { COMMAND_NAMES, STRICT_OPTION } from '../../src/cli/command-runner.js';
import { plainRewriteArgs } from '../../src/cli/plain-rewrite.js';
import { REWRITE_OPTIONS } from '../../src/cli/rewrite-command.js';

/** What yargs hands a command's handler for `tokens`, or the message it fails with. */
async function yargsReads(tokens: readonly string[]): Promise<{ command: string; args: Record<string, unknown> } | { failure: string }> {
  let reached: { command: string; args: Record<string, unknown> } | undefined;
  const parser = commandLineParser(tokens, {
    handler: (command) => async (args) => {
      reached = { command, args: args as Record<string, unknown> };
    },
    fail: (message, error) => {
      throw error ?? new Error(message);
    },
  });
  try {
    await parser.exitProcess(false).parseAsync();
  } catch (error) {
    return { failure: (error as Error).message };
  }
  return reached ?? { failure: 'no command ran' };
}

const MODELS = ['model.onnx', './models/m.onnx', 'm', 'a=b.onnx', 'with space.onnx', 'help', 'true', '123', '1e3', '.5', '0x1f', '1b-model.onnx', 'inspect', '', '-', '-m.onnx'];
const OPTION_FORMS: string[][] = [
  ['-o', 'out.onnx'], ['-o', 'inspect'], ['-o', '-x'], ['-o', '7'], ['-o', 'false'], ['-o', ''], ['-o', 'help'], ['-oout.onnx'],
  ['-q'], ['-q', 'true'], ['-qv'], ['-v'], ['--dryRun'], ['--help'], ['-h'], ['--version'], ['--'], ['--bogus'], ['-x'],
  // Every option of the rewrite in each form: plain, with a value yargs reads otherwise, and one it refuses.
  ...[...REWRITE_OPTIONS, ['strict', STRICT_OPTION] as const].flatMap(([name, spec]): string[][] => {
    const flag = `--${name}`;
    if (spec.type === 'boolean') return [[flag], [flag, 'true'], [flag, 'false'], [`--no-${name}`], [`${flag}=true`]];
    if (spec.choices) {
      const choices = (spec.choices as readonly string[]).map(String);
      return [[flag, choices[0] as string], [flag, choices[choices.length - 1] as string], [flag, 'bogus'], [`${flag}=${choices[0]}`], [flag]];
    }
    if (spec.type === 'number') return [[flag, '3'], [flag, '0x10'], [flag, 'abc']];
    const values: string[][] = [[flag, 'v.json'], [flag, '1e3'], [flag, '-x'], [`${flag}=v.json`], [flag]];
    return spec.array ? [...values, [flag, 'a=1', 'b=2'], [flag, 'a=1', flag, 'b=2']] : values;
  }),
];

/** A small deterministic generator, so a failure names a command line that reproduces. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function commandLines(): string[][] {
  const lines: string[][] = [];
  for (const model of MODELS) {
    lines.push([model]);
    for (const form of OPTION_FORMS) lines.push([model, ...form], [...form, model]);
  }
  const next = random(13);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  for (let i = 0; i < 3000; i++) {
    const forms = Array.from({ length: 1 + Math.floor(next() * 4) }, () => pick(OPTION_FORMS));
    const at = Math.floor(next() * (forms.length + 1));
    const models = next() < 0.9 ? [pick(MODELS.slice(0, 5))] : [pick(MODELS), pick(MODELS)];
    lines.push([...forms.slice(0, at).flat(), ...models, ...forms.slice(at).flat()]);
  }
  return lines;
}

describe('the plain rewrite command line', () => {
  it('knows the commands yargs registers', () => {
    const parser = commandLineParser([], { handler: () => async () => {}, fail: () => {} });
    expect([...COMMAND_NAMES].sort()).toEqual(registeredCommands(parser).sort());
  });

  it('reads every command line it accepts exactly as yargs does', async () => {
    let accepted = 0;
    let declined = 0;
    for (const tokens of commandLines()) {
      const plain = plainRewriteArgs(tokens);
      if (!plain) {
        declined++;
        continue;
      }
      accepted++;
      const reading = await yargsReads(tokens);
      expect({ tokens, reading }).toEqual({ tokens, reading: { command: 'rewrite', args: plain } });
    }
    // Both sides of the line are exercised.
    expect(accepted).toBeGreaterThan(300);
    expect(declined).toBeGreaterThan(300);
  }, 120_000);

  it('leaves to yargs what it cannot read trivially', () => {
    for (const tokens of [
      [],
      ['--help'],
      ['model.onnx', '--help'],
      ['model.onnx', 'help'],
      ['inspect', 'model.onnx'],
      ['model.onnx', '-o', 'a.onnx', '-o', 'b.onnx'],
      ['model.onnx', '-q', '-q'],
      ['model.onnx', '-qv'],
      ['model.onnx', '--no-quiet'],
      ['model.onnx', '--output=a.onnx'],
      ['model.onnx', '--mode', 'fp8'],
      ['model.onnx', '--report', 'a.json', 'b.md'],
      ['model.onnx', '--', '-o'],
      ['model.onnx', 'other.onnx'],
      ['model.onnx', '--headroom', '3'],
      ['model.onnx', '-o', '-x'],
      ['model.onnx', '-q', 'false'],
    ]) {
      expect({ tokens, plain: plainRewriteArgs(tokens) }).toEqual({ tokens, plain: undefined });
    }
    expect(plainRewriteArgs(['model.onnx', '-o', 'out.onnx', '-q'])).toMatchObject({ model: 'model.onnx', output: 'out.onnx', quiet: true, mode: 'fp16' });
  });
});
