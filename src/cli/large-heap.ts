/**
 * Node's default heap (about 4 GiB) holds a model of roughly half a million nodes through the
 * rewrite, and V8 cannot grow its limit once started. For a large model file the command runs
 * again once, in a child with a heap sized to the machine. The child is tied to its parent: the
 * parent forwards SIGINT, SIGTERM and SIGHUP to it and exits with its status, and the child
 * exits when the parent goes away (the IPC channel between them closes, even on SIGKILL), so
 * no rewrite is ever left running without the process that started it.
 */
import { statSync } from 'node:fs';
import { constants as osConstants, totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';

const MARKER = 'AMP_REWRITE_HEAP_SET';
const INTERNAL_ERROR = 3;
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
  const child = spawn(process.execPath, [`--max-old-space-size=${wanted}`, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [MARKER]: '1' },
  });
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
  process.exit(status);
}
