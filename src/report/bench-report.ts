/**
 * `bench --report bench.html`: what bench measured, as charts. The latency of every timed run per
 * variant (fp32, on CUDA fp32 with TF32, amp, and pure fp16 when timed), memory growth, the batch
 * search, the accuracy of each variant against full fp32, the machine and provider, and the
 * numerics the figures came from: a CPU run is labelled as not GPU evidence.
 */
import type { BatchSearchResult } from '../runtime/batch-search.js';
import type { OutputComparison } from '../runtime/compare.js';
import type { MeasuredVariant } from '../runtime/variant-bench.js';

/** One timed variant as the page reads it (runtime/variant-bench.ts MeasuredVariant, declared here without ONNX Runtime's types). */
export interface BenchedVariant {
  label: string;
  provider: string;
  tf32: boolean | null;
  medianMs: number;
  p90Ms: number;
  itemsPerSecond: number;
  rssGrowthMiB: number;
  gpuMemoryGrowthMiB: number | null;
  /** Every timed run, in milliseconds (absent in records written before bench kept them). */
  timesMs?: readonly number[];
}

/** One output's accuracy against full fp32, as the page reads it (runtime/compare.ts OutputComparison). */
export interface BenchedAccuracy {
  name: string;
  maxAbsError: number;
  maxRelError: number;
  pass: boolean;
}

/** The batch search of one model (runtime/batch-search.ts BatchSearchResult). */
export interface BenchedBatchSearch {
  largest: number | null;
  reachedLimit: boolean;
  trials: ReadonlyArray<{ batch: number; fits: boolean; itemsPerSecond?: number | undefined }>;
}

// The runtime's records must stay readable as the page's types.
type Readable<Actual, Page> = Actual extends Page ? true : false;
const readable: [Readable<MeasuredVariant, BenchedVariant>, Readable<OutputComparison, BenchedAccuracy>, Readable<BatchSearchResult, BenchedBatchSearch>] = [true, true, true];
void readable;
import { barChart, distributionChart, lineChart, variantColors, type Mark, type Series } from './charts/svg.js';
import { escapeHtml, htmlTable, reportPage } from './report-page.js';
import { BENCH_REPORT_SHAPE, requireRecordShape } from './record-shapes.js';

/** What bench records (its --out JSON): the fields the page draws. */
export interface BenchReportInput {
  model: string;
  date: string;
  machine: string;
  provider?: string | undefined;
  device: { name: string; computeCapability: number } | null;
  cpuOnly: boolean;
  method: string;
  target: string;
  batch: number;
  runs: number;
  warmup: number;
  variants: readonly BenchedVariant[];
  accuracyByVariant: Readonly<Record<string, readonly BenchedAccuracy[]>>;
  speedups: Readonly<Record<string, number>>;
  batchSearch?: Readonly<Record<string, BenchedBatchSearch>>;
}

