/**
 * compareWithExpected and comparePerNode are in the public API, and their declarations (and every
 * declaration they reach) name no ONNX Runtime type, so they compile in a project without it.
 * Reads the built declarations (npm run build).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as api from '../../src/index.js';
import { repoRoot } from '../support/corpus.js';

const dist = path.join(repoRoot, 'dist');

/** The .d.ts files `entry` imports, transitively (relative imports only). */
function reachedDeclarations(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)\.js'/g)) visit(path.resolve(path.dirname(file), `${match[1]}.d.ts`));
  };
  visit(entry);
  return [...seen];
}

describe('compare diagnostics in the library', () => {
  it('are exported', () => {
    expect(typeof api.compareWithExpected).toBe('function');
    expect(typeof api.comparePerNode).toBe('function');
  });

  it.skipIf(!existsSync(path.join(dist, 'api/compare-per-node.d.ts')))('declare no ONNX Runtime type', () => {
    for (const entry of ['api/compare-per-node.d.ts', 'api/compare-expected.d.ts']) {
      const files = reachedDeclarations(path.join(dist, entry));
      expect(files.length).toBeGreaterThan(2);
      for (const file of files) expect(readFileSync(file, 'utf8'), file).not.toMatch(/['"]onnxruntime-node['"]/);
    }
  });
});
