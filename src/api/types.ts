/**
 * The result types of the execute API, declared without naming ONNX Runtime (an optional peer
 * dependency): a project without onnxruntime-node, or without @types/node, compiles against them.
 * Types that name nothing of ONNX Runtime (the trainer's layout, tune's evidence, calibration's
 * figures) are declared here only and the runtime modules import them; the others are declared
 * again next to the runtime code, and the assertions below keep the two in step (a change to one
 * side that the other lacks fails the build).
 */
import type { BenchResult as RuntimeBenchResult, VariantResult as RuntimeVariantResult } from '../runtime/bench.js';
import type { OutputComparison } from '../runtime/compare.js';
import type { Provider as RuntimeProvider } from '../runtime/session.js';
import type { TensorSummary as RuntimeTensorSummary } from '../runtime/summarize.js';
import type { Numerics as RuntimeNumerics } from '../runtime/numerics.js';
import type { Attempt as RuntimeAttempt, Metric as RuntimeMetric, TuneResult as RuntimeTuneResult } from '../runtime/tune.js';

export type Provider = 'cuda' | 'webgpu' | 'cpu';

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

/** How a run computes: 'emulate' rounds float16/bfloat16 where a GPU would (on any provider); 'native' as the provider computes. */
export type Numerics = 'emulate' | 'native';

/** How tune judges an output against fp32 (see `tuneModel`). */
export type Metric = 'allclose' | 'max-abs' | 'cosine';

/** Why tune ranks a node where it does: the figures of one instrumented run of each model. */
export interface NodeEvidence {
  node: string;
  op: string;
  /** The evidence in words. */
  evidence: string;
  /** Error of its outputs minus the error of its inputs, relative to each value's scale. */
  errorJump: number;
  /** Its largest value (input or output) in the fp32 run, as a fraction of float16's max. */
  nearLimit: number;
  /** Whether an inf or NaN first appears at its output in the candidate run. */
  nonFiniteOrigin: boolean;
  /** Share of its inputs' magnitude in values float16 rounds to zero. */
  flushedShare: number;
  /** The If/Loop/Scan body it is in (absent: the main graph), whose values the instrumented run cannot see. */
  scope?: string;
}

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

/** What a calibration measured, before it is turned into pins. */
export interface CalibrationFigures {
  /** Largest finite magnitude each value reached; Infinity for a value whose float16 copy overflowed first. */
  ranges: Map<string, number>;
  flushedShares: Map<string, number>;
  /** float16's max divided by the headroom: a value at or above it pins the nodes that read or write it. */
  limit: number;
  batches: number;
  numerics: Numerics;
  /** Values that first became inf under emulated float16 (their producer's inputs were finite). */
  overflowOrigins: string[];
}

/** The names a training step graph is driven by. */
export interface TrainerLayout {
  /** Inputs that are not state: data and hyperparameters, which the caller feeds each step. */
  feeds: Array<{ name: string; elemType: number; dims: Array<number | string> }>;
  loss: string;
  state: Array<{ input: string; output: string }>;
  /** Whether the graph reports amp.all_finite (a loss-scaled graph skips non-finite steps). */
  guarded: boolean;
  outputs: string[];
}

export interface NonFiniteReport {
  step: number;
  /** The first node, in graph order, whose output held an inf or NaN. */
  node: string;
  op: string;
  output: string;
}

/** What compare found: the object `amp-rewrite compare --json` prints and `compareModels` returns (runtime/compare-models.ts). */
export interface ComparisonReport {
  provider: Provider;
  /** Providers tried before `provider`, and why each could not start. */
  skipped: Array<{ provider: Provider; reason: string }>;
  numerics: Numerics;
  pass: boolean;
  /** atol a fraction of max|reference|, atolFloor absolute, rtol per element, and the rule in words. */
  tolerance: { atol: number; rtol: number; atolFloor: number; rule: string };
  notices: string[];
  /** ONNX Runtime's refusal of the candidate as it is (the result is then FAIL), else null. */
  candidateRefused: string | null;
  /** Batches of inputs compared; each output's figures are over all of them. */
  batches: number;
  outputs: OutputComparison[];
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
