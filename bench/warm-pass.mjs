// The AMP pass on the same model several times in one process: how much of a command's pass is V8
// warming up (code it has not optimized yet) rather than the work itself. The first run is what
// the command pays; the last ones are the pass with V8's optimizing compiler done with it.
// Usage: node bench/warm-pass.mjs [--nodes 12000] [--runs 8] [--out file]
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NODES_PER_LAYER = 31;
const { values: args } = parseArgs({ options: { nodes: { type: 'string', default: '12000' }, runs: { type: 'string', default: '8' }, out: { type: 'string' } } });

const { buildTransformer } = await import(pathToFileURL(path.join(root, 'dist/builder/recipes/transformer.js')).href);
const { ampRewrite, decodeModel, encodeModel } = await import(pathToFileURL(path.join(root, 'dist/index.js')).href);

const layers = Math.max(1, Math.round(Number(args.nodes) / NODES_PER_LAYER));
const bytes = encodeModel(buildTransformer({ batch: 1, sequence: 4, model: 8, heads: 2, ffn: 16, layers, vocab: 0, seed: 1 }));

let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ['gc'] });
// The observer hears of a collection on a later turn of the event loop.
const settle = () => new Promise((resolve) => setImmediate(resolve));

const runs = [];
for (let run = 0; run < Number(args.runs); run++) {
  // The command line's options for a quiet rewrite: no audit, no figures, the decoded model edited in place.
  const model = decodeModel(bytes);
  await settle();
  const gcBefore = gcMs;
  const start = performance.now();
  ampRewrite(model, { audit: false, figures: false, inPlace: true });
  const passMs = performance.now() - start;
  await settle();
  await settle();
  runs.push({ run: run + 1, passMs: Number(passMs.toFixed(1)), gcMs: Number((gcMs - gcBefore).toFixed(1)) });
}
const nodes = decodeModel(bytes).graph.node.length;
for (const r of runs) console.log(`run ${r.run}: pass ${r.passMs} ms (${((r.passMs * 1000) / nodes).toFixed(1)} us/node), garbage collection during it ${r.gcMs} ms`);
const result = {
  benchmark: 'warm-pass',
  date: new Date().toISOString(),
  machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, load ${os.loadavg()[0].toFixed(1)}`,
  nodes,
  runs,
};
if (args.out) writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
