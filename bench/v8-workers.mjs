// The whole `amp-rewrite model.onnx -o out.onnx -q` command with Node's default V8 worker pool and with smaller
// ones (--v8-pool-size, a Node option: V8 still takes the code cache), interleaved run by run, medians printed.
// On a 2-core machine Node's four workers (TurboFan compiles, concurrent marking and sweeping) outnumber the
// cores and the main thread, which runs the rewrite, waits for one.
// Usage: node bench/v8-workers.mjs --models a.onnx[,b.onnx] [--pools 4,1] [--runs 7] [--out file.json]
// Needs a build (`npm run build`: dist/cli/main.js).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: { models: { type: 'string' }, pools: { type: 'string', default: '4,1' }, runs: { type: 'string', default: '7' }, out: { type: 'string' } },
});
if (!args.models) {
  console.error('usage: node bench/v8-workers.mjs --models a.onnx[,b.onnx] [--pools 4,1] [--runs 7] [--out file.json]');
  process.exit(2);
}
const runs = Number(args.runs);
const pools = args.pools.split(',').map(Number);
if (!Number.isInteger(runs) || runs < 1 || pools.some((pool) => !Number.isInteger(pool) || pool < 1)) throw new Error('--runs and --pools take positive integers');
const cli = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli', 'main.js');
const models = args.models.split(',').map((file) => path.resolve(file));
const work = mkdtempSync(path.join(tmpdir(), 'amp-workers-'));
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

const rows = {};
try {
  for (const model of models) {
    const samples = Object.fromEntries(pools.map((pool) => [pool, []]));
    for (let run = 0; run < runs; run++) {
      // Alternating which pool runs first, so that a slow moment does not always land on the same one.
      const order = run % 2 ? [...pools].reverse() : pools;
      for (const pool of order) {
        const start = process.hrtime.bigint();
        const result = spawnSync(process.execPath, [`--v8-pool-size=${pool}`, cli, model, '-o', path.join(work, 'out.onnx'), '--no-verify', '-q'], { encoding: 'utf8' });
        if (result.status !== 0) throw new Error(`${path.basename(model)}, pool ${pool}: exit ${result.status}\n${result.stderr}`);
        samples[pool].push(Number(process.hrtime.bigint() - start) / 1e6);
      }
    }
    rows[path.basename(model)] = Object.fromEntries(pools.map((pool) => [pool, { medianMs: median(samples[pool]), samplesMs: samples[pool] }]));
    console.log(`${path.basename(model)}: ${pools.map((pool) => `pool ${pool} ${median(samples[pool]).toFixed(0)} ms`).join(', ')}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const cpu = os.cpus();
const result = {
  benchmark: 'v8-workers',
  date: new Date().toISOString(),
  machine: `${cpu[0]?.model ?? 'unknown CPU'} x${cpu.length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
  runs,
  statistic: 'median wall milliseconds of the whole command, -q',
  rows,
};
if (args.out) writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
