/**
 * The web page (dist/web/index.html, written by npm run build) opened from file:// in Chromium:
 * a transformer and a CNN converted through the page's hooks (data-role model-input, summary,
 * download), the downloaded model byte for byte the command line's (`--no-verify`), the audit
 * shown, a hostile file's typed error shown in the page, the options reaching the rewrite, and no
 * request leaving the page. Skips with a message when Chromium or the built page is missing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import { chromiumMissing, launchChromium } from '../support/browser.js';
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

function cliBytes(model: string, args: string[] = []): Buffer {
  const out = path.join(work, `cli-${path.basename(model)}-${args.join('_').replace(/[^\w-]/g, '')}.onnx`);
  const result = spawnSync(process.execPath, [CLI, model, '-o', out, '--no-verify', '-q', ...args], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  return readFileSync(out);
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
  it('converts a transformer: the downloaded model is the command line\'s, the summary and the audit are shown', async () => {
    const model = path.join(repoRoot, 'test/models/torch-encoder-dynamo.onnx');
    const page = await openPage();
    await convert(page, [model]);
    expect(await page.locator('#error').isHidden()).toBe(true);
    const summary = await page.locator('[data-role="summary"]').textContent();
    expect(summary).toMatch(/float16/);
    expect((await downloaded(page, 'download')).equals(cliBytes(model))).toBe(true);
    const audit = JSON.parse((await downloaded(page, 'download-audit-json')).toString('utf8'));
    expect(audit.nodes.length).toBeGreaterThan(10);
    // The visual audit runs inside the page's frame under the page's CSP: its graph is drawn.
    const frame = page.frameLocator('#audit');
    await expect.poll(async () => frame.locator('#graph g.node').count(), { timeout: 30_000 }).toBeGreaterThan(5);
    await page.close();
  }, 180_000);

  it('converts a CNN with options (bf16, weights fp16) and with its weights in an external data file', async () => {
    const source = path.join(repoRoot, 'test/models/mobilenetv3-se-dynamo.onnx');
    const dir = mkdtempSync(path.join(work, 'external-'));
    const model = path.join(dir, 'cnn.onnx');
    saveModel(loadModel(source), model, { externalData: { location: 'cnn.onnx.data', sizeThreshold: 0 } });
    const page = await openPage();
    await page.selectOption('#mode', 'bf16');
    await page.selectOption('#weights', 'fp16');
    await convert(page, [model, path.join(dir, 'cnn.onnx.data')]);
    expect(await page.locator('#error').isHidden()).toBe(true);
    expect(await page.locator('[data-role="summary"]').textContent()).toMatch(/bfloat16/);
    const expected = cliBytes(model, ['--mode', 'bf16', '--weights', 'fp16', '--external-data', 'embed']);
    expect((await downloaded(page, 'download')).equals(expected)).toBe(true);
    await page.close();
  }, 180_000);

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

  it('made no request beyond its own file, and logged no error', () => {
    expect(requests).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