const fixed = (value: number | null | undefined, digits: number): string => (typeof value === 'number' && Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

const deviceText = (device: { name: string; computeCapability: number }): string => `${device.name}, compute capability ${device.computeCapability}`;

function numericsNote(record: BenchReportInput): string {
  if (record.cpuOnly) {
    return `<p class="warning" id="numerics-note">Measured on ONNX Runtime's CPU provider: its float16 kernels compute in float32 internally and many ops run through Casts to float32, so these timings and accuracies are <b>not GPU evidence</b>. Run bench with --ep cuda on a GPU for the figures AMP is for.</p>`;
  }
  return `<p class="meta" id="numerics-note">Measured on the ${escapeHtml(record.provider ?? '?')} provider${record.device ? ` (${escapeHtml(deviceText(record.device))})` : ''}: its own float16 kernels, the numerics AMP runs with.</p>`;
}

function variantTable(record: BenchReportInput): string {
  const rows = record.variants.map((v) => [
    v.label,
    v.provider,
    v.tf32 === null ? 'n/a' : v.tf32 ? 'on' : 'off',
    fixed(v.medianMs, 3),
    fixed(v.p90Ms, 3),
    fixed(v.itemsPerSecond, 1),
    fixed(v.rssGrowthMiB, 1),
    fixed(v.gpuMemoryGrowthMiB, 0),
    timeAgainstFp32(record, v),
  ]);
  return htmlTable(['variant', 'provider', 'TF32', 'median ms', 'p90 ms', 'items/s', 'RSS growth MiB', 'GPU memory MiB', 'median time / fp32'], rows, 'variant-table');
}

/**
 * One meaning on every row: this variant's median time over fp32's (0.50x: twice as fast as fp32;
 * 1.00x on fp32's own row). The record's `speedups` (amp's speed-up over each variant) are kept in the JSON.
 */
function timeAgainstFp32(record: BenchReportInput, variant: BenchedVariant): string {
  const fp32 = record.variants.find((v) => v.label === 'fp32')?.medianMs;
  if (typeof fp32 !== 'number' || !(fp32 > 0) || typeof variant.medianMs !== 'number' || !Number.isFinite(variant.medianMs)) return 'n/a';
  return `${fixed(variant.medianMs / fp32, 2)}x`;
}

function accuracyTable(record: BenchReportInput): string {
  const rows = Object.entries(record.accuracyByVariant).flatMap(([label, outputs]) =>
    outputs.map((o) => [label, o.name, fixed(o.maxAbsError, 6), fixed(o.maxRelError, 6), { text: o.pass ? 'PASS' : 'FAIL', fail: !o.pass }]),
  );
  return htmlTable(['variant', 'output', 'max abs error', 'max rel error', 'against fp32'], rows, 'accuracy-table');
}

function batchSearchChart(search: Readonly<Record<string, BenchedBatchSearch>>, colors: Map<string, string>): string {
  const series: Series[] = Object.entries(search).map(([label, result]) => ({
    label,
    color: colors.get(label) as string,
    points: result.trials.filter((t) => t.fits).sort((a, b) => a.batch - b.batch).map((t) => [t.batch, t.itemsPerSecond ?? NaN] as const),
    dots: true,
    marks: result.trials.filter((t) => !t.fits).map((t): Mark => ({ x: t.batch, y: NaN, kind: 'nonfinite', title: `${label}: batch ${t.batch} did not fit (out of memory)` })),
    note: result.largest === null ? 'no batch fit' : `largest ${result.largest}${result.reachedLimit ? ' (limit reached)' : ''}`,
  }));
  return lineChart({ id: 'batch-chart', title: 'throughput by batch (✕ out of memory)', xLabel: 'batch', yLabel: 'items/s', series, yScale: 'linear', integerX: true });
}

export function renderBenchReport(record: BenchReportInput): string {
  requireRecordShape(record, BENCH_REPORT_SHAPE, 'renderBenchReport: the bench record');
  const labels = [...new Set([...record.variants.map((v) => v.label), ...Object.keys(record.batchSearch ?? {})])];
  const colors = variantColors(labels);
  const parts = [
    `<p class="meta">model ${escapeHtml(record.model)} · batch ${escapeHtml(String(record.batch))} · ${escapeHtml(String(record.runs))} timed runs after ${escapeHtml(String(record.warmup))} warm-up · target ${escapeHtml(record.target)}</p>`,
    `<p class="meta" id="machine">${escapeHtml(record.machine)} · provider ${escapeHtml(record.provider ?? '?')}${record.device ? ` · ${escapeHtml(deviceText(record.device))}` : ''} · ${escapeHtml(record.date)}</p>`,
    `<p class="meta">${escapeHtml(record.method)}</p>`,
    numericsNote(record),
    '<h2>Latency</h2>',
    distributionChart({
      id: 'latency-chart',
      title: 'latency of every timed run (box: 25th-75th percentile, bar: median, dashed: p90)',
      unit: 'ms per run',
      groups: record.variants.map((v) => ({ label: v.label, color: colors.get(v.label) as string, values: v.timesMs ?? [] })),
    }),
    variantTable(record),
    '<h2>Memory</h2>',
    barChart({
      id: 'memory-chart',
      title: record.cpuOnly ? 'process memory growth while the session loaded and ran once' : 'GPU memory growth while the session loaded and ran once',
      unit: 'MiB',
      bars: record.variants.map((v) => ({
        label: v.label,
        color: colors.get(v.label) as string,
        value: record.cpuOnly ? v.rssGrowthMiB : v.gpuMemoryGrowthMiB,
        ...(record.cpuOnly || v.gpuMemoryGrowthMiB !== null ? {} : { note: 'not measured (no nvidia-smi)' }),
      })),
    }),
    '<h2>Accuracy against full fp32</h2>',
    accuracyTable(record),
  ];
  if (record.batchSearch) {
    parts.push('<h2>Largest batch</h2>', batchSearchChart(record.batchSearch, colors));
    const { fp32, amp } = record.batchSearch;
    if (fp32?.largest && amp?.largest) parts.push(`<p class="meta" id="batch-ratio">amp fits ${(amp.largest / fp32.largest).toFixed(2)}x the fp32 batch.</p>`);
  }
  return reportPage(`amp-rewrite bench: ${record.model}`, parts.join('\n'));
}
