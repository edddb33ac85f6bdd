// Rewrite speed against model size: transformer-style graphs from about 1,000 to 1,000,000
// nodes (tiny widths, so weights stay small), timing each stage of the pass and the whole CLI
// command, to show linear growth. Usage: node bench/rewrite-scale.mjs [--max-nodes N] [--out file]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { buildTransformer } = await import(path.join(root, 'dist/builder/recipes/transformer.js'));
const api = await import(path.join(root, 'dist/index.js'));

const NODES_PER_LAYER = 31;

export async function rewriteScale({ maxNodes = 1_000_000 } = {}) {
const sizes = [1_000, 10_000, 100_000, 1_000_000].filter((n) => n <= maxNodes);
const time = (fn) => {
  const start = process.hrtime.bigint();
  const value = fn();
  return { value, ms: Number(process.hrtime.bigint() - start) / 1e6 };
};

const rows = [];
const dir = mkdtempSync(path.join(tmpdir(), 'amp-bench-'));
for (const target of sizes) {
  const layers = Math.max(1, Math.round(target / NODES_PER_LAYER));
  const model = buildTransformer({ batch: 1, sequence: 4, model: 8, heads: 2, ffn: 16, layers, vocab: 0, seed: 1 });
  const nodes = model.graph.node.length;
  global.gc?.();
  const encode = time(() => api.encodeModel(model));
  const decode = time(() => api.decodeModel(encode.value));
  const graph = time(() => new api.ModelGraph(decode.value));
  const types = time(() => api.inferElemTypes(graph.value, api.opsetsOf(decode.value)));
  const topo = time(() => graph.value.main.topologicalOrder());
  const pass = time(() => api.ampRewrite(decode.value));
  const file = path.join(dir, `model-${nodes}.onnx`);
  writeFileSync(file, encode.value);
  const profileFile = path.join(dir, 'profile.json');
  const cli = time(() =>
    execFileSync(process.execPath, [path.join(root, 'dist/cli/main.js'), file, '-o', `${file}.amp.onnx`, '--no-verify', '-q'], { env: { ...process.env, AMP_REWRITE_PROFILE: profileFile } }),
  );
  // The command's own account: phases (in place, no copy) and its peak resident memory.
  const profile = JSON.parse(readFileSync(profileFile, 'utf8'));
  const row = {
    nodes,
    bytes: encode.value.length,
    decodeMs: decode.ms,
    encodeMs: encode.ms,
    graphModelMs: graph.ms,
    typeInferenceMs: types.ms,
    topologicalOrderMs: topo.ms,
    passMs: pass.ms,
    passUsPerNode: (pass.ms * 1000) / nodes,
    cliCommandMs: cli.ms,
    cliPassMs: profile.passMs,
    cliPassUsPerNode: (profile.passMs * 1000) / nodes,
    cliPeakRssBytes: profile.peakRssBytes,
    cliPeakRssPerNodeBytes: profile.peakRssBytes / nodes,
    heapMiB: process.memoryUsage().heapUsed / 2 ** 20,
  };
  rows.push(row);
  console.log(
    `${String(nodes).padStart(9)} nodes  decode ${decode.ms.toFixed(0).padStart(6)} ms  graph ${graph.ms.toFixed(0).padStart(5)} ms  ` +
      `types ${types.ms.toFixed(0).padStart(5)} ms  pass ${pass.ms.toFixed(0).padStart(6)} ms (${row.passUsPerNode.toFixed(1)} us/node)  ` +
      `command ${cli.ms.toFixed(0).padStart(6)} ms (its pass ${row.cliPassUsPerNode.toFixed(1)} us/node, peak RSS ${(row.cliPeakRssPerNodeBytes / 1024).toFixed(1)} KB/node)`,
  );
  rmSync(file, { force: true });
  rmSync(`${file}.amp.onnx`, { force: true });
}
rmSync(dir, { recursive: true, force: true });
return { benchmark: 'rewrite-scale', rows };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { 'max-nodes': { type: 'string', default: '1000000' }, out: { type: 'string' } } });
  const os = await import('node:os');
  const result = {
    date: new Date().toISOString(),
    machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, load ${os.loadavg()[0].toFixed(1)}`,
    ...(await rewriteScale({ maxNodes: Number(values['max-nodes']) })),
  };
  if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
}
