/** `run`, `compare` and `bench`: executing models on ONNX Runtime (loaded only by these commands). */
import { loadCheckedModel, RUNTIME_JUDGES_TYPES } from '../onnx/load-checked.js';
import { mkdirSync } from 'node:fs';
import { checkOutputs, OutputBatch } from '../onnx/safe-write.js';
import { printable } from '../onnx/printable.js';
import os from 'node:os';
import path from 'node:path';
import type { Argv } from 'yargs';
import { encodeModel } from '../onnx/codec.js';
import { AmpError } from '../onnx/errors.js';
import { onnx } from '../onnx/generated/onnx.js';
import { benchVariants, batchDimension, searchBatches, type VariantBenchResult } from '../runtime/variant-bench.js';
import type { BatchSearchResult } from '../runtime/batch-search.js';
import { inProcessRunner, ISOLATION_DESCRIPTIONS, ISOLATION_METHODS, processRunner, type FeedSpec, type IsolationMethod, type VariantRunner } from '../runtime/isolated-bench.js';
import { DEFAULT_TOLERANCE, TOLERANCE_RULE, type OutputComparison } from '../runtime/compare.js';
import { compareModelPair, type ComparisonReport } from '../runtime/compare-models.js';
import { comparisonBatches } from '../runtime/compare-inputs.js';
import { describeNumerics, parseNumerics } from '../runtime/numerics.js';
import { loadOrt } from '../runtime/ort.js';
import { describeProvider, openSession } from '../runtime/session.js';
import { renderTensorSummary, summarizeTensor } from '../runtime/summarize.js';
import { ortToTensorProto } from '../runtime/tensors.js';
import { inputFilesOf, listWarnings, parseDims, patternWarnings, rewriteOptions, rewriteOptionsFromArgs, type RewriteArgs } from './rewrite-command.js';
import { renderLists } from './render-lists.js';
import { reportWarnings } from './warnings.js';
import { rewriteModel } from '../passes/pipeline.js';
import { checkCudaDevice, lowPrecisionTypesOf } from '../runtime/device-check.js';
import type { DeviceDeps } from './train-command.js';
import { checkDimNames } from './option-rules.js';
import { dimsWithDefaults, feedsOf, inputFilesOfArgs, providersOf, runtimeOptions, type RuntimeArgs } from './runtime-options.js';
import { requireNumber } from './numeric-options.js';
import { runSession } from '../runtime/run-session.js';
import { withProgress } from './progress.js';
import { purePrecision } from '../passes/pure-precision.js';
import { DataType } from '../onnx/data-types.js';
import { renderBenchReport } from '../report/bench-report.js';
import { requiredInputs } from '../runtime/inputs.js';
import { comparePerNode } from '../runtime/per-node.js';
import { checkCompareModels, expectedOptions, runCompareExpected } from './compare-expected.js';
import { checkPerNodeArgs, perNodeJson, perNodeOptions, renderPerNode, type PerNodeArgs } from './compare-per-node.js';

type Print = (text: string) => void;

// ---- run ----
export interface RunArgs extends RuntimeArgs {
  model: string;
  saveOutputs?: string;
  json: boolean;
  quiet?: boolean;
}

export function runOptions(yargs: Argv): Argv<RunArgs> {
  return runtimeOptions(
    yargs
      .positional('model', { type: 'string', demandOption: true, describe: 'ONNX model to run' })
      .option('save-outputs', { type: 'string', describe: 'folder to write an ONNX test_data_set to: the inputs run on (input_N.pb) and the outputs (output_N.pb); compare --expected <folder> reruns on those inputs' })
      .option('json', { type: 'boolean', default: false, describe: 'print the output summaries as JSON' })
      .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'print nothing on success (with --save-outputs)' })
      .option('verbose', { alias: 'v', type: 'boolean', default: false, describe: "also show ONNX Runtime's warnings" }),
  ) as unknown as Argv<RunArgs>;
}

