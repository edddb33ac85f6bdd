/**
 * Which onnxruntime-node the runtime tests run on. CI runs test/runtime and test/api once on the
 * release the lockfile installs and once on the newest release the peer range covers (.ci/run
 * links it where src/, test/ and dist/ resolve it first, and sets AMP_EXPECT_ORT_VERSION): this
 * test fails if that second run silently used the first release, or if the peer range in
 * package.json does not cover the release the tests ran on.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { locateRuntime } from '../../src/runtime/doctor.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { repoRoot } from '../support/corpus.js';

/** Whether `version` satisfies a range of space-separated `>=a.b.c` / `<a.b.c` bounds (the form package.json uses). */
function inRange(version: string, range: string): boolean {
  const parts = (v: string) => v.split('.').map(Number);
  const compare = (a: string, b: string) => {
    const [x, y] = [parts(a), parts(b)];
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
    return 0;
  };
  return range.split(/\s+/).every((bound) => {
    const match = /^(>=|<)(\d+\.\d+\.\d+)$/.exec(bound);
    if (!match) throw new Error(`unexpected bound '${bound}' in the peer range '${range}'`);
    return match[1] === '>=' ? compare(version, match[2] as string) >= 0 : compare(version, match[2] as string) < 0;
  });
}

describe('the onnxruntime-node release under test', () => {
  it('is the one CI asked for, the same for import() and for doctor, and inside the peer range', async () => {
    const ort = await loadOrt();
    const loaded = ort.env.versions.node as string;
    console.log(`[runtime] onnxruntime-node ${loaded} (Node.js ${process.version})`);
    expect(locateRuntime().version).toBe(loaded);
    const expected = process.env.AMP_EXPECT_ORT_VERSION;
    if (expected) expect(loaded).toBe(expected);
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
    const range = manifest.peerDependencies['onnxruntime-node'] as string;
    expect(inRange(loaded, range)).toBe(true);
    expect(inRange('1.29.0', range) && inRange('1.30.0', range)).toBe(true);
    expect(inRange('1.28.0', range)).toBe(false);
  });
});
