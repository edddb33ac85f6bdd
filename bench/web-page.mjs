// The web page's conversion time against the command line's (#39: aim within 2x), on a
// transformer-style graph of about 12,000 nodes. The page (dist/web/index.html, npm run build
// first) is opened from file:// in headless Debian Chromium (playwright-core, offline, fresh
// profile); each run picks the model, clicks Convert and waits for the summary: the time from the
// click to the result shown, which includes reading the file, the Worker's rewrite and both audits
// (JSON and the HTML page the frame shows). The command line runs `--no-verify -q` (the page does
// not verify yet) without reports, and with `--report .json --report .html` (what the page makes).
// The downloaded model is checked byte for byte against the command line's.
//
// Usage: node bench/web-page.mjs [--nodes 12000] [--runs 3]   (writes bench/results/web-page-<date>.json)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = process.env.AMP_REWRITE_CHROMIUM ?? '/usr/bin/chromium';
const PAGE = path.join(root, 'dist/web/index.html');
const CLI = path.join(root, 'dist/cli/main.js');
const NODES_PER_LAYER = 31;

const { values } = parseArgs({ options: { nodes: { type: 'string', default: '12000' }, runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);
if (!existsSync(CHROMIUM) || !existsSync(PAGE)) {
  console.log(`web page bench: skipped (${existsSync(CHROMIUM) ? `${PAGE} not built: npm run build` : `${CHROMIUM} not found`})`);
  process.exit(0);
}

const since = (start) => Number(process.hrtime.bigint() - start) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const { buildTransformer } = await import(path.join(root, 'dist/builder/recipes/transformer.js'));
const { encodeModel } = await import(path.join(root, 'dist/onnx/codec.js'));
const { chromium } = await import('playwright-core');

const layers = Math.max(1, Math.round(Number(values.nodes) / NODES_PER_LAYER));
const model = buildTransformer({ batch: 1, sequence: 4, model: 8, heads: 2, ffn: 16, layers, vocab: 0, seed: 1 });
const nodes = model.graph.node.length;
const dir = mkdtempSync(path.join(os.tmpdir(), 'amp-web-bench-'));
const file = path.join(dir, 'transformer.onnx');
writeFileSync(file, encodeModel(model));

function cliRun(extra) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [CLI, file, '-o', path.join(dir, 'cli.onnx'), '--no-verify', '-q', ...extra], { encoding: 'utf8' });
  const ms = since(start);
  if (result.status !== 0) throw new Error(`the command line failed: ${result.stderr}`);
  return ms;
}
const cliPlain = Array.from({ length: runs }, () => cliRun([]));
const cliReports = Array.from({ length: runs }, () => cliRun(['--report', path.join(dir, 'a.json'), '--report', path.join(dir, 'a.html')]));
const cliBytes = readFileSync(path.join(dir, 'cli.onnx'));

const context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
  executablePath: CHROMIUM,
  headless: true,
  offline: true,
  viewport: { width: 1400, height: 860 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const page = await context.newPage();
let start = process.hrtime.bigint();
await page.goto(pathToFileURL(PAGE).href);
const loadMs = since(start);
const pageRuns = [];
const workerRuns = [];
let sameBytes = false;
for (let run = 0; run < runs; run++) {
  await page.setInputFiles('[data-role="model-input"]', [file]);
  start = process.hrtime.bigint();
  await page.click('#convert');
  await page.waitForFunction(() => /^done in/.test(document.querySelector('#status')?.textContent ?? '') || !document.querySelector('#error').hidden, undefined, { timeout: 600_000 });
  pageRuns.push(since(start));
  const status = await page.locator('#status').textContent();
  workerRuns.push(1000 * Number(/done in ([\d.]+) s/.exec(status)?.[1] ?? NaN));
  if (run === runs - 1) {
    await page.locator('[data-role="download"]').scrollIntoViewIfNeeded();
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-role="download"]')]);
    sameBytes = readFileSync(await download.path()).equals(cliBytes);
  }
}
await context.close();

const record = {
  date: new Date().toISOString(),
  machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
  chromium: CHROMIUM,
  model: { layers, nodes, bytes: readFileSync(file).length },
  runs,
  pageLoadMs: loadMs,
  cliMs: median(cliPlain),
  cliWithReportsMs: median(cliReports),
  pageMs: median(pageRuns),
  pageWorkerMs: median(workerRuns),
  pageOverCli: median(pageRuns) / median(cliPlain),
  pageOverCliWithReports: median(pageRuns) / median(cliReports),
  sameBytes,
};
mkdirSync(path.join(root, 'bench/results'), { recursive: true });
const out = path.join(root, 'bench/results', `web-page-${record.date.slice(0, 10)}.json`);
writeFileSync(out, `${JSON.stringify(record, null, 2)}\n`);
console.log(`| ${nodes}-node transformer | median of ${runs} |`);
console.log('|---|---:|');
console.log(`| command line, --no-verify -q | ${record.cliMs.toFixed(0)} ms |`);
console.log(`| command line, with --report .json and .html | ${record.cliWithReportsMs.toFixed(0)} ms |`);
console.log(`| page: click to result shown (file read, rewrite, both audits) | ${record.pageMs.toFixed(0)} ms (${record.pageOverCli.toFixed(2)}x the plain command, ${record.pageOverCliWithReports.toFixed(2)}x with reports) |`);
console.log(`| page: the Worker's own time | ${record.pageWorkerMs.toFixed(0)} ms |`);
console.log(`| page load (file://) | ${record.pageLoadMs.toFixed(0)} ms |`);
console.log(`downloaded model equals the command line's: ${sameBytes}; written ${path.relative(root, out)}`);
