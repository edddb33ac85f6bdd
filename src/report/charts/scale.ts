/**
 * Axes for the report charts: a linear or logarithmic mapping from data to pixels, with tick
 * values a reader can read (1, 2, 5 steps; powers of ten on a log axis).
 */

export interface Scale {
  /** Data value to pixel offset along the axis. */
  map(value: number): number;
  ticks: number[];
  log: boolean;
}

/** Whether a log axis reads better: every value positive and the values span two decades or more. */
export function wantsLogScale(values: readonly number[]): boolean {
  const finite = values.filter((v) => Number.isFinite(v));
  if (!finite.length || finite.some((v) => v <= 0)) return false;
  return Math.max(...finite) / Math.min(...finite) >= 100;
}

/** About `count` round tick values covering [low, high] (steps of 1, 2 or 5 times a power of ten). */
export function niceTicks(low: number, high: number, count = 5): number[] {
  if (!(high > low)) return [low];
  const raw = (high - low) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const ticks: number[] = [];
  for (let v = Math.ceil(low / step) * step; v <= high + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/** Range [low, high] of the finite values, widened a little so no point sits on the frame. */
export function extent(values: readonly number[], options: { includeZero?: boolean } = {}): [number, number] {
  const finite = values.filter((v) => Number.isFinite(v));
  if (!finite.length) return [0, 1];
  let low = Math.min(...finite);
  let high = Math.max(...finite);
  if (options.includeZero) {
    low = Math.min(low, 0);
    high = Math.max(high, 0);
  }
  if (low === high) return low === 0 ? [0, 1] : [low - Math.abs(low) * 0.1, high + Math.abs(high) * 0.1];
  return [low, high];
}

export function linearScale(domain: [number, number], range: [number, number], tickCount = 5): Scale {
  const ticks = niceTicks(domain[0], domain[1], tickCount);
  const low = Math.min(domain[0], ticks[0] ?? domain[0]);
  const high = Math.max(domain[1], ticks[ticks.length - 1] ?? domain[1]);
  const span = high - low || 1;
  return { map: (v) => range[0] + ((v - low) / span) * (range[1] - range[0]), ticks, log: false };
}

/** A base-10 log axis over positive values, ticks at the powers of ten it spans (and 2x, 5x when it spans little). */
export function logScale(domain: [number, number], range: [number, number]): Scale {
  const low = Math.floor(Math.log10(domain[0]));
  const high = Math.ceil(Math.log10(domain[1]));
  const top = high === low ? high + 1 : high;
  const ticks: number[] = [];
  for (let e = low; e <= top; e++) {
    ticks.push(10 ** e);
    if (top - low <= 2 && e < top) ticks.push(2 * 10 ** e, 5 * 10 ** e);
  }
  const span = top - low;
  return { map: (v) => range[0] + ((Math.log10(v) - low) / span) * (range[1] - range[0]), ticks: ticks.sort((a, b) => a - b), log: true };
}

/** A tick label: short, and exact for the round values niceTicks makes. */
export function formatTick(value: number): string {
  if (value === 0) return '0';
  const magnitude = Math.abs(value);
  if (magnitude >= 1e5 || magnitude < 1e-3) return value.toExponential(0).replace('e+', 'e');
  return String(Number(value.toPrecision(4)));
}
