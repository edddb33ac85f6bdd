/**
 * The library's page renderers trust no record (issue: a string in a number field injected a
 * <meta http-equiv="refresh"> that navigated the page away and made requests). Through the public
 * API: a record with a field of the wrong type is a typed BAD_RECORD error naming the field; a
 * record of the right shape whose strings hold markup is drawn escaped, and in headless Chromium the
 * page neither navigates, nor requests anything, nor runs a script.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderBenchReport, renderTrainingReport } from '../../src/index.js';
import { chromiumMissing, launchChromium } from '../support/browser.js';

const INJECT = '<meta http-equiv="refresh" content="0;url=http://example.invalid/"><img src="http://example.invalid/x.png" onerror="window.hacked=1"><script>window.hacked=1</script>';

function trainingRecord(overrides: Record<string, unknown> = {}) {
  const history = [1, 2, 3].map((step) => ({ step, epoch: 1, loss: step === 3 ? NaN : 1 / step, lossScale: 65536, skipped: step === 2, ms: 1.5 }));
  return {
    graph: `graph${INJECT}`,
    data: INJECT,
    batch: 8,
    lr: 0.01,
    machine: INJECT,
    date: INJECT,
    results: [
      { variant: `amp${INJECT}`, scaled: true, result: { provider: 'cpu', history, epochs: [{ epoch: 1, meanLoss: 0.5, testAccuracy: 0.9, msPerStep: 1.5, steps: 3, skippedSteps: 1, lossScale: 65536 }], firstNonFinite: { step: 3, node: INJECT, op: INJECT, output: INJECT } } },
      { variant: 'fp16', failed: INJECT },
    ],
    ...overrides,
  };
}

function benchRecord(overrides: Record<string, unknown> = {}) {
  return {
    model: INJECT,
    date: INJECT,
    machine: INJECT,
    provider: INJECT,
    device: { name: INJECT, computeCapability: 9 },
    cpuOnly: false,
    method: INJECT,
    target: INJECT,
    batch: 1,
    runs: 5,
    warmup: 1,
    variants: [{ label: `amp${INJECT}`, provider: INJECT, tf32: null, medianMs: 1, p90Ms: 2, itemsPerSecond: 3, rssGrowthMiB: 4, gpuMemoryGrowthMiB: null, timesMs: [1, 2, 3] }],
    accuracyByVariant: { [INJECT]: [{ name: INJECT, maxAbsError: 0.1, maxRelError: 0.2, pass: false }] },
    speedups: { [INJECT]: 1.5 },
    batchSearch: { [INJECT]: { largest: 4, reachedLimit: false, trials: [{ batch: 2, fits: true, itemsPerSecond: 10 }, { batch: 8, fits: false }] } },
    ...overrides,
  };
}

const failure = (render: () => string) => {
  try {
    render();
  } catch (error) {
    return { code: (error as { code?: string }).code, message: (error as Error).message };
  }
  return undefined;
};

describe("bench's variant table", () => {
  it('one meaning on every row: the median time over fp32\'s (1.00x on fp32\'s own row)', () => {
    const record = benchRecord({
      variants: [
        { label: 'fp32', provider: 'cpu', tf32: null, medianMs: 2, p90Ms: 3, itemsPerSecond: 1, rssGrowthMiB: 1, gpuMemoryGrowthMiB: null },
        { label: 'amp', provider: 'cpu', tf32: null, medianMs: 1, p90Ms: 2, itemsPerSecond: 2, rssGrowthMiB: 1, gpuMemoryGrowthMiB: null },
        { label: 'fp16', provider: 'cpu', tf32: null, medianMs: 0.5, p90Ms: 1, itemsPerSecond: 4, rssGrowthMiB: 1, gpuMemoryGrowthMiB: null },
      ],
      speedups: { fp32: 2, fp16: 0.5 },
    });
    const table = /<table id="variant-table">[\s\S]*?<\/table>/.exec(renderBenchReport(record as never))?.[0] ?? '';
    expect(table).toContain('median time / fp32');
    const lastCells = [...table.matchAll(/<tr>(?:<td[^>]*>[^<]*<\/td>)*<td[^>]*>([^<]*)<\/td><\/tr>/g)].map((m) => m[1]);
    expect(lastCells).toEqual(['1.00x', '0.50x', '0.25x']);
  });
});

describe('the page renderers check the record they are given', () => {
  it.each([
    ['batch', '<meta http-equiv="refresh" content="0;url=http://example.invalid/">', /^renderTrainingReport: the training record: batch: expected a number, got a string$/],
    ['lr', { valueOf: 1 }, /lr: expected a number, got an object/],
    ['results', 'x', /results: expected a list, got a string/],
  ])('training: %s of the wrong type is BAD_RECORD naming the field', (field, value, message) => {
    const got = failure(() => renderTrainingReport(trainingRecord({ [field]: value }) as never));
    expect(got?.code).toBe('BAD_RECORD');
    expect(got?.message).toMatch(message);
  });

  it('training: a step of the wrong type deep in a variant is named by its path', () => {
    const record = trainingRecord();
    (record.results[0] as { result: { history: Array<Record<string, unknown>> } }).result.history[1]!.step = '2"><script>';
    expect(failure(() => renderTrainingReport(record as never))).toEqual({ code: 'BAD_RECORD', message: 'renderTrainingReport: the training record: results[0].result.history[1].step: expected a number, got a string' });
  });

  it('a missing field or no record at all is named as such', () => {
    expect(failure(() => renderBenchReport({} as never))?.message).toBe('renderBenchReport: the bench record: model: expected a string, got nothing (the field is missing)');
    expect(failure(() => renderTrainingReport(null as never))?.message).toBe('renderTrainingReport: the training record: (top level): expected an object, got null');
  });

  it.each([['runs'], ['warmup'], ['batch']])('bench: %s as a string is BAD_RECORD naming it', (field) => {
    const got = failure(() => renderBenchReport(benchRecord({ [field]: '<meta http-equiv="refresh" content="0">' }) as never));
    expect(got).toEqual({ code: 'BAD_RECORD', message: `renderBenchReport: the bench record: ${field}: expected a number, got a string` });
  });

  it('records of the right shape draw, every string escaped', () => {
    for (const html of [renderTrainingReport(trainingRecord() as never), renderBenchReport(benchRecord() as never)]) {
      expect(html).not.toContain('<meta http-equiv="refresh"');
      expect(html).not.toContain('<img src="http://example.invalid');
      expect(html).not.toContain('<script>window.hacked');
      expect(html).toContain('&lt;meta http-equiv=');
    }
  });
});

const missing = chromiumMissing();
describe.skipIf(missing !== undefined)('hostile records in headless Chromium', () => {
  it('the pages stay where they are, fetch nothing and run nothing', async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'amp-hostile-records-'));
    const { context, close } = await launchChromium({ width: 1000, height: 800 });
    try {
      for (const [name, html] of [['train.html', renderTrainingReport(trainingRecord() as never)], ['bench.html', renderBenchReport(benchRecord() as never)]] as const) {
        const file = path.join(work, name);
        writeFileSync(file, html);
        const page = await context.newPage();
        const requests: string[] = [];
        page.on('request', (request) => {
          if (request.url() !== `file://${file}`) requests.push(request.url());
        });
        await page.goto(`file://${file}`);
        await page.waitForTimeout(300);
        expect(page.url(), name).toBe(`file://${file}`);
        expect(requests, name).toEqual([]);
        expect(await page.evaluate(() => (window as unknown as { hacked?: number }).hacked), name).toBeUndefined();
        expect(await page.locator('meta[http-equiv]').count(), name).toBe(await page.locator('head meta[http-equiv="Content-Security-Policy"]').count());
        await page.close();
      }
    } finally {
      await close();
    }
  }, 60_000);
});