export async function runRun(args: RunArgs, print: Print, deps: DeviceDeps = {}): Promise<number> {
  requireNumber('seed', args.seed, { integer: true });
  const model = loadCheckedModel(args.model, RUNTIME_JUDGES_TYPES).model;
  const check = checkCudaDevice(providersOf(args), lowPrecisionTypesOf(model), args.model, deps.queryDevice);
  const ort = await loadOrt();
  const notices: string[] = [];
  const feeds = feedsOf(ort, model, args, notices, 'run');
  const opened = await openSession(args.model, providersOf(args));
  try {
    const outputs = await runSession(opened.session, feeds, args.model);
    const summaries = opened.session.outputNames.map((name) => summarizeTensor(name, outputs[name]!));
    if (args.saveOutputs) {
      // An ONNX test_data_set: the inputs it ran on (input_N.pb, in the model's input order) beside its
      // outputs (output_N.pb), so `compare --expected <folder>` reruns on the very same inputs.
      const folder = args.saveOutputs;
      const inputNames = requiredInputs(model).map((info) => info.name ?? '').filter((name) => feeds[name]);
      const files = [
        ...inputNames.map((name, i) => ({ name, kind: 'input', tensor: feeds[name]!, path: path.join(folder, `input_${i}.pb`) })),
        ...opened.session.outputNames.map((name, i) => ({ name, kind: 'output', tensor: outputs[name]!, path: path.join(folder, `output_${i}.pb`) })),
      ];
      try {
        mkdirSync(args.saveOutputs, { recursive: true });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new AmpError('WRITE_FAILED', `--save-outputs ${printable(args.saveOutputs, 400)}: cannot make the folder (${code ?? String(error)}); it must be a folder; nothing was written`, { subject: args.saveOutputs, cause: error });
      }
      // Through the door (safe-write.ts): two outputs whose names clean to one file, an output file
      // that is the model or an --inputs file, or one that is a device or FIFO: refused before any
      // is written; then all are committed together.
      checkOutputs(
        files.map((f) => ({ path: f.path, role: `--save-outputs file of ${f.kind} '${printable(f.name)}'` })),
        [{ path: args.model, role: 'the model' }, ...args.inputs.map((spec) => ({ path: spec.slice(spec.indexOf('=') + 1), role: 'an --inputs file' }))],
      );
      const batch = new OutputBatch();
      for (const { name, kind, tensor, path: file } of files) batch.stage(file, `--save-outputs file of ${kind} '${printable(name)}'`, onnx.TensorProto.encode(ortToTensorProto(tensor, name)).finish());
      batch.commit();
    }
    if (args.quiet && !args.json) return 0;
    print(
      args.json
        ? `${JSON.stringify({ provider: opened.provider, ...(check ? { device: check.device, deviceNotes: check.notes } : {}), ...(notices.length ? { notices } : {}), outputs: summaries }, null, 2)}\n`
        : `${check ? `${check.notes.join('\n')}\n` : ''}${describeProvider(opened)}\n${notices.map((n) => `notice: ${n}\n`).join('')}${summaries.map(renderTensorSummary).join('\n')}\n`,
    );
    return 0;
  } finally {
    await opened.session.release();
  }
}

// ---- compare ----
export interface CompareArgs extends RuntimeArgs, PerNodeArgs {
  reference: string;
  /** Absent with --expected. */
  candidate?: string;
  expected?: string;
  atol: number;
  rtol: number;
  atolFloor: number;
  json: boolean;
  quiet?: boolean;
  numerics: string;
}

export function compareOptions(yargs: Argv): Argv<CompareArgs> {
  const options = yargs
      .positional('reference', { type: 'string', demandOption: true, describe: 'the reference model (typically the fp32 original); with --expected, the model to check' })
      .positional('candidate', { type: 'string', describe: 'the model to check (typically the mixed-precision one); none with --expected' })
      .option('atol', { type: 'number', default: DEFAULT_TOLERANCE.atol, describe: 'absolute tolerance, as a fraction of the largest reference magnitude' })
      .option('atol-floor', { type: 'number', default: DEFAULT_TOLERANCE.atolFloor, describe: 'absolute error always allowed, however small the output (near-zero probability maps)' })
      .option('rtol', { type: 'number', default: DEFAULT_TOLERANCE.rtol, describe: 'relative tolerance per element' })
      .option('numerics', {
        type: 'string',
        choices: ['auto', 'emulate', 'native'],
        default: 'auto',
        describe: 'emulate: round every float16/bfloat16 value as a GPU does, in both models (any provider); native: what ONNX Runtime computes; auto: emulate on cpu, native on a GPU',
      })
      .option('json', { type: 'boolean', default: false, describe: 'print the comparison as JSON' })
      .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'print nothing: the exit code says pass (0) or fail (1)' })
      .option('verbose', { alias: 'v', type: 'boolean', default: false, describe: "also show ONNX Runtime's warnings" })
      .epilogue(`${COMPARE_SEMANTICS}\nTolerance: ${TOLERANCE_RULE}; each output says which term decided it.\nExit codes: 0 every output within tolerance, 1 some output outside it or a candidate ONNX Runtime refuses, 2 bad input or options, or a reference ONNX Runtime cannot load or run (REFERENCE_FAILED).`);
  return runtimeOptions(perNodeOptions(expectedOptions(options))) as unknown as Argv<CompareArgs>;
}

