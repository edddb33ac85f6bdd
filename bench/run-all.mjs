// `npm run bench`: every benchmark on this machine's CPU in a few minutes, results as JSON in
// bench/results/<provider>-<date>.json. Set BENCH_EP=cuda (or webgpu) on a GPU machine,
// BENCH_MAX_NODES to bound the phase-breakdown and rewrite-scale sizes (default 1,000,000), BENCH_BIG_WEIGHTS_GIB the
// external-data model (default 8, 0 skips it), BENCH_RUNS the interleaved runs per size (default 3).
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const api = await import(path.join(root, 'dist/index.js'));
const { buildTransformer } = await import(path.join(root, 'dist/builder/recipes/transformer.js'));
const { buildMlpInference } = await import(path.join(root, 'dist/builder/recipes/mlp.js'));
const { benchmarkPair } = await import(path.join(root, 'dist/runtime/bench.js'));
const { randomInputs } = await import(path.join(root, 'dist/runtime/inputs.js'));
const { loadOrt } = await import(path.join(root, 'dist/runtime/ort.js'));
const { parseProviders } = await import(path.join(root, 'dist/runtime/session.js'));

const providers = parseProviders(process.env.BENCH_EP ?? 'cpu');
const gpu = providers[0] !== 'cpu';
const { rewriteScale } = await import('./rewrite-scale.mjs');
const { ioThroughput } = await import('./io-throughput.mjs');
const { htmlReportLoad } = await import('./html-report.mjs');
const { phaseBreakdown, ALL_SIZES } = await import('./phase-breakdown.mjs');
const { conversionThroughput, bigExternalModel } = await import('./weights-scale.mjs');
console.log('== the whole command, phase by phase, against onnxconverter-common ==');
const maxNodes = Number(process.env.BENCH_MAX_NODES ?? 1_000_000);
const phases = await phaseBreakdown({ sizes: ALL_SIZES.filter((nodes) => nodes <= maxNodes), runs: Number(process.env.BENCH_RUNS ?? 3) });
console.log('== rewrite speed against model size ==');
const scale = await rewriteScale({ maxNodes });
console.log('== loading, saving and converting weights ==');
const io = await ioThroughput({ totalMiB: gpu ? 1024 : 256 });
const conversion = await conversionThroughput();
// BENCH_BIG_WEIGHTS_GIB=0 skips the model with external weights far over 2 GB (a sparse file).
const bigGib = Number(process.env.BENCH_BIG_WEIGHTS_GIB ?? 8);
const bigModel = bigGib > 0 ? await bigExternalModel({ gib: bigGib }) : null;

console.log('== the HTML audit of a 50,000-node graph in headless Chromium ==');
const htmlReport = await htmlReportLoad({ nodes: 50_000 });

console.log(`== fp32 against mixed precision on ${providers.join(',')} ==`);
const ort = await loadOrt();
const models = gpu
  ? [
      { name: 'MLP 784-4096-4096-10 + softmax, batch 8192', model: buildMlpInference({ batch: 8192, input: 784, hidden: 4096, layers: 2, classes: 10 }) },
      { name: 'transformer 12 x d1024 h16, batch 16 x 512', model: buildTransformer({ batch: 16, sequence: 512, model: 1024, heads: 16, ffn: 4096, layers: 12, vocab: 0 }) },
    ]
  : [
      { name: 'MLP 784-256-256-10 + softmax, batch 256', model: buildMlpInference({ batch: 256, input: 784, hidden: 256, layers: 2, classes: 10 }) },
      { name: 'transformer 2 x d256 h4, batch 4 x 64', model: buildTransformer({ batch: 4, sequence: 64, model: 256, heads: 4, ffn: 1024, layers: 2, vocab: 0 }) },
    ];
const pairs = [];
for (const { name, model } of models) {
  const { model: amp, report } = api.ampRewrite(model);
  const feeds = randomInputs(ort, model, { seed: 1 });
  const result = await benchmarkPair(
    [
      { label: 'fp32', model: api.encodeModel(model) },
      { label: 'amp', model: api.encodeModel(amp) },
    ],
    providers,
    feeds,
    { runs: gpu ? 30 : 10, warmup: gpu ? 5 : 2, batch: Object.values(feeds)[0].dims[0], tolerance: { atol: 1e-2, rtol: 1e-2 } },
  );
  pairs.push({ name, converted: report.summary.converted, ...result });
  const [fp32, ampRow] = result.variants;
  console.log(
    `${name}: fp32 ${fp32.medianMs.toFixed(2)} ms, amp ${ampRow.medianMs.toFixed(2)} ms (${result.speedup.toFixed(2)}x) on ${fp32.provider}; ` +
      `outputs ${result.accuracy.every((a) => a.pass) ? 'within' : 'OUTSIDE'} tolerance (max abs err ${Math.max(...result.accuracy.map((a) => a.maxAbsError)).toExponential(2)})`,
  );
}

const record = {
  date: new Date().toISOString(),
  machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
  provider: pairs[0]?.variants[0]?.provider ?? providers[0],
  load: os.loadavg()[0],
  phaseBreakdown: phases,
  rewriteScale: scale.rows,
  io,
  weightConversion: conversion,
  bigExternalModel: bigModel,
  htmlReport,
  fp32VsAmp: pairs,
};
const dir = path.join(root, 'bench/results');
mkdirSync(dir, { recursive: true });
const file = path.join(dir, `${record.provider}-${record.date.slice(0, 10)}.json`);
writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
console.log(`wrote ${path.relative(root, file)}`);
