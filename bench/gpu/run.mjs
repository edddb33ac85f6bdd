#!/usr/bin/env node
// The whole GPU benchmark in one command (see bench/gpu/README.md): the transformer at the size of
// ../shared/gpu/README.md's figures, the seeds' MLP 784-4096-4096-10 at batch 8192, an MLP and an
// attention training step; each as fp32 (TF32 off), fp32 + TF32 (the CUDA provider's default), AMP
// with --target any, AMP with --target cuda, and pure fp16; then the largest batch that fits for
// fp32 and AMP. Every variant runs alone in its own process (src/runtime/isolated-bench.ts).
// Writes gpu-<device>-<date>.json and .md under --out (default bench/results), after every model.
//
//   node bench/gpu/run.mjs [--out DIR] [--ep cuda] [--only transformer,mlp,mlp-train,attention-train]
//                          [--runs 30] [--warmup 5] [--no-batch-search] [--budget-s 540] [--small]
// --small: tiny sizes, to check the script itself (e.g. --ep cpu --small); its figures mean nothing.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = (file) => import(path.join(root, 'dist', file));
const { encodeModel } = await dist('onnx/codec.js');
const { ampRewrite } = await dist('passes/amp.js');
const { rewriteModel } = await dist('passes/pipeline.js');
const { buildTransformer } = await dist('builder/recipes/transformer.js');
const { buildMlpInference } = await dist('builder/recipes/mlp.js');
const { buildMlpTrainingStep, buildAttentionTrainingStep, withInitialState } = await dist('builder/recipes/training.js');
const { processRunner, ISOLATION_DESCRIPTIONS, VariantFailed } = await dist('runtime/isolated-bench.js');
const { largestBatch } = await dist('runtime/batch-search.js');
const { compareAll } = await dist('runtime/variant-bench.js');
const { nvidiaSmiQuery } = await dist('runtime/device-check.js');
const { parseProviders } = await dist('runtime/session.js');
const { loadOrt } = await dist('runtime/ort.js');

const { values: opts } = parseArgs({
  options: {
    out: { type: 'string', default: path.join(root, 'bench/results') },
    ep: { type: 'string', default: 'cuda' },
    only: { type: 'string' },
    runs: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '5' },
    'no-batch-search': { type: 'boolean', default: false },
    'budget-s': { type: 'string', default: '540' },
    small: { type: 'boolean', default: false },
  },
});
const started = Date.now();
const budgetMs = Number(opts['budget-s']) * 1000;
const timeLeft = () => budgetMs - (Date.now() - started);
const providers = parseProviders(opts.ep);
const cuda = providers[0] === 'cuda';
const runs = Number(opts.runs);
const warmup = Number(opts.warmup);
const small = opts.small;
const ort = await loadOrt();
const runner = processRunner();
const device = cuda ? (nvidiaSmiQuery()?.[0] ?? null) : null;
const log = (line) => process.stderr.write(`${line}\n`);

const size = small
  ? { layers: 2, d: 64, heads: 4, ffn: 256, seq: 16, tBatch: 2, hidden: 64, mlpBatch: 64, trainBatch: 32, attnSeq: 8, attnWidth: 16, attnBatch: 8 }
  : { layers: 12, d: 1024, heads: 16, ffn: 4096, seq: 512, tBatch: 16, hidden: 4096, mlpBatch: 8192, trainBatch: 8192, attnSeq: 512, attnWidth: 1024, attnBatch: 64 };
const CASES = [
  {
    name: 'transformer', kind: 'inference', batch: size.tBatch, search: true,
    title: `transformer ${size.layers} x d${size.d} h${size.heads} ffn${size.ffn}, batch B x ${size.seq}`,
    build: (batch) => buildTransformer({ batch, sequence: size.seq, model: size.d, heads: size.heads, ffn: size.ffn, layers: size.layers, vocab: 0 }),
  },
  {
    name: 'mlp', kind: 'inference', batch: size.mlpBatch, search: true,
    title: `MLP 784-${size.hidden}-${size.hidden}-10 + softmax, batch B`,
    build: (batch) => buildMlpInference({ batch, input: 784, hidden: size.hidden, layers: 2, classes: 10 }),
  },
  {
    name: 'mlp-train', kind: 'training step', batch: size.trainBatch, search: false,
    title: `MLP 784-${size.hidden}-${size.hidden}-10 training step (SGD with momentum), batch B`,
    build: (batch) => withInitialState(buildMlpTrainingStep({ inputSize: 784, hidden: size.hidden, hiddenLayers: 2, classes: 10, batch, optimizer: 'sgd-momentum', seed: 1 })),
  },
  {
    name: 'attention-train', kind: 'training step', batch: size.attnBatch, search: false,
    title: `attention block training step (Adam), sequence ${size.attnSeq}, width ${size.attnWidth}, batch B`,
    build: (batch) => withInitialState(buildAttentionTrainingStep({ sequence: size.attnSeq, width: size.attnWidth, classes: 10, batch, optimizer: 'adam', seed: 1 })),
  },
].filter((c) => !opts.only || opts.only.split(',').includes(c.name));

