/**
 * Charts as plain SVG strings, drawn here and inlined in the report pages: no script, no
 * library, nothing fetched, so a page works from file:// under a CSP that allows no script at all.
 * Hover text is SVG <title>. Every string that came from a model or a run is escaped.
 */
import { extent, formatTick, linearScale, logScale, wantsLogScale, type Scale } from './scale.js';

export const escapeXml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** Pixel coordinates with one decimal: enough for a screen, and the same text on every run. */
const px = (v: number): string => (Math.round(v * 10) / 10).toString();

export interface Mark {
  x: number;
  y: number;
  /** skip: a step the loss-scaled graph skipped; nonfinite: where a variant's values stopped being finite. */
  kind: 'skip' | 'nonfinite';
  title: string;
}

export interface Series {
  label: string;
  color: string;
  /** Non-finite y values break the line. */
  points: ReadonlyArray<readonly [number, number]>;
  marks?: readonly Mark[];
  /** Draw a dot at each point (few points: per-epoch values). */
  dots?: boolean;
  /** Shown after the legend entry (e.g. "NaN from step 1"). */
  note?: string;
}

export interface LineChartSpec {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly Series[];
  /** auto: log when every value is positive and they span two decades or more. */
  yScale?: 'linear' | 'log' | 'auto';
  /** Base-2 ticks for values that move by halving and doubling (the loss scale). */
  powersOfTwo?: boolean;
  /** Only whole-number ticks on the x axis (epochs, batch sizes). */
  integerX?: boolean;
  /**
   * The least span of a linear y axis, centred on the data and kept within `yBounds`: a 0.05-point
   * accuracy gap drawn over 5 points reads as the noise it is, not as a chasm.
   */
  minSpan?: number;
  yBounds?: readonly [number, number];
  width?: number;
  height?: number;
}

const MARGIN = { left: 64, right: 16, top: 30, bottom: 40 };
const FONT = 'font-family="system-ui, sans-serif" font-size="11"';

function frame(id: string, title: string, width: number, height: number, body: string[]): string {
  return [
    `<svg id="${escapeXml(id)}" class="chart" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(title)}">`,
    `<text x="${MARGIN.left}" y="18" ${FONT} font-size="13" font-weight="600">${escapeXml(title)}</text>`,
    ...body,
    '</svg>',
  ].join('\n');
}

function yAxis(scale: Scale, x0: number, x1: number, label: string, height: number, format: (v: number) => string): string[] {
  const out: string[] = [];
  for (const tick of scale.ticks) {
    const y = scale.map(tick);
    out.push(`<line x1="${x0}" x2="${x1}" y1="${px(y)}" y2="${px(y)}" stroke="#e3e3e3"/>`);
    out.push(`<text x="${x0 - 4}" y="${px(y + 3.5)}" text-anchor="end" ${FONT} fill="#555">${escapeXml(format(tick))}</text>`);
  }
  out.push(`<text transform="translate(12 ${px(height / 2)}) rotate(-90)" text-anchor="middle" ${FONT} fill="#333">${escapeXml(label)}${scale.log ? ' (log scale)' : ''}</text>`);
  return out;
}

function xAxis(scale: Scale, y: number, label: string, width: number): string[] {
  const out = [`<line x1="${MARGIN.left}" x2="${width - MARGIN.right}" y1="${y}" y2="${y}" stroke="#999"/>`];
  for (const tick of scale.ticks) {
    const x = scale.map(tick);
    out.push(`<line x1="${px(x)}" x2="${px(x)}" y1="${y}" y2="${y + 4}" stroke="#999"/>`);
    out.push(`<text x="${px(x)}" y="${y + 15}" text-anchor="middle" ${FONT} fill="#555">${escapeXml(formatTick(tick))}</text>`);
  }
  out.push(`<text x="${px((MARGIN.left + width - MARGIN.right) / 2)}" y="${y + 32}" text-anchor="middle" ${FONT} fill="#333">${escapeXml(label)}</text>`);
  return out;
}