/** What compare does, for --help (the README says the same). */
export const COMPARE_SEMANTICS =
  'The candidate first runs as it is on the provider the reference ran on: a model ONNX Runtime refuses is FAIL with its message (exit 1), never PASS ' +
  '(only a valid model lacking kernels on that provider, as bfloat16 on cpu, goes on under emulated numerics, with a notice). ' +
  'Then both models run under the same numerics: with emulation every float16/bfloat16 value of the reference is emulated too, so a model compared with itself has 0 error in every mode.';

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
      `  ${r.pass ? 'pass' : `FAIL (${r.mismatched} outside tolerance${r.note ? `; ${r.note}` : ''})`} [${r.decidedBy}]`,
    ].join(' '),
  );
  return `${header}\n${lines.join('\n')}\n`;
}

export async function runCompare(args: CompareArgs, print: Print): Promise<number> {
  checkCompareModels(args);
  checkPerNodeArgs(args);
  if (args.expected !== undefined) return runCompareExpected(args, print, renderComparison);
  requireNumber('atol', args.atol, { min: 0 });
  requireNumber('atol-floor', args.atolFloor, { min: 0 });
  requireNumber('rtol', args.rtol, { min: 0 });
  requireNumber('seed', args.seed, { integer: true });
  if (args.dimDefault !== undefined && !(Number.isInteger(args.dimDefault) && args.dimDefault >= 1)) {
    throw new AmpError('BAD_OPTION', `--dim-default ${args.dimDefault}: expected a positive integer`);
  }
  const reference = loadCheckedModel(args.reference, RUNTIME_JUDGES_TYPES).model;
  const candidate = loadCheckedModel(args.candidate as string, RUNTIME_JUDGES_TYPES).model;
  const numerics = parseNumerics(args.numerics);
  const ort = await loadOrt();
  const notices: string[] = [];
  // A --dim that names no dimension is a usage error here too (run and bench refuse it the same way).
  if (!args.inputs.length) checkDimNames(reference, parseDims(args.dim), 'the model');
  const batches = comparisonBatches(ort, reference, candidate, { inputs: args.inputs, dims: parseDims(args.dim), dimDefault: args.dimDefault, seed: args.seed }, notices);
  const result = await withProgress('compare', args.quiet || Boolean(args.json), (onProgress) => {
    onProgress({ phase: 'running both models', done: 0 });
    return compareModelPair(
      { model: reference, source: args.reference },
      { model: candidate, source: args.candidate as string },
      { providers: providersOf(args), numerics, tolerance: { atol: args.atol, rtol: args.rtol, atolFloor: args.atolFloor }, batches, notices },
    );
  });
  // Where the error starts: a diagnosis beside the verdict, which stays the outputs'. The first batch's reference inputs.
  const perNode =
    args.perNode && result.candidateRefused === null && batches[0]
      ? await comparePerNode(reference, candidate, batches[0].reference, { providers: [result.provider], numerics: result.numerics, atol: args.atol, rtol: args.rtol, atolFloor: args.atolFloor })
      : undefined;
  if (args.json) print(`${JSON.stringify({ ...result, ...(perNode ? { perNode: perNodeJson(perNode, args.perNodeLimit) } : {}) }, null, 2)}\n`);
  else if (!args.quiet) {
    const report = renderReport(result);
    // The per-node table goes above the verdict line, which stays last.
    print(perNode ? report.replace(/([^\n]*\n)$/, `${renderPerNode(perNode, args.perNodeLimit)}$1`) : report);
  }
  return result.pass ? 0 : 1;
}

