// Where the whole `amp-rewrite model.onnx -o out.onnx` command spends its time, phase by phase, on
// transformer graphs from about 1,000 to 1,000,000 nodes, and whether it meets issue 13's targets:
// pass time linear in the node count and at most 10 us a node, start-up at most 0.1 s, peak RSS at
// most 2 KB a node (a million nodes in under 2 GiB), and the whole command 1.5x, 6x and 25x faster
// than onnxconverter-common's convert_float_to_float16 at 3k, 12k and 48k nodes (run side by side
// when `python3 -c "import onnxconverter_common"` works, else the figures measured in issue 13 on
// this machine class).
// Usage: node bench/phase-breakdown.mjs [--sizes 1000,3000,12000,48000[,200000,1000000]] [--runs 3] [--out file]
// The 200k and 1M sizes are opt-in here (a 1M-node command takes minutes and, today, several GB);
// `npm run bench` runs every size up to BENCH_MAX_NODES.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli/main.js');
const NODES_PER_LAYER = 31;

export const DEFAULT_SIZES = [1_000, 3_000, 12_000, 48_000];
export const ALL_SIZES = [1_000, 3_000, 12_000, 48_000, 200_000, 1_000_000];

/** onnxconverter-common 1.17 on the same transformers, 2-core AMD EPYC (issue 13's measurements). */
export const ONNXCONVERTER_COMMON_SECONDS = { 3000: 0.48, 12000: 2.69, 48000: 30.0, 200000: 498 };

/** Issue 13's targets. */
export const TARGETS = {
  passUsPerNode: 10,
  startupMs: 100,
  rssPerNodeBytes: 2048,
  millionNodeRssBytes: 2 * 2 ** 30,
  speedup: { 3000: 1.5, 12000: 6, 48000: 25 },
};

/** From this size on one run is enough: a 200k-node command takes about 20 s, a 1M-node one minutes. */
const SINGLE_RUN_FROM = 200_000;
/** onnxconverter-common runs side by side only up to here: at 200k nodes it takes 8 minutes (its node sort is quadratic). */
const PYTHON_MAX_NODES = 48_000;

/** The command's phases (AMP_REWRITE_PROFILE keys) in the order they run; keys not listed are printed after them. */
const PHASES = [
  ['startupMs', 'start-up'],
  ['loadMs', 'load'],
  ['decodeMs', 'decode'],
  ['inputFilesMs', 'input files'],
  ['inputCheckMs', 'input check'],
  ['cloneMs', 'clone'],
  ['graphModelMs', 'graph model'],
  ['graphOrderMs', 'graph order'],
  ['typeInferenceMs', 'type inference'],
  ['weightRangeMs', 'weight range scan'],
  ['paintMs', 'painting'],
  ['shapeInferenceMs', 'shape inference'],
  ['matrixFiguresMs', 'FLOPs share and lint'],
  ['castPlanMs', 'cast planning'],
  ['commitMs', 'commit'],
  ['typeInferenceAfterMs', 'type inference after'],
  ['validationMs', 'validation'],
  ['encodeMs', 'encode'],
  ['writeMs', 'write'],
];
/** Profile keys that are totals or marks, not phases. */
const NOT_PHASES = new Set(['passMs', 'saveMs', 'totalMs', 'cpuMs', 'peakRssBytes', 'startupCpuMs', 'wallMs']);

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

/**
 * Writes the transformer of about `target` nodes to `file` from a child process, so that this
 * process never holds a big model (its memory would otherwise sit beside the commands it times),
 * and returns its node count.
 */
export function writeTransformer(target, file) {
  const layers = Math.max(1, Math.round(target / NODES_PER_LAYER));
  const script = `import { writeFileSync } from 'node:fs';
const { buildTransformer } = await import(${JSON.stringify(pathToFileURL(path.join(root, 'dist/builder/recipes/transformer.js')).href)});
const { encodeModel } = await import(${JSON.stringify(pathToFileURL(path.join(root, 'dist/index.js')).href)});
const model = buildTransformer({ batch: 1, sequence: 4, model: 8, heads: 2, ffn: 16, layers: ${layers}, vocab: 0, seed: 1 });
writeFileSync(process.argv[1], encodeModel(model));
process.stdout.write(String(model.graph.node.length));`;
  // About 4 KB of heap a node while the recipe builds the message tree, then the encoded bytes.
  const heapMiB = Math.max(4096, Math.ceil(target / 1000) * 16);
  return Number(execFileSync(process.execPath, [`--max-old-space-size=${heapMiB}`, '--input-type=module', '-e', script, file], { encoding: 'utf8', maxBuffer: 1 << 20 }));
}

