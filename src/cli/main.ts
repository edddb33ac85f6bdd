#!/usr/bin/env node
/**
 * The amp-rewrite command line: a thin shell over the library. It parses arguments, calls the
 * API, renders, and maps errors to the documented exit codes (README, "Exit codes").
 *
 * Start-up is most of a small rewrite's time, so this entry loads almost nothing itself: a plain
 * rewrite (plain-rewrite.ts) runs without yargs, and every other command line goes to yargs
 * (command-line.ts), which loads each command's modules only when that command runs.
 */
import { rerunWithLargerHeapIfNeeded } from './large-heap.js';
import { commandHandler, COMMAND_NAMES, endQuietlyWhenStdoutCloses } from './command-runner.js';

await rerunWithLargerHeapIfNeeded();

// yargs's hideBin: a bundled Electron app has no script argument. There, yargs reads everything.
const tokens = process.versions.electron ? undefined : process.argv.slice(2);
const first = tokens?.[0];
const plain = tokens && first !== undefined && !COMMAND_NAMES.includes(first) ? (await import('./plain-rewrite.js')).plainRewriteArgs(tokens) : undefined;
if (tokens && plain) {
  const { runRewrite } = await import('./rewrite-command.js');
  await commandHandler(tokens, runRewrite)(plain);
} else {
  // yargs writes --help and --version to stdout itself.
  endQuietlyWhenStdoutCloses();
  const { runCommandLine } = await import('./command-line.js');
  const { hideBin } = await import('yargs/helpers');
  await runCommandLine(hideBin(process.argv));
}
