/** Golden files: every fixture case rewritten with its options must match its reviewed goldens. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_CASES } from '../src/builder/fixtures.js';
import { encodeModel } from '../src/onnx/codec.js';
import { loadModel } from '../src/onnx/model-io.js';
import { renderTrainingSummary, rewriteModel } from '../src/passes/pipeline.js';
import { renderGraphText } from '../src/report/graph-text.js';
import { renderSummary } from '../src/report/summary.js';
import { fixturesDir } from './support/corpus.js';

const regenerate = 'regenerate with `npm run fixtures` and review the diff';

describe('golden fixtures', () => {
  it('every fixture folder is a declared case, and every case has its files', () => {
    const folders = readdirSync(fixturesDir).filter((entry) => existsSync(path.join(fixturesDir, entry, 'case.json')));
    expect(folders.sort()).toEqual(FIXTURE_CASES.map((c) => c.name).sort());
    for (const fixture of FIXTURE_CASES) {
      for (const file of ['model.onnx', 'case.json', 'expected.summary.txt', 'expected.graph.txt']) {
        expect(existsSync(path.join(fixturesDir, fixture.name, file)), `${fixture.name}/${file}`).toBe(true);
      }
    }
  });

  for (const fixture of FIXTURE_CASES) {
    describe(fixture.name, () => {
      const dir = path.join(fixturesDir, fixture.name);
      it('the committed model is what the recipe builds (the builder is deterministic)', () => {
        expect(Buffer.from(encodeModel(fixture.build())).equals(readFileSync(path.join(dir, 'model.onnx'))), regenerate).toBe(true);
      });
      it(`matches its goldens: ${fixture.checks}`, () => {
        const { model, report } = rewriteModel(loadModel(path.join(dir, 'model.onnx')), fixture.options);
        const summary = renderSummary(report.amp.summary) + (report.training ? renderTrainingSummary(report.training) : '');
        expect(summary, regenerate).toBe(readFileSync(path.join(dir, 'expected.summary.txt'), 'utf8'));
        expect(renderGraphText(model), regenerate).toBe(readFileSync(path.join(dir, 'expected.graph.txt'), 'utf8'));
      });
    });
  }
});
