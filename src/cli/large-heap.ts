/**
 * Node's default heap (about 4 GiB) holds a model of roughly half a million nodes through the
 * rewrite, and V8 cannot grow its limit once started. For a large model file the command runs
 * again once, in a child with a heap sized to the machine (and V8's worker threads to its cores,
 * see workerThreadsFor). The child is tied to its parent: the
 * parent forwards SIGINT, SIGTERM and SIGHUP to it and exits with its status, and the child
 * exits when the parent goes away (the IPC channel between them closes, even on SIGKILL), so
 * no rewrite is ever left running without the process that started it.
 *
 * A model too big even for that heap ends the child in V8's fatal out-of-memory abort, a page of
 * garbage-collector log and native stack. The parent reads the child's standard error through a
 * pipe, forwards it line by line, holds back that report, and ends with one typed line instead
 * (MODEL_TOO_LARGE, exit 2), naming the heap the machine allowed.
 */
import { statSync } from 'node:fs';
import { availableParallelism, constants as osConstants, totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';

const MARKER = 'AMP_REWRITE_HEAP_SET';
const INTERNAL_ERROR = 3;
/** A model too large for the machine's memory: as MODEL_TOO_LARGE (docs/cli.md, "Exit codes"). */
const BAD_INPUT = 2;
/** The parent went away: the conventional status of a process ended by SIGTERM. */
const ORPHANED_STATUS = 128 + osConstants.signals.SIGTERM;
const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface LargeHeapOptions {
  /** Arguments to look for model files in (default: this process's). */
  args?: readonly string[];
  /** A model file larger than this asks for the larger heap (default 64 MiB). */
  thresholdBytes?: number;
  /** Heap to ask for, in MiB (default three quarters of the machine's memory). */
  wantedMiB?: number;
}

/** The heap (MiB) to re-run with, or undefined when the current one will do. */
export function largerHeapWanted(options: LargeHeapOptions = {}): number | undefined {
  const args = options.args ?? process.argv.slice(2);
  const threshold = options.thresholdBytes ?? 64 * 2 ** 20;
  const largeModel = args.some((arg) => {
    try {
      return arg.endsWith('.onnx') && statSync(arg).size > threshold;
    } catch {
      return false;
    }
  });
  const wanted = options.wantedMiB ?? Math.floor((totalmem() * 0.75) / 2 ** 20);
  if (!largeModel || getHeapStatistics().heap_size_limit / 2 ** 20 >= wanted) return undefined;
  return wanted;
}

/** Node's own number of V8 worker threads (--v8-pool-size), when none is given. */
const NODE_DEFAULT_WORKERS = 4;

/**
 * V8 worker threads for the child: one core left to the main thread, which runs the rewrite,
 * and no more than Node's default. V8's workers compile hot functions with TurboFan and mark and
 * sweep the heap beside the main thread; with Node's four on a 2-core machine they outnumber the
 * cores and the main thread waits for one. One worker there: a 1M-node rewrite takes a second
 * less CPU, and the same to 5% less wall time (bench/results/ab-respawn-workers-*.json). From 5
 * cores up this is Node's default.
 */
export function workerThreadsFor(cores: number = availableParallelism()): number {
  return Math.max(1, Math.min(NODE_DEFAULT_WORKERS, cores - 1));
}

/**
 * In the child: exit when the parent's IPC channel closes. Returns true when this process is
 * such a child. Unref'd, so the channel never keeps the child alive by itself.
 */
export function tieToParent(): boolean {
  if (!process.env[MARKER] || !process.send) return false;
  process.on('disconnect', () => process.exit(ORPHANED_STATUS));
  process.channel?.unref();
  return true;
}

/**
 * Runs this command again in a child with a larger heap when a model argument is large, and
 * exits with the child's status; returns (to run here) when no larger heap is needed, or when
 * the child cannot be started.
 */
export async function rerunWithLargerHeapIfNeeded(options: LargeHeapOptions = {}): Promise<void> {
  if (tieToParent() || process.env[MARKER]) return;
  const wanted = largerHeapWanted(options);
  if (wanted === undefined) return;
  // Loaded here, only for a large model: child_process is a few ms of every command's start-up.
  const { spawn } = await import('node:child_process');
  // The heap flag last, and only ours: of two, V8 takes the last (a user's own smaller one would win).
  const nodeFlags = process.execArgv.filter((flag) => !/^--max[-_]old[-_]space[-_]size\b/.test(flag));
  // A pool size the user gave (on the command line or in NODE_OPTIONS) is theirs to keep.
  const ownPool = [...nodeFlags, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((flag) => /^--v8[-_]pool[-_]size\b/.test(flag));
  const poolFlags = ownPool ? [] : [`--v8-pool-size=${workerThreadsFor()}`];
  const child = spawn(process.execPath, [...nodeFlags, ...poolFlags, `--max-old-space-size=${wanted}`, ...process.argv.slice(1)], {
    stdio: ['inherit', 'inherit', 'pipe', 'ipc'],
    env: { ...process.env, [MARKER]: '1' },
  });
  const stderr = new FatalReportFilter((text) => process.stderr.write(text));
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => stderr.write(text));
  const stderrEnded = new Promise<void>((resolve) => (child.stderr ? child.stderr.once('close', resolve) : resolve()));
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const handlers = FORWARDED_SIGNALS.map((signal) => [signal, forward(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  const status = await new Promise<number | undefined>((resolve) => {
    child.once('error', () => resolve(undefined));
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : INTERNAL_ERROR)));
  });
  for (const [signal, handler] of handlers) process.off(signal, handler);
  // The child could not start: run here, with the heap there is.
  if (status === undefined) return;
  await stderrEnded;
  stderr.end();
  if (stderr.outOfMemory) {
    process.stderr.write(
      `amp-rewrite: error [MODEL_TOO_LARGE]: the command ran out of memory in the ${wanted} MiB heap it was given (this machine has ${Math.round(totalmem() / 2 ** 20)} MiB); run it on a machine with more memory\n`,
      () => process.exit(BAD_INPUT),
    );
    return new Promise<void>(() => undefined);
  }
  process.exit(status);
}

/**
 * The child's standard error on its way to ours, one line at a time, until V8's fatal report
 * begins ("<--- Last few GCs --->", or "FATAL ERROR:"): that is held back. When it reports the
 * heap exhausted, outOfMemory is set and the report dropped for the parent's one line; any other
 * fatal report is passed on whole when the child's output ends.
 */
export class FatalReportFilter {
  outOfMemory = false;
  private partial = '';
  private held: string | undefined;
  /** Empty lines not passed on yet: V8 opens its report with some. */
  private blankLines = 0;

  constructor(private readonly forward: (text: string) => void) {}

  write(text: string): void {
    if (this.held !== undefined) {
      this.held += text;
      return;
    }
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() as string;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string;
      if (line === '') {
        this.blankLines++;
        continue;
      }
      if (FATAL_REPORT_START.test(line)) {
        this.held = '\n'.repeat(this.blankLines) + [...lines.slice(i), this.partial].join('\n');
        this.blankLines = 0;
        this.partial = '';
        return;
      }
      this.passBlankLines();
      this.forward(`${line}\n`);
    }
  }

  private passBlankLines(): void {
    if (this.blankLines) this.forward('\n'.repeat(this.blankLines));
    this.blankLines = 0;
  }

  /** The child's output ended: pass on a partial last line, and a fatal report that was not about memory. */
  end(): void {
    if (this.held === undefined) {
      this.passBlankLines();
      if (this.partial) this.forward(this.partial);
      this.partial = '';
      return;
    }
    this.held += this.partial;
    this.partial = '';
    if (HEAP_EXHAUSTED.test(this.held)) this.outOfMemory = true;
    else this.forward(this.held);
    this.held = undefined;
  }
}

/** Where V8's fatal report begins (the garbage collector's log comes first when the heap ran out). */
const FATAL_REPORT_START = /^(<--- Last few GCs --->|FATAL ERROR:|#\s*Fatal (?:JavaScript|process) out of memory)/;
const HEAP_EXHAUSTED = /JavaScript heap out of memory|Reached heap limit|Fatal (?:JavaScript|process) out of memory|Allocation failed/;
