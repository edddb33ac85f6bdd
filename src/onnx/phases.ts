/**
 * Per-phase timing for the benchmarks: when AMP_REWRITE_PROFILE names a file, the command adds
 * up the milliseconds of each named phase and writes them there as JSON when the process ends.
 * Otherwise `phase` only calls its function (one branch, no clock reads).
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const target = process.env.AMP_REWRITE_PROFILE;
const totals = new Map<string, number>();
let exitHookInstalled = false;

export function profiling(): boolean {
  return Boolean(target);
}

export function phase<T>(name: string, fn: () => T): T {
  if (!target) return fn();
  installExitHook();
  const start = performance.now();
  try {
    return fn();
  } finally {
    totals.set(name, (totals.get(name) ?? 0) + performance.now() - start);
  }
}

/** Marks a point in time, measured from process start (start-up is the time to the first mark). */
export function mark(name: string): void {
  if (!target) return;
  installExitHook();
  if (!totals.has(name)) totals.set(name, performance.now());
}

export function phaseTotals(): Record<string, number> {
  return Object.fromEntries(totals);
}

function installExitHook(): void {
  if (exitHookInstalled || !target) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    const report = { ...phaseTotals(), totalMs: performance.now(), peakRssBytes: process.resourceUsage().maxRSS * 1024 };
    writeFileSync(target, `${JSON.stringify(report)}\n`);
  });
}
