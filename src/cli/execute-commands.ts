/** `run`, `compare` and `bench`: executing models on ONNX Runtime (loaded only by these commands). */
import { mkdirSync } from 'node:fs';
import { writeFileAtomically } from '../onnx/safe-write.js';
import os from 'node:os';
import path from 'node:path';
import type { Argv } from 'yargs';
import { encodeModel } from '../onnx/codec.js';
import { AmpError } from '../onnx/errors.js';
import { writeTextAtomically } from '../onnx/io-text.js';
import { loadModel } from '../onnx/model-io.js';
import { onnx } from '../onnx/generated/onnx.js';
import { benchmarkPair, type BenchResult } from '../runtime/bench.js';
import { compareOutput, scaledTolerance, type OutputComparison } from '../runtime/compare.js';
import { loadOrt } from '../runtime/ort.js';
import { describeProvider, openSession } from '../runtime/session.js';
import { renderTensorSummary, summarizeTensor } from '../runtime/summarize.js';
import { ortToTensorProto } from '../runtime/tensors.js';
import { rewriteOptions, rewriteOptionsFromArgs, type RewriteArgs } from './rewrite-command.js';
import { rewriteModel } from '../passes/pipeline.js';
import { feedsOf, providersOf, runtimeOptions, type RuntimeArgs } from './runtime-options.js';
import { requireNumber } from './numeric-options.js';
import { runSession } from '../runtime/run-session.js';

type Print = (text: string) => void;

// ---- run ----
export interface RunArgs extends RuntimeArgs {
  model: string;
  saveOutputs?: string;
  json: boolean;
}

export function runOptions(yargs: Argv): Argv<RunArgs> {
  return runtimeOptions(
    yargs
      .positional('model', { type: 'string', demandOption: true, describe: 'ONNX model to run' })
      .option('save-outputs', { type: 'string', describe: 'folder to write each output to as <name>.pb (ONNX TensorProto)' })
      .option('json', { type: 'boolean', default: false, describe: 'print the output summaries as JSON' }),
  ) as unknown as Argv<RunArgs>;
}

export async function runRun(args: RunArgs, print: Print): Promise<number> {
  requireNumber('seed', args.seed, { integer: true });
  const model = loadModel(args.model);
  const ort = await loadOrt();
  const feeds = feedsOf(ort, model, args);
  const opened = await openSession(args.model, providersOf(args));
  try {
    const outputs = await runSession(opened.session, feeds, args.model);
    const summaries = opened.session.outputNames.map((name) => summarizeTensor(name, outputs[name]!));
    if (args.saveOutputs) {
      mkdirSync(args.saveOutputs, { recursive: true });
      for (const name of opened.session.outputNames) {
        const file = path.join(args.saveOutputs, `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.pb`);
        writeFileAtomically(file, onnx.TensorProto.encode(ortToTensorProto(outputs[name]!, name)).finish());
      }
    }
    print(args.json ? `${JSON.stringify({ provider: opened.provider, outputs: summaries }, null, 2)}\n` : `${describeProvider(opened)}\n${summaries.map(renderTensorSummary).join('\n')}\n`);
    return 0;
  } finally {
    await opened.session.release();
  }
}

// ---- compare ----
export interface CompareArgs extends RuntimeArgs {
  reference: string;
  candidate: string;
  atol: number;
  rtol: number;
  json: boolean;
}

export function compareOptions(yargs: Argv): Argv<CompareArgs> {
  return runtimeOptions(
    yargs
      .positional('reference', { type: 'string', demandOption: true, describe: 'the reference model (typically the fp32 original)' })
      .positional('candidate', { type: 'string', demandOption: true, describe: 'the model to check (typically the mixed-precision one)' })
      .option('atol', { type: 'number', default: 1e-2, describe: 'absolute tolerance, as a fraction of the largest reference magnitude' })
      .option('rtol', { type: 'number', default: 1e-2, describe: 'relative tolerance per element' })
      .option('json', { type: 'boolean', default: false, describe: 'print the comparison as JSON' }),
  ) as unknown as Argv<CompareArgs>;
}

export function renderComparison(rows: OutputComparison[]): string {
  const header = 'output                          elements  max abs err  max rel err  cosine      nan/inf ref  nan/inf new  result';
  const lines = rows.map((r) =>
    [
      r.name.padEnd(30).slice(0, 30),
      String(r.elements).padStart(10),
      r.maxAbsError.toExponential(3).padStart(12),
      r.maxRelError.toExponential(3).padStart(12),
      r.cosine.toFixed(6).padStart(9),
      String(r.referenceNonFinite).padStart(12),
      String(r.candidateNonFinite).padStart(12),
      `  ${r.pass ? 'pass' : `FAIL (${r.mismatched} outside tolerance${r.note ? `; ${r.note}` : ''})`}`,
    ].join(' '),
  );
  return `${header}\n${lines.join('\n')}\n`;
}

