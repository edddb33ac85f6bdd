/**
 * The visual audit without a browser: the graph fields the audit JSON gained for it, the
 * decision categories, the self-contained page, and `amp-rewrite report`'s errors.
 * (What the page does in a browser: html-report.browser.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite, type AmpReport } from '../../src/passes/amp.js';
import { DECISION_CATEGORIES, categoryOfRule } from '../../src/report/html/categories.js';
import { renderAuditHtml } from '../../src/report/html/render-html.js';
import { unpackPageData } from '../../src/report/html/page-data.js';
import type { PageData } from '../../src/report/html/page-script.js';
import { fixturesDir, repoRoot } from '../support/corpus.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');
const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
const work = mkdtempSync(path.join(tmpdir(), 'amp-html-'));
const fixture = (name: string) => loadModel(path.join(fixturesDir, name, 'model.onnx'));
const byName = (report: AmpReport, name: string) => report.nodes.find((n) => n.node === name)!;

/** The page's embedded data, as the browser will parse and unpack it. */
function embedded(html: string): PageData {
  const match = /<script id="audit-data" type="application\/json">(.*?)<\/script>/s.exec(html);
  expect(match).not.toBeNull();
  return unpackPageData(JSON.parse(match![1]!));
}

/** What the page shows of an audit node (the audit's other fields are not embedded). */
const shown = (nodes: AmpReport['nodes']) =>
  nodes.map(({ node, id, op, domain, scope, list, color, rule, reason, castsAdded, inputs, outputs, subgraphs }) => ({
    node,
    ...(id === undefined ? {} : { id }),
    op, domain, scope, list, color, rule, reason, castsAdded, inputs, outputs, subgraphs,
  }));

describe('the audit graph fields', () => {
  it('records each edge with its types before and after and the Cast the pass put on it', () => {
    const { report } = ampRewrite(fixture('transformer-block'));
    const qProj = byName(report, 'l0/q_proj');
    expect(qProj.inputs).toEqual([
      { value: 'layernormalization_0', type: 'float', typeAfter: 'float16', cast: 'layernormalization_0/to_fp16', source: 'node' },
      { value: 'l0.wq', type: 'float', typeAfter: 'float16', cast: 'l0.wq/to_fp16', source: 'weight' },
    ]);
    expect(qProj.outputs).toEqual([{ value: 'matmul_1', type: 'float', typeAfter: 'float16' }]);
    const softmax = byName(report, 'l0/softmax');
    expect(softmax.inputs[0]).toMatchObject({ type: 'float', typeAfter: 'float' });
    expect(softmax.inputs[0]!.cast).toBeUndefined();
    expect(report.scopes).toEqual([expect.objectContaining({ path: 'graph', parent: null, owner: null })]);
    expect(report.scopes[0]!.weights.find((w) => w.value === 'l0.wq')).toMatchObject({ type: 'float', dims: [32, 32] });
  });

  it('links If and Loop nodes to their bodies, and names the Cast that restores a body output', () => {
    const { report } = ampRewrite(fixture('control-flow'));
    expect(byName(report, 'if').subgraphs).toEqual(['graph/if.then_branch', 'graph/if.else_branch']);
    expect(byName(report, 'loop').subgraphs).toEqual(['graph/loop.body']);
    expect(report.scopes.map((s) => [s.path, s.parent, s.owner])).toEqual([
      ['graph', null, null],
      ['graph/if.then_branch', 'graph', 'if'],
      ['graph/if.else_branch', 'graph', 'if'],
      ['graph/loop.body', 'graph', 'loop'],
    ]);
    expect(byName(report, 'then/relu').outputs).toEqual([{ value: 'then_out', type: 'float', typeAfter: 'float16', cast: 'then_out/to_fp32' }]);
    // `x` comes from the main graph: an outer-scope read inside the branch.
    expect(byName(report, 'then/matmul').inputs[0]).toMatchObject({ value: 'x', source: 'outer', cast: 'x/to_fp16', typeAfter: 'float16' });
  });

  it('carries the value range a calibration saw', () => {
    const { report } = ampRewrite(fixture('transformer-block'), { activationRanges: new Map([['matmul_13', 7e4], ['softmax_15', 0.75], ['mul_14', 7e4]]) });
    const softmax = byName(report, 'l0/softmax');
    expect(softmax.inputs[0]!.range).toBe(7e4);
    expect(softmax.outputs[0]!.range).toBe(0.75);
    // A deny-list node keeps its list rule; the node the range newly pins is the scores MatMul.
    expect(softmax.rule).toBe('deny-list');
    const scores = byName(report, 'l0/scores');
    expect(scores.outputs[0]!.range).toBe(7e4);
    expect(scores.rule).toBe('activation-out-of-range');
    expect(categoryOfRule(scores.rule).id).toBe('pinned');
  });
});

describe('the pin categories on real models', () => {
  it('a weight-range pin, with no calibration run, is "pinned by weight range", never "pinned by calibration"', () => {
    const { report } = ampRewrite(fixture('out-of-range-weight'));
    const pinned = report.nodes.filter((n) => n.rule === 'weight-out-of-range');
    expect(pinned.length).toBeGreaterThan(0);
    for (const node of pinned) expect(categoryOfRule(node.rule).label).toBe('pinned by weight range');
    expect(report.nodes.filter((n) => categoryOfRule(n.rule).label === 'pinned by calibration')).toEqual([]);
  });
});

