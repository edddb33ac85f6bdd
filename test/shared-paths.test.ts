/**
 * Tests find the shared corpus and reference through one helper (test/support/corpus.ts), which
 * honours AMP_SHARED_DIR as the README documents. A test that builds a path to ../shared itself
 * ignores the override (and fails where the shared folder lives elsewhere): none may.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/corpus.js';

const HELPER = path.join('test', 'support', 'corpus.ts');
/** This file, whose samples of the forms are meant to match. */
const SELF = path.join('test', 'shared-paths.test.ts');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sources(full);
    return /\.(ts|mjs|js)$/.test(entry) ? [full] : [];
  });
}

/** Code lines (comments and messages aside) that spell a path into the shared folder. */
export function hardCodedSharedPaths(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
    .filter((line) => /(['"`])(\.\.\/)+shared\b|['"`]shared['"`]\s*\)|join\([^)]*['"`]\.\.['"`]\s*,\s*['"`]shared['"`]/.test(line));
}

describe('the shared folder', () => {
  it('is reached only through test/support/corpus.ts (AMP_SHARED_DIR honoured)', () => {
    const offenders = sources(path.join(repoRoot, 'test'))
      .filter((file) => ![HELPER, SELF].includes(path.relative(repoRoot, file)))
      .flatMap((file) => hardCodedSharedPaths(readFileSync(file, 'utf8')).map((line) => `${path.relative(repoRoot, file)}: ${line.trim()}`));
    expect(offenders).toEqual([]);
  });

  it('the scan finds the forms a hard-coded path takes', () => {
    expect(hardCodedSharedPaths("const dir = fileURLToPath(new URL('../../../shared/reference/', import.meta.url));")).toHaveLength(1);
    expect(hardCodedSharedPaths("const dir = path.join(repoRoot, '..', 'shared', 'corpus');")).toHaveLength(1);
    expect(hardCodedSharedPaths(' * read from ../shared/reference (a comment)')).toEqual([]);
    expect(hardCodedSharedPaths('const name = "shared_name";')).toEqual([]);
  });
});
