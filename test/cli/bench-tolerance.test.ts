/**
 * bench's accuracy check takes compare's --atol and --rtol (it had 0.01 each built in): the bundled
 * transformer block's rewrite passes the defaults and fails a zero tolerance, and the JSON record
 * says which tolerance judged it.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturesDir, repoRoot } from '../support/corpus.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');
const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
const transformer = path.join(fixturesDir, 'transformer-block/model.onnx');
const quick = ['--runs', '1', '--warmup', '0', '--isolation', 'in-process', '--json'];

describe('bench --atol/--rtol', () => {
  it('judges the accuracy check by the given tolerance, and records it', () => {
    const defaults = cli(['bench', transformer, ...quick]);
    expect(defaults.status, defaults.stderr).toBe(0);
    expect(JSON.parse(defaults.stdout).tolerance).toMatchObject({ atol: 0.01, rtol: 0.01 });
    const exact = cli(['bench', transformer, ...quick, '--atol', '0', '--rtol', '0']);
    expect(exact.status, exact.stderr).toBe(1);
    const record = JSON.parse(exact.stdout);
    expect(record.tolerance).toMatchObject({ atol: 0, rtol: 0 });
    expect(record.accuracy.some((row: { pass: boolean }) => !row.pass)).toBe(true);
    const negative = cli(['bench', transformer, ...quick, '--atol', '-1']);
    expect(negative.status).toBe(2);
    expect(negative.stderr).toMatch(/error \[BAD_OPTION\]: --atol -1: must be at least 0/);
  });
});
