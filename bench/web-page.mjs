// The web page's conversion time against the command line's (#39: aim within 2x), on a
// transformer-style graph of about 12,000 nodes. The page (dist/web/index.html, npm run build
// first) is opened from file:// in headless Debian Chromium (playwright-core, offline, fresh
// profile); each run picks the model, clicks Convert and waits for the summary: the time from the
// click to the result shown, which includes reading the file, the Worker's verification and rewrite
// and both audits (JSON and the HTML page the frame shows). Each side runs verified (the default:
// the command line on onnxruntime-node, the page on onnxruntime-web's WebAssembly build, both on
// one CPU thread's worth of kernels or more) and with verification off; the command line also with
// `--report .json --report .html` (what the page makes). The downloaded models are checked byte for
// byte against the command line's.
//
// Usage: node bench/web-page.mjs [--nodes 12000] [--runs 3]   (writes bench/results/web-page-<date>.json)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CHROMIUM, launchChromium } from './chromium.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
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

const layers = Math.max(1, Math.round(Number(values.nodes) / NODES_PER_LAYER));
const model = buildTransformer({ batch: 1, sequence: 4, model: 8, heads: 2, ffn: 16, layers, vocab: 0, seed: 1 });
const nodes = model.graph.node.length;
const dir = mkdtempSync(path.join(os.tmpdir(), 'amp-web-bench-'));
const file = path.join(dir, 'transformer.onnx');
writeFileSync(file, encodeModel(model));

function cliRun(extra) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [CLI, file, '-o', path.join(dir, 'cli.onnx'), '-q', ...extra], { encoding: 'utf8' });
  const ms = since(start);
  if (result.status !== 0) throw new Error(`the command line failed: ${result.stderr}`);
  return ms;
}
const cliVerified = Array.from({ length: runs }, () => cliRun([]));
const cliVerifiedBytes = readFileSync(path.join(dir, 'cli.onnx'));
const cliPlain = Array.from({ length: runs }, () => cliRun(['--no-verify']));
const cliReports = Array.from({ length: runs }, () => cliRun(['--no-verify', '--report', path.join(dir, 'a.json'), '--report', path.join(dir, 'a.html')]));
const cliBytes = readFileSync(path.join(dir, 'cli.onnx'));

const context = await launchChromium(dir);
const page = await context.newPage();
let start = process.hrtime.bigint();
await page.goto(pathToFileURL(PAGE).href);
const loadMs = since(start);
/** The page's conversions with the verify box as given: the times from the click, the Worker's own, and whether the download equals `expected`. */
async function pageConversions(verify, expected) {
  await page.setChecked('[data-role="verify"]', verify);
  const clicks = [];
  const worker = [];
  let same = false;
  for (let run = 0; run < runs; run++) {
    await page.setInputFiles('[data-role="model-input"]', [file]);
    const started = process.hrtime.bigint();
    await page.click('#convert');
    await page.waitForFunction(() => /^done in/.test(document.querySelector('#status')?.textContent ?? '') || !document.querySelector('#error').hidden, undefined, { timeout: 600_000 });
    clicks.push(since(started));
    const status = await page.locator('#status').textContent();
    worker.push(1000 * Number(/done in ([\d.]+) s/.exec(status)?.[1] ?? NaN));
    if (run === runs - 1) {
      await page.locator('[data-role="download"]').scrollIntoViewIfNeeded();
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-role="download"]')]);
      same = readFileSync(await download.path()).equals(expected);
    }
  }
  return { clicks, worker, same };
}
const verifiedRuns = await pageConversions(true, cliVerifiedBytes);
const plainRuns = await pageConversions(false, cliBytes);
await context.close();

const record = {
  date: new Date().toISOString(),
  machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
  chromium: CHROMIUM,
  model: { layers, nodes, bytes: readFileSync(file).length },
  runs,
  pageLoadMs: loadMs,
  cliVerifiedMs: median(cliVerified),
  cliMs: median(cliPlain),
  cliWithReportsMs: median(cliReports),
  pageVerifiedMs: median(verifiedRuns.clicks),
  pageVerifiedWorkerMs: median(verifiedRuns.worker),
  pageMs: median(plainRuns.clicks),
  pageWorkerMs: median(plainRuns.worker),
  pageVerifiedOverCli: median(verifiedRuns.clicks) / median(cliVerified),
  pageOverCli: median(plainRuns.clicks) / median(cliPlain),
  sameBytes: verifiedRuns.same && plainRuns.same,
};
mkdirSync(path.join(root, 'bench/results'), { recursive: true });
const out = path.join(root, 'bench/results', `web-page-${record.date.slice(0, 10)}.json`);
writeFileSync(out, `${JSON.stringify(record, null, 2)}\n`);
console.log(`| ${nodes}-node transformer | median of ${runs} |`);
console.log('|---|---:|');
console.log(`| command line, verified (the default), -q | ${record.cliVerifiedMs.toFixed(0)} ms |`);
console.log(`| page, verified (the default): click to result shown | ${record.pageVerifiedMs.toFixed(0)} ms (${record.pageVerifiedOverCli.toFixed(2)}x; the Worker's own time ${record.pageVerifiedWorkerMs.toFixed(0)} ms) |`);
console.log(`| command line, --no-verify -q | ${record.cliMs.toFixed(0)} ms |`);
console.log(`| command line, --no-verify with --report .json and .html | ${record.cliWithReportsMs.toFixed(0)} ms |`);
console.log(`| page, not verified: click to result shown (file read, rewrite, both audits) | ${record.pageMs.toFixed(0)} ms (${record.pageOverCli.toFixed(2)}x; the Worker's own time ${record.pageWorkerMs.toFixed(0)} ms) |`);
console.log(`| page load (file://) | ${record.pageLoadMs.toFixed(0)} ms |`);
console.log(`downloaded models equal the command line's: ${record.sameBytes}; written ${path.relative(root, out)}`);
