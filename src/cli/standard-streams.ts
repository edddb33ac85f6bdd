/**
 * The command's own writes to stderr go through here, so that ending the process early
 * (exitOnceWritten in command-runner.ts) knows whether stderr may still hold queued text without
 * opening it (opening a pipe's stream costs a few ms).
 */
let stderrUsed = false;

export function writeStderr(text: string): void {
  stderrUsed = true;
  process.stderr.write(text);
}

export function stderrWasUsed(): boolean {
  return stderrUsed;
}
