/**
 * Every AMP_REWRITE_ variable the package reads (src, bench, the test helpers) is known to the
 * unknown-variable warning: otherwise setting it would warn, and fail any --strict run.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KNOWN_ENVIRONMENT } from '../../src/cli/warnings.js';
import { repoRoot } from '../support/corpus.js';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return name === 'generated' ? [] : sourceFiles(file);
    return /\.(ts|mjs|js)$/.test(name) ? [file] : [];
  });
}

describe('KNOWN_ENVIRONMENT', () => {
  it('lists every AMP_REWRITE_ variable read in src, bench and test/support', () => {
    const read = new Set<string>();
    for (const file of ['src', 'bench', 'test/support'].flatMap((dir) => sourceFiles(path.join(repoRoot, dir)))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/process\.env(?:\.|\[['"`])(AMP_REWRITE_[A-Z0-9_]+)/g)) read.add(match[1] as string);
    }
    expect(read.size).toBeGreaterThan(2);
    expect([...read].filter((name) => !KNOWN_ENVIRONMENT.includes(name))).toEqual([]);
  });
});
