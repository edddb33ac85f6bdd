// Runs the built command line once in this process, a plain rewrite of the transformer fixture
// into a temporary folder (removed after), and then writes the code cache of every script body
// that ran (src/cli/code-cache.ts): the bytecode of each function the rewrite compiled. Started by
// scripts/bundle-cli.mjs with no Node flags, as `amp-rewrite` runs: V8 takes a cache only under
// the flags it was made with.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { scriptModuleRuns, writeCodeCache } from '../dist/cli/code-cache.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli/main.js');
const model = path.join(root, 'fixtures/transformer-block/model.onnx');
const work = mkdtempSync(path.join(tmpdir(), 'amp-code-cache-'));

process.once('exit', (status) => {
  try {
    if (status !== 0) return;
    const runs = scriptModuleRuns();
    if (runs.size === 0) {
      console.error('train-code-cache: no script body ran: nothing to cache');
      process.exitCode = 1;
      return;
    }
    for (const [file, run] of runs) writeCodeCache(file, run);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

process.argv = [process.execPath, cli, model, '-o', path.join(work, 'model.amp.onnx')];
await import(pathToFileURL(cli).href);
