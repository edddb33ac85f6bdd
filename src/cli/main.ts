#!/usr/bin/env node
/**
 * The amp-rewrite command line: a thin shell over the library. It parses arguments, calls the
 * API, renders, and maps errors to the documented exit codes (docs/cli.md, "Exit codes").
 *
 * Start-up is most of a small rewrite's time, so this entry loads almost nothing itself: a plain
 * rewrite (plain-rewrite.ts) runs without yargs, its modules loaded as one graph, and every other
 * command line goes to yargs (command-line.ts), which loads each command's modules only when that
 * command runs. A model large enough to need a bigger heap re-runs the command before any of it
 * is loaded.
 */
import { COMMAND_NAMES } from './command-names.js';
import { rerunWithLargerHeapIfNeeded } from './large-heap.js';

await rerunWithLargerHeapIfNeeded();

// yargs's hideBin: a bundled Electron app has no script argument; there, yargs reads everything.
const tokens = process.versions.electron ? undefined : process.argv.slice(2);
const first = tokens?.[0];
const plainRewrite = tokens !== undefined && first !== undefined && !COMMAND_NAMES.includes(first) ? await import('./plain-rewrite.js') : undefined;
if (plainRewrite && (await plainRewrite.runPlainRewrite(tokens as string[]))) {
  plainRewrite.exitOnceWritten();
} else {
  const [{ endQuietlyWhenStdoutCloses }, { runCommandLine }, { hideBin }] = await Promise.all([import('./command-runner.js'), import('./command-line.js'), import('yargs/helpers')]);
  // yargs writes --help and --version to stdout itself.
  endQuietlyWhenStdoutCloses();
  await runCommandLine(hideBin(process.argv));
}