/** Runs of consecutive finite points: a NaN or inf breaks the line rather than dragging it off the chart. */
function finiteRuns(points: ReadonlyArray<readonly [number, number]>, log: boolean): Array<Array<readonly [number, number]>> {
  const runs: Array<Array<readonly [number, number]>> = [];
  let current: Array<readonly [number, number]> = [];
  for (const point of points) {
    const ok = Number.isFinite(point[1]) && (!log || point[1] > 0);
    if (ok) current.push(point);
    else if (current.length) {
      runs.push(current);
      current = [];
    }
  }
  if (current.length) runs.push(current);
  return runs;
}

/**
 * Ticks of powers of two in one notation for the whole axis: 2^e on every tick when any is past
 * 2^16 (a scale labelled 2^17 at the top and 65536 at the bottom read as two axes), else the numbers.
 */
const log2Ticks = (ticks: readonly number[]): ((v: number) => string) => {
  const exponents = ticks.map((v) => Math.round(Math.log2(v)));
  const asPowers = exponents.some((e) => e < 0 || e > 16);
  return (v) => (asPowers ? `2^${Math.round(Math.log2(v))}` : String(2 ** Math.round(Math.log2(v))));
};

/** Dash patterns by series: where two curves coincide (amp on fp32), the later one's dashes show the one under it. */
const DASHES = ['', '7,4', '2,3', '10,3,2,3', '4,2'];

/** [low, high] widened to `minSpan` about its middle, then moved inside `bounds`. */
function withMinSpan([low, high]: readonly [number, number], minSpan: number | undefined, bounds: readonly [number, number] | undefined): [number, number] {
  if (!minSpan || !(high - low < minSpan) || !Number.isFinite(low) || !Number.isFinite(high)) return [low, high];
  const middle = (low + high) / 2;
  let from = middle - minSpan / 2;
  let to = middle + minSpan / 2;
  if (bounds && from < bounds[0]) [from, to] = [bounds[0], bounds[0] + minSpan];
  if (bounds && to > bounds[1]) [from, to] = [Math.max(bounds[0], bounds[1] - minSpan), bounds[1]];
  return [from, to];
}

