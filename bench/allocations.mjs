// What a quiet rewrite allocates, by the function that allocates it: V8's sampling heap profiler
// with the objects the garbage collector has already freed counted too (its default counts only
// the live ones), over the command's own steps in one process (decode as the command line decodes,
// the input check, the pass with the command's quiet options, encode). Short-lived garbage is
// what the young generation's collections are made of, at every size.
// Usage: node bench/allocations.mjs model.onnx [--dist path/to/dist] [--top 20] [--out file]
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { dist: { type: 'string', default: path.join(root, 'dist') }, top: { type: 'string', default: '20' }, out: { type: 'string' } },
});
if (positionals.length !== 1) throw new Error('usage: node bench/allocations.mjs model.onnx [--dist dir] [--top n] [--out file]');
const lib = await import(pathToFileURL(path.join(path.resolve(args.dist), 'index.js')).href);
const bytes = readFileSync(positionals[0]);

const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
const model = lib.decodeModel(bytes, { sharedEmptyFields: true, allowNewerIr: true });
lib.checkModel(model, { types: false });
const nodes = model.graph.node.length;
const { model: rewritten } = lib.ampRewrite(model, { audit: false, figures: false, inPlace: true });
lib.encodeModel(rewritten);
const { profile } = await session.post('HeapProfiler.stopSampling');
session.disconnect();

const bySite = new Map();
let total = 0;
const walk = (node) => {
  const frame = node.callFrame;
  const site = `${frame.functionName || '(anonymous)'} ${frame.url ? `${path.basename(frame.url)}:${frame.lineNumber + 1}` : '(native)'}`;
  if (node.selfSize) {
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
  }
  for (const child of node.children) walk(child);
};
walk(profile.head);
const top = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top));
console.log(`${nodes} nodes: ${(total / 2 ** 20).toFixed(1)} MiB allocated (${Math.round(total / nodes)} B a node, sampled every 1 KiB)`);
for (const [site, size] of top) console.log(`${(size / 2 ** 20).toFixed(2).padStart(8)} MiB  ${site}`);
if (args.out) {
  const result = {
    benchmark: 'allocations',
    date: new Date().toISOString(),
    machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, node ${process.version}`,
    dist: path.relative(root, path.resolve(args.dist)) || '.',
    nodes,
    allocatedBytes: total,
    top: top.map(([site, size]) => ({ site, bytes: size })),
  };
  writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
}
