/** `run`, `compare` and `bench`: executing models on ONNX Runtime (loaded only by these commands). */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Argv } from 'yargs';
import { encodeModel } from '../onnx/codec.js';
import { AmpError } from '../onnx/errors.js';
import { writeTextAtomically } from '../onnx/io-text.js';
import { loadModel } from '../onnx/model-io.js';
import { onnx } from '../onnx/generated/onnx.js';
import { benchmarkPair, type BenchResult } from '../runtime/bench.js';
import { TOLERANCE_RULE, type OutputComparison } from '../runtime/compare.js';
import { compareRuns, runOnce, runUnder } from '../runtime/compare-models.js';
import { defaultNumerics, describeNumerics, parseNumerics } from '../runtime/numerics.js';
import { loadOrt } from '../runtime/ort.js';
import { describeProvider, openSession } from '../runtime/session.js';
import { renderTensorSummary, summarizeTensor } from '../runtime/summarize.js';
import { ortToTensorProto } from '../runtime/tensors.js';
import { rewriteOptions, rewriteOptionsFromArgs, type RewriteArgs } from './rewrite-command.js';
import { rewriteModel } from '../passes/pipeline.js';
import { feedsOf, providersOf, runtimeOptions, type RuntimeArgs } from './runtime-options.js';

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
  const model = loadModel(args.model);
  const ort = await loadOrt();
  const feeds = feedsOf(ort, model, args);
  const opened = await openSession(args.model, providersOf(args));
  try {
    const outputs = await opened.session.run(feeds);
    const summaries = opened.session.outputNames.map((name) => summarizeTensor(name, outputs[name]!));
    if (args.saveOutputs) {
      mkdirSync(args.saveOutputs, { recursive: true });
      for (const name of opened.session.outputNames) {
        const file = path.join(args.saveOutputs, `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.pb`);
        writeFileSync(file, onnx.TensorProto.encode(ortToTensorProto(outputs[name]!, name)).finish());
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
  numerics: string;
}

export function compareOptions(yargs: Argv): Argv<CompareArgs> {
  return runtimeOptions(
    yargs
      .positional('reference', { type: 'string', demandOption: true, describe: 'the reference model (typically the fp32 original)' })
      .positional('candidate', { type: 'string', demandOption: true, describe: 'the model to check (typically the mixed-precision one)' })
      .option('atol', { type: 'number', default: 1e-2, describe: 'absolute tolerance, as a fraction of the largest reference magnitude' })
      .option('rtol', { type: 'number', default: 1e-2, describe: 'relative tolerance per element' })
      .option('numerics', {
        type: 'string',
        choices: ['auto', 'emulate', 'native'],
        default: 'auto',
        describe: 'emulate: round every float16/bfloat16 value as a GPU does (any provider); native: what ONNX Runtime computes; auto: emulate on cpu, native on a GPU',
      })
      .option('json', { type: 'boolean', default: false, describe: 'print the comparison as JSON' })
      .epilogue(`Tolerance: ${TOLERANCE_RULE}.\nExit codes: 0 every output within tolerance, 1 some output outside it, 2 bad input or options, or a model ONNX Runtime cannot load or run (REFERENCE_FAILED names the reference).`),
  ) as unknown as Argv<CompareArgs>;
}

/** An error figure, or n/a where no element was finite in both runs. */
const figure = (value: number, width: number, format: (v: number) => string): string => (Number.isNaN(value) ? 'n/a' : format(value)).padStart(width);

export function renderComparison(rows: OutputComparison[]): string {
  const header = 'output                          elements    finite  max abs err  max rel err    cosine  nan/inf ref  nan/inf new  result';
  const lines = rows.map((r) =>
    [
      r.name.padEnd(30).slice(0, 30),
      String(r.elements).padStart(10),
      String(r.finite).padStart(9),
      figure(r.maxAbsError, 12, (v) => v.toExponential(3)),
      figure(r.maxRelError, 12, (v) => v.toExponential(3)),
      figure(r.cosine, 9, (v) => v.toFixed(6)),
      `${r.referenceNaN}/${r.referenceInf}`.padStart(12),
      `${r.candidateNaN}/${r.candidateInf}`.padStart(12),
      `  ${r.pass ? 'pass' : `FAIL (${r.mismatched} outside tolerance${r.note ? `; ${r.note}` : ''})`}`,
    ].join(' '),
  );
  return `${header}\n${lines.join('\n')}\n`;
}

export async function runCompare(args: CompareArgs, print: Print): Promise<number> {
  const reference = loadModel(args.reference);
  const candidate = loadModel(args.candidate);
  const asked = parseNumerics(args.numerics);
  const ort = await loadOrt();
  const notices: string[] = [];
  const feeds = feedsOf(ort, reference, args, notices);
  const providers = providersOf(args);
  const expected = await runOnce(encodeModel(reference), feeds, providers, 'reference');
  const numerics = asked ?? defaultNumerics(expected.provider);
  const got = await runUnder(candidate, numerics, feeds, [expected.provider], 'candidate');
  const rows = compareRuns(expected, got, args.atol, args.rtol);
  const pass = rows.every((r) => r.pass);
  const tolerance = { atol: args.atol, rtol: args.rtol, rule: TOLERANCE_RULE };
  if (args.json) {
    print(`${JSON.stringify({ provider: expected.provider, numerics, pass, tolerance, notices, outputs: rows }, null, 2)}\n`);
  } else {
    const lines = [describeProvider(expected), describeNumerics(numerics, expected.provider), ...notices.map((n) => `notice: ${n}`)];
    lines.push(`tolerance: atol ${args.atol}, rtol ${args.rtol}: ${TOLERANCE_RULE}`);
    print(`${lines.join('\n')}\n${renderComparison(rows)}${pass ? 'PASS' : 'FAIL'}: ${rows.filter((r) => r.pass).length} of ${rows.length} outputs within tolerance\n`);
  }
  return pass ? 0 : 1;
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
  if (args.runs < 1 || args.warmup < 0) throw new AmpError('BAD_OPTION', '--runs must be at least 1 and --warmup at least 0');
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
