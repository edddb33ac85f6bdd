/**
 * The rules every option follows (issue #26): an option that takes a value is given once (a
 * repeat is BAD_OPTION, never "internal error" nor a silent pick), every option applies to the
 * command as given or is an error saying why, and numbers are numbers within bounds.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturesDir, repoRoot } from '../support/corpus.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');
const transformer = path.join(fixturesDir, 'transformer-block/model.onnx');
const work = mkdtempSync(path.join(tmpdir(), 'amp-option-rules-'));

function cli(args: string[]) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AMP_REWRITE_')));
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: clean });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('a repeated option', () => {
  it('that takes one value is BAD_OPTION "given 2 times", for every command, and nothing is written', () => {
    const a = path.join(work, 'a.onnx');
    const b = path.join(work, 'b.onnx');
    for (const [args, option] of [
      [[transformer, '-o', a, '-o', b], '--output'],
      [[transformer, '--dry-run', '--target', 'cuda', '--target', 'cpu'], '--target'],
      [[transformer, '--dry-run', '--rules', 'a.json', '--rules', 'b.json'], '--rules'],
      [[transformer, '--dry-run', '--kv-cache', 'fp16', '--kv-cache', 'keep'], '--kv-cache'],
      [[transformer, '--dry-run', '--loss-scale-initial', '1', '--loss-scale-initial', '2'], '--loss-scale-initial'],
      [['run', transformer, '--ep', 'cpu', '--ep', 'cuda'], '--ep'],
      [['inspect', transformer, '--mode', 'bf16', '--mode', 'fp16'], '--mode'],
      [['compare', transformer, transformer, '--atol', '1', '--atol', '2'], '--atol'],
    ] as const) {
      const { code, stderr } = cli([...args]);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr, args.join(' ')).toMatch(new RegExp(`^amp-rewrite: error \\[BAD_OPTION\\]: ${option} given 2 times \\([^)]*\\): give it once`));
      expect(stderr).not.toMatch(/internal error/);
    }
    expect(existsSync(a) || existsSync(b)).toBe(false);
  });

  it('that takes several values (--report, --force-fp32, --dim) repeats', () => {
    const { code, stderr } = cli([transformer, '--dry-run', '-q', '--force-fp32', '/x/', '--force-fp32', '/y/', '--dim', 'batch=2', '--dim', 'seq=3']);
    expect(stderr).not.toMatch(/given 2 times/);
    expect(code).toBe(0);
  });
});