describe('decision categories', () => {
  it('put every rule code of decisions.ts in exactly one category', () => {
    const source = readFileSync(path.join(repoRoot, 'src/passes/amp/decisions.ts'), 'utf8');
    const union = /export type RuleCode =([^;]*);/.exec(source)![1]!;
    const codes = [...union.matchAll(/'([a-z0-9-]+)'/g)].map((m) => m[1]);
    const covered = DECISION_CATEGORIES.flatMap((c) => c.rules);
    expect([...covered].sort()).toEqual([...codes].sort());
    expect(categoryOfRule('deny-upstream').id).toBe('deny-propagated');
    expect(categoryOfRule('force-fp32').id).toBe('forced');
    // The legend says what pinned a node: its weight's range, a calibration run, or the user.
    expect(categoryOfRule('weight-out-of-range').label).toBe('pinned by weight range');
    expect(categoryOfRule('activation-out-of-range').label).toBe('pinned by calibration');
    expect(categoryOfRule('force-fp32').label).toBe('pinned by you');
    expect(categoryOfRule('weight-out-of-range').meaning).toMatch(/no calibration run/);
    expect(categoryOfRule('between-allow').id).toBe('infer-promoted');
    // schema-forbids nodes compute in float32 and stay there: the legend must say why, not only "no float32 compute".
    expect(categoryOfRule('schema-forbids').meaning).toMatch(/no Cast to the target type/);
  });
});

describe('the HTML page', () => {
  const { report } = ampRewrite(fixture('transformer-block'));
  const html = renderAuditHtml(report, { title: 'model.onnx' });

  it('is self-contained: the data, dagre and the script inline, nothing to fetch', () => {
    expect(html).not.toMatch(/<script[^>]+src=|<link|<img|@import|url\(\s*['"]?(https?:|\/\/)/i);
    expect(html).toContain("default-src 'none'");
    expect(html).toContain('@dagrejs/dagre, MIT license');
    expect(embedded(html).report.nodes).toStrictEqual(shown(report.nodes));
    expect(embedded(html).report.scopes).toStrictEqual(report.scopes);
    expect(renderAuditHtml(report, { title: 'model.onnx' })).toBe(html);
  });

  it('keeps a node name that closes a script element inert', () => {
    const hostile: AmpReport = { ...report, nodes: report.nodes.map((n, i) => (i === 0 ? { ...n, node: '</script><script>alert(1)</script>' } : n)) };
    const page = renderAuditHtml(hostile, { title: '<b>x</b>' });
    expect(page.match(/<\/script>/g)?.length).toBe(html.match(/<\/script>/g)?.length);
    expect(page).toContain('&lt;b&gt;x&lt;/b&gt;');
    expect(embedded(page).report.nodes[0]!.node).toBe('</script><script>alert(1)</script>');
  });
});

describe('amp-rewrite report', () => {
  const json = path.join(work, 'audit.json');
  const model = path.join(fixturesDir, 'control-flow/model.onnx');

  it('draws an audit JSON, and --report audit.html writes the same page for the same audit', () => {
    const direct = path.join(work, 'direct.html');
    expect(cli([model, '--dry-run', '-q', '--report', json, '--report', direct]).status).toBe(0);
    const out = path.join(work, 'audit.html');
    const result = cli(['report', json, '-o', out]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('(10 nodes)');
    const fromJson = readFileSync(out, 'utf8');
    expect(embedded(fromJson).report.nodes).toStrictEqual(shown(JSON.parse(readFileSync(json, 'utf8')).nodes));
    // The same page but for what only the model holds: the rewrite's page adds attributes, declared
    // shapes and weight previews read from the model file; an audit JSON has no model to read them from.
    const page = readFileSync(direct, 'utf8');
    const { facts, ...data } = embedded(page);
    expect(facts?.attributes.size).toBeGreaterThan(0);
    expect(facts?.shapes.size).toBeGreaterThan(0);
    expect('facts' in embedded(fromJson)).toBe(false);
    const shell = (html: string) => html.replace(/<script id="audit-data" type="application\/json">.*?<\/script>/s, '');
    expect(shell(fromJson).replaceAll('audit.json', 'model.onnx')).toBe(shell(page));
    expect(JSON.stringify(embedded(fromJson)).replaceAll('audit.json', 'model.onnx')).toBe(JSON.stringify(data));
  });

  it('rejects what is not an audit, an audit without graph data, and a non-.html output, with exit 2', () => {
    const old = path.join(work, 'old.json');
    const audit = JSON.parse(readFileSync(json, 'utf8'));
    writeFileSync(old, JSON.stringify({ ...audit, nodes: audit.nodes.map(({ inputs, ...rest }: { inputs: unknown }) => rest) }));
    const notAudit = cli(['report', model, '-o', path.join(work, 'x.html')]);
    expect(notAudit.status).toBe(2);
    expect(notAudit.stderr).toContain('[NOT_AN_AUDIT]');
    const stale = cli(['report', old, '-o', path.join(work, 'x.html')]);
    expect(stale.status).toBe(2);
    expect(stale.stderr).toMatch(/NOT_AN_AUDIT.*node If 'if' lacks its edges/);
    const badOut = cli(['report', json, '-o', path.join(work, 'x.txt')]);
    expect(badOut.status).toBe(2);
    expect(badOut.stderr).toContain('[BAD_OPTION]');
    expect(cli(['report', path.join(work, 'missing.json'), '-o', path.join(work, 'x.html')]).stderr).toContain('[FILE_NOT_FOUND]');
  });
});