export function lineChart(spec: LineChartSpec): string {
  const width = spec.width ?? 720;
  const height = spec.height ?? 300;
  const plot = { x0: MARGIN.left, x1: width - MARGIN.right, y0: height - MARGIN.bottom, y1: MARGIN.top };
  const xs = spec.series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = spec.series.flatMap((s) => s.points.map((p) => p[1]));
  const log = spec.yScale === 'log' || (spec.yScale !== 'linear' && wantsLogScale(ys)) || Boolean(spec.powersOfTwo && ys.every((v) => !Number.isFinite(v) || v > 0));
  const xScale = linearScale(extent(xs), [plot.x0, plot.x1], 8);
  if (spec.integerX) xScale.ticks = xScale.ticks.filter(Number.isInteger);
  const positive = ys.filter((v) => Number.isFinite(v) && v > 0);
  let yScale: Scale;
  if (log && positive.length) {
    yScale = logScale([Math.min(...positive), Math.max(...positive)], [plot.y0, plot.y1]);
    if (spec.powersOfTwo) {
      let low = Math.floor(Math.log2(Math.min(...positive)));
      let high = Math.ceil(Math.log2(Math.max(...positive)));
      // A scale that never moved is drawn across the middle of the plot, not along its bottom edge.
      if (high - low < 2) [low, high] = [Math.min(low, high) - 1, Math.max(low, high) + 1];
      const every = Math.max(1, Math.ceil((high - low) / 8));
      const ticks: number[] = [];
      for (let e = low; e <= high; e += every) ticks.push(2 ** e);
      yScale = { map: (v) => plot.y0 + ((Math.log2(v) - low) / (high - low)) * (plot.y1 - plot.y0), ticks, log: true };
    }
  } else yScale = linearScale(withMinSpan(extent(ys), spec.minSpan, spec.yBounds), [plot.y0, plot.y1]);
  const body: string[] = [...yAxis(yScale, plot.x0, plot.x1, spec.yLabel, height, spec.powersOfTwo && yScale.log ? log2Ticks(yScale.ticks) : formatTick), ...xAxis(xScale, plot.y0, spec.xLabel, width)];
  const clampY = (y: number): number => Math.min(plot.y0, Math.max(plot.y1, y));
  for (const [index, series] of spec.series.entries()) {
    const label = escapeXml(series.label);
    const dash = DASHES[index % DASHES.length] ? ` stroke-dasharray="${DASHES[index % DASHES.length]}"` : '';
    body.push(`<g class="series" data-variant="${label}">`);
    for (const run of finiteRuns(series.points, yScale.log)) {
      const path = run.map(([x, y]) => `${px(xScale.map(x))},${px(clampY(yScale.map(y)))}`).join(' ');
      if (run.length === 1) {
        const [x, y] = run[0] as readonly [number, number];
        body.push(`<circle cx="${px(xScale.map(x))}" cy="${px(clampY(yScale.map(y)))}" r="2.5" fill="${series.color}"><title>${label}: ${escapeXml(formatTick(y))} at ${x}</title></circle>`);
      } else body.push(`<polyline fill="none" stroke="${series.color}" stroke-width="1.6"${dash} points="${path}"><title>${label}</title></polyline>`);
      if (series.dots && run.length > 1) {
        for (const [x, y] of run) body.push(`<circle cx="${px(xScale.map(x))}" cy="${px(clampY(yScale.map(y)))}" r="3" fill="${series.color}"><title>${label}: ${escapeXml(formatTick(y))} at ${x}</title></circle>`);
      }
    }
    for (const mark of series.marks ?? []) {
      const x = px(xScale.map(mark.x));
      // A mark whose value is not finite (or not on a log axis) sits on the top edge of the plot.
      const y = Number.isFinite(mark.y) && (!yScale.log || mark.y > 0) ? clampY(yScale.map(mark.y)) : plot.y1;
      if (mark.kind === 'skip') {
        body.push(`<path class="mark-skip" d="M${x},${px(y - 5)} l4,8 h-8 z" fill="#d62728" opacity="0.85"><title>${escapeXml(mark.title)}</title></path>`);
      } else {
        body.push(
          `<g class="mark-nonfinite"><path d="M${px(Number(x) - 5)},${px(y - 5)} l10,10 m0,-10 l-10,10" stroke="#d62728" stroke-width="2.2"/><title>${escapeXml(mark.title)}</title></g>`,
        );
      }
    }
    body.push('</g>');
  }
  body.push(legend(spec.series, plot.x0, height - 4, width));
  return frame(spec.id, spec.title, width, height + 14, body);
}

function legend(series: readonly Series[], x0: number, y: number, width: number): string {
  let x = x0;
  let row = y + 14;
  const parts: string[] = ['<g class="legend">'];
  for (const [index, s] of series.entries()) {
    const text = `${s.label}${s.note ? `: ${s.note}` : ''}`;
    const dash = DASHES[index % DASHES.length];
    const size = 22 + text.length * 6.2;
    if (x + size > width && x > x0) {
      x = x0;
      row += 14;
    }
    parts.push(`<line x1="${px(x)}" x2="${px(x + 14)}" y1="${row - 6}" y2="${row - 6}" stroke="${s.color}" stroke-width="2.5"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`);
    parts.push(`<text class="legend-entry" x="${px(x + 18)}" y="${row - 3}" ${FONT}${s.marks?.some((m) => m.kind === 'nonfinite') ? ' fill="#b00"' : ''}>${escapeXml(text)}</text>`);
    x += size + 14;
  }
  parts.push('</g>');
  return parts.join('');
}

export interface Distribution {
  label: string;
  color: string;
  /** Every measured value (the runs), in any order. */
  values: readonly number[];
}

export interface DistributionChartSpec {
  id: string;
  title: string;
  unit: string;
  groups: readonly Distribution[];
  width?: number;
}