/** compare's text report. */
export function renderReport(result: ComparisonReport): string {
  const { atol, rtol, atolFloor } = result.tolerance;
  const lines = [describeProvider(result), describeNumerics(result.numerics, result.provider), ...result.notices.map((n) => `notice: ${n}`)];
  lines.push(`tolerance: atol ${atol}, atol-floor ${atolFloor}, rtol ${rtol}: ${TOLERANCE_RULE}`);
  if (result.candidateRefused !== null) return `${lines.join('\n')}\nFAIL: ONNX Runtime refuses the candidate as it is on ${result.provider}: ${result.candidateRefused}\n`;
  const passed = result.outputs.filter((r) => r.pass).length;
  const over = result.batches > 1 ? ` over ${result.batches} batches of inputs` : '';
  return `${lines.join('\n')}\n${renderComparison(result.outputs)}${result.pass ? 'PASS' : 'FAIL'}: ${passed} of ${result.outputs.length} outputs within tolerance${over}\n`;
}

// ---- bench ----
export interface BenchArgs extends RewriteArgs, RuntimeArgs {
  runs: number;
  warmup: number;
  out?: string;
  isolation: IsolationMethod;
  batchSearch: boolean;
  batchDim?: string;
  batchStart?: number;
  maxBatch: number;
  pureFp16: boolean;
  /** The accuracy check's tolerance (compare's rule); 0.01 each when absent. */
  atol?: number;
  rtol?: number;
}

/** What bench takes from the machine; tests pass a faked device query and runner. */
export interface BenchDeps extends DeviceDeps {
  runner?: VariantRunner;
}

export function benchOptions(yargs: Argv): Argv<BenchArgs> {
  return runtimeOptions(
    rewriteOptions(yargs, 'ONNX model to benchmark')
      .option('runs', { type: 'number', default: 30, describe: 'timed runs of each model' })
      .option('warmup', { type: 'number', default: 5, describe: 'untimed runs of each model first' })
      .option('out', { type: 'string', describe: 'write the results as JSON here' })
      .option('isolation', {
        choices: [...ISOLATION_METHODS],
        default: 'process',
        describe: 'process: each variant alone in its own process (TF32 set per process); in-process: one after another with intra-op spinning off',
      })
      .option('batch-search', { type: 'boolean', default: false, describe: 'also find the largest batch that fits for fp32 and amp (doubling, then bisecting), with the throughput at each' })
      .option('batch-dim', { type: 'string', describe: "the symbolic batch dimension for --batch-search (default: the first input's first dimension)" })
      .option('batch-start', { type: 'number', describe: 'first batch size --batch-search tries (default: the benchmarked batch)' })
      .option('max-batch', { type: 'number', default: 1 << 20, describe: 'largest batch --batch-search tries' })
      .option('pure-fp16', { type: 'boolean', default: false, describe: 'also time the model with every value in float16 (the unsafe upper bound AMP is measured against)' })
      .option('report', { type: 'string', array: true, default: [], describe: 'write the figures as charts in one self-contained HTML page (bench.html)' })
      .option('atol', { type: 'number', default: 1e-2, describe: "accuracy check: absolute tolerance, as a fraction of the largest fp32 output magnitude (compare's)" })
      .option('rtol', { type: 'number', default: 1e-2, describe: "accuracy check: relative tolerance per element (compare's)" }),
  ) as unknown as Argv<BenchArgs>;
}

const cells = (row: Array<[string, number]>) => row.map(([text, width]) => (width < 0 ? text.padEnd(-width) : text.padStart(width))).join(' ');

