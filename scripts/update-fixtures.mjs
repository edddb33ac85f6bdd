// Regenerates fixtures/<case>/ from src/builder/fixtures.ts (run `npm run fixtures`, then review
// the diff): the model built in code, the options, and the golden summary and graph dump.
import { mkdirSync, writeFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { FIXTURE_CASES } = await import(path.join(root, 'dist/builder/fixtures.js'));
const { encodeModel, renderSummary } = await import(path.join(root, 'dist/index.js'));
const { rewriteModel, renderTrainingSummary } = await import(path.join(root, 'dist/passes/pipeline.js'));
const { renderGraphText } = await import(path.join(root, 'dist/report/graph-text.js'));

const fixturesDir = path.join(root, 'fixtures');
const known = new Set(FIXTURE_CASES.map((c) => c.name));
for (const entry of existsSync(fixturesDir) ? readdirSync(fixturesDir) : []) {
  if (existsSync(path.join(fixturesDir, entry, 'case.json')) && !known.has(entry)) rmSync(path.join(fixturesDir, entry), { recursive: true });
}
for (const fixture of FIXTURE_CASES) {
  const dir = path.join(fixturesDir, fixture.name);
  mkdirSync(dir, { recursive: true });
  const model = fixture.build();
  writeFileSync(path.join(dir, 'model.onnx'), encodeModel(model));
  writeFileSync(path.join(dir, 'case.json'), `${JSON.stringify({ checks: fixture.checks, options: fixture.options }, null, 2)}\n`);
  const { model: rewritten, report } = rewriteModel(model, fixture.options);
  writeFileSync(path.join(dir, 'expected.summary.txt'), renderSummary(report.amp.summary) + (report.training ? renderTrainingSummary(report.training) : ''));
  writeFileSync(path.join(dir, 'expected.graph.txt'), renderGraphText(rewritten));
  console.log(`fixtures/${fixture.name}: ${report.amp.summary.converted} nodes converted`);
}
