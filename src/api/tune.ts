/**
 * tune as a function: the CLI's `tune` (runtime/tune.ts) on a model file or a model in memory. The
 * list-based rewrite, then the fewest nodes kept fp32 that make every output pass the tolerance on
 * the given batches, with the evidence for each pin and the --rules file that reproduces the model.
 * Loads ONNX Runtime on first use; the result names no ONNX Runtime type.
 */
import type { onnx } from '../onnx/generated/onnx.js';
import type { AmpOptions, AmpReport } from '../passes/amp.js';
import type { OutputComparison } from '../runtime/compare.js';
import { defaultNumerics } from '../runtime/numerics.js';
import { loadOrt } from '../runtime/ort.js';
import { METRICS as RUNTIME_METRICS, overridesFile, tune } from '../runtime/tune.js';
import { batchesFor } from './batch-inputs.js';
import { checkBatchOptions, type BatchOptions } from './batches.js';
import { checkAmpOptions, checkChoice, checkNumber, checkObject } from '../passes/option-checks.js';
import { checkInputOptions, modelOf, providersOf, type ExecuteOptions, type ModelSource } from './execute.js';
import type { Metric, NodeEvidence, Numerics, TuneAttempt, TuneRuns } from './types.js';

/** The metrics tune judges outputs by. */
export const METRICS: readonly Metric[] = RUNTIME_METRICS;

export interface TuneModelOptions extends BatchOptions, Pick<ExecuteOptions, 'ep'> {
  /** The rewrite to tune (mode, weights, forceFp32...); its forceFp32 stays pinned. */
  rewrite?: AmpOptions;
  /** Default: emulate on the CPU provider, native on a GPU provider. */
  numerics?: Numerics;
  /** Tolerance (defaults 0.01, 0.01, 'allclose': |a - b| <= atol·max|a| + rtol·|a| for every element). */
  atol?: number;
  rtol?: number;
  metric?: Metric;
  /** Stop verifying after this long and return the best model found so far. */
  budgetSeconds?: number;
}

export interface TunedModel {
  /** The rewritten model with the pins (the list-based rewrite when it passes as it is). */
  model: onnx.ModelProto;
  report: AmpReport;
  /** Every output passes the tolerance on every batch; false: no set of pins was found (within the budget). */
  pass: boolean;
  /** The nodes kept fp32 beyond the lists, with their evidence, in rank order. */
  pinned: NodeEvidence[];
  /** The top of the ranking, pinned or not. */
  ranking: NodeEvidence[];
  attempts: TuneAttempt[];
  runs: TuneRuns;
  wallSeconds: number;
  numerics: Numerics;
  budgetExhausted: boolean;
  /** The outputs' comparisons (first batch) for the returned model. */
  outputs: OutputComparison[];
  /** How small the pinned set is: pins against the converted nodes, and whether only keeping every node fp32 passed. */
  extent: { pinned: number; converted: number; everything: boolean };
  /** The inputs the result holds for, in words: other inputs may need other pins. */
  holdsFor: string;
  /** A --rules file (JSON text) that reproduces `model` with a plain rewrite. */
  overrides: string;
}

/** Rewrites the model and keeps the fewest nodes fp32 that pass the tolerance (default: 2 random batches, CPU provider, emulated numerics). */
export async function tuneModel(source: ModelSource, options: TuneModelOptions = {}): Promise<TunedModel> {
  const untyped = options as Record<string, unknown>;
  checkInputOptions(untyped);
  checkBatchOptions(untyped);
  checkObject(untyped, 'rewrite');
  checkAmpOptions(options.rewrite as Record<string, unknown> | undefined);
  checkChoice(untyped, 'numerics', ['emulate', 'native']);
  checkChoice(untyped, 'metric', RUNTIME_METRICS);
  checkNumber(untyped, 'atol', 0);
  checkNumber(untyped, 'rtol', 0);
  checkNumber(untyped, 'budgetSeconds', Number.MIN_VALUE);
  const model = modelOf(source);
  const ort = await loadOrt();
  const { batches, holdsFor } = batchesFor(ort, model, options);
  const providers = providersOf(options);
  const result = await tune(model, {
    ampOptions: options.rewrite ?? {},
    batches,
    providers,
    numerics: options.numerics ?? defaultNumerics(providers[0] ?? 'cpu'),
    atol: options.atol ?? 1e-2,
    rtol: options.rtol ?? 1e-2,
    metric: options.metric ?? 'allclose',
    budgetSeconds: options.budgetSeconds,
  });
  const { result: amp, ...rest } = result;
  return { model: amp.model, report: amp.report, ...rest, holdsFor, overrides: overridesFile(result, holdsFor) };
}
