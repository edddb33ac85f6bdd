/**
 * An outside oracle: ONNX's own checker (Debian's python3-onnx 1.12, installed by .ci/run) accepts
 * every model the pass writes, for the models that checker version knows (IR <= 8, opset <= 17).
 * Without python3-onnx the test skips, except under CI=true.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_CASES } from '../../src/builder/fixtures.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { longToNumber } from '../../src/onnx/external-data.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { opsetsOf } from '../../src/onnx/opsets.js';
import { schemaFor } from '../../src/onnx/schema.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { corpusAvailable, corpusDir, corpusModels, repoRoot } from '../support/corpus.js';

const python = '/usr/bin/python3';
const checkerAvailable = spawnSync(python, ['-c', 'import onnx'], { encoding: 'utf8' }).status === 0;
if (!checkerAvailable && process.env.CI === 'true') throw new Error('CI=true but python3-onnx is missing (.ci/run installs it)');

// Ops ONNX Runtime registers in the default domain (SimplifiedLayerNormalization, and LayerNormalization
// below ONNX's version 17) are unknown to ONNX's checker.
const ortDefaultDomainOps = new Set(Object.keys(JSON.parse(readFileSync(path.join(repoRoot, 'rules/schemas-ort-default-domain.json'), 'utf8')).domains['ai.onnx']));
const knownToChecker = (model: onnx.IModelProto): boolean => {
  const opsets = opsetsOf(model);
  const defaultOpset = opsets.get('') ?? 0;
  return (
    longToNumber(model.ir_version) <= 8 &&
    [...opsets].every(([domain, v]) => domain !== '' || v <= 17) &&
    !(model.graph?.node ?? []).some((n) => !n.domain && ortDefaultDomainOps.has(n.op_type ?? '') && schemaFor('', n.op_type ?? '', defaultOpset)?.experimental)
  );
};

describe('ONNX checker (python3-onnx 1.12) on rewritten models', () => {
  it.skipIf(!checkerAvailable)('accepts every rewritten fixture, light model and converted node test it knows', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-checker-'));
    const files: string[] = [];
    const subjects: Array<{ name: string; model: onnx.IModelProto; options: object }> = [
      ...FIXTURE_CASES.map((c) => ({ name: c.name, model: c.build(), options: c.options })),
      ...corpusModels('light-models').map((m) => ({ name: m, model: loadModel(path.join(corpusDir, m)), options: {} })),
      ...corpusModels('onnx-node-tests').map((m) => ({ name: m, model: loadModel(path.join(corpusDir, m)), options: {} })),
    ];
    for (const subject of subjects) {
      if (!knownToChecker(subject.model)) continue;
      const { model, modified } = rewriteModel(subject.model, subject.options);
      if (!modified) continue;
      const file = path.join(dir, `${files.length}-${subject.name.replace(/[^A-Za-z0-9_.-]/g, '_')}`);
      writeFileSync(file, encodeModel(model));
      files.push(file);
    }
    const result = spawnSync(python, [path.join(repoRoot, 'test/support/onnx-checker.py')], { input: files.join('\n'), encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
    expect(result.stderr).toBe('');
    const lines = result.stdout.trim().split('\n');
    const failures = lines.filter((l) => l.startsWith('fail'));
    console.log(`[checker] ${lines.length - failures.length} of ${files.length} rewritten models pass ONNX's checker`);
    expect(failures).toEqual([]);
    expect(lines).toHaveLength(files.length);
    // The fixtures alone give a handful; the corpus's light models and node tests bring it past 20.
    if (!corpusAvailable) console.warn(`[checker] corpus absent at ${corpusDir}: checked the ${files.length} rewritten fixtures only`);
    expect(files.length).toBeGreaterThan(corpusAvailable ? 20 : 0);
  });
});
