/**
 * What the tool prints and writes does not depend on the user's locale: the same model and
 * options give the same bytes under any LANG (src/onnx/collation.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpus.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');
const model = path.join(repoRoot, 'fixtures/transformer-block/model.onnx');
const dir = mkdtempSync(path.join(tmpdir(), 'amp-locale-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function rewriteUnder(locale: string): { stdout: string; report: string } {
  const report = path.join(dir, `${locale}.md`);
  const result = spawnSync(process.execPath, [bin, model, '--dry-run', '--json', '--verbose', '--report', report], {
    encoding: 'utf8',
    env: { ...process.env, LANG: locale, LC_ALL: locale },
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return { stdout: result.stdout, report: readFileSync(report, 'utf8') };
}

describe('locale independence', () => {
  it('prints the op lists and writes the audit in the same order under Lithuanian collation as under English', () => {
    const english = rewriteUnder('en_US.UTF-8');
    // Lithuanian sorts 'y' as 'i' (DynamicSlice before Dropout there): the lists dump showed it.
    const lithuanian = rewriteUnder('lt_LT.UTF-8');
    expect(JSON.parse(english.stdout).lists.deny.length).toBeGreaterThan(5);
    expect(lithuanian.stdout).toBe(english.stdout);
    expect(lithuanian.report.replace(/lt_LT/g, 'en_US')).toBe(english.report);
  });
});
