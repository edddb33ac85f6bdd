/**
 * The plain rewrite's reader (src/cli/plain-rewrite.ts) skips yargs at start-up; it must never
 * read a command line differently from yargs. For every command line it accepts, yargs (the real
 * parser of command-line.ts) must run the rewrite with the same arguments, key for key; the
 * combinations below mix plain forms with every form it must leave to yargs.
 */
import { describe, expect, it } from 'vitest';
import { commandLineParser, registeredCommands } from '../../src/cli/command-line.js';
import { COMMAND_NAMES } from '../../src/cli/command-runner.js';
import { plainRewriteArgs } from '../../src/cli/plain-rewrite.js';

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
  ['-o', 'out.onnx'], ['--output', 'o2.onnx'], ['-o', 'inspect'], ['-o', '-x'], ['-o', '7'], ['-o', '0x10'], ['--external-data', '1e3'], ['-o', 'false'], ['-o', ''], ['--output=o3.onnx'], ['-oout.onnx'],
  ['-q'], ['--quiet'], ['-q', 'true'], ['--no-quiet'], ['-qv'], ['--json'], ['-v'], ['--verbose'], ['--dry-run'], ['--dryRun'], ['--strict'],
  ['--mode', 'bf16'], ['--mode', 'fp16'], ['--mode', 'fp8'], ['--weights', 'fp16'], ['--target', 'cuda'], ['--target', 'gpu'], ['--kv-cache', 'fp16'],
  ['--external-data', 'w.data'], ['--external-data', 'embed'], ['--report', 'a.json'], ['--report', 'b.md'], ['--report', 'a.json', 'b.md'],
  ['--help'], ['-h'], ['--version'], ['--'], ['--calibrate'], ['--rules', 'r.json'], ['--force-fp32', 'x'], ['--bogus'],
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
  for (let i = 0; i < 1500; i++) {
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
      ['model.onnx', '--calibrate'],
      ['model.onnx', '-o', '-x'],
      ['model.onnx', '-q', 'false'],
    ]) {
      expect({ tokens, plain: plainRewriteArgs(tokens) }).toEqual({ tokens, plain: undefined });
    }
    expect(plainRewriteArgs(['model.onnx', '-o', 'out.onnx', '-q'])).toMatchObject({ model: 'model.onnx', output: 'out.onnx', quiet: true, mode: 'fp16' });
  });
});