export function renderBench(result: VariantBenchResult & { method: string; batchSearch?: Record<'fp32' | 'amp', BatchSearchResult> }, model: string): string {
  const lines = [`model: ${model}  batch ${result.batch}, ${result.runs} runs after ${result.warmup} warm-up`, `method: ${result.method}`];
  lines.push('variant    provider  TF32   median ms    p90 ms      items/s  RSS growth MiB  GPU memory MiB');
  for (const v of result.variants) {
    lines.push(
      cells([
        [v.label, -10],
        [v.provider, -9],
        [v.tf32 === null ? 'n/a' : v.tf32 ? 'on' : 'off', -4],
        [v.medianMs.toFixed(3), 11],
        [v.p90Ms.toFixed(3), 9],
        [v.itemsPerSecond.toFixed(1), 12],
        [v.rssGrowthMiB.toFixed(1), 15],
        [v.gpuMemoryGrowthMiB === null ? 'n/a' : v.gpuMemoryGrowthMiB.toFixed(0), 15],
      ]),
    );
  }
  lines.push(`speed-up of amp: ${Object.entries(result.speedups).map(([label, x]) => `${x.toFixed(2)}x over ${label}`).join(', ')}`);
  for (const [label, rows] of Object.entries(result.accuracyByVariant)) {
    lines.push(`accuracy of ${label} against fp32:`, renderComparison(rows).trimEnd());
  }
  if (result.batchSearch) {
    for (const label of ['fp32', 'amp'] as const) {
      const search = result.batchSearch[label];
      const tried = search.trials.map((t) => (t.fits ? `${t.batch}: ${t.itemsPerSecond?.toFixed(0)}/s` : `${t.batch}: out of memory`)).join(', ');
      lines.push(`largest batch, ${label}: ${search.largest ?? 'none'}${search.reachedLimit ? ' (limit reached)' : ''}${search.itemsPerSecond ? ` at ${search.itemsPerSecond.toFixed(0)} items/s` : ''} [${tried}]`);
    }
    const { fp32, amp } = result.batchSearch;
    if (fp32.largest && amp.largest) lines.push(`amp fits ${(amp.largest / fp32.largest).toFixed(2)}x the fp32 batch`);
  }
  return `${lines.join('\n')}\n`;
}

export async function runBench(args: BenchArgs, print: Print, deps: BenchDeps = {}): Promise<number> {
  requireNumber('runs', args.runs, { integer: true, min: 1 });
  requireNumber('warmup', args.warmup, { integer: true, min: 0 });
  requireNumber('seed', args.seed, { integer: true });
  const tolerance = { atol: requireNumber('atol', args.atol ?? 1e-2, { min: 0 }), rtol: requireNumber('rtol', args.rtol ?? 1e-2, { min: 0 }) };
  if (args.batchSearch) {
    if (args.batchStart !== undefined) requireNumber('batch-start', args.batchStart, { integer: true, min: 1 });
    requireNumber('max-batch', args.maxBatch, { integer: true, min: 1 });
  }
  if (args.batchSearch && args.inputs.length) throw new AmpError('BAD_OPTION', '--batch-search makes random inputs of each batch size: drop --inputs');
  const htmlReport = benchReportPath(args.report);
  const options = rewriteOptionsFromArgs(args);
  reportWarnings(listWarnings(args), Boolean(args.strict));
  const model = loadCheckedModel(args.model, { ...RUNTIME_JUDGES_TYPES, allowNewerIr: args.allowNewerIr, allowExternalOutside: args.allowExternalOutside ?? false }).model;
  // --out is checked before the runs: never the model, its data, the --rules file or an --inputs file.
  const written = [...(args.out ? [{ path: args.out, role: '--out' }] : []), ...(htmlReport ? [{ path: htmlReport, role: '--report' }] : [])];
  if (written.length) checkOutputs(written, inputFilesOf(args, model));
  checkDimNames(model, parseDims(args.dim), 'the model');
  const { model: amp, report: { amp: report } } = rewriteModel(model, options);
  reportWarnings(patternWarnings(args, report), Boolean(args.strict));
  const providers = providersOf(args);
  const check = checkCudaDevice(providers, lowPrecisionTypesOf(amp), args.model, deps.queryDevice);
  if (check && !args.quiet && !args.json) print(`${check.notes.join('\n')}\n`);
  const ort = await loadOrt();
  // The inputs are checked here, once; each variant's worker makes the same ones from the same spec,
  // every symbolic dimension sized (--dim, else --dim-default with a notice, as run and compare do).
  const notices: string[] = [];
  feedsOf(ort, model, args, notices, 'bench');
  const dims = args.inputs.length ? parseDims(args.dim) : dimsWithDefaults(model, args, []);
  const feeds: FeedSpec = { inputs: inputFilesOfArgs(model, args, 'bench'), dims: Object.fromEntries(dims), seed: args.seed };
  if (notices.length && !args.quiet && !args.json) print(notices.map((n) => `notice: ${n}\n`).join(''));
  const runner = deps.runner ?? (args.isolation === 'in-process' ? inProcessRunner : processRunner());
  const models = { fp32: encodeModel(model), amp: encodeModel(amp), ...(args.pureFp16 ? { fp16: encodeModel(purePrecision(model, DataType.FLOAT16)) } : {}) };
  const silent = args.quiet || args.json;
  const result = await withProgress('bench', silent, (onProgress) =>
    benchVariants(ort, models, { providers, runs: args.runs, warmup: args.warmup, feeds, tolerance, pureFp16: args.pureFp16, onProgress }, runner),
  );
  const batchSearch = args.batchSearch
    ? await withProgress('bench', silent, (onProgress) => searchBatches(
        models,
        {
          providers,
          batchDim: args.batchDim ?? batchDimension(model),
          start: args.batchStart ?? result.batch,
          max: args.maxBatch,
          runs: Math.min(args.runs, 10),
          warmup: Math.min(args.warmup, 2),
          feeds,
          onProgress,
        },
        runner,
      ))
    : undefined;
  const provider = result.variants[0]?.provider;
  const method = ISOLATION_DESCRIPTIONS[args.isolation];
  const record = {
    benchmark: 'fp32-vs-amp',
    model: args.model,
    date: new Date().toISOString(),
    machine: machineDescription(),
    provider,
    device: check?.device ?? null,
    cpuOnly: provider === 'cpu',
    isolation: args.isolation,
    method,
    target: report.summary.target,
    tolerance: { ...tolerance, rule: TOLERANCE_RULE },
    summary: report.summary,
    ...result,
    ...(batchSearch ? { batchSearch } : {}),
  };
  // Through the door (safe-write.ts): both staged, then committed together (both or neither).
  const batch = new OutputBatch();
  try {
    if (args.out) batch.stage(args.out, '--out', Buffer.from(`${JSON.stringify(record, null, 2)}\n`, 'utf8'));
    if (htmlReport) batch.stage(htmlReport, '--report', Buffer.from(renderBenchReport(record), 'utf8'));
  } catch (error) {
    batch.abort();
    throw error;
  }
  batch.commit();
  if (args.json) {
    print(`${JSON.stringify({ ...record, ...(args.verbose ? { lists: report.lists } : {}) }, null, 2)}\n`);
  } else if (!args.quiet) {
    print(renderBench({ ...result, method, ...(batchSearch ? { batchSearch } : {}) }, args.model));
    if (provider === 'cpu') print(cpuProviderNote(report.summary));
    if (args.verbose) print(renderLists(report.lists));
  }
  // A FAIL row means the mixed-precision model's outputs left the tolerance: the same exit as compare's.
  return result.accuracy.every((row) => row.pass) ? 0 : 1;
}

