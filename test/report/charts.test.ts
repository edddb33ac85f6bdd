/**
 * The SVG charts of the training and bench reports: axes a reader can read, lines that break at
 * NaN instead of leaving the chart, marks where steps were skipped or values died, and every
 * model- or run-supplied string escaped.
 */
import { describe, expect, it } from 'vitest';
import { extent, formatTick, logScale, niceTicks, wantsLogScale } from '../../src/report/charts/scale.js';
import { barChart, distributionChart, lineChart, variantColors } from '../../src/report/charts/svg.js';

const polylines = (svg: string): string[] => [...svg.matchAll(/<polyline [^>]*points="([^"]+)"/g)].map((m) => m[1] as string);

describe('chart scales', () => {
  it('ticks at round steps, log only where values are positive and span two decades', () => {
    expect(niceTicks(0, 1, 5)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(3, 97, 5)).toEqual([20, 40, 60, 80]);
    expect(wantsLogScale([2.3, 0.01])).toBe(true);
    expect(wantsLogScale([2.3, 0.5])).toBe(false);
    expect(wantsLogScale([2.3, -0.01, 0.001])).toBe(false);
    expect(wantsLogScale([NaN, 5, 0.01])).toBe(true);
    expect(logScale([0.01, 3], [0, 100]).ticks).toEqual([0.01, 0.1, 1, 10]);
    expect(extent([NaN, 2, Infinity, 5])).toEqual([2, 5]);
    expect(formatTick(0.2)).toBe('0.2');
    expect(formatTick(1e-5)).toBe('1e-5');
  });
});

