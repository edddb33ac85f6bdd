/**
 * What users see, one rule everywhere. Symbolic dimensions across the commands that make inputs: --dim sizes them, every
 * other one is 1 (--dim-default) with a notice naming it, the same words everywhere; and a --dim that
 * names no dimension is a usage error (exit 2, BAD_OPTION), never a runtime one. bench used to refuse
 * with RUNTIME_FAILED and run to set 1 silently.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpus.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');
const model = path.join(repoRoot, 'fixtures/torch-forward/mlp-dynamo.onnx');
const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
const NOTICE = "notice: input 'features' dimension 0 ('batch') set to 1; give it with --dim batch=<size>";

describe('symbolic dimensions', () => {
  const commands: Array<[string, string[]]> = [
    ['run', ['run', model]],
    ['compare', ['compare', model, model]],
    ['bench', ['bench', model, '--runs', '2', '--warmup', '1']],
  ];
  it.each(commands)('%s: 1 by default with the same notice; --dim sets it, silently', (_, args) => {
    const plain = cli(args);
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stdout).toContain(NOTICE);
    const sized = cli([...args, '--dim', 'batch=3']);
    expect(sized.status, sized.stderr).toBe(0);
    expect(sized.stdout).not.toContain('notice: input');
  }, 60_000);

  it.each(commands)('%s: a --dim naming no dimension is BAD_OPTION, exit 2', (_, args) => {
    const run = cli([...args, '--dim', 'nosuch=2']);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe("amp-rewrite: error [BAD_OPTION]: --dim nosuch: the model has no symbolic dimension of that name (it has batch)\n");
  }, 60_000);

  it('run --json carries the notices', () => {
    const run = cli(['run', model, '--json']);
    expect(JSON.parse(run.stdout).notices).toEqual([NOTICE.replace(/^notice: /, '')]);
  });
});

describe('messages that name the next command, in the tool\'s own words', () => {
  it('train on a forward model points to make-training', () => {
    const run = cli(['train', path.join(repoRoot, 'fixtures/torch-forward/mlp-torchscript.onnx')]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^amp-rewrite: error \[TRAINING_CONTRACT\]: .*mlp-torchscript\.onnx is a forward model, not a training step .*: make one with amp-rewrite make-training .* -o step\.onnx/);
  });
  it('train on a step graph whose input the data set does not fit is a typed error, not exit 3', () => {
    const run = cli(['train', path.join(repoRoot, 'fixtures/mlp-training-adam/model.onnx'), '--max-steps', '1']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^amp-rewrite: error \[TRAINING_CONTRACT\]: the graph's input 'features' takes rows of \[12\], and the data set's rows have 784 values/);
  });
  it('a required -o is named as the user types it; a positional choice by what was typed', () => {
    expect(cli(['make-training', model]).stderr).toBe('amp-rewrite: error [BAD_OPTION]: amp-rewrite make-training needs -o <file>: where to write its result (amp-rewrite make-training --help shows its usage)\n');
    expect(cli(['example', 'foo', '-o', 'x.onnx']).stderr).toBe("amp-rewrite: error [BAD_OPTION]: amp-rewrite example foo: 'foo' is not one of mlp, attention\n");
    expect(cli(['compare', model, model, '--numerics', 'bad']).stderr).toBe("amp-rewrite: error [BAD_OPTION]: --numerics must be one of auto, emulate, native (got 'bad')\n");
  });
});

describe('sub-command help', () => {
  it.each(['compare', 'run', 'bench', 'tune', 'train', 'make-training', 'inspect'])('%s --help lists the command\'s own options first; --strict and --version are named once, not ahead of them', (command) => {
    const help = cli([command, '--help']).stdout;
    const firstOption = /\n\s+(-\w, )?(--[\w-]+)/.exec(help.slice(help.indexOf('Options:')))?.[2];
    expect(firstOption).not.toMatch(/^--(strict|version)$/);
    expect(help).not.toMatch(/^\s+--version\b/m);
  });
});