const quantile = (sorted: readonly number[], q: number): number => {
  if (!sorted.length) return NaN;
  const at = q * (sorted.length - 1);
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return (sorted[low] as number) + ((sorted[high] as number) - (sorted[low] as number)) * (at - low);
};

/**
 * One row per group: a box from the 25th to the 75th percentile with the median, whiskers to the
 * minimum and maximum, a tick at the 90th percentile, and every run as a dot (spread vertically by
 * a fixed pattern, so the drawing is the same on every render).
 */
export function distributionChart(spec: DistributionChartSpec): string {
  const width = spec.width ?? 720;
  const rowHeight = 44;
  const left = 110;
  const height = MARGIN.top + spec.groups.length * rowHeight + MARGIN.bottom;
  const all = spec.groups.flatMap((g) => g.values).filter(Number.isFinite);
  // Latencies of fp32 and a slow float16 fallback can differ a hundredfold: a log axis keeps both readable.
  const log = wantsLogScale(all);
  const scale = log ? logScale(extent(all), [left, width - MARGIN.right]) : linearScale(extent(all, { includeZero: true }), [left, width - MARGIN.right], 8);
  const body: string[] = [];
  const axisY = MARGIN.top + spec.groups.length * rowHeight + 4;
  for (const tick of scale.ticks) {
    body.push(`<line x1="${px(scale.map(tick))}" x2="${px(scale.map(tick))}" y1="${MARGIN.top}" y2="${axisY}" stroke="#eee"/>`);
    body.push(`<text x="${px(scale.map(tick))}" y="${axisY + 14}" text-anchor="middle" ${FONT} fill="#555">${escapeXml(formatTick(tick))}</text>`);
  }
  body.push(`<text x="${px((left + width) / 2)}" y="${axisY + 30}" text-anchor="middle" ${FONT}>${escapeXml(spec.unit)}${log ? ' (log scale)' : ''}</text>`);
  spec.groups.forEach((group, row) => {
    const sorted = group.values.filter(Number.isFinite).slice().sort((a, b) => a - b);
    const mid = MARGIN.top + row * rowHeight + rowHeight / 2;
    const label = escapeXml(group.label);
    body.push(`<g class="distribution" data-variant="${label}">`);
    body.push(`<text x="${left - 8}" y="${px(mid + 4)}" text-anchor="end" ${FONT}>${label}</text>`);
    if (!sorted.length) {
      body.push(`<text x="${left}" y="${px(mid + 4)}" ${FONT} fill="#b00">no runs</text></g>`);
      return;
    }
    const [min, q1, median, q3, p90, max] = [0, 0.25, 0.5, 0.75, 0.9, 1].map((q) => scale.map(quantile(sorted, q))) as number[];
    const stats = `${group.label}: median ${formatTick(quantile(sorted, 0.5))} ${spec.unit}, p90 ${formatTick(quantile(sorted, 0.9))}, min ${formatTick(sorted[0] as number)}, max ${formatTick(sorted[sorted.length - 1] as number)}, ${sorted.length} runs`;
    body.push(`<line x1="${px(min!)}" x2="${px(max!)}" y1="${px(mid)}" y2="${px(mid)}" stroke="${group.color}"/>`);
    body.push(`<rect x="${px(q1!)}" y="${px(mid - 10)}" width="${px(Math.max(1, q3! - q1!))}" height="20" fill="${group.color}" fill-opacity="0.25" stroke="${group.color}"><title>${escapeXml(stats)}</title></rect>`);
    body.push(`<line class="median" x1="${px(median!)}" x2="${px(median!)}" y1="${px(mid - 10)}" y2="${px(mid + 10)}" stroke="${group.color}" stroke-width="2.5"/>`);
    body.push(`<line x1="${px(p90!)}" x2="${px(p90!)}" y1="${px(mid - 6)}" y2="${px(mid + 6)}" stroke="#333" stroke-dasharray="2,2"><title>p90</title></line>`);
    group.values.forEach((v, i) => {
      if (!Number.isFinite(v)) return;
      const jitter = ((i * 7) % 11) - 5;
      body.push(`<circle class="run" cx="${px(scale.map(v))}" cy="${px(mid + 14 + jitter * 0.5)}" r="1.6" fill="${group.color}" fill-opacity="0.7"/>`);
    });
    body.push('</g>');
  });
  return frame(spec.id, spec.title, width, height + 20, body);
}

