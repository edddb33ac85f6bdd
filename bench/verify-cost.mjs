// What the rewrite's verification (on by default) costs: the whole command with and without
// --no-verify, interleaved, on the bundled transformer block and on transformers of about 12k and
// 48k nodes (the recipe phase-breakdown.mjs times), next to the float32 model's own run time on ONNX
// Runtime's CPU provider (one session created and run once, in a fresh process, as the
// verification's reference is). Issue 35's aim: verification adds at most 3x that run time.
// Usage: node bench/verify-cost.mjs [--sizes 12000,48000] [--runs 5] [--out bench/results/verify-cost-<date>.json]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { writeTransformer } from './phase-breakdown.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli/main.js');
const { values: args } = parseArgs({ options: { sizes: { type: 'string', default: '12000,48000' }, runs: { type: 'string', default: '5' }, out: { type: 'string' } } });
const runs = Number(args.runs);

/** The float32 model's own run: a fresh process opens a CPU session on it and runs it once on the inputs the verification draws. */
function fp32RunMs(file) {
  const script = `const ort = await import('onnxruntime-node');
const { loadModel } = await import(${JSON.stringify(pathToFileURL(path.join(root, 'dist/index.js')).href)});
const { modelAwareRandomInputs } = await import(${JSON.stringify(pathToFileURL(path.join(root, 'dist/runtime/input-roles.js')).href)});
const feeds = modelAwareRandomInputs(ort, loadModel(process.argv[1]), { seed: 0, defaultDim: 1 });
const start = process.hrtime.bigint();
const session = await ort.InferenceSession.create(process.argv[1], { executionProviders: ['cpu'], logSeverityLevel: 4 });
await session.run(feeds);
process.stdout.write(String(Number(process.hrtime.bigint() - start) / 1e6));`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script, file], { encoding: 'utf8', cwd: root }));
}

function commandMs(file, out, extra) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [cli, file, '-o', out, '-q', ...extra], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${file}: ${result.stderr.trim()}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const work = mkdtempSync(path.join(tmpdir(), 'amp-verify-cost-'));
const rows = [];
try {
  const models = [{ label: 'transformer block (fixture)', file: path.join(root, 'fixtures/transformer-block/model.onnx'), nodes: 37 }];
  for (const size of args.sizes.split(',').map(Number)) {
    const file = path.join(work, `transformer-${size}.onnx`);
    models.push({ label: `transformer, ${size} target`, file, nodes: writeTransformer(size, file) });
  }
  for (const model of models) {
    const plain = [];
    const verified = [];
    const fp32 = [];
    for (let run = 0; run < runs; run++) {
      // Alternate the order, so neither always runs on a machine the other just warmed.
      const order = run % 2 ? ['verify', 'static'] : ['static', 'verify'];
      for (const which of order) {
        if (which === 'static') plain.push(commandMs(model.file, path.join(work, 'static.onnx'), ['--no-verify']));
        else verified.push(commandMs(model.file, path.join(work, 'verified.onnx'), []));
      }
      fp32.push(fp32RunMs(model.file));
    }
    const row = {
      model: model.label,
      nodes: model.nodes,
      staticMs: median(plain),
      verifiedMs: median(verified),
      addedMs: median(verified) - median(plain),
      fp32RunMs: median(fp32),
    };
    row.addedOverFp32Run = row.addedMs / row.fp32RunMs;
    rows.push(row);
    console.log(`${row.model} (${row.nodes} nodes): --no-verify ${row.staticMs.toFixed(0)} ms, verified ${row.verifiedMs.toFixed(0)} ms, added ${row.addedMs.toFixed(0)} ms = ${row.addedOverFp32Run.toFixed(2)}x the fp32 model's own run (${row.fp32RunMs.toFixed(0)} ms)`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const result = { date: new Date().toISOString(), node: process.version, cpu: os.cpus()[0]?.model, cores: os.cpus().length, runs, rows };
if (args.out) writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
