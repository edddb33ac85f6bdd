/**
 * The web page (dist/web/index.html, written by npm run build) opened from file:// in Chromium:
 * a transformer and a CNN converted through the page's hooks (data-role model-input, verify,
 * summary, download), the downloaded model byte for byte the command line's and the verdict line
 * the command line's (verified on onnxruntime-web there, onnxruntime-node here: the same figures),
 * a failing rewrite not offered, the audit shown, a hostile file's typed error shown in the page,
 * the options reaching the rewrite, and no request leaving the page. Skips with a message when
 * Chromium or the built page is missing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLongSoftmaxUnderflow } from '../../src/builder/recipes/fp16-failures.js';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import { CHROMIUM, chromiumMissing, launchChromium } from '../support/browser.js';
import { repoRoot } from '../support/corpus.js';

const PAGE = path.join(repoRoot, 'dist/web/index.html');
const CLI = path.join(repoRoot, 'dist/cli/main.js');
const missing = chromiumMissing() ?? (existsSync(PAGE) ? undefined : `${PAGE} not built (npm run build)`);
if (missing) console.warn(`[browser] ${missing}: the web page tests are skipped`);

const work = mkdtempSync(path.join(tmpdir(), 'amp-web-page-'));
let context: BrowserContext;
let close: () => Promise<void>;
/** Every request any page made, but the page's own file and the blob: and data: URLs it makes itself. */
const requests: string[] = [];
const consoleErrors: string[] = [];