/** bench's --report: one HTML page of charts (the rewrite's audit formats do not apply to bench). */
function benchReportPath(reports: readonly string[]): string | undefined {
  if (!reports.length) return undefined;
  const [page, ...more] = reports;
  if (more.length) throw new AmpError('BAD_OPTION', `--report: bench writes one page; given ${reports.length} (${reports.join(', ')})`, { subject: 'report' });
  if (!/\.html?$/i.test(page as string)) throw new AmpError('BAD_OPTION', `--report ${page}: bench's report is an HTML page of charts: name a .html file (the per-node audit comes from a rewrite with --report)`, { subject: 'report' });
  return page;
}

/**
 * What a CPU figure means. ORT's CPU provider has float16 kernels for few ops (the rest run through
 * Casts to float32) and its float16 Gemm, which MatMulAddFusion makes from every MatMul + bias Add,
 * is a slow reference loop: the AMP model can be many times slower than fp32 there.
 */
export function cpuProviderNote(summary: { target: string; targetWarnings: readonly unknown[] }): string {
  const found =
    summary.target === 'cpu'
      ? `; --target cpu found ${summary.targetWarnings.length} converted nodes without a fast kernel (see the summary)`
      : '; rewrite with --target cpu to list the nodes affected';
  return `note: ran on the CPU provider (ONNX Runtime's), which has float16 kernels for few ops (the others run through Casts to float32) and a slow reference float16 Gemm that its MatMulAddFusion makes from MatMul + Add${found}. CPU figures are not GPU evidence.\n`;
}

export function machineDescription(): string {
  return `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.arch()}, node ${process.version}`;
}
