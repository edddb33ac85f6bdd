/**
 * First contact with the command line: the messages for the usual first mistakes say what the user
 * probably meant, and --help opens with the usage and the main options, with the rarer groups after
 * them and each command's positional named for what the command does with it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { likelyMeaning, splitGluedOutput } from '../../src/cli/command-line.js';
import { fixturesDir, repoRoot } from '../support/corpus.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');
const model = path.join(fixturesDir, 'conv-block/model.onnx');
const work = mkdtempSync(path.join(tmpdir(), 'amp-messages-'));

function cli(args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: work });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('messages for the first mistakes', () => {
  it('no arguments: the usage line and where the help is, in one line, exit 2', () => {
    const { code, stdout, stderr } = cli([]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe('amp-rewrite: error [BAD_OPTION]: no model given; usage: amp-rewrite <model.onnx> -o <out.onnx> [options] (amp-rewrite --help lists every command and option)\n');
  });

  it('a command without its positional names the command and its help', () => {
    expect(cli(['inspect']).stderr).toBe('amp-rewrite: error [BAD_OPTION]: amp-rewrite inspect needs its positional argument (amp-rewrite inspect --help shows its usage)\n');
  });

  it('a second path given to the rewrite: did you mean -o?', () => {
    const { code, stderr } = cli([model, 'out.onnx']);
    expect(code).toBe(2);
    expect(stderr).toBe("amp-rewrite: error [BAD_OPTION]: the rewrite takes one model, and 'out.onnx' is a second path: did you mean -o out.onnx?\n");
    expect(existsSync(path.join(work, 'out.onnx'))).toBe(false);
    // With -o given, a stray second path is not taken for a forgotten -o.
    expect(cli([model, 'extra.onnx', '-o', 'x.onnx']).stderr).toMatch(/extra\.onnx is not an option of the rewrite/);
  });

  it('-oout.onnx is -o out.onnx, as getopt reads it', () => {
    const { code, stderr } = cli([model, '-oglued.onnx', '-q']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(existsSync(path.join(work, 'glued.onnx'))).toBe(true);
    expect(splitGluedOutput(['m.onnx', '-oout.onnx', '-qv', '--', '-okeep'])).toEqual(['m.onnx', '-o', 'out.onnx', '-qv', '--', '-okeep']);
    expect(splitGluedOutput(['-o=x.onnx', '-o', '--output'])).toEqual(['-o=x.onnx', '-o', '--output']);
  });

  it('a value outside the choices: our own line, not yargs\'s "Invalid values"', () => {
    for (const args of [[model, '--mode', 'fp8'], [model, '--mode=fp8', '--dry-run'], ['inspect', model, '--mode', 'fp8']]) {
      const { code, stderr } = cli(args);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr, args.join(' ')).toBe("amp-rewrite: error [BAD_OPTION]: --mode must be one of fp16, bf16 (got 'fp8')\n");
    }
    expect(cli([model, '--io-types', 'fp8']).stderr).toBe("amp-rewrite: error [BAD_OPTION]: --io-types must be one of keep, fp16, bf16 (got 'fp8')\n");
    expect(likelyMeaning('Invalid values:\n  Argument: target, Given: "gpu", Choices: "any", "cuda", "cpu", "webgpu"', ['m.onnx'])).toBe(
      "--target must be one of any, cuda, cpu, webgpu (got 'gpu')",
    );
    expect(likelyMeaning('Unknown argument: --frob', ['m.onnx', '--frob'])).toBeUndefined();
  });
});

describe('--help', () => {
  const help = cli(['--help']).stdout;
  /** The group headings in the order --help prints them. */
  const headings = (text: string) => text.split('\n').filter((line) => /^[A-Z][^:]*:$/.test(line));
  const at = (text: string, needle: string) => {
    const index = text.indexOf(needle);
    expect(index, needle).toBeGreaterThanOrEqual(0);
    return index;
  };

  it('opens with the usage line; the main options come first, training graphs and lists after, --strict and --version last', () => {
    expect(help.split('\n')[0]).toBe('amp-rewrite <model.onnx> -o <out.onnx> [options]');
    expect(headings(help)).toEqual(['Commands:', 'Positionals:', 'Options:', 'Calibration and inputs:', 'Model files:', 'Training graphs:', 'Lists and pinned nodes:', 'Other options:', 'Examples:']);
    const options = help.slice(at(help, '\nOptions:'), at(help, '\nCalibration and inputs:'));
    for (const main of ['--output', '--mode', '--weights', '--report', '--io-types', '--dry-run', '--quiet']) expect(options, main).toContain(main);
    expect(at(help, '-o, --output')).toBeLessThan(at(help, 'Training graphs:'));
    expect(at(help, 'Lists and pinned nodes:')).toBeGreaterThan(at(help, '--mode'));
    expect(at(help, '--strict')).toBeGreaterThan(at(help, '--allow-add'));
    expect(at(help, '--version')).toBeGreaterThan(at(help, '--max-scale'));
  });

  it('names each command\'s positional for what it does', () => {
    expect(help).toMatch(/model +ONNX model to rewrite/);
    for (const [command, purpose] of [['inspect', 'inspect'], ['bench', 'benchmark'], ['tune', 'tune']] as const) {
      const text = cli([command, '--help']).stdout;
      expect(text, command).toMatch(new RegExp(`model +ONNX model to ${purpose}\\b`));
      expect(text, command).not.toMatch(/ONNX model to rewrite/);
    }
  });

  it('tune --help lists the --numerics choices once', () => {
    const text = cli(['tune', '--help']).stdout;
    expect(text.match(/\[choices: "emulate", "native"[^\]]*\]/g)).toEqual(['[choices: "emulate", "native"]']);
  });
});

describe('inspect on a converted model', () => {
  it('says the MatMuls compute in fp16 already, not fp32', () => {
    const converted = path.join(work, 'converted.onnx');
    expect(cli([path.join(fixturesDir, 'transformer-block/model.onnx'), '-o', converted, '-q']).code).toBe(0);
    const { code, stdout } = cli(['inspect', converted]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {2}MatMul +9 +allow +9 fp16 already \(already-low-precision\)$/m);
    expect(stdout).not.toMatch(/fp32 \(already-low-precision\)/);
  });
});
