/**
 * The name tables hash from a basis drawn per process (src/onnx/string-hash.ts): names made to
 * share a slot under one basis, as a hostile file's would be against a fixed one, scatter under
 * another; and two processes draw different bases.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HASH_BASIS, stringHash, tableSlots } from '../../src/onnx/string-hash.js';
import { repoRoot } from '../support/corpus.js';

const SLOT_BITS = 10;
const slotOf = (name: string, basis: number): number => stringHash(name, basis) & ((1 << SLOT_BITS) - 1);

describe('string hash', () => {
  it('names crafted to share a slot under one basis spread over the slots under another', () => {
    const known = 0x811c9dc5 | 0;
    const crowd: string[] = [];
    for (let i = 0; crowd.length < 300; i++) {
      const name = `layer.${i}/output`;
      if (slotOf(name, known) === 0) crowd.push(name);
    }
    expect(new Set(crowd.map((name) => slotOf(name, known))).size).toBe(1);
    // 300 names thrown at random into 1,024 slots take about 260 of them.
    for (const other of [0x12345678, HASH_BASIS === known ? 1 : HASH_BASIS]) {
      expect(new Set(crowd.map((name) => slotOf(name, other))).size, `basis ${other}`).toBeGreaterThan(200);
    }
  });

  it('is drawn anew in each process', () => {
    const module = path.join(repoRoot, 'dist/onnx/string-hash.js');
    const draw = (): string => {
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', `import { HASH_BASIS } from ${JSON.stringify(module)}; console.log(HASH_BASIS);`], { encoding: 'utf8' });
      expect(run.stderr).toBe('');
      return run.stdout.trim();
    };
    const draws = new Set([draw(), draw(), draw()]);
    expect(draws.size).toBe(3);
  });

  it('sizes a table at least half empty, a power of two no smaller than asked', () => {
    expect([0, 16, 17, 100, 1 << 20].map((expected) => tableSlots(expected, 32))).toEqual([32, 32, 64, 256, 1 << 21]);
  });
});
