/**
 * The chart reports in a real browser (Debian's Chromium, headless, offline, via playwright-core),
 * from real runs of the built CLI on ONNX Runtime's CPU provider: a training comparison where pure
 * fp16 dies on step 1, an AMP graph whose loss scale starts far too high and skips steps, and a
 * bench of the transformer block with pure fp16. Checks what a reader sees: a visible curve per
 * variant, one mark per skipped step, the dead variant labelled, latency per run, the CPU caveat,
 * nothing fetched and nothing run. Screenshots land in test-artifacts/ (gitignored).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium } from '../support/browser.js';
import { fixturesDir, repoRoot } from '../support/corpus.js';

const missing = chromiumMissing();
if (missing) console.warn(`[browser] ${missing}: the chart reports' browser tests are skipped`);

const artifacts = path.join(repoRoot, 'test-artifacts');
const work = mkdtempSync(path.join(tmpdir(), 'amp-charts-'));
const bin = path.join(repoRoot, 'dist/cli/main.js');

function cli(args: string[]): void {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: work });
  expect(result.stderr, args.join(' ')).toBe('');
  expect(result.status, args.join(' ')).toBe(0);
}

interface RecordedStep {
  skipped: boolean;
}

describe.skipIf(missing !== undefined)('the training and bench reports in headless Chromium', () => {
  let context: BrowserContext;
  let close: () => Promise<void>;
  const errors: string[] = [];

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true });
    ({ context, close } = await launchChromium({ width: 1100, height: 900 }));
  });
  afterAll(async () => {
    await close?.();
  });

  async function open(file: string): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => errors.push(`console ${message.type()}: ${message.text()}`));
    page.on('request', (request) => {
      if (!request.url().startsWith('file:')) errors.push(`fetched ${request.url()}`);
    });
    await page.goto(`file://${file}`);
    return page;
  }

  /** The visible marks of a kind inside one chart. */
  const visible = async (page: Page, selector: string): Promise<number> => {
    let count = 0;
    for (const element of await page.locator(selector).all()) if (((await element.boundingBox())?.width ?? 0) > 0) count++;
    return count;
  };

  it('a training comparison: a curve per variant, pure fp16 labelled where it died', async () => {
    cli(['example', 'mlp', '--hidden', '16', '--layers', '1', '-o', 'mlp.onnx', '-q']);
    cli(['train', 'mlp.onnx', '--compare', 'fp32,amp,fp16', '--max-steps', '6', '--report', 'compare.html', '--json', 'compare.json', '-q']);
    const record = JSON.parse(readFileSync(path.join(work, 'compare.json'), 'utf8'));
    expect(record.results.map((r: { variant: string }) => r.variant)).toEqual(['fp32', 'amp', 'fp16']);
    const page = await open(path.join(work, 'compare.html'));
    for (const variant of ['fp32', 'amp']) {
      const line = page.locator(`#loss-chart g.series[data-variant="${variant}"] polyline`);
      expect(await line.count(), variant).toBe(1);
      expect((await line.boundingBox())?.width ?? 0, variant).toBeGreaterThan(200);
    }
    // fp16 went NaN in its first update: no line past step 1, a ✕ where it died, and a legend that says so.
    expect(await visible(page, '#loss-chart g.series[data-variant="fp16"] g.mark-nonfinite')).toBe(1);
    expect(await page.locator('#loss-chart .legend-entry', { hasText: /^fp16: loss NaN from step \d$/ }).isVisible()).toBe(true);
    expect(await page.locator('p.failure').first().textContent()).toMatch(/^fp16: first non-finite value at step 1: output '.+' of \w+ node '.+'$/);
    expect(await page.$$eval('#final-table tbody tr', (rows) => rows.map((r) => r.querySelector('td')?.textContent))).toEqual(['fp32', 'amp', 'fp16']);
    expect(await page.locator('#accuracy-chart circle').count()).toBe(3);
    expect(await page.textContent('#numerics-note')).toContain('not GPU evidence');
    await page.screenshot({ path: path.join(artifacts, 'training-report.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a loss-scaled run that skips: every skipped step marked on the loss and the loss-scale curves', async () => {
    cli(['mlp.onnx', '-o', 'mlp.high-scale.onnx', '--loss-scale', 'dynamic', '--loss-scale-initial', '1e12', '--max-scale', '1e12', '-q']);
    cli(['train', 'mlp.high-scale.onnx', '--max-steps', '8', '--report', 'skips.html', '--json', 'skips.json', '-q']);
    const record = JSON.parse(readFileSync(path.join(work, 'skips.json'), 'utf8'));
    const skipped = (record.results[0].result.history as RecordedStep[]).filter((s) => s.skipped).length;
    expect(skipped).toBeGreaterThan(3);
    const page = await open(path.join(work, 'skips.html'));
    expect(await visible(page, '#loss-scale-chart path.mark-skip')).toBe(skipped);
    expect(await visible(page, '#loss-chart path.mark-skip')).toBe(skipped);
    expect(await page.locator('#loss-scale-chart .legend-entry').textContent()).toBe(`as given: ${skipped} skipped`);
    // The scale halves on each skip: the curve falls from left to right.
    const points = (await page.getAttribute('#loss-scale-chart polyline', 'points'))!.split(' ').map((p) => Number(p.split(',')[1]));
    expect(points[points.length - 1]!).toBeGreaterThan(points[0]!);
    await page.screenshot({ path: path.join(artifacts, 'training-report-skips.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a bench: every run of every variant, memory, accuracy, and the CPU caveat', async () => {
    cli(['bench', path.join(fixturesDir, 'transformer-block', 'model.onnx'), '--runs', '5', '--warmup', '1', '--isolation', 'in-process', '--pure-fp16', '--report', 'bench.html', '--out', 'bench.json', '-q']);
    const page = await open(path.join(work, 'bench.html'));
    for (const variant of ['fp32', 'amp', 'fp16']) {
      expect(await visible(page, `#latency-chart g.distribution[data-variant="${variant}"] circle.run`), variant).toBe(5);
      expect(await page.locator(`#memory-chart g.bar[data-variant="${variant}"]`).count()).toBe(1);
    }
    expect(await page.textContent('#numerics-note')).toContain('not GPU evidence');
    expect(await page.$$eval('#accuracy-table tbody tr', (rows) => [...new Set(rows.map((r) => r.querySelector('td')?.textContent))])).toEqual(['amp', 'fp16']);
    await page.screenshot({ path: path.join(artifacts, 'bench-report.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });
});