/** The five variants of one model; `tf32` only means something on CUDA. */
function variantsOf(model) {
  const timed = (label, make) => {
    const start = Date.now();
    const out = make();
    return { label, bytes: encodeModel(out.model), rewriteMs: Date.now() - start, converted: out.converted };
  };
  const list = [
    { ...timed('fp32', () => ({ model })), tf32: cuda ? false : null },
    ...(cuda ? [{ ...timed('fp32+tf32', () => ({ model })), tf32: true }] : []),
    { ...timed('amp', () => { const r = rewriteModel(model); return { model: withLossScaleDefaults(r), converted: r.report.amp.summary.converted }; }), tf32: cuda ? true : null },
    { ...timed('amp --target cuda', () => { const r = rewriteModel(model, { target: 'cuda' }); return { model: withLossScaleDefaults(r), converted: r.report.amp.summary.converted }; }), tf32: cuda ? true : null },
    { ...timed('pure fp16', () => { const r = ampRewrite(model, { forceFp16: ['/.*/'], weights: 'fp16' }); return { model: r.model, converted: r.report.summary.converted }; }), tf32: cuda ? true : null },
  ];
  return list;
}

/**
 * A rewritten training step's loss-scaling inputs get defaults (the initial scale, a zero growth
 * counter), as the `train` runner feeds them at the first step; random values would scale the
 * gradients by noise.
 */
function withLossScaleDefaults({ model, report }) {
  const scaling = report.training;
  if (!scaling || scaling.lossScale.kind === 'none') return model;
  for (const name of scaling.inputsAdded) {
    const info = model.graph.input.find((i) => i.name === name);
    const type = info?.type?.tensor_type?.elem_type;
    if (type === 1) model.graph.initializer.push({ name, data_type: 1, dims: [], float_data: [scaling.lossScale.kind === 'dynamic' ? scaling.lossScale.initial : scaling.lossScale.value] });
    else if (type === 7) model.graph.initializer.push({ name, data_type: 7, dims: [], int64_data: [0] });
  }
  return model;
}

const job = (label, tf32, extra = {}) => ({ label, providers, runs, warmup, feeds: { inputs: [], dims: {}, seed: 1 }, tf32, keepOutputs: true, ...extra });
const results = { date: new Date().toISOString(), device, machine: `${os.cpus()[0]?.model} x${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`, node: process.version, ortVersion: ort.env.versions?.node ?? null, providers, method: ISOLATION_DESCRIPTIONS.process, small, runs, warmup, cases: [] };
const slug = (device?.name ?? opts.ep).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const stem = path.join(opts.out, `gpu-${slug}-${results.date.slice(0, 10)}${small ? '-small' : ''}`);

