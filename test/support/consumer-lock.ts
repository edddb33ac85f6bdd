/**
 * A consumer project's lockfile for the packed tarball: with it, `npm ci --offline` installs
 * amp-rewrite from the local npm cache alone (the tarballs this repository's `npm ci` fetched),
 * where `npm install <tarball>` would need the registry's metadata of every dependency.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './corpus.js';

interface LockEntry {
  dev?: boolean;
  peer?: boolean;
  optional?: boolean;
  [field: string]: unknown;
}

/** A consumer's lockfile: the tarball, and this repository's production dependencies at their locked versions. */
export function consumerLock(tarball: string): object {
  const lock = JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const self = lock.packages[''] as LockEntry;
  const production = Object.entries(lock.packages).filter(([key, entry]) => key !== '' && !entry.dev && !entry.peer && !entry.optional);
  const { name: _name, devDependencies: _dev, ...manifest } = self;
  return {
    name: 'consumer',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'consumer', version: '1.0.0', dependencies: { 'amp-rewrite': `file:${tarball}` } },
      'node_modules/amp-rewrite': { ...manifest, resolved: `file:${tarball}` },
      ...Object.fromEntries(production),
    },
  };
}

