/**
 * What every command shares, whichever parser read its command line (yargs, or the plain
 * rewrite's reader): printing through the escaping of model-supplied names, one-line errors with
 * the documented exit codes, and the checks that run before any command (a mistyped command
 * name, an option of another command, an unknown AMP_REWRITE_ variable). No yargs here: the
 * plain rewrite runs without loading it.
 */
import { statSync } from 'node:fs';
import type { Options } from 'yargs';
import { AmpError } from '../onnx/errors.js';
import { printableLine, printableText } from '../onnx/printable.js';
import { setRuntimeVerbose } from '../runtime/ort.js';
import { reportWarnings, unknownEnvironment } from './environment-warnings.js';
import { checkListValues, checkOptionsApply, givenOptions, SHORT_ALIASES, unknownCommand } from './option-scope.js';
import { COMMAND_NAMES } from './command-names.js';
import { checkOptionRules } from './option-rules.js';
import { stderrWasUsed } from './standard-streams.js';
// AMP_REWRITE_PROFILE: every command's phases are timed from here on (profile.ts).
import './profile.js';
import { setCancellationNotice } from '../onnx/safe-write.js';

export { COMMAND_NAMES };


/** The one option every command has (declared global on the top-level parser). */
export const STRICT_OPTION: Options = {
  type: 'boolean',
  default: false,
  global: true,
  describe: 'treat warnings (a pattern or op that matches nothing, an unknown AMP_REWRITE_ variable) as errors',
};

const INTERNAL_ERROR = 3;

let stdoutClosed = false;
let stdoutWatched = false;

/**
 * A reader that goes away (`amp-rewrite bench ... | head -2`) ends the command normally. Called
 * before anything is written to stdout; `print` calls it on first use, so a quiet rewrite never
 * opens stdout (a pipe's stream costs a few ms to set up).
 */
export function endQuietlyWhenStdoutCloses(): void {
  if (stdoutWatched) return;
  stdoutWatched = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    stdoutClosed = true;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
}

/** Everything printed passes the escaping of model-supplied names: no terminal escapes reach the screen. */
export function print(text: string): void {
  endQuietlyWhenStdoutCloses();
  if (!stdoutClosed) process.stdout.write(printableText(text));
}

/**
 * Ends the process now, with its exit code, once everything it printed has reached the OS: a
 * normal exit frees the whole heap first (about 60 ms after a 213k-node rewrite, 7 ms at 12k), for
 * nothing. Files, pipes and terminals are written synchronously on Linux; where a write is still
 * queued (a pipe on macOS), the process is left to end normally, which waits for it.
 */
export function exitOnceWritten(): void {
  if (stdoutWatched && process.stdout.writableLength > 0) return;
  if (stderrWasUsed() && process.stderr.writableLength > 0) return;
  process.exit();
}

export function fail(error: unknown): never {
  if (error instanceof AmpError) {
    process.stderr.write(`amp-rewrite: error [${error.code}]: ${printableLine(error.message)}\n`);
    process.exit(error.exitCode);
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`amp-rewrite: internal error: ${printableLine(message.split('\n')[0] ?? '')} (set AMP_REWRITE_DEBUG=1 for details; please report it)\n`);
  if (process.env.AMP_REWRITE_DEBUG) process.stderr.write(`${(error as Error)?.stack ?? ''}\n`);
  process.exit(INTERNAL_ERROR);
}

export function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * What a SIGINT/SIGTERM says once the command has staged or committed files (before that, the
 * signal ends the process at once: nothing to clean). safe-write.ts removes the temporaries,
 * calls this, and lets the process die of the signal (exit status 130 or 143 in a shell).
 */
function cancellationNotice(signal: NodeJS.Signals, committed: readonly string[], removed: number): void {
  const what = committed.length
    ? `after the outputs were written (${committed.map((file) => printableLine(file)).join(', ')})`
    : `before anything was committed; nothing was written${removed ? ` (${removed} temporary file${removed === 1 ? '' : 's'} removed)` : ''}`;
  process.stderr.write(`amp-rewrite: cancelled by ${signal} ${what}\n`);
}

export type CommandAction<A> = (args: A, print: (text: string) => void) => number | Promise<number>;

/**
 * A command's handler: the shared checks, then the action; its status becomes the exit code and
 * any error a one-line message. `tokens` is the command line without node and the script.
 */
export function commandHandler<A>(tokens: readonly string[], action: CommandAction<A>): (args: unknown) => Promise<void> {
  return async (args: unknown): Promise<void> => {
    try {
      const parsed = args as { _: unknown[]; strict?: boolean; verbose?: unknown; model?: unknown };
      const command = String(parsed._[0] ?? 'rewrite');
      if (command === 'rewrite' && typeof parsed.model === 'string') {
        const mistyped = unknownCommand(parsed.model, COMMAND_NAMES, isFile);
        if (mistyped) throw mistyped;
      }
      const given = givenOptions(tokens, SHORT_ALIASES);
      checkOptionsApply(command, given);
      checkListValues(given, args as Record<string, unknown>);
      checkOptionRules(command, given, args as Record<string, unknown>, tokens);
      setRuntimeVerbose(parsed.verbose === true);
      setCancellationNotice(cancellationNotice);
      reportWarnings(unknownEnvironment(process.env), Boolean(parsed.strict));
      process.exitCode = await action(args as A, print);
    } catch (error) {
      fail(error);
    }
  };
}