function save() {
  mkdirSync(opts.out, { recursive: true });
  writeFileSync(`${stem}.json`, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(`${stem}.md`, renderMarkdown(results));
}

for (const testCase of CASES) {
  if (timeLeft() < 30_000) { log(`budget spent: ${testCase.name} skipped`); results.cases.push({ name: testCase.name, skipped: 'time budget spent' }); continue; }
  const batchDims = testCase.kind === 'training step' ? { batch: testCase.batch } : {};
  const model = testCase.build(testCase.kind === 'training step' ? 'batch' : testCase.batch);
  log(`== ${testCase.name}: ${testCase.title.replace('B', String(testCase.batch))}`);
  const variants = variantsOf(model);
  const measured = [];
  for (const v of variants) {
    try {
      const m = await runner(job(v.label, v.tf32, { feeds: { inputs: [], dims: batchDims, seed: 1 } }), v.bytes);
      measured.push({ ...m, rewriteMs: v.rewriteMs, converted: v.converted ?? null });
      log(`  ${v.label.padEnd(18)} ${m.medianMs.toFixed(3)} ms on ${m.provider}${m.tf32 === null ? '' : m.tf32 ? ' (TF32 on)' : ' (TF32 off)'}`);
    } catch (error) {
      measured.push({ label: v.label, error: error.message, outOfMemory: error instanceof VariantFailed && error.outOfMemory });
      log(`  ${v.label.padEnd(18)} failed: ${error.message}`);
    }
  }
  const reference = measured.find((m) => m.label === 'fp32' && m.outputs);
  const entry = { name: testCase.name, kind: testCase.kind, title: testCase.title.replace('B', String(testCase.batch)), batch: testCase.batch, variants: [], batchSearch: null };
  for (const m of measured) {
    const { outputs, ...rest } = m;
    const accuracy = reference && outputs && m !== reference ? compareAll(ort, reference.outputs, outputs, { atol: 1e-2, rtol: 1e-2 }) : undefined;
    entry.variants.push({ ...rest, ...(accuracy ? { accuracy: accuracy.map(({ name, maxAbsError, maxRelError, cosine, pass }) => ({ name, maxAbsError, maxRelError, cosine, pass })) } : {}) });
  }
  results.cases.push(entry);
  save();

  if (testCase.search && !opts['no-batch-search']) {
    entry.batchSearch = {};
    for (const label of ['fp32+tf32', 'amp --target cuda']) {
      const useLabel = cuda ? label : label.replace('+tf32', '');
      if (timeLeft() < 60_000) { entry.batchSearch[useLabel] = { skipped: 'time budget spent' }; continue; }
      const search = await largestBatch(
        async (batch) => {
          if (timeLeft() < 30_000) return { fits: false, error: 'time budget spent' };
          const built = testCase.build(batch);
          const bytes = label === 'fp32+tf32' ? encodeModel(built) : encodeModel(rewriteModel(built, { target: 'cuda' }).model);
          try {
            const m = await runner(job(`${useLabel}@${batch}`, cuda ? true : null, { runs: 5, warmup: 1, keepOutputs: false }), bytes);
            log(`  batch search ${useLabel} @ ${batch}: ${m.medianMs.toFixed(2)} ms`);
            return { fits: true, medianMs: m.medianMs };
          } catch (error) {
            if (error instanceof VariantFailed && error.outOfMemory) { log(`  batch search ${useLabel} @ ${batch}: out of memory`); return { fits: false, error: error.message }; }
            throw error;
          }
        },
        { start: testCase.batch, max: testCase.batch * 32, maxTrials: 7 },
      );
      entry.batchSearch[useLabel] = search;
      save();
    }
  }
}
save();
log(`wrote ${stem}.json and ${stem}.md (${((Date.now() - started) / 1000).toFixed(0)} s)`);

/** One output: its error; several (a training step's updated state): how many pass, and the worst relative to tolerance. */
function accuracyCell(rows) {
  if (rows.length === 1) return `${rows[0].name} ${rows[0].maxAbsError.toExponential(1)} (${rows[0].pass ? 'pass' : 'FAIL'})`;
  const failing = rows.filter((a) => !a.pass);
  const worst = [...rows].sort((a, b) => a.cosine - b.cosine)[0];
  return `${rows.length - failing.length} of ${rows.length} outputs pass${failing.length ? ` (outside: ${failing.map((a) => a.name).join(', ')})` : ''}; lowest cosine ${worst.cosine.toFixed(6)} (${worst.name})`;
}

function renderMarkdown(r) {
  const ms = (v) => (v?.medianMs ? v.medianMs.toFixed(2) : v?.outOfMemory ? 'OOM' : v?.error ? 'failed' : '-');
  const lines = [
    `# GPU benchmark ${r.date.slice(0, 10)}${r.small ? ' (--small: sizes for checking the script, figures mean nothing)' : ''}`,
    '',
    `Device: ${r.device ? `${r.device.name}, compute capability ${r.device.computeCapability}` : 'none queried'}; providers ${r.providers.join(',')}; ONNX Runtime ${r.ortVersion ?? '?'}; Node ${r.node}.`,
    `Method: ${r.method}. Median of ${r.runs} runs after ${r.warmup} warm-ups, host copies included. fp32 has TF32 off (NVIDIA_TF32_OVERRIDE=0); every other variant runs with the provider's default (use_tf32 on).`,
    '',
    '| model | fp32 ms | fp32+TF32 ms | AMP ms | AMP --target cuda ms | pure fp16 ms | AMP cuda vs fp32 | vs fp32+TF32 | vs pure fp16 | AMP cuda max abs err (pass) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const c of r.cases) {
    if (c.skipped) { lines.push(`| ${c.name} | ${c.skipped} |||||||||`); continue; }
    const by = Object.fromEntries(c.variants.map((v) => [v.label, v]));
    const cudaAmp = by['amp --target cuda'];
    const ratio = (a, b) => (a?.medianMs && b?.medianMs ? `${(a.medianMs / b.medianMs).toFixed(2)}x` : '-');
    const err = cudaAmp?.accuracy ? accuracyCell(cudaAmp.accuracy) : '-';
    lines.push(`| ${c.title} | ${ms(by.fp32)} | ${ms(by['fp32+tf32'])} | ${ms(by.amp)} | ${ms(cudaAmp)} | ${ms(by['pure fp16'])} | ${ratio(by.fp32, cudaAmp)} | ${ratio(by['fp32+tf32'], cudaAmp)} | ${ratio(cudaAmp, by['pure fp16'])} latency | ${err} |`);
  }
  const searches = r.cases.filter((c) => c.batchSearch);
  if (searches.length) {
    lines.push('', '## Largest batch that fits', '', '| model | variant | largest batch | items/s there | trials |', '|---|---|---:|---:|---|');
    for (const c of searches) {
      for (const [label, s] of Object.entries(c.batchSearch)) {
        if (s.skipped) { lines.push(`| ${c.name} | ${label} | ${s.skipped} | | |`); continue; }
        const trials = s.trials.map((t) => `${t.batch}${t.fits ? '' : ' ✗'}`).join(', ');
        lines.push(`| ${c.name} | ${label} | ${s.largest ?? 'none'}${s.reachedLimit ? '+' : ''} | ${s.itemsPerSecond ? s.itemsPerSecond.toFixed(0) : '-'} | ${trials} |`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}