/** The command line's rewrite of `model`: its bytes (none when it failed its verification) and its verdict line. */
function cliRewrite(model: string, args: string[] = []): { bytes: Buffer | undefined; verdict: string | undefined } {
  const out = path.join(work, `cli-${path.basename(model)}-${args.join('_').replace(/[^\w-]/g, '')}.onnx`);
  const result = spawnSync(process.execPath, [CLI, model, '-o', out, ...args], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  return { bytes: existsSync(out) ? readFileSync(out) : undefined, verdict: verdictLine(result.stdout) };
}

/**
 * A verdict line without its error figures: the same statuses, outputs, element counts and pins,
 * where onnxruntime-web's WebAssembly kernels may round an error's last digit otherwise than
 * onnxruntime-node's (0.000710 against 0.000711).
 */
const figures = (line: string | undefined): string | undefined =>
  line?.replace(/at \d\.\d+ of its tolerance/g, 'at … of its tolerance').replace(/max abs error [\d.e+-]+/g, 'max abs error …');

/** The summary's verdict line, without the name of the runtime that ran it. */
function verdictLine(summary: string | null): string | undefined {
  return summary
    ?.split('\n')
    .find((line) => /^(Verified|Not verified)/.test(line))
    ?.replace(/onnxruntime-(node|web) /, 'onnxruntime ');
}

async function openPage(): Promise<Page> {
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  await page.goto(pathToFileURL(PAGE).href);
  return page;
}

/** Picks the files, converts, and waits for the summary or the error. */
async function convert(page: Page, files: string[]): Promise<void> {
  await page.setInputFiles('[data-role="model-input"]', files);
  await page.click('#convert');
  await page.waitForFunction(() => (document.querySelector('[data-role="summary"]')?.textContent ?? '') !== '' || !(document.querySelector('#error') as HTMLElement).hidden, undefined, { timeout: 120_000 });
}

async function downloaded(page: Page, role: string): Promise<Buffer> {
  await page.locator(`[data-role="${role}"]`).scrollIntoViewIfNeeded();
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-role="${role}"]`)]);
  return readFileSync((await download.path()) as string);
}

beforeAll(async () => {
  if (missing) return;
  ({ context, close } = await launchChromium());
  context.on('request', (request) => {
    const url = request.url();
    if (url === pathToFileURL(PAGE).href || url.startsWith('blob:') || url.startsWith('data:') || url === 'about:srcdoc') return;
    requests.push(url);
  });
}, 60_000);

afterAll(async () => {
  await close?.();
});

describe.skipIf(Boolean(missing))('the web page from file://', () => {
  it('converts and verifies a transformer: the model and the verdict are the command line\'s, the summary and the audit are shown', async () => {
    const model = path.join(repoRoot, 'test/models/torch-encoder-dynamo.onnx');
    const page = await openPage();
    expect(await page.locator('[data-role="verify"]').isChecked()).toBe(true);
    // The native WebGPU run is offered only where the GPU has shader-f16: this Chromium runs without a GPU.
    await page.waitForTimeout(200);
    expect(await page.locator('#native-choice').isHidden()).toBe(true);
    await convert(page, [model]);
    expect(await page.locator('#error').isHidden()).toBe(true);
    const summary = await page.locator('[data-role="summary"]').textContent();
    expect(summary).toMatch(/float16/);
    expect(summary).toMatch(/^Verified: PASS .* \(onnxruntime-web 1\.29\.0\)/m);
    const cli = cliRewrite(model);
    expect(verdictLine(summary)).toBe(cli.verdict);
    expect((await downloaded(page, 'download')).equals(cli.bytes as Buffer)).toBe(true);
    const audit = JSON.parse((await downloaded(page, 'download-audit-json')).toString('utf8'));
    expect(audit.nodes.length).toBeGreaterThan(10);
    // The visual audit runs inside the page's frame under the page's CSP: its graph is drawn.
    const frame = page.frameLocator('#audit');
    await expect.poll(async () => frame.locator('#graph g.node').count(), { timeout: 30_000 }).toBeGreaterThan(5);
    await page.close();
  }, 180_000);

  it('converts a CNN with options (bf16, weights fp16, not verified) and with its weights in an external data file', async () => {
    const source = path.join(repoRoot, 'test/models/mobilenetv3-se-dynamo.onnx');
    const dir = mkdtempSync(path.join(work, 'external-'));
    const model = path.join(dir, 'cnn.onnx');
    saveModel(loadModel(source), model, { externalData: { location: 'cnn.onnx.data', sizeThreshold: 0 } });
    const page = await openPage();
    await page.selectOption('#mode', 'bf16');
    await page.selectOption('#weights', 'fp16');
    await page.uncheck('[data-role="verify"]');
    await convert(page, [model, path.join(dir, 'cnn.onnx.data')]);
    expect(await page.locator('#error').isHidden()).toBe(true);
    const summary = await page.locator('[data-role="summary"]').textContent();
    expect(summary).toMatch(/bfloat16/);
    expect(verdictLine(summary)).toBeUndefined();
    const expected = cliRewrite(model, ['--no-verify', '--mode', 'bf16', '--weights', 'fp16', '--external-data', 'embed']);
    expect((await downloaded(page, 'download')).equals(expected.bytes as Buffer)).toBe(true);
    await page.close();
  }, 180_000);

  it('verifies a model whose values overflow float16 as the command line does: the same pins, the same bytes', async () => {
    const model = path.join(repoRoot, 'test/models/ssd-overflow.onnx');
    const page = await openPage();
    await convert(page, [model]);
    const summary = await page.locator('[data-role="summary"]').textContent();
    expect(summary).toMatch(/^Verified: PASS .*kept FP32 the nodes of 2 values/m);
    const cli = cliRewrite(model);
    expect(figures(verdictLine(summary))).toBe(figures(cli.verdict));
    expect((await downloaded(page, 'download')).equals(cli.bytes as Buffer)).toBe(true);
    await page.close();
  }, 180_000);

  it('offers no model when the rewrite fails its verification, as the command line writes none', async () => {
    const model = path.join(work, 'underflow.onnx');
    saveModel(buildLongSoftmaxUnderflow(), model);
    const page = await openPage();
    await convert(page, [model]);
    const summary = await page.locator('[data-role="summary"]').textContent();
    expect(summary).toMatch(/^Verified: FAIL on 1 batch of random inputs \(seed 0\), emulated float16 numerics on cpu \(onnxruntime-web 1\.29\.0\): output 'y'/m);
    const cli = cliRewrite(model);
    expect(cli.bytes).toBeUndefined();
    expect(figures(verdictLine(summary))).toBe(figures(cli.verdict));
    expect(await page.locator('[data-role="download"]').count()).toBe(0);
    expect(await page.locator('[data-role="download-audit-json"]').count()).toBe(1);
    expect(await page.locator('#status').textContent()).toMatch(/failed its verification, so no model is offered/);
    await page.close();
  }, 180_000);

  it('stops a conversion mid-run (Stop ends its Worker), and the next conversion verifies in a fresh one', async () => {
    const model = path.join(repoRoot, 'test/models/torch-encoder-dynamo.onnx');
    const page = await openPage();
    await page.setInputFiles('[data-role="model-input"]', [model]);
    await page.click('#convert');
    await page.click('#cancel');
    expect(await page.locator('#status').textContent()).toBe('stopped');
    expect(await page.locator('#cancel').isHidden()).toBe(true);
    expect(await page.locator('[data-role="download"]').count()).toBe(0);
    // The new Worker is sent onnxruntime-web again: the verification runs.
    await convert(page, [model]);
    expect(await page.locator('#error').textContent()).toBe('');
    expect(await page.locator('[data-role="summary"]').textContent()).toMatch(/^Verified: PASS .*\(onnxruntime-web 1\.29\.0\)/m);
    expect(await page.locator('[data-role="download"]').count()).toBe(1);
    await page.close();
  }, 120_000);

  it('shows a hostile or broken file\'s typed error, and a model without its data file', async () => {
    const page = await openPage();
    const junk = path.join(work, 'junk.onnx');
    writeFileSync(junk, Buffer.from('<script>alert(1)</script> not a model'));
    await convert(page, [junk]);
    const error = await page.locator('#error').textContent();
    expect(error).toMatch(/^\[NOT_ONNX\]: junk\.onnx: not an ONNX ModelProto/);
    // Shown as text, never as markup.
    expect(await page.locator('#error script').count()).toBe(0);
    const dir = mkdtempSync(path.join(work, 'no-data-'));
    saveModel(loadModel(path.join(repoRoot, 'fixtures/torch-forward/cnn-torchscript.onnx')), path.join(dir, 'cnn.onnx'), { externalData: { location: 'cnn.onnx.data', sizeThreshold: 0 } });
    await convert(page, [path.join(dir, 'cnn.onnx')]);
    expect(await page.locator('#error').textContent()).toMatch(/^\[EXTERNAL_DATA_MISSING\]: tensor '.+': its external data file cnn\.onnx\.data was not given/);
    await page.close();
  }, 120_000);

  it("runs the native WebGPU run through onnxruntime-web's WebGPU provider (SwiftShader: float32 runs, float16 is refused)", async () => {
    // SwiftShader's software WebGPU adapter has no shader-f16, so the page does not offer the run: the box is
    // shown here by hand. The float32 reference runs on WebGPU; the rewrite's float16 Cast is refused, as the
    // gate predicts, and the page says so beside the verified model it still offers.
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader'] });
    try {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(PAGE).href);
      await page.waitForTimeout(300);
      expect(await page.locator('#native-choice').isHidden()).toBe(true);
      await page.evaluate(() => ((document.querySelector('#native-choice') as HTMLElement).hidden = false));
      await page.check('#native');
      await convert(page, [path.join(repoRoot, 'test/models/torch-encoder-dynamo.onnx')]);
      const summary = await page.locator('[data-role="summary"]').textContent();
      expect(summary).toMatch(/^Verified: PASS .*emulated float16 numerics on cpu \(onnxruntime-web 1\.29\.0\)/m);
      expect(summary).toMatch(/^Native run on WebGPU .*native numerics on webgpu \(onnxruntime-web 1\.29\.0\).*requires f16 but the device does not support it/m);
      expect(await page.locator('[data-role="download"]').count()).toBe(1);
    } finally {
      await browser.close();
    }
  }, 180_000);

  it('made no request beyond its own file, and logged no error', () => {
    expect(requests).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
