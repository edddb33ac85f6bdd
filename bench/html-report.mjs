// The visual audit at scale: a transformer-style graph of about 50,000 nodes is rewritten, its
// HTML report written, and the page opened in headless Debian Chromium (playwright-core, offline,
// fresh profile). Measures the time to interactive (navigation to the first window drawn and every
// control live) and the time a search, a jump to a far window and a window step take.
// Usage: node bench/html-report.mjs [--nodes N]   (writes bench/results/html-report-<date>.json)
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CHROMIUM, launchChromium } from './chromium.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NODES_PER_LAYER = 31;

const since = (start) => Number(process.hrtime.bigint() - start) / 1e6;

export async function htmlReportLoad({ nodes: targetNodes = 50_000 } = {}) {
  if (!existsSync(CHROMIUM)) {
    console.log(`html report: skipped, ${CHROMIUM} not found (apt-get install chromium)`);
    return { skipped: `${CHROMIUM} not found` };
  }
  const { buildTransformer } = await import(path.join(root, 'dist/builder/recipes/transformer.js'));
  const { ampRewrite } = await import(path.join(root, 'dist/passes/amp.js'));
  const { renderAuditHtml, NODES_PER_WINDOW } = await import(path.join(root, 'dist/report/html/render-html.js'));

  const layers = Math.max(1, Math.round(targetNodes / NODES_PER_LAYER));
  const model = buildTransformer({ batch: 1, sequence: 4, model: 8, heads: 2, ffn: 16, layers, vocab: 0, seed: 1 });
  const { report } = ampRewrite(model);
  let start = process.hrtime.bigint();
  // As --report writes it: with the model's facts (attributes, shapes, weight previews) in the details.
  const html = renderAuditHtml(report, { title: `transformer ${layers} layers`, model });
  const renderMs = since(start);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'amp-html-bench-'));
  const file = path.join(dir, 'audit.html');
  writeFileSync(file, html);

  const context = await launchChromium(dir);
  try {
    const page = await context.newPage();
    start = process.hrtime.bigint();
    await page.goto(pathToFileURL(file).href, { timeout: 300_000 });
    await page.waitForSelector('body[data-ready="1"]', { timeout: 300_000 });
    const interactiveMs = since(start);
    // The page's own clock: from navigation start to the end of the first draw.
    const pageReadyMs = await page.evaluate(() => Number(document.body.getAttribute('data-ready-ms')));
    const drawn = await page.locator('g.node').count();
    const firstDrawMs = Number(await page.getAttribute('body', 'data-draw-ms'));

    start = process.hrtime.bigint();
    await page.fill('#search', 'softmax');
    await page.waitForSelector('#results li');
    const searchMs = since(start);
    const matches = await page.textContent('#result-count');

    const last = report.nodes[report.nodes.length - 1];
    start = process.hrtime.bigint();
    await page.fill('#search', last.node);
    await page.locator('#results li').first().click();
    await page.waitForSelector(`g.node.selected[data-name="${last.node}"]`);
    const jumpMs = since(start);

    const before = await page.textContent('#window-info');
    start = process.hrtime.bigint();
    await page.click('#prev-window');
    await page.waitForFunction((text) => document.getElementById('window-info')?.textContent !== text, before);
    const stepMs = since(start);
    const stepDrawMs = Number(await page.getAttribute('body', 'data-draw-ms'));

    const row = {
      nodes: report.nodes.length,
      htmlMiB: statSync(file).size / 2 ** 20,
      nodesPerWindow: NODES_PER_WINDOW,
      nodesDrawn: drawn,
      renderHtmlMs: renderMs,
      timeToInteractiveMs: interactiveMs,
      pageReadyMs,
      firstWindowDrawMs: firstDrawMs,
      searchMs,
      searchResult: matches,
      jumpToLastNodeMs: jumpMs,
      windowStepMs: stepMs,
      windowStepDrawMs: stepDrawMs,
      chromium: context.browser()?.version() ?? (await page.evaluate(() => navigator.userAgent)),
    };
    console.log(
      `html report: ${row.nodes} nodes, ${row.htmlMiB.toFixed(1)} MiB page; interactive in ${(interactiveMs / 1000).toFixed(2)} s ` +
        `(page's clock ${(pageReadyMs / 1000).toFixed(2)} s, first window drawn in ${firstDrawMs} ms); search ${searchMs.toFixed(0)} ms, jump to the last node ${jumpMs.toFixed(0)} ms, ` +
        `window step ${stepMs.toFixed(0)} ms (${stepDrawMs} ms drawing)`,
    );
    return row;
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { nodes: { type: 'string', default: '50000' } } });
  const row = await htmlReportLoad({ nodes: Number(values.nodes) });
  const record = {
    date: new Date().toISOString(),
    machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
    htmlReport: row,
  };
  const dir = path.join(root, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `html-report-${record.date.slice(0, 10)}.json`);
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`wrote ${path.relative(root, file)}`);
}
