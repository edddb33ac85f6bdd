/**
 * What the core embeds at build time (scripts/gen-embedded.mjs): every rules/*.json file's text and
 * the installed dagre bundle. The committed modules equal what the script makes now, the pass reads
 * the same tables as the files hold, and a rule file edited without regenerating is found stale.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ruleFile, ruleFileNames } from '../../src/rules/rule-files.js';
import { repoRoot } from '../support/corpus.js';

const check = (root: string) => spawnSync(process.execPath, [path.join(root, 'scripts/gen-embedded.mjs'), '--check'], { encoding: 'utf8', cwd: root });

describe('the embedded rule tables', () => {
  it('hold every rules/*.json file, parsed as the file parses', () => {
    const files = readdirSync(path.join(repoRoot, 'rules')).filter((n) => n.endsWith('.json')).sort();
    expect(ruleFileNames().sort()).toEqual(files);
    for (const name of files) expect(ruleFile(name)).toEqual(JSON.parse(readFileSync(path.join(repoRoot, 'rules', name), 'utf8')));
  });

  it('are what scripts/gen-embedded.mjs makes now, and a rule edited without regenerating is stale', () => {
    expect(check(repoRoot).status).toBe(0);
    const copy = mkdtempSync(path.join(tmpdir(), 'amp-embedded-'));
    for (const part of ['scripts', 'rules', 'src', 'package.json']) cpSync(path.join(repoRoot, part), path.join(copy, part), { recursive: true });
    symlinkSync(path.join(repoRoot, 'node_modules'), path.join(copy, 'node_modules'));
    expect(check(copy).status).toBe(0);
    const kernels = path.join(copy, 'rules/kernels.json');
    writeFileSync(kernels, readFileSync(kernels, 'utf8').replace(/\n$/, ' \n'));
    const stale = check(copy);
    expect(stale.status).toBe(1);
    expect(stale.stderr).toMatch(/src\/rules\/rule-texts\.generated\.ts is stale/);
  });
});
