// Where the whole `amp-rewrite model.onnx -o out.onnx` command spends its time, phase by phase,
// on transformer graphs of about 3k, 12k and 48k nodes, against onnxconverter-common's
// convert_float_to_float16 (run side by side when `python3 -c "import onnxconverter_common"`
// works, else the figures measured in issue 13 on this machine class).
// Usage: node bench/phase-breakdown.mjs [--sizes 3000,12000,48000] [--runs 3] [--out file]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli/main.js');
const NODES_PER_LAYER = 31;

/** onnxconverter-common 1.17 on the same transformers, 2-core AMD EPYC (issue 13's measurements). */
export const ONNXCONVERTER_COMMON_SECONDS = { 3000: 0.48, 12000: 2.69, 48000: 30.0, 200000: 498 };

const PHASES = [
  ['startupMs', 'start-up'],
  ['decodeMs', 'decode'],
  ['cloneMs', 'clone'],
  ['graphModelMs', 'graph model'],
  ['typeInferenceMs', 'type inference'],
  ['weightRangeMs', 'weight range scan'],
  ['paintMs', 'painting'],
  ['shapeInferenceMs', 'shape inference'],
  ['castPlanMs', 'cast planning'],
  ['commitMs', 'commit'],
  ['validationMs', 'validation'],
  ['encodeMs', 'encode'],
  ['writeMs', 'write'],
];

function pythonConverterAvailable() {
  return spawnSync('python3', ['-c', 'import onnxconverter_common'], { stdio: 'ignore' }).status === 0;
}

function timePython(file) {
  const script = `import sys, time, onnx
from onnxconverter_common import float16
m = onnx.load(sys.argv[1])
t = time.perf_counter()
out = float16.convert_float_to_float16(m, keep_io_types=True)
onnx.save(out, sys.argv[2])`;
  const start = process.hrtime.bigint();
  execFileSync('python3', ['-c', script, file, `${file}.ocf.onnx`]);
  return Number(process.hrtime.bigint() - start) / 1e9;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** One profiled CLI run: the phases the command wrote, plus the wall time seen from outside. */
function profiledRun(file, dir) {
  const profile = path.join(dir, 'profile.json');
  const start = process.hrtime.bigint();
  execFileSync(process.execPath, [cli, file, '-o', `${file}.amp.onnx`, '-q'], { env: { ...process.env, AMP_REWRITE_PROFILE: profile } });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const phases = JSON.parse(readFileSync(profile, 'utf8'));
  phases.writeMs = (phases.saveMs ?? 0) - (phases.encodeMs ?? 0);
  return { ...phases, wallMs };
}

export async function phaseBreakdown({ sizes = [3_000, 12_000, 48_000], runs = 3 } = {}) {
  const { buildTransformer } = await import(path.join(root, 'dist/builder/recipes/transformer.js'));
  const { encodeModel } = await import(path.join(root, 'dist/index.js'));
  const python = pythonConverterAvailable();
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-phases-'));
  const nodeStart = median(
    Array.from({ length: 5 }, () => {
      const start = process.hrtime.bigint();
      execFileSync(process.execPath, ['-e', '0']);
      return Number(process.hrtime.bigint() - start) / 1e6;
    }),
  );
  const rows = [];
  try {
    for (const target of sizes) {
      const layers = Math.max(1, Math.round(target / NODES_PER_LAYER));
      const model = buildTransformer({ batch: 1, sequence: 4, model: 8, heads: 2, ffn: 16, layers, vocab: 0, seed: 1 });
      const file = path.join(dir, `transformer-${target}.onnx`);
      writeFileSync(file, encodeModel(model));
      const samples = [];
      const pythonSeconds = [];
      // Interleaved, so that load from the other engineers on the machine hits both alike.
      for (let run = 0; run < runs; run++) {
        samples.push(profiledRun(file, dir));
        if (python) pythonSeconds.push(timePython(file));
      }
      const best = samples.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
      const row = {
        nodes: model.graph.node.length,
        bytes: readFileSync(file).length,
        commandSeconds: median(samples.map((s) => s.wallMs)) / 1000,
        // The command's own CPU seconds (all its threads, the garbage collector's included).
        commandCpuSeconds: median(samples.map((s) => s.cpuMs)) / 1000,
        phasesMs: Object.fromEntries(PHASES.map(([key]) => [key, Number((best[key] ?? 0).toFixed(1))])),
        passMs: best.passMs,
        passUsPerNode: (best.passMs * 1000) / model.graph.node.length,
        peakRssBytes: best.peakRssBytes,
        rssPerNodeBytes: best.peakRssBytes / model.graph.node.length,
        onnxconverterCommon: python
          ? { seconds: median(pythonSeconds), source: 'measured side by side' }
          : { seconds: ONNXCONVERTER_COMMON_SECONDS[target], source: 'issue 13 figures (onnxconverter_common not installed here)' },
      };
      row.speedup = row.onnxconverterCommon.seconds ? row.onnxconverterCommon.seconds / row.commandSeconds : null;
      row.speedupByCpu = row.onnxconverterCommon.seconds ? row.onnxconverterCommon.seconds / row.commandCpuSeconds : null;
      rows.push(row);
      const parts = PHASES.map(([key, label]) => `${label} ${(best[key] ?? 0).toFixed(0)}`).join(', ');
      console.log(
        `${String(row.nodes).padStart(7)} nodes: command ${row.commandSeconds.toFixed(2)} s wall, ${row.commandCpuSeconds.toFixed(2)} s CPU` +
          (row.speedup ? ` (onnxconverter-common ${row.onnxconverterCommon.seconds} s: ${row.speedup.toFixed(1)}x wall, ${row.speedupByCpu.toFixed(1)}x CPU)` : '') +
          `, pass ${row.passUsPerNode.toFixed(1)} us/node, peak RSS ${(row.rssPerNodeBytes / 1024).toFixed(1)} KB/node\n    ms: ${parts}`,
      );
      rmSync(file, { force: true });
      rmSync(`${file}.amp.onnx`, { force: true });
      rmSync(`${file}.ocf.onnx`, { force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    benchmark: 'phase-breakdown',
    date: new Date().toISOString(),
    machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, load ${os.loadavg()[0].toFixed(1)}`,
    nodeStartMs: nodeStart, pythonConverter: python, runs, rows };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { sizes: { type: 'string', default: '3000,12000,48000' }, runs: { type: 'string', default: '3' }, out: { type: 'string' } } });
  const result = await phaseBreakdown({ sizes: values.sizes.split(',').map(Number), runs: Number(values.runs) });
  if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
}
