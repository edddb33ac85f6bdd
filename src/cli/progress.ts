/**
 * The progress line of the long commands (tune, --calibrate, compare, bench, large rewrites) on
 * stderr: `tune: try 3/8 [=====     ] 12 s, about 20 s left`. Drawn only when stderr is a
 * terminal and the user did not ask for quiet or JSON, only once the job has run for a second
 * (short commands never flicker), at most ten times a second, and erased when the job ends, so no
 * trace of it is left in the output a user copies.
 */
import { AmpError } from '../onnx/errors.js';
import { printable } from '../onnx/printable.js';
import type { ProgressEvent, ProgressListener } from '../runtime/activity.js';

export interface ProgressTarget {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export interface ProgressLine {
  listener: ProgressListener;
  /** Erases the line (if one was drawn). */
  end(): void;
}

/** How long a job runs before its line appears, unless AMP_REWRITE_PROGRESS_AFTER_MS says otherwise. */
const SHOW_AFTER_MS = 1000;
const REDRAW_EVERY_MS = 100;
export const PROGRESS_AFTER_VARIABLE = 'AMP_REWRITE_PROGRESS_AFTER_MS';

/** The delay before a progress line appears: AMP_REWRITE_PROGRESS_AFTER_MS (0 to 3,600,000 ms) or a second. */
export function progressDelay(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const text = env[PROGRESS_AFTER_VARIABLE];
  if (text === undefined || text === '') return SHOW_AFTER_MS;
  const ms = /^\d{1,7}$/.test(text) ? Number(text) : NaN;
  if (!(ms <= 3_600_000)) throw new AmpError('BAD_OPTION', `environment variable ${PROGRESS_AFTER_VARIABLE}=${printable(text, 40)}: expected milliseconds, an integer from 0 to 3600000`, { subject: PROGRESS_AFTER_VARIABLE });
  return ms;
}

export function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${String(Math.round(seconds - 60 * minutes)).padStart(2, '0')} s`;
}

/**
 * The text of one progress line (no escape sequences), for a job `elapsedMs` into its run, whose
 * `event.done` was reached `reachedMs` into it (default: now). The time left is estimated when a step
 * completes (the rate so far) and counts down from there; once the estimate has run out it is
 * dropped rather than grown with the clock.
 */
export function progressText(label: string, event: ProgressEvent, elapsedMs: number, width = 80, reachedMs = elapsedMs): string {
  const elapsed = formatSeconds(elapsedMs / 1000);
  let text: string;
  if (event.total && event.total > 0) {
    const fraction = Math.min(1, event.done / event.total);
    const bar = 20;
    const filled = Math.round(fraction * bar);
    const estimateMs = event.done > 0 && event.done < event.total ? (reachedMs / event.done) * (event.total - event.done) - (elapsedMs - reachedMs) : 0;
    const left = estimateMs >= 1000 ? `, about ${formatSeconds(estimateMs / 1000)} left` : '';
    text = `${label}: ${event.phase} ${event.done}/${event.total} [${'='.repeat(filled)}${' '.repeat(bar - filled)}] ${elapsed}${left}`;
  } else {
    text = `${label}: ${event.phase}${event.done > 0 ? ` ${event.done}` : ''} ... ${elapsed}`;
  }
  // One terminal line: a wrapped line could not be erased with \r.
  return text.length >= width ? `${text.slice(0, Math.max(1, width - 2))}…` : text;
}

/**
 * A progress line for `label` on `stream`; `enabled` false (quiet, JSON, or not a terminal) gives
 * a listener that draws nothing. `now` is the clock (tests pass their own).
 */
export function progressLine(label: string, stream: ProgressTarget, enabled: boolean, now: () => number = () => performance.now(), showAfterMs = progressDelay()): ProgressLine {
  if (!enabled || !stream.isTTY) return { listener: () => undefined, end: () => undefined };
  const started = now();
  let lastDrawn = -Infinity;
  let drawn = false;
  let latest: ProgressEvent | undefined;
  /** When the latest event's `done` count was reached: the time-left estimate is made there. */
  let reachedAt = started;
  // Between events (a long ONNX Runtime run) the clock still moves: redraw on a timer that never keeps the process alive.
  let ticker: ReturnType<typeof setInterval> | undefined;
  const draw = (force: boolean): void => {
    const t = now();
    if (!latest || t - started < showAfterMs || (!force && t - lastDrawn < REDRAW_EVERY_MS)) return;
    lastDrawn = t;
    drawn = true;
    // A pseudo-terminal may report 0 columns: then assume the usual 80.
    stream.write(`\r\x1b[2K${progressText(label, latest, t - started, (stream.columns ?? 0) >= 20 ? (stream.columns as number) : 80, reachedAt - started)}`);
  };
  return {
    listener: (event) => {
      const phaseChanged = latest?.phase !== event.phase;
      if (phaseChanged || latest?.done !== event.done) reachedAt = now();
      latest = event;
      draw(phaseChanged);
      if (!ticker) {
        ticker = setInterval(() => draw(false), 250);
        ticker.unref();
      }
    },
    end: () => {
      if (ticker) clearInterval(ticker);
      ticker = undefined;
      if (drawn) stream.write('\r\x1b[2K');
      drawn = false;
      latest = undefined;
    },
  };
}

/** Runs `job` with a progress line on stderr (drawn only on a terminal, and not when `silent`), erased when it ends. */
export async function withProgress<T>(label: string, silent: boolean, job: (listener: ProgressListener) => Promise<T>): Promise<T> {
  const line = progressLine(label, process.stderr, !silent);
  try {
    return await job(line.listener);
  } finally {
    line.end();
  }
}

/**
 * The progress of a rewrite: its named phases (decode, paint, cast planning, encode, ...) as they
 * start, for models large enough that a rewrite takes seconds. The pass is synchronous, so the
 * line is drawn from inside it (stderr on a terminal is written synchronously).
 */
export function rewritePhaseProgress(
  silent: boolean,
  setListener: (listener: ((name: string) => void) | undefined) => void,
  stream: ProgressTarget = process.stderr,
  now?: () => number,
): () => void {
  const line = progressLine('rewrite', stream, !silent, now);
  let done = 0;
  setListener((name) => line.listener({ phase: name.replace(/Ms$/, '').replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`), done: done++ }));
  return () => {
    setListener(undefined);
    line.end();
  };
}
