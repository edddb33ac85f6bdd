// Two builds of amp-rewrite side by side on the same models: the whole `amp-rewrite model.onnx -o out.onnx`
// command of each, interleaved run by run (so that a busy machine slows both alike), with the command's own phase
// profile (AMP_REWRITE_PROFILE) and a check that both builds wrote byte-identical models.
// Usage: node bench/ab-builds.mjs --before <checkout> --after <checkout> [--models a.onnx,b.onnx] [--runs 3]
//        [--label-before ee97ebf] [--label-after HEAD] [--printed] [--out file.json]
// --printed runs the command without -q: the summary printed, with the FLOPs share and the lint it needs.
// Each checkout must be built (`npm run build`: dist/cli/main.js). The default models are the transformer graphs
// phase-breakdown.mjs builds; pass your own with --models.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string' },
    models: { type: 'string' },
    runs: { type: 'string', default: '3' },
    'label-before': { type: 'string' },
    'label-after': { type: 'string' },
    out: { type: 'string' },
    printed: { type: 'boolean', default: false },
  },
});
if (!args.before || !args.after || !args.models) {
  console.error('usage: node bench/ab-builds.mjs --before <checkout> --after <checkout> --models a.onnx[,b.onnx] [--runs 3] [--out file.json]');
  process.exit(2);
}

const runs = Number(args.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, not ${args.runs}`);
const builds = { before: path.resolve(args.before), after: path.resolve(args.after) };
const models = args.models.split(',').map((file) => path.resolve(file));
const FIELDS = { wall: 'totalMs', cpu: 'cpuMs', pass: 'passMs', rss: 'peakRssBytes', startup: 'startupMs' };

// The rewrite alone is timed: builds that verify by default are run with --no-verify (older builds lack the flag).
const staticRewrite = Object.fromEntries(
  Object.entries(builds).map(([label, dir]) => [label, existsSync(path.join(dir, 'dist/runtime/verify-worker.js')) ? ['--no-verify'] : []]),
);
const work = mkdtempSync(path.join(tmpdir(), 'amp-ab-'));
try {
  const samples = new Map();
  for (let run = 0; run < runs; run++) {
    for (const model of models) {
      const outputs = {};
      // Alternate which build goes first, so neither always runs on a machine the other just warmed.
      const order = run % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
      for (const label of order) {
        const profile = path.join(work, `${label}.json`);
        const output = path.join(work, `${label}.onnx`);
        const result = spawnSync(process.execPath, [path.join(builds[label], 'dist/cli/main.js'), model, '-o', output, ...staticRewrite[label], ...(args.printed ? [] : ['-q'])], {
          env: { ...process.env, AMP_REWRITE_PROFILE: profile },
        });
        if (result.status !== 0) throw new Error(`${label} build failed on ${model}: ${result.stderr.toString().trim()}`);
        const measured = JSON.parse(readFileSync(profile, 'utf8'));
        const key = `${model}\0${label}`;
        if (!samples.has(key)) samples.set(key, []);
        const headline = Object.entries(FIELDS).map(([name, field]) => [name, measured[field]]);
        // Every other millisecond figure of the profile is a phase (loadMs, paintMs, ...), kept under its own name.
        const phases = Object.entries(measured).filter(([field, value]) => typeof value === 'number' && field.endsWith('Ms') && !Object.values(FIELDS).includes(field));
        samples.get(key).push(Object.fromEntries([...headline, ...phases.map(([field, value]) => [`phase:${field}`, value])]));
        outputs[label] = readFileSync(output);
      }
      if (!outputs.before.equals(outputs.after)) throw new Error(`the two builds wrote different models for ${model}`);
    }
  }

  const median = (xs) => {
    const sorted = xs.slice().sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  };
  const rows = {};
  for (const model of models) {
    const row = { model: path.basename(model) };
    for (const label of ['before', 'after']) {
      const taken = samples.get(`${model}\0${label}`);
      const names = Object.keys(FIELDS);
      row[label] = Object.fromEntries(names.map((name) => [name, median(taken.map((sample) => sample[name]))]));
      const phaseNames = [...new Set(taken.flatMap((sample) => Object.keys(sample).filter((name) => name.startsWith('phase:'))))];
      row[label].phasesMs = Object.fromEntries(
        phaseNames.map((name) => [name.slice('phase:'.length), median(taken.map((sample) => sample[name]).filter((value) => value !== undefined))]),
      );
    }
    rows[path.basename(model)] = row;
    const { before: b, after: a } = row;
    console.log(
      `${row.model}: wall ${(b.wall / 1000).toFixed(2)} -> ${(a.wall / 1000).toFixed(2)} s, CPU ${(b.cpu / 1000).toFixed(2)} -> ${(a.cpu / 1000).toFixed(2)} s, ` +
        `pass ${b.pass.toFixed(0)} -> ${a.pass.toFixed(0)} ms, peak RSS ${(b.rss / 2 ** 20).toFixed(0)} -> ${(a.rss / 2 ** 20).toFixed(0)} MiB`,
    );
  }
  const report = {
    machine: `${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`,
    node: process.version,
    date: new Date().toISOString().slice(0, 10),
    before: args['label-before'] ?? builds.before,
    after: args['label-after'] ?? builds.after,
    runs,
    command: args.printed ? 'amp-rewrite model.onnx -o out.onnx (summary printed)' : 'amp-rewrite model.onnx -o out.onnx -q',
    statistic: `median of ${runs}, interleaved (alternating which build runs first); outputs byte-identical`,
    units: { wall: 'ms', cpu: 'ms', pass: 'ms', rss: 'bytes', startup: 'ms', phasesMs: 'ms, each the median of its own samples' },
    rows,
  };
  if (args.out) writeFileSync(args.out, JSON.stringify(report, null, 2) + '\n');
} finally {
  rmSync(work, { recursive: true, force: true });
}