export interface Bar {
  label: string;
  color: string;
  /** null: not measured (shown as such, never as zero). */
  value: number | null;
  note?: string;
}

export function barChart(spec: { id: string; title: string; unit: string; bars: readonly Bar[]; width?: number }): string {
  const width = spec.width ?? 720;
  const rowHeight = 28;
  const left = 150;
  const height = MARGIN.top + spec.bars.length * rowHeight + MARGIN.bottom;
  const values = spec.bars.map((b) => b.value).filter((v): v is number => v !== null && Number.isFinite(v));
  const scale = linearScale(extent(values, { includeZero: true }), [left, width - MARGIN.right - 60], 6);
  const body: string[] = [];
  const axisY = MARGIN.top + spec.bars.length * rowHeight + 2;
  for (const tick of scale.ticks) {
    body.push(`<line x1="${px(scale.map(tick))}" x2="${px(scale.map(tick))}" y1="${MARGIN.top}" y2="${axisY}" stroke="#eee"/>`);
    body.push(`<text x="${px(scale.map(tick))}" y="${axisY + 14}" text-anchor="middle" ${FONT} fill="#555">${escapeXml(formatTick(tick))}</text>`);
  }
  body.push(`<text x="${px((left + width) / 2)}" y="${axisY + 30}" text-anchor="middle" ${FONT}>${escapeXml(spec.unit)}</text>`);
  spec.bars.forEach((bar, row) => {
    const y = MARGIN.top + row * rowHeight + 4;
    const label = escapeXml(bar.label);
    body.push(`<g class="bar" data-variant="${label}"><text x="${left - 8}" y="${y + 14}" text-anchor="end" ${FONT}>${label}</text>`);
    if (bar.value === null || !Number.isFinite(bar.value)) {
      body.push(`<text x="${left + 4}" y="${y + 14}" ${FONT} fill="#777">${escapeXml(bar.note ?? 'not measured')}</text></g>`);
      return;
    }
    const zero = scale.map(0);
    const end = scale.map(bar.value);
    body.push(`<rect x="${px(Math.min(zero, end))}" y="${y}" width="${px(Math.max(1, Math.abs(end - zero)))}" height="18" fill="${bar.color}"><title>${label}: ${escapeXml(formatTick(bar.value))} ${escapeXml(spec.unit)}</title></rect>`);
    body.push(`<text x="${px(Math.max(zero, end) + 4)}" y="${y + 14}" ${FONT}>${escapeXml(formatTick(bar.value))}${bar.note ? ` ${escapeXml(bar.note)}` : ''}</text></g>`);
  });
  return frame(spec.id, spec.title, width, height + 20, body);
}

/** Colors by variant name, the same in every chart and page; others take the palette in order. */
const VARIANT_COLORS: Record<string, string> = {
  fp64: '#9467bd',
  fp32: '#1f77b4',
  'fp32+tf32': '#17becf',
  amp: '#2ca02c',
  'amp-bf16': '#8c564b',
  fp16: '#d62728',
  'as given': '#1f77b4',
};
const PALETTE = ['#ff7f0e', '#e377c2', '#7f7f7f', '#bcbd22', '#393b79', '#637939'];

export function variantColors(labels: readonly string[]): Map<string, string> {
  const colors = new Map<string, string>();
  let next = 0;
  for (const label of labels) {
    const base = label.split(':')[0] as string;
    const known = VARIANT_COLORS[label] ?? (label.endsWith(':unscaled') || label.endsWith(':scaled') ? undefined : VARIANT_COLORS[base]);
    colors.set(label, known ?? PALETTE[next++ % PALETTE.length] as string);
  }
  return colors;
}
