/**
 * `amp-rewrite report` checks the audit JSON's shape before drawing it (issue #26): a field of the
 * wrong type is NOT_AN_AUDIT (exit 2) naming the field, never a broken page or exit 3.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkAudit } from '../../src/cli/report-command.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { renderAuditJson } from '../../src/report/audit.js';
import { AUDIT_SHAPE, shapeProblem } from '../../src/report/audit-shape.js';
import { fixturesDir, repoRoot } from '../support/corpus.js';
import { errorOf } from '../support/errors.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-audit-shape-'));
/** A real audit: the transformer fixture rewritten for cuda (so the Tensor Core lint and target fields are filled). */
const audit = JSON.parse(renderAuditJson(ampRewrite(loadModel(path.join(fixturesDir, 'transformer-block/model.onnx')), { audit: true, target: 'cuda' }).report));

/** The audit with one field replaced, at a path of keys and indices. */
function withField(keys: Array<string | number>, value: unknown): unknown {
  const copy = structuredClone(audit);
  let at = copy;
  for (const key of keys.slice(0, -1)) at = at[key];
  at[keys[keys.length - 1] as string] = value;
  return copy;
}

describe('audit shape', () => {
  it('a real audit fits the shape', () => {
    expect(shapeProblem(audit, AUDIT_SHAPE, '')).toBeUndefined();
    expect(audit.nodes.length).toBeGreaterThan(5);
  });

  it.each([
    [['nodes', 2, 'op'], { evil: 1 }, 'nodes[2].op: expected a string, got an object'],
    [['nodes', 0, 'inputs', 0, 'typeAfter'], 7, 'nodes[0].inputs[0].typeAfter: expected a string, got a number'],
    [['nodes', 1, 'castsAdded'], 'x', 'nodes[1].castsAdded: expected a list, got a string'],
    [['summary', 'converted'], '12', 'summary.converted: expected a number, got a string'],
    [['summary', 'nothingToConvert'], 'no', 'summary.nothingToConvert: expected true or false, got a string'],
    [['summary', 'fp32Reasons'], null, 'summary.fp32Reasons: expected a list, got null'],
    [['scopes', 0, 'parent'], 3, 'scopes[0].parent: expected a string, got a number'],
    [['scopes', 0, 'weights', 0, 'dims'], [1, 'x'], 'scopes[0].weights[0].dims[1]: expected a number, got a string'],
    [['lists', 'allow', 0, 'op'], ['MatMul'], 'lists.allow[0].op: expected a string, got a list'],
  ] as const)('%j = %j is NOT_AN_AUDIT naming the field', (keys, value, message) => {
    const e = errorOf(() => checkAudit(withField([...keys], value), 'x.json'));
    expect(e.code).toBe('NOT_AN_AUDIT');
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe(`x.json: not an amp-rewrite audit: ${message}`);
  });

  it('the command: report x.json whose node op is an object exits 2 naming the field, and writes no page', () => {
    const file = path.join(work, 'x.json');
    const page = path.join(work, 'x.html');
    writeFileSync(file, JSON.stringify(withField(['nodes', 2, 'op'], { evil: 1 })));
    const result = spawnSync(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), 'report', file, '-o', page], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/\[NOT_AN_AUDIT\]: .*x\.json: not an amp-rewrite audit: nodes\[2\]\.op: expected a string, got an object/);
    expect(existsSync(page)).toBe(false);
    expect(readFileSync(file, 'utf8')).toContain('evil');
  });
});
