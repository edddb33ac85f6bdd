/**
 * The commands that execute models, as functions: run, compare and bench (calibrate, tune and the
 * trainer have files of their own beside this one). Each loads
 * ONNX Runtime (an optional peer dependency) on first use and fails with RUNTIME_UNAVAILABLE,
 * saying how to add it, when the project lacks it. The types here name no ONNX Runtime type, so
 * the declarations compile in a project without it.
 */
import { encodeModel } from '../onnx/codec.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { loadModel } from '../onnx/model-io.js';
import { rewriteModel, type RewriteOptions, type RewriteReport } from '../passes/pipeline.js';
import { benchmarkPair } from '../runtime/bench.js';
import { compareOutput, scaledTolerance, type OutputComparison } from '../runtime/compare.js';
import { inputsFromFiles, randomInputs, type Feeds } from '../runtime/inputs.js';
import { loadOrt, type Ort } from '../runtime/ort.js';
import { openSession, parseProviders } from '../runtime/session.js';
import { summarizeTensor } from '../runtime/summarize.js';
import type { BenchResult, Provider, TensorSummary } from './types.js';
import { checkChoice, checkNumber, checkObject, checkStrings } from './check-options.js';

/** A model: a file (external data beside it is found) or a model in memory. */
export type ModelSource = string | onnx.IModelProto;

export interface InputOptions {
  /** Input files, as `name=file` or in input order: .pb (ONNX TensorProto), .npy or .json. Random inputs when absent. */
  inputs?: string[];
  /** Sizes of symbolic dimensions for random inputs. */
  dims?: Record<string, number>;
  /** Seed of the random inputs (default 0). */
  seed?: number;
}

export interface ExecuteOptions extends InputOptions {
  /** Execution providers in preference order, or 'auto' (cuda, webgpu, cpu). Default ['cpu']. */
  ep?: Provider[] | 'auto';
}

export interface RunResult {
  provider: Provider;
  outputs: TensorSummary[];
}

export interface CompareResult {
  provider: Provider;
  pass: boolean;
  outputs: OutputComparison[];
}

export interface BenchOptions extends ExecuteOptions {
  /** Timed runs of each model (default 30) after `warmup` untimed ones (default 5). */
  runs?: number;
  warmup?: number;
  /** The rewrite to benchmark against the original. */
  rewrite?: RewriteOptions;
  /** Tolerances of the accuracy check (defaults 0.01, 0.01). */
  atol?: number;
  rtol?: number;
}

export interface BenchReport extends BenchResult {
  provider: Provider;
  /** Every output of the mixed-precision model within tolerance of fp32. */
  pass: boolean;
  rewrite: RewriteReport;
}

export function checkInputOptions(options: Readonly<Record<string, unknown>> | undefined): void {
  checkStrings(options, 'inputs');
  checkObject(options, 'dims');
  checkNumber(options, 'seed', 0, true);
  const ep = options?.ep;
  if (ep !== undefined && ep !== 'auto') {
    if (!Array.isArray(ep)) checkChoice(options, 'ep', ['auto']);
    else parseProviders(ep.join(','));
  }
}

export function modelOf(source: ModelSource): onnx.IModelProto {
  return typeof source === 'string' ? loadModel(source) : source;
}

/** A file is opened by path (so external data beside it is found); a model in memory is encoded. */
function sessionSource(source: ModelSource): string | Uint8Array {
  return typeof source === 'string' ? source : encodeModel(source);
}

export function providersOf(options: ExecuteOptions): Provider[] {
  return options.ep === undefined ? ['cpu'] : parseProviders(options.ep === 'auto' ? 'auto' : options.ep.join(','));
}

function feedsFor(ort: Ort, model: onnx.IModelProto, options: InputOptions): Feeds {
  return options.inputs?.length
    ? inputsFromFiles(ort, model, options.inputs)
    : randomInputs(ort, model, { dims: new Map(Object.entries(options.dims ?? {})), seed: options.seed ?? 0 });
}

/** Runs a model once and summarizes each output (shape, type, min/max/mean, NaN and inf counts). */
export async function runModel(source: ModelSource, options: ExecuteOptions = {}): Promise<RunResult> {
  checkInputOptions(options as Record<string, unknown>);
  const model = modelOf(source);
  const ort = await loadOrt();
  const opened = await openSession(sessionSource(source), providersOf(options));
  try {
    const outputs = await opened.session.run(feedsFor(ort, model, options));
    return { provider: opened.provider, outputs: opened.session.outputNames.map((name) => summarizeTensor(name, outputs[name]!)) };
  } finally {
    await opened.session.release();
  }
}

/**
 * Runs two models on the same inputs and compares each output: |a - b| <= atol·max|a| + rtol·|a|
 * (atol a fraction of the largest reference magnitude; defaults 0.01 and 0.01).
 */
export async function compareModels(reference: ModelSource, candidate: ModelSource, options: ExecuteOptions & { atol?: number; rtol?: number } = {}): Promise<CompareResult> {
  checkInputOptions(options as Record<string, unknown>);
  checkNumber(options as Record<string, unknown>, 'atol', 0);
  checkNumber(options as Record<string, unknown>, 'rtol', 0);
  const model = modelOf(reference);
  if (typeof candidate === 'string') loadModel(candidate);
  const ort = await loadOrt();
  const feeds = feedsFor(ort, model, options);
  const providers = providersOf(options);
  const a = await openSession(sessionSource(reference), providers);
  try {
    const b = await openSession(sessionSource(candidate), providers);
    try {
      const expected = await a.session.run(feeds);
      const got = await b.session.run(feeds);
      const outputs = a.session.outputNames.map((name) => {
        if (!got[name]) return { ...compareOutput(name, expected[name]!, expected[name]!, { atol: 0, rtol: 0 }), pass: false, note: 'missing in the candidate' };
        return compareOutput(name, expected[name]!, got[name]!, scaledTolerance(expected[name]!, options.atol ?? 1e-2, options.rtol ?? 1e-2));
      });
      return { provider: a.provider, pass: outputs.every((o) => o.pass), outputs };
    } finally {
      await b.session.release();
    }
  } finally {
    await a.session.release();
  }
}

/** Rewrites the model, then times fp32 and mixed precision alternately in one process, and checks the accuracy. */
export async function benchModel(source: ModelSource, options: BenchOptions = {}): Promise<BenchReport> {
  checkInputOptions(options as Record<string, unknown>);
  checkNumber(options as Record<string, unknown>, 'runs', 1, true);
  checkNumber(options as Record<string, unknown>, 'warmup', 0, true);
  checkNumber(options as Record<string, unknown>, 'atol', 0);
  checkNumber(options as Record<string, unknown>, 'rtol', 0);
  const model = modelOf(source);
  const { model: amp, report } = rewriteModel(model, options.rewrite ?? {});
  const ort = await loadOrt();
  const feeds = feedsFor(ort, model, options);
  const batch = Object.values(feeds)[0]?.dims[0] ?? 1;
  const result = await benchmarkPair(
    [
      { label: 'fp32', model: encodeModel(model) },
      { label: 'amp', model: encodeModel(amp) },
    ],
    providersOf(options),
    feeds,
    { runs: options.runs ?? 30, warmup: options.warmup ?? 5, batch, tolerance: { atol: options.atol ?? 1e-2, rtol: options.rtol ?? 1e-2 } },
  );
  return { ...result, provider: result.variants[0]?.provider ?? 'cpu', pass: result.accuracy.every((r) => r.pass), rewrite: report };
}