export async function runCompare(args: CompareArgs, print: Print): Promise<number> {
  requireNumber('atol', args.atol, { min: 0 });
  requireNumber('rtol', args.rtol, { min: 0 });
  requireNumber('seed', args.seed, { integer: true });
  const reference = loadModel(args.reference);
  loadModel(args.candidate);
  const ort = await loadOrt();
  const feeds = feedsOf(ort, reference, args);
  const providers = providersOf(args);
  const a = await openSession(args.reference, providers);
  const b = await openSession(args.candidate, providers);
  try {
    const expected = await runSession(a.session, feeds, args.reference);
    const got = await runSession(b.session, feeds, args.candidate);
    const rows = a.session.outputNames.map((name) => {
      if (!got[name]) return { ...compareOutput(name, expected[name]!, expected[name]!, { atol: 0, rtol: 0 }), pass: false, note: 'missing in the candidate' };
      return compareOutput(name, expected[name]!, got[name]!, scaledTolerance(expected[name]!, args.atol, args.rtol));
    });
    const pass = rows.every((r) => r.pass);
    print(
      args.json
        ? `${JSON.stringify({ provider: a.provider, pass, outputs: rows }, null, 2)}\n`
        : `${describeProvider(a)}\n${renderComparison(rows)}${pass ? 'PASS' : 'FAIL'}: ${rows.filter((r) => r.pass).length} of ${rows.length} outputs within tolerance\n`,
    );
    return pass ? 0 : 1;
  } finally {
    await a.session.release();
    await b.session.release();
  }
}

// ---- bench ----
export interface BenchArgs extends RewriteArgs, RuntimeArgs {
  runs: number;
  warmup: number;
  out?: string;
}

export function benchOptions(yargs: Argv): Argv<BenchArgs> {
  return runtimeOptions(
    rewriteOptions(yargs)
      .option('runs', { type: 'number', default: 30, describe: 'timed runs of each model' })
      .option('warmup', { type: 'number', default: 5, describe: 'untimed runs of each model first' })
      .option('out', { type: 'string', describe: 'write the results as JSON here' }),
  ) as unknown as Argv<BenchArgs>;
}

export function renderBench(result: BenchResult, model: string): string {
  const lines = [`model: ${model}  batch ${result.batch}, ${result.runs} runs after ${result.warmup} warm-up, alternating`];
  lines.push('variant  provider  median ms   p90 ms   items/s      RSS growth MiB  GPU memory MiB');
  for (const v of result.variants) {
    lines.push(
      `${v.label.padEnd(8)} ${v.provider.padEnd(8)} ${v.medianMs.toFixed(3).padStart(10)} ${v.p90Ms.toFixed(3).padStart(8)} ${v.itemsPerSecond.toFixed(1).padStart(10)} ${v.rssGrowthMiB.toFixed(1).padStart(16)} ${v.gpuMemoryGrowthMiB === null ? '             n/a' : v.gpuMemoryGrowthMiB.toFixed(0).padStart(16)}`,
    );
  }
  lines.push(`speed-up of amp over fp32: ${result.speedup.toFixed(2)}x`);
  lines.push(renderComparison(result.accuracy).trimEnd());
  return `${lines.join('\n')}\n`;
}

export async function runBench(args: BenchArgs, print: Print): Promise<number> {
  requireNumber('runs', args.runs, { integer: true, min: 1 });
  requireNumber('warmup', args.warmup, { integer: true, min: 0 });
  requireNumber('seed', args.seed, { integer: true });
  const model = loadModel(args.model, { allowNewerIr: args.allowNewerIr });
  const { model: amp, report: { amp: report } } = rewriteModel(model, rewriteOptionsFromArgs(args));
  const ort = await loadOrt();
  const feeds = feedsOf(ort, model, args);
  const firstInput = Object.values(feeds)[0];
  const batch = firstInput?.dims[0] ?? 1;
  const result = await benchmarkPair(
    [
      { label: 'fp32', model: encodeModel(model) },
      { label: 'amp', model: encodeModel(amp) },
    ],
    providersOf(args),
    feeds,
    { runs: args.runs, warmup: args.warmup, batch, tolerance: { atol: 1e-2, rtol: 1e-2 } },
  );
  const provider = result.variants[0]?.provider;
  const record = {
    benchmark: 'fp32-vs-amp',
    model: args.model,
    date: new Date().toISOString(),
    machine: machineDescription(),
    provider,
    cpuOnly: provider === 'cpu',
    summary: report.summary,
    ...result,
  };
  if (args.out) writeTextAtomically(args.out, `${JSON.stringify(record, null, 2)}\n`);
  if (!args.quiet) {
    print(renderBench(result, args.model));
    if (provider === 'cpu') print('note: ran on the CPU provider, which computes float16 by casting to float32: expect no speed-up here; GPUs are where AMP pays.\n');
  }
  return 0;
}

export function machineDescription(): string {
  return `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.arch()}, node ${process.version}`;
}
