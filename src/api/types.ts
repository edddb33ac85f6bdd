/**
 * The result types of the execute API, declared without naming ONNX Runtime (an optional peer
 * dependency): a project without onnxruntime-node, or without @types/node, compiles against them.
 * Types that name nothing of ONNX Runtime and that the runtime modules use too (the trainer's
 * layout, tune's evidence, calibration's figures, compare's report) are declared once, in
 * runtime/result-types.ts (below api/, which it must not import), and re-exported here; the others
 * are declared here and again next to the runtime code, and the assertions below keep the two in
 * step (a change to one side that the other lacks fails the build).
 */
import type { BenchResult as RuntimeBenchResult, VariantResult as RuntimeVariantResult } from '../runtime/bench.js';
import type { OutputComparison } from '../runtime/compare.js';
import type { Provider as RuntimeProvider } from '../runtime/session.js';
import type { TensorSummary as RuntimeTensorSummary } from '../runtime/summarize.js';
import type { Numerics as RuntimeNumerics } from '../runtime/numerics.js';
import type { Attempt as RuntimeAttempt, Metric as RuntimeMetric, TuneResult as RuntimeTuneResult } from '../runtime/tune.js';
import type { Numerics, Provider } from '../runtime/result-types.js';

export type { Provider, Numerics, NodeEvidence, CalibrationFigures, TrainerLayout, NonFiniteReport, ComparisonReport } from '../runtime/result-types.js';

export interface TensorSummary {
  name: string;
  type: string;
  dims: number[];
  min: number;
  max: number;
  mean: number;
  nan: number;
  inf: number;
}

export interface VariantResult {
  label: string;
  provider: Provider;
  medianMs: number;
  p90Ms: number;
  itemsPerSecond: number;
  rssGrowthMiB: number;
  gpuMemoryGrowthMiB: number | null;
}

export interface BenchResult {
  batch: number;
  runs: number;
  warmup: number;
  variants: VariantResult[];
  accuracy: OutputComparison[];
  speedup: number;
}

/** How tune judges an output against fp32 (see `tuneModel`). */
export type Metric = 'allclose' | 'max-abs' | 'cosine';

/** One verification of a set of pins. */
export interface TuneAttempt {
  pinned: string[];
  pass: boolean;
  /** The worst output's figure for the metric (largest error, or smallest cosine). */
  worst: number;
}

export interface TuneRuns {
  instrumented: number;
  full: number;
  sessions: number;
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const inStep: [Same<Provider, RuntimeProvider>, Same<TensorSummary, RuntimeTensorSummary>, Same<VariantResult, RuntimeVariantResult>, Same<BenchResult, RuntimeBenchResult>] = [
  true,
  true,
  true,
  true,
];
const tuneInStep: [
  Same<Numerics, RuntimeNumerics>,
  Same<Metric, RuntimeMetric>,
  Same<TuneAttempt, RuntimeAttempt>,
  Same<TuneRuns, RuntimeTuneResult['runs']>,
] = [true, true, true, true];
void tuneInStep;
void inStep;
