/**
 * Per-phase timing for the benchmarks: when AMP_REWRITE_PROFILE names a file, the command adds
 * up the milliseconds of each named phase and writes them there as JSON when the process ends.
 * Otherwise `phase` only calls its function (one branch, no clock reads).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const target = process.env.AMP_REWRITE_PROFILE;
const totals = new Map<string, number>();
let exitHookInstalled = false;

export function profiling(): boolean {
  return Boolean(target);
}

let listener: ((name: string) => void) | undefined;

/** Tells `onPhase` the name of each phase as it starts (the command line's progress line for large rewrites); undefined stops it. */
export function setPhaseListener(onPhase: ((name: string) => void) | undefined): void {
  listener = onPhase;
}

export function phase<T>(name: string, fn: () => T): T {
  listener?.(name);
  if (!target) return fn();
  installExitHook();
  const start = performance.now();
  try {
    return fn();
  } finally {
    totals.set(name, (totals.get(name) ?? 0) + performance.now() - start);
  }
}

/**
 * Marks a point in time, measured from process start (start-up is the time to the first mark),
 * and the process's CPU time by then as `<name>Cpu` (`startupMs` → `startupCpuMs`): on a busy
 * machine the wall clock mostly measures the other processes.
 */
export function mark(name: string): void {
  if (!target) return;
  installExitHook();
  if (totals.has(name)) return;
  totals.set(name, performance.now());
  const usage = process.cpuUsage();
  totals.set(name.replace(/(Ms)?$/, 'CpuMs'), (usage.user + usage.system) / 1000);
}

export function phaseTotals(): Record<string, number> {
  return Object.fromEntries(totals);
}

function installExitHook(): void {
  if (exitHookInstalled || !target) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    const usage = process.resourceUsage();
    // CPU time as well as wall time: on a shared machine the wall clock mostly measures the others.
    const report = { ...phaseTotals(), totalMs: performance.now(), cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, peakRssBytes: peakRss(usage.maxRSS * 1024) };
    writeFileSync(target, `${JSON.stringify(report)}\n`);
  });
}

/**
 * This process's own peak resident memory: Linux's VmHWM, which starts afresh at exec, where
 * getrusage's maxrss keeps the high-water mark of the process that forked it (a benchmark
 * holding hundreds of MiB would be counted in every command it starts).
 */
function peakRss(fallback: number): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) * 1024 : fallback;
  } catch {
    return fallback;
  }
}
