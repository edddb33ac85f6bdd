// `npm run bench:tune`: amp-rewrite tune against a greedy halving search on the models built to fail
// in float16 in one known place, at two sizes. The greedy search is onnxconverter-common's
// auto_convert_mixed_precision algorithm (segments of the node list, the largest untested one
// tried converted with every other untested node blocked; split on failure), re-implemented here
// with the same primitives as tune: every attempt is one conversion of the decoded model, its
// emulating model, a new ONNX Runtime session and a run, judged by the same tolerance. Both run
// under emulated float16 numerics on the CPU provider. Writes bench/results/tune-vs-greedy-<provider>-<date>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const api = await import(path.join(root, 'dist/index.js'));
const failures = await import(path.join(root, 'dist/builder/recipes/fp16-failures.js'));
const { openSession, parseProviders } = await import(path.join(root, 'dist/runtime/session.js'));
const { loadOrt } = await import(path.join(root, 'dist/runtime/ort.js'));
const { modelForNumerics } = await import(path.join(root, 'dist/runtime/numerics.js'));
// The ONNX Runtime-typed internals (the public API has tuneModel, which takes no tensors).
const { judgeOutput, tune } = await import(path.join(root, 'dist/runtime/tune.js'));
const { modelAwareRandomInputs } = await import(path.join(root, 'dist/runtime/calibration.js'));

const providers = parseProviders(process.env.BENCH_EP ?? 'cpu');
const numerics = providers[0] === 'cpu' ? 'emulate' : 'native';
const criterion = { atol: 1e-2, rtol: 1e-2, metric: 'allclose' };
const ort = await loadOrt();

async function runOnce(model, feeds) {
  const opened = await openSession(api.encodeModel(modelForNumerics(model, numerics)), providers);
  try {
    return await opened.session.run(feeds);
  } finally {
    await opened.session.release();
  }
}

/** onnxconverter-common's segment bisection over the main graph's node names. */
async function greedyHalving(model, feeds, reference) {
  const names = model.graph.node.map((n) => n.name);
  const outputs = model.graph.output.map((o) => o.name);
  let attempts = 0;
  const attempt = async (blocked) => {
    attempts++;
    const { model: converted } = api.ampRewrite(model, { forceFp32: blocked });
    const got = await runOnce(converted, feeds);
    return outputs.every((name) => judgeOutput(name, reference[name], got[name], criterion).pass);
  };
  if (!(await attempt(names))) throw new Error('fails with every node blocked');
  const segments = [{ start: 0, size: names.length, good: false, bad: false }];
  const nodesExcept = (skip) => segments.filter((s) => s !== skip && !s.good).flatMap((s) => names.slice(s.start, s.start + s.size));
  for (;;) {
    const open = segments.filter((s) => !s.good && !s.bad);
    if (!open.length) break;
    const segment = open.reduce((a, b) => (b.size > a.size ? b : a));
    if (await attempt(nodesExcept(segment))) segment.good = true;
    else if (segment.size === 1) segment.bad = true;
    else {
      const half = Math.floor(segment.size / 2);
      const rest = { start: segment.start + half, size: segment.size - half, good: false, bad: false };
      segment.size = half;
      segments.splice(segments.indexOf(segment) + 1, 0, rest);
    }
  }
  const blocked = nodesExcept(undefined);
  const pass = await attempt(blocked);
  return { attempts, blocked, pass };
}

const cases = [];
for (const blocks of [3, 12, 48]) {
  cases.push({ name: `overflow-before-norm, ${blocks}+${blocks} blocks`, model: failures.buildOverflowBeforeNorm({ blocks }) });
  cases.push({ name: `attention-overflow, ${blocks}+${blocks} blocks`, model: failures.buildAttentionOverflow({ blocks }) });
  cases.push({ name: `long-softmax-underflow, ${blocks}+${blocks} blocks`, model: failures.buildLongSoftmaxUnderflow({ blocks }) });
}
// Several places to find: greedy halving pays about 2 log2(n/k) attempts for each of the k.
for (const layers of [4, 8]) cases.push({ name: `attention-overflow in ${layers} layers, 4 blocks each`, model: failures.buildAttentionOverflow({ blocks: 4, layers }) });

const rows = [];
for (const { name, model } of cases) {
  const feeds = modelAwareRandomInputs(ort, model, { seed: 0 });
  let started = performance.now();
  const tuned = await tune(model, { ampOptions: {}, batches: [feeds], providers, numerics, ...criterion });
  const tuneSeconds = (performance.now() - started) / 1000;
  started = performance.now();
  const reference = await runOnce(model, feeds);
  const greedy = await greedyHalving(model, feeds, reference);
  const greedySeconds = (performance.now() - started) / 1000;
  const row = {
    model: name,
    nodes: model.graph.node.length,
    convertedByLists: tuned.attempts.length ? tuned.result.report.summary.converted + tuned.pinned.length : 0,
    tune: {
      pass: tuned.pass,
      pinned: tuned.pinned.map((p) => p.node),
      sessions: tuned.runs.sessions,
      instrumentedRuns: tuned.runs.instrumented,
      fullRuns: tuned.runs.full,
      seconds: Number(tuneSeconds.toFixed(3)),
    },
    greedyHalving: { pass: greedy.pass, keptFp32: greedy.blocked.length, sessions: greedy.attempts + 1, fullRuns: greedy.attempts + 1, seconds: Number(greedySeconds.toFixed(3)) },
  };
  row.sessionRatio = Number((row.greedyHalving.sessions / row.tune.sessions).toFixed(1));
  row.timeRatio = Number((row.greedyHalving.seconds / row.tune.seconds).toFixed(1));
  rows.push(row);
  console.log(
    `${name} (${row.nodes} nodes): tune ${row.tune.sessions} sessions (${row.tune.instrumentedRuns} instrumented + ${row.tune.fullRuns} full runs), ` +
      `${row.tune.seconds.toFixed(2)} s, pins ${row.tune.pinned.join(', ')}; greedy halving ${row.greedyHalving.sessions} sessions, ` +
      `${row.greedyHalving.seconds.toFixed(2)} s, keeps ${row.greedyHalving.keptFp32} nodes fp32; ${row.sessionRatio}x sessions, ${row.timeRatio}x time`,
  );
}

const record = {
  benchmark: 'tune-vs-greedy-halving',
  date: new Date().toISOString(),
  machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
  provider: providers[0],
  numerics,
  criterion,
  note: 'sessions = model conversions + new ONNX Runtime sessions; greedy counts its reference run and its all-blocked sanity run as onnxconverter-common does; results hold for the one random batch used',
  rows,
};
const dir = path.join(root, 'bench/results');
mkdirSync(dir, { recursive: true });
const file = path.join(dir, `tune-vs-greedy-${record.provider}-${record.date.slice(0, 10)}.json`);
writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
console.log(`wrote ${path.relative(root, file)}`);
