/**
 * The commands that execute models, as functions: run, compare and bench (calibrate, tune and the
 * trainer have files of their own beside this one). Each loads
 * ONNX Runtime (an optional peer dependency) on first use and fails with RUNTIME_UNAVAILABLE,
 * saying how to add it, when the project lacks it. The types here name no ONNX Runtime type, so
 * the declarations compile in a project without it.
 */
import { loadCheckedModel, RUNTIME_JUDGES_TYPES } from '../onnx/load-checked.js';
import { encodeModel } from '../onnx/codec.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { rewriteModel, type RewriteOptions, type RewriteReport } from '../passes/pipeline.js';
import { benchmarkPair } from '../runtime/bench.js';
import { DEFAULT_TOLERANCE } from '../runtime/compare.js';
import { compareModelPair } from '../runtime/compare-models.js';
import { comparisonBatches } from '../runtime/compare-inputs.js';
import { NUMERICS, parseNumerics } from '../runtime/numerics.js';
import { oneBatchSpecs } from '../runtime/input-folders.js';
import { modelAwareRandomInputs } from '../runtime/input-roles.js';
import { inputsFromFiles, type Feeds } from '../runtime/inputs.js';
import { loadOrt, type Ort } from '../runtime/ort.js';
import { openSession, parseProviders, PROVIDERS } from '../runtime/session.js';
import { AmpError } from '../onnx/errors.js';
import { summarizeTensor } from '../runtime/summarize.js';
import type { BenchResult, ComparisonReport, Provider, TensorSummary } from './types.js';
import { checkChoice, checkKnownKeys, checkNumber, checkObject, checkStrings } from '../passes/option-checks.js';

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
  /**
   * Execution providers in preference order, as the CLI's --ep: 'cpu', 'cuda,cpu', 'auto' (cuda,
   * webgpu, cpu) or a list. Default 'cpu'.
   */
  ep?: Provider[] | Provider | 'auto' | string;
}

export interface RunResult {
  provider: Provider;
  outputs: TensorSummary[];
}

export interface CompareOptions extends ExecuteOptions {
  /** Tolerance: atol a fraction of max|reference| (0.01), atolFloor absolute (1e-5), rtol per element (0.01). */
  atol?: number;
  rtol?: number;
  atolFloor?: number;
  /** 'auto' (default): emulate on cpu, native on a GPU; as the CLI's --numerics. */
  numerics?: 'auto' | 'emulate' | 'native';
  /** Size of symbolic dimensions not in `dims` (default 1; the result's notices name each). */
  dimDefault?: number;
}

/** The comparison, exactly as `amp-rewrite compare --json` prints it. */
export type CompareResult = ComparisonReport;

const INPUT_KEYS = ['inputs', 'dims', 'seed', 'ep'] as const;
const COMPARE_KEYS = [...INPUT_KEYS, 'atol', 'rtol', 'atolFloor', 'numerics', 'dimDefault'];

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
  providersOf(options ?? {});
}

export function modelOf(source: ModelSource): onnx.IModelProto {
  return typeof source === 'string' ? loadCheckedModel(source, RUNTIME_JUDGES_TYPES).model : source;
}

/** A file is opened by path (so external data beside it is found); a model in memory is encoded. */
function sessionSource(source: ModelSource): string | Uint8Array {
  return typeof source === 'string' ? source : encodeModel(source);
}

/** The providers `ep` names: a string as the CLI's --ep takes it, or a list of providers. */
export function providersOf(options: { readonly ep?: unknown }): Provider[] {
  const ep = options.ep;
  if (ep === undefined) return ['cpu'];
  const spec = typeof ep === 'string' ? ep : Array.isArray(ep) && ep.length && ep.every((p) => typeof p === 'string') ? ep.join(',') : undefined;
  try {
    if (spec !== undefined) return parseProviders(spec);
  } catch {
    // Told below, in the option's words.
  }
  throw new AmpError('BAD_OPTION', `option ep: expected 'auto', one of ${PROVIDERS.map((p) => `'${p}'`).join(', ')}, a comma list of them ('cuda,cpu') or an array of them; got ${JSON.stringify(ep) ?? String(ep)}`, { subject: 'ep' });
}

function feedsFor(ort: Ort, model: onnx.IModelProto, options: InputOptions): Feeds {
  return options.inputs?.length
    ? inputsFromFiles(ort, model, oneBatchSpecs(model, options.inputs, 'this function'))
    : modelAwareRandomInputs(ort, model, { dims: new Map(Object.entries(options.dims ?? {})), seed: options.seed ?? 0 });
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
 * Runs two models on the same inputs and compares each output: the same implementation, defaults
 * and figures as `amp-rewrite compare` (see COMPARE_SEMANTICS and TOLERANCE_RULE). A candidate
 * ONNX Runtime refuses is `pass: false` with `candidateRefused` saying why.
 */
export async function compareModels(reference: ModelSource, candidate: ModelSource, options: CompareOptions = {}): Promise<CompareResult> {
  const record = options as Record<string, unknown>;
  checkKnownKeys(record, COMPARE_KEYS, 'compareModels');
  checkInputOptions(record);
  checkNumber(record, 'atol', 0);
  checkNumber(record, 'rtol', 0);
  checkNumber(record, 'atolFloor', 0);
  checkNumber(record, 'dimDefault', 1, true);
  checkChoice(record, 'numerics', ['auto', ...NUMERICS]);
  const referenceModel = modelOf(reference);
  const candidateModel = modelOf(candidate);
  const ort = await loadOrt();
  const notices: string[] = [];
  const spec = { inputs: options.inputs ?? [], dims: new Map(Object.entries(options.dims ?? {})), dimDefault: options.dimDefault ?? 1, seed: options.seed ?? 0 };
  const batches = comparisonBatches(ort, referenceModel, candidateModel, spec, notices);
  return compareModelPair(
    { model: referenceModel, source: sessionSource(reference) },
    { model: candidateModel, source: sessionSource(candidate) },
    {
      providers: providersOf(record),
      numerics: parseNumerics(options.numerics),
      tolerance: { atol: options.atol ?? DEFAULT_TOLERANCE.atol, rtol: options.rtol ?? DEFAULT_TOLERANCE.rtol, atolFloor: options.atolFloor ?? DEFAULT_TOLERANCE.atolFloor },
      batches,
      notices,
    },
  );
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
