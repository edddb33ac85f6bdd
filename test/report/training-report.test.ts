/**
 * The training report from real runs (ONNX Runtime's CPU provider, MNIST): an fp32 graph, pure
 * fp16 that dies on step 1 (RMSprop's epsilon rounds to 0 in float16), and an AMP graph whose
 * loss scale starts far too high, so it skips steps and halves the scale. The page must draw a
 * curve per variant, a mark per skipped step, name where fp16 died, and hold no script.
 */
import { describe, expect, it } from 'vitest';
import { buildMlpTrainingStep, withInitialState } from '../../src/builder/recipes/training.js';
import { DataType } from '../../src/onnx/data-types.js';
import { DEFAULT_DYNAMIC_SCALE } from '../../src/passes/loss-scaling.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { purePrecision } from '../../src/passes/pure-precision.js';
import { renderTrainingReport } from '../../src/report/training-report.js';
import { loadMnist } from '../../src/runtime/mnist.js';
import { train } from '../../src/runtime/train.js';
import type { TrainingRecord } from '../../src/runtime/training-record.js';

const mlp = () => withInitialState(buildMlpTrainingStep({ inputSize: 784, hidden: 16, hiddenLayers: 1, classes: 10, batch: 'batch', optimizer: 'rmsprop', seed: 1 }));

describe('renderTrainingReport on real runs', () => {
  it('draws every variant, marks each skipped step, and names where pure fp16 died', async () => {
    const data = loadMnist({ seed: 0 });
    const options = { epochs: 2, batch: 32, lr: 1e-3, providers: ['cpu' as const], maxSteps: 6, seed: 0 };
    const highScale = { ...DEFAULT_DYNAMIC_SCALE, initial: 2 ** 40, max: 2 ** 40 };
    const fp32 = await train(mlp(), data, options);
    const fp16 = await train(purePrecision(mlp(), DataType.FLOAT16), data, options);
    const amp = await train(rewriteModel(mlp(), { training: 'on', lossScale: highScale }).model, data, options);
    const record: TrainingRecord = {
      graph: 'mlp <test>.onnx',
      data: 'mnist',
      batch: 32,
      lr: 1e-3,
      machine: 'test machine',
      date: '2026-11-28T00:00:00.000Z',
      results: [
        { variant: 'fp32', scaled: false, result: fp32 },
        { variant: 'fp16', scaled: false, result: fp16 },
        { variant: 'amp', scaled: true, result: amp },
        { variant: 'amp-bf16', scaled: false, failed: 'no bfloat16 Relu on the CPU provider' },
      ],
    };
    // What the runs did, before what the page says about them.
    expect(fp32.history).toHaveLength(12);
    expect(fp32.history.every((s) => Number.isFinite(s.loss) && !s.skipped)).toBe(true);
    expect(fp16.firstNonFinite?.step).toBe(1);
    const skipped = amp.history.filter((s) => s.skipped);
    expect(skipped.length).toBeGreaterThan(3);
    expect(amp.history[1]!.lossScale).toBe(2 ** 39);

    const html = renderTrainingReport(record);
    // Offline and inert: a CSP that allows no script, and none in the page.
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
    expect(html).not.toMatch(/<script|\b(?:src|href)=/);
    expect(html).toContain('mlp &lt;test&gt;.onnx');
    const lossChart = /<svg id="loss-chart"[\s\S]*?<\/svg>/.exec(html)?.[0] ?? '';
    expect([...lossChart.matchAll(/<g class="series" data-variant="([^"]+)"/g)].map((m) => m[1])).toEqual(['fp32', 'fp16', 'amp']);
    expect(lossChart.match(/class="mark-skip"/g)?.length).toBe(skipped.length);
    expect(lossChart).toContain(`fp16: ${'first non-finite value at step 1'}`);
    expect(lossChart).toMatch(/fp16: loss NaN from step \d/);
    const scaleChart = /<svg id="loss-scale-chart"[\s\S]*?<\/svg>/.exec(html)?.[0] ?? '';
    expect([...scaleChart.matchAll(/<g class="series" data-variant="([^"]+)"/g)].map((m) => m[1])).toEqual(['amp']);
    expect(scaleChart.match(/class="mark-skip"/g)?.length).toBe(skipped.length);
    expect(scaleChart).toContain(`amp: ${skipped.length} skipped`);
    expect(html).toContain('amp-bf16: could not run: no bfloat16 Relu on the CPU provider');
    expect(html).toMatch(/<td>fp16<\/td><td>cpu<\/td><td>none<\/td><td class="fail">NaN<\/td>/);
    expect(html).toContain('id="numerics-note"');
    // The same record read back from JSON (NaN written as null) draws the same page.
    expect(renderTrainingReport(JSON.parse(JSON.stringify(record)))).toBe(html);
  });
});
