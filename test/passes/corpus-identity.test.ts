/**
 * The whole corpus, rewritten under four option sets, gives exactly the recorded outputs
 * (fixtures/corpus-rewrite-digests.json, written by scripts/corpus-rewrite-digests.mjs --write):
 * the model bytes, the summary and the audit. Speed and memory work on the pass (issue 13) must
 * not change a byte of what it writes.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusAvailable, corpusDir, repoRoot } from '../support/corpus.js';

describe.skipIf(!corpusAvailable)('corpus rewrite identity', () => {
  it('rewrites every corpus model under every option set to the recorded bytes, summary and audit', async () => {
    const script = path.join(repoRoot, 'scripts/corpus-rewrite-digests.mjs');
    const { corpusDigests, DIGESTS_FILE } = (await import(script)) as {
      corpusDigests: (dir: string) => Promise<Record<string, string>>;
      DIGESTS_FILE: string;
    };
    const recorded = JSON.parse(readFileSync(DIGESTS_FILE, 'utf8')) as Record<string, string>;
    const now = await corpusDigests(corpusDir);
    expect(Object.keys(now).length).toBeGreaterThan(3000);
    const changed = Object.keys({ ...recorded, ...now }).filter((key) => recorded[key] !== now[key]);
    expect(changed.slice(0, 10)).toEqual([]);
  }, 300_000);
});
