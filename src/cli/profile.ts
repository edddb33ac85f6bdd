/**
 * Per-phase timing for the benchmarks: when AMP_REWRITE_PROFILE names a file, the command adds
 * up the milliseconds of each named phase (onnx/phases.ts) and writes them there as JSON when the
 * process ends. Otherwise nothing is timed.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { AmpError } from '../onnx/errors.js';
import { setPhaseTimer } from '../onnx/phases.js';
import { printableLine } from '../onnx/printable.js';
import { checkWritableTarget, declaredFiles, isSameFile, PROFILE_FILE, PROFILE_ROLE, writeFileAtomically } from '../onnx/safe-write.js';

const target = PROFILE_FILE;
const totals = new Map<string, number>();
let exitHookInstalled = false;

function startPhase(name: string): () => void {
  installExitHook();
  const start = performance.now();
  return () => totals.set(name, (totals.get(name) ?? 0) + performance.now() - start);
}

if (target) setPhaseTimer(startPhase);

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

/**
 * The profile goes through the door like every output (safe-write.ts): a device, FIFO or folder
 * there is refused when profiling starts (a typed error, exit 2, before any work), and at exit it
 * is written atomically, never over a file the command read or wrote. A failure then is one line
 * on stderr and exit status 2, not a stack.
 */
function installExitHook(): void {
  if (exitHookInstalled || !target) return;
  exitHookInstalled = true;
  checkWritableTarget({ path: target, role: PROFILE_ROLE });
  process.on('exit', () => {
    const usage = process.resourceUsage();
    // CPU time as well as wall time: on a shared machine the wall clock mostly measures the others.
    const report = { ...Object.fromEntries(totals), totalMs: performance.now(), cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, peakRssBytes: peakRss(usage.maxRSS * 1024) };
    try {
      const { inputs, outputs } = declaredFiles();
      // checkOutputs, which saw the same files with the profile among the outputs, has refused
      // the command already (exit 2, its one line): the profile is simply not written.
      if ([...inputs, ...outputs].some((named) => isSameFile(named.path, target))) return;
      writeFileAtomically(target, Buffer.from(`${JSON.stringify(report)}\n`, 'utf8'), PROFILE_ROLE);
    } catch (error) {
      const shown = error instanceof AmpError ? `[${error.code}]: ${error.message}` : `[WRITE_FAILED]: ${PROFILE_ROLE} ${target}: ${String(error)}`;
      process.stderr.write(`amp-rewrite: error ${printableLine(shown)}\n`);
      process.exitCode = 2;
    }
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