/**
 * One profiled CLI run: the phases the command wrote, plus the wall time seen from outside. For a
 * model file over 64 MiB the command re-runs itself with a larger heap; the profile (and its
 * peak RSS) is then the child's, the process that does the work.
 */
function profiledRun(file, dir) {
  const profile = path.join(dir, 'profile.json');
  rmSync(profile, { force: true });
  const start = process.hrtime.bigint();
  execFileSync(process.execPath, [cli, file, '-o', `${file}.amp.onnx`, '--no-verify', '-q'], { env: { ...process.env, AMP_REWRITE_PROFILE: profile } });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const phases = JSON.parse(readFileSync(profile, 'utf8'));
  phases.writeMs = (phases.saveMs ?? 0) - (phases.encodeMs ?? 0);
  return { ...phases, wallMs };
}

/** The phases of a sample in PHASES order, then any the command measures that PHASES does not list. */
function phaseEntries(sample) {
  const known = PHASES.filter(([key]) => sample[key] !== undefined);
  const extra = Object.keys(sample)
    .filter((key) => key.endsWith('Ms') && !NOT_PHASES.has(key) && !PHASES.some(([k]) => k === key))
    .map((key) => [key, key.replace(/Ms$/, '')]);
  return [...known, ...extra];
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

export async function phaseBreakdown({ sizes = DEFAULT_SIZES, runs = 3 } = {}) {
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
  const startups = [];
  try {
    for (const target of sizes) {
      const file = path.join(dir, `transformer-${target}.onnx`);
      const nodes = writeTransformer(target, file);
      const sizeRuns = target >= SINGLE_RUN_FROM ? 1 : runs;
      const samples = [];
      const pythonSeconds = [];
      const sideBySide = python && target <= PYTHON_MAX_NODES;
      // Interleaved, so that load from other processes on the machine hits both alike.
      for (let run = 0; run < sizeRuns; run++) {
        samples.push(profiledRun(file, dir));
        if (sideBySide) pythonSeconds.push(timePython(file));
      }
      const best = samples.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
      // Start-up is the same at every size, except that a file over 64 MiB re-runs the command.
      if (statSync(file).size <= 64 * 2 ** 20) startups.push(...samples);
      const figure = ONNXCONVERTER_COMMON_SECONDS[target];
      const row = {
        nodes,
        bytes: statSync(file).size,
        commandSeconds: median(samples.map((s) => s.wallMs)) / 1000,
        // The command's own CPU seconds (all its threads, the garbage collector's included).
        commandCpuSeconds: median(samples.map((s) => s.cpuMs)) / 1000,
        phasesMs: Object.fromEntries(phaseEntries(best).map(([key]) => [key, Number((best[key] ?? 0).toFixed(1))])),
        startupMs: best.startupMs,
        startupCpuMs: best.startupCpuMs,
        passMs: best.passMs,
        passUsPerNode: (best.passMs * 1000) / nodes,
        commandUsPerNode: (median(samples.map((s) => s.wallMs)) * 1000) / nodes,
        commandCpuUsPerNode: (median(samples.map((s) => s.cpuMs)) * 1000) / nodes,
        peakRssBytes: best.peakRssBytes,
        rssPerNodeBytes: best.peakRssBytes / nodes,
        fitsIn2GiB: best.peakRssBytes < TARGETS.millionNodeRssBytes,
        onnxconverterCommon: sideBySide
          ? { seconds: median(pythonSeconds), source: 'measured side by side' }
          : figure !== undefined
            ? { seconds: figure, source: python ? 'issue 13 figures (too slow to run side by side at this size)' : 'issue 13 figures (onnxconverter_common not installed here)' }
            : { seconds: null, source: 'no figure at this size' },
        runs: sizeRuns,
      };
      row.speedup = row.onnxconverterCommon.seconds ? row.onnxconverterCommon.seconds / row.commandSeconds : null;
      row.speedupByCpu = row.onnxconverterCommon.seconds ? row.onnxconverterCommon.seconds / row.commandCpuSeconds : null;
      rows.push(row);
      const parts = phaseEntries(best).map(([key, label]) => `${label} ${(best[key] ?? 0).toFixed(0)}`).join(', ');
      console.log(
        `${String(row.nodes).padStart(9)} nodes: command ${row.commandSeconds.toFixed(2)} s wall, ${row.commandCpuSeconds.toFixed(2)} s CPU` +
          (row.speedup ? ` (onnxconverter-common ${row.onnxconverterCommon.seconds} s: ${row.speedup.toFixed(1)}x wall, ${row.speedupByCpu.toFixed(1)}x CPU)` : '') +
          `, pass ${row.passUsPerNode.toFixed(1)} us/node, peak RSS ${mib(row.peakRssBytes)} = ${kb(row.rssPerNodeBytes)}/node (${row.fitsIn2GiB ? 'fits in' : 'over'} 2 GiB)\n    ms: ${parts}`,
      );
      rmSync(file, { force: true });
      rmSync(`${file}.amp.onnx`, { force: true });
      rmSync(`${file}.ocf.onnx`, { force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const summary = summarize(rows, startups, nodeStart);
  printSummary(summary);
  return {
    benchmark: 'phase-breakdown',
    date: new Date().toISOString(),
    machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, load ${os.loadavg()[0].toFixed(1)}`,
    nodeStartMs: nodeStart,
    pythonConverter: python,
    runs,
    summary,
    rows,
  };
}

/** Linearity, start-up, memory per node and the speedups, each against its target. */
function summarize(rows, startups, nodeStartMs) {
  // Per-node figures from 3k nodes on: at 1k the fixed costs (schema tables, rules) still show.
  const scaling = rows.filter((row) => row.nodes >= 3_000);
  const spread = (key) => (scaling.length > 1 ? Math.max(...scaling.map((r) => r[key])) / Math.min(...scaling.map((r) => r[key])) : null);
  const smallest = rows[0];
  const largest = rows[rows.length - 1];
  const startupMs = startups.length ? Math.min(...startups.map((s) => s.startupMs)) : null;
  const startupCpuMs = startups.some((s) => s.startupCpuMs !== undefined) ? Math.min(...startups.map((s) => s.startupCpuMs ?? Infinity)) : null;
  return {
    linearity: {
      passUsPerNode: Object.fromEntries(rows.map((r) => [r.nodes, Number(r.passUsPerNode.toFixed(2))])),
      commandCpuUsPerNode: Object.fromEntries(rows.map((r) => [r.nodes, Number(r.commandCpuUsPerNode.toFixed(2))])),
      // Largest over smallest per-node pass time from 3k nodes up: 1 is perfectly linear.
      passSpreadFrom3k: spread('passUsPerNode'),
      commandCpuSpreadFrom3k: spread('commandCpuUsPerNode'),
    },
    startup: {
      nodeMs: nodeStartMs,
      // Time to the command's first mark (arguments read, modules loaded), the best of all runs under 64 MiB.
      commandMs: startupMs,
      commandCpuMs: startupCpuMs,
      samples: startups.length,
      medianMs: startups.length ? median(startups.map((s) => s.startupMs)) : null,
    },
    memory: {
      rssPerNodeBytes: Object.fromEntries(rows.map((r) => [r.nodes, Math.round(r.rssPerNodeBytes)])),
      // What each node beyond the smallest model adds: the process's fixed memory left out.
      marginalRssPerNodeBytes: rows.length > 1 && largest.nodes > smallest.nodes ? (largest.peakRssBytes - smallest.peakRssBytes) / (largest.nodes - smallest.nodes) : null,
      largest: { nodes: largest?.nodes, peakRssBytes: largest?.peakRssBytes, fitsIn2GiB: largest?.fitsIn2GiB },
    },
    targets: [
      ...rows.map((r) => ({ target: `pass <= ${TARGETS.passUsPerNode} us/node at ${r.nodes} nodes`, measured: Number(r.passUsPerNode.toFixed(1)), met: r.passUsPerNode <= TARGETS.passUsPerNode })),
      // Start-up is sampled only on models small enough to run without the large-heap re-run.
      ...(startupMs === null ? [] : [{ target: `start-up <= ${TARGETS.startupMs} ms`, measured: Number(startupMs.toFixed(0)), met: startupMs <= TARGETS.startupMs }]),
      // Below 48k nodes the process's fixed memory (Node, code, rule tables: about 60 MB) is most of the peak.
      ...rows
        .filter((r) => r.nodes >= 48_000)
        .map((r) => ({ target: `peak RSS <= ${TARGETS.rssPerNodeBytes} B/node at ${r.nodes} nodes`, measured: Math.round(r.rssPerNodeBytes), met: r.rssPerNodeBytes <= TARGETS.rssPerNodeBytes })),
      ...rows
        .filter((r) => r.nodes >= 900_000)
        .map((r) => ({ target: `${r.nodes} nodes in under 2 GiB`, measured: r.peakRssBytes, met: r.fitsIn2GiB })),
      ...rows
        .map((r) => [r, Object.entries(TARGETS.speedup).find(([size]) => Math.abs(Number(size) - r.nodes) / Number(size) < 0.1)])
        .filter(([r, entry]) => entry && r.speedup !== null)
        .map(([r, [, wanted]]) => ({
          target: `>= ${wanted}x onnxconverter-common at ${r.nodes} nodes, wall (${r.onnxconverterCommon.source})`,
          measured: Number(r.speedup.toFixed(2)),
          byCpu: Number(r.speedupByCpu.toFixed(2)),
          met: r.speedup >= wanted,
        })),
    ],
  };
}

function printSummary(summary) {
  const { linearity, startup, memory, targets } = summary;
  const perNode = (record, unit) => Object.entries(record).map(([nodes, value]) => `${Number(nodes).toLocaleString('en-US')} ${value}${unit}`).join(', ');
  console.log(`linearity, pass us/node: ${perNode(linearity.passUsPerNode, '')}` + (linearity.passSpreadFrom3k ? ` (largest/smallest from 3k nodes: ${linearity.passSpreadFrom3k.toFixed(2)}x)` : ''));
  console.log(`linearity, command CPU us/node: ${perNode(linearity.commandCpuUsPerNode, '')}` + (linearity.commandCpuSpreadFrom3k ? ` (${linearity.commandCpuSpreadFrom3k.toFixed(2)}x)` : ''));
  if (startup.commandMs === null) console.log(`start-up: not sampled (every model here is over 64 MiB and re-runs with a larger heap); node -e 0 takes ${startup.nodeMs.toFixed(0)} ms`);
  else console.log(
    `start-up: ${startup.commandMs?.toFixed(0)} ms to the first mark (best of ${startup.samples}, median ${startup.medianMs?.toFixed(0)} ms, ${startup.commandCpuMs?.toFixed(0) ?? '?'} ms CPU); node -e 0 takes ${startup.nodeMs.toFixed(0)} ms`,
  );
  console.log(
    `peak RSS per node: ${Object.entries(memory.rssPerNodeBytes).map(([nodes, bytes]) => `${Number(nodes).toLocaleString('en-US')} ${kb(bytes)}`).join(', ')}` +
      (memory.marginalRssPerNodeBytes !== null ? `; each node beyond the smallest model adds ${kb(memory.marginalRssPerNodeBytes)}` : '') +
      `; ${memory.largest.nodes?.toLocaleString('en-US')} nodes peak at ${mib(memory.largest.peakRssBytes)} (${memory.largest.fitsIn2GiB ? 'fits in' : 'does not fit in'} 2 GiB)`,
  );
  for (const { target, measured, met, byCpu } of targets) console.log(`  ${met ? 'met    ' : 'NOT MET'}  ${target}: ${measured}${byCpu !== undefined ? ` (by CPU seconds ${byCpu})` : ''}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { sizes: { type: 'string', default: DEFAULT_SIZES.join(',') }, runs: { type: 'string', default: '3' }, out: { type: 'string' } } });
  const result = await phaseBreakdown({ sizes: values.sizes.split(',').map(Number), runs: Number(values.runs) });
  const out = values.out ?? path.join(root, 'bench/results', `phase-breakdown-${result.date.slice(0, 10)}.json`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), out)}`);
}