describe('lineChart', () => {
  it('breaks a line at a non-finite value and marks where it died', () => {
    const svg = lineChart({
      id: 'loss',
      title: 'loss',
      xLabel: 'step',
      yLabel: 'loss',
      series: [
        { label: 'fp32', color: '#111', points: [[1, 2], [2, 1.5], [3, 1], [4, 0.8]] },
        { label: 'fp16', color: '#222', points: [[1, 2], [2, 1.6], [3, NaN], [4, NaN]], marks: [{ x: 3, y: NaN, kind: 'nonfinite', title: 'died at step 3' }], note: 'loss NaN from step 3' },
        { label: 'amp', color: '#333', points: [[1, 2], [2, NaN], [3, 1.1], [4, 0.9]], marks: [{ x: 2, y: NaN, kind: 'skip', title: 'step 2 skipped' }] },
      ],
    });
    const lines = polylines(svg);
    // fp32: one line of 4 points; fp16: one of 2 (then nothing); amp: a dot at step 1 and a line of 2 after the gap.
    expect(lines.map((l) => l.split(' ').length)).toEqual([4, 2, 2]);
    expect(svg.match(/<circle /g)?.length).toBe(1);
    expect(svg).toContain('class="mark-nonfinite"');
    expect(svg).toContain('<title>died at step 3</title>');
    expect(svg.match(/class="mark-skip"/g)?.length).toBe(1);
    expect(svg).toContain('fp16: loss NaN from step 3');
    expect(svg).not.toMatch(/NaN[,"]/);
  });

  it('draws the loss scale on powers of two, exactly', () => {
    const svg = lineChart({ id: 's', title: 'scale', xLabel: 'step', yLabel: 'loss scale', powersOfTwo: true, series: [{ label: 'amp', color: '#000', points: [[1, 2 ** 20], [2, 2 ** 19], [3, 2 ** 16]] }] });
    const ticks = [...svg.matchAll(/text-anchor="end"[^>]*>([^<]+)</g)].map((m) => m[1]);
    // One notation for the whole axis (65536 at the bottom and 2^17 above it read as two scales).
    expect(ticks).toEqual(['2^16', '2^17', '2^18', '2^19', '2^20']);
    expect(svg).toContain('(log scale)');
  });

  it('escapes every label and title it is given', () => {
    const svg = lineChart({
      id: 'x"><script>',
      title: '<img src=x onerror=alert(1)>',
      xLabel: 'step',
      yLabel: 'loss',
      series: [{ label: '</svg><script>alert(1)</script>', color: '#000', points: [[1, 1], [2, 2]], marks: [{ x: 1, y: 1, kind: 'skip', title: "node 'a&b'<x>" }] }],
    });
    expect(svg).not.toMatch(/<script|<img|<\/svg><|<x>/);
    expect(svg).toContain('&lt;/svg&gt;&lt;script&gt;');
    expect(svg).toContain('node &#39;a&amp;b&#39;&lt;x&gt;');
  });

  it('keeps only whole-number ticks on an integer axis', () => {
    const svg = lineChart({ id: 'a', title: 'acc', xLabel: 'epoch', yLabel: '%', integerX: true, series: [{ label: 'fp32', color: '#000', points: [[1, 90]], dots: true }] });
    const xTicks = [...svg.matchAll(/text-anchor="middle" [^>]*fill="#555">([^<]+)</g)].map((m) => m[1]);
    expect(xTicks).toEqual(['1']);
  });
});

describe('distributionChart and barChart', () => {
  it('puts the median bar at the median of the runs, and every run as a dot', () => {
    const values = [5, 1, 3, 2, 4];
    const svg = distributionChart({ id: 'lat', title: 'latency', unit: 'ms', groups: [{ label: 'amp', color: '#0a0', values }, { label: 'fp16', color: '#a00', values: [] }] });
    expect(svg.match(/class="run"/g)?.length).toBe(5);
    expect(svg).toContain('amp: median 3 ms, p90 4.6, min 1, max 5, 5 runs');
    expect(svg).toContain('no runs');
    const median = Number(/class="median" x1="([\d.]+)"/.exec(svg)?.[1]);
    const min = Number(/<line x1="([\d.]+)" x2="[\d.]+" y1="[\d.]+" y2="[\d.]+" stroke="#0a0"\/>/.exec(svg)?.[1]);
    expect(median).toBeGreaterThan(min);
  });

  it('shows an unmeasured value as such, never as a zero bar', () => {
    const svg = barChart({ id: 'mem', title: 'memory', unit: 'MiB', bars: [{ label: 'fp32', color: '#000', value: 12 }, { label: 'amp', color: '#0a0', value: null, note: 'not measured (no nvidia-smi)' }] });
    expect(svg.match(/<rect /g)?.length).toBe(1);
    expect(svg).toContain('not measured (no nvidia-smi)');
  });

  it('gives each variant the same color on every chart, and a new one to a scaling switch', () => {
    const colors = variantColors(['fp32', 'amp', 'amp:unscaled', 'fp16', 'custom']);
    expect(colors.get('fp32')).toBe('#1f77b4');
    expect(colors.get('amp')).toBe('#2ca02c');
    expect(colors.get('amp:unscaled')).not.toBe(colors.get('amp'));
    expect(new Set(colors.values()).size).toBe(5);
  });
});

describe('charts that tell the truth at a glance', () => {
  const ticksOf = (svg: string) => [...svg.matchAll(/<text [^>]*text-anchor="end"[^>]*>([^<]+)<\/text>/g)].map((m) => m[1] as string);
  it('coinciding curves stay visible: each series after the first is dashed, and its legend shows the dash', () => {
    const points = [[1, 2], [2, 1], [3, 0.5]] as const;
    const svg = lineChart({ id: 'loss', title: 'loss', xLabel: 'step', yLabel: 'loss', series: [{ label: 'fp32', color: '#111', points: [...points] }, { label: 'amp', color: '#222', points: [...points] }] });
    const dashes = [...svg.matchAll(/<polyline [^>]*>/g)].map((m) => /stroke-dasharray="([^"]+)"/.exec(m[0])?.[1]);
    expect(dashes[0]).toBeUndefined();
    expect(dashes[1]).toMatch(/^\d/);
    expect(svg).toMatch(/<g class="legend">.*stroke-dasharray/);
  });

  it('a loss scale that never moved is drawn across the middle, its axis in one notation', () => {
    const svg = lineChart({ id: 'scale', title: 'scale', xLabel: 'step', yLabel: 'loss scale', powersOfTwo: true, series: [{ label: 'amp', color: '#111', points: [[1, 65536], [2, 65536], [3, 65536]] }] });
    const ticks = ticksOf(svg);
    expect(ticks.every((t) => /^2\^\d+$/.test(t)) || ticks.every((t) => /^\d+$/.test(t)), ticks.join(' ')).toBe(true);
    const y = Number(/<polyline [^>]*points="[\d.]+,([\d.]+)/.exec(svg)?.[1]);
    const [top, bottom] = [30, 300 - 40];
    expect(y).toBeGreaterThan(top + 40);
    expect(y).toBeLessThan(bottom - 40);
    const mixed = ticksOf(lineChart({ id: 's', title: 's', xLabel: 'step', yLabel: 'scale', powersOfTwo: true, series: [{ label: 'amp', color: '#111', points: [[1, 2 ** 17], [2, 2 ** 14], [3, 2 ** 15]] }] }));
    expect(mixed.every((t) => /^2\^\d+$/.test(t)), mixed.join(' ')).toBe(true);
  });

  it('an accuracy axis spans at least minSpan points within its bounds: a 0.05-point gap does not fill the chart', () => {
    const svg = lineChart({ id: 'acc', title: 'acc', xLabel: 'epoch', yLabel: 'accuracy %', yScale: 'linear', minSpan: 5, yBounds: [0, 100], series: [{ label: 'fp32', color: '#111', points: [[1, 89.8], [2, 89.85]] }, { label: 'amp', color: '#222', points: [[1, 89.82], [2, 89.84]] }] });
    const ticks = ticksOf(svg).map(Number);
    expect(Math.max(...ticks) - Math.min(...ticks)).toBeGreaterThanOrEqual(4);
    const high = ticksOf(lineChart({ id: 'acc', title: 'acc', xLabel: 'epoch', yLabel: '%', yScale: 'linear', minSpan: 5, yBounds: [0, 100], series: [{ label: 'a', color: '#111', points: [[1, 99.9], [2, 99.95]] }] })).map(Number);
    expect(Math.max(...high)).toBeLessThanOrEqual(100);
  });
});
