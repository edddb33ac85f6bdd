// Static shape inference (the pass's shapeInferenceMs: FLOPs share and Tensor Core lint) on
// transformer graphs: its first call in a fresh process (the one a command-line run makes, JIT
// warm-up included), its best warm call, and what its result keeps alive once garbage is collected
// (a map entry per value, the shapes shared: a transformer has a dozen distinct ones).
// Usage: node bench/shape-inference.mjs [--sizes 12000,48000[,200000]] [--runs 5]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NODES_PER_LAYER = 31;

/** One size, measured in a child process with --expose-gc (a fresh heap and fresh JIT state). */
const CHILD = `
const [distUrl, layers, runs] = process.argv.slice(1);
const { buildTransformer } = await import(distUrl + '/builder/recipes/transformer.js');
const { ModelGraph } = await import(distUrl + '/onnx/graph.js');
const { inferShapes } = await import(distUrl + '/onnx/shape-inference.js');
const { sortGraph } = await import(distUrl + '/passes/amp/graph-order.js');
const model = buildTransformer({ batch: 1, sequence: 4, model: 8, heads: 2, ffn: 16, layers: Number(layers), vocab: 0, seed: 1 });
const graph = new ModelGraph(model);
sortGraph(graph);
graph.main.topologicalOrder();
const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed; };
const ms = (fn) => { const start = process.hrtime.bigint(); const value = fn(); return { value, ms: Number(process.hrtime.bigint() - start) / 1e6 }; };
const before = heap();
const first = ms(() => inferShapes(graph));
const retained = heap() - before;
const shapes = first.value;
const distinctArrays = new Set(shapes.values()).size;
const distinctShapes = new Set([...shapes.values()].map(String)).size;
let best = Infinity;
for (let i = 0; i < Number(runs); i++) best = Math.min(best, ms(() => inferShapes(graph)).ms);
process.stdout.write(JSON.stringify({ nodes: model.graph.node.length, values: shapes.size, firstMs: first.ms, bestMs: best, retainedBytes: retained, distinctArrays, distinctShapes }));
`;

export function shapeInferenceBench({ sizes = [12_000, 48_000], runs = 5 } = {}) {
  const distUrl = pathToFileURL(path.join(root, 'dist')).href;
  const rows = [];
  for (const target of sizes) {
    const layers = Math.max(1, Math.round(target / NODES_PER_LAYER));
    const heapMiB = Math.max(4096, Math.ceil(target / 1000) * 16);
    const out = execFileSync(process.execPath, ['--expose-gc', `--max-old-space-size=${heapMiB}`, '--input-type=module', '-e', CHILD, distUrl, String(layers), String(runs)], {
      encoding: 'utf8',
    });
    const row = JSON.parse(out);
    rows.push({
      ...row,
      firstUsPerNode: (row.firstMs * 1000) / row.nodes,
      bestUsPerNode: (row.bestMs * 1000) / row.nodes,
      retainedBytesPerNode: row.retainedBytes / row.nodes,
      retainedBytesPerValue: row.retainedBytes / row.values,
    });
  }
  return rows;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { sizes: { type: 'string' }, runs: { type: 'string' } } });
  const sizes = values.sizes ? values.sizes.split(',').map(Number) : undefined;
  const version = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version;
  console.log(`shape inference, amp-rewrite ${version}`);
  for (const row of shapeInferenceBench({ sizes, runs: values.runs ? Number(values.runs) : undefined })) {
    console.log(
      `${String(row.nodes).padStart(8)} nodes ${String(row.values).padStart(8)} values: first call ${row.firstMs.toFixed(1)} ms (${row.firstUsPerNode.toFixed(2)} us/node), ` +
        `best warm ${row.bestMs.toFixed(1)} ms (${row.bestUsPerNode.toFixed(2)} us/node), retained ${row.retainedBytesPerNode.toFixed(0)} B/node ` +
        `(${row.retainedBytesPerValue.toFixed(0)} B/value), ${row.distinctArrays} arrays for ${row.distinctShapes} distinct shapes`,
    );
  }
}
