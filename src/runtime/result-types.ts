/**
 * Types of what the runtime modules measure and return that name nothing of ONNX Runtime (an
 * optional peer dependency): tune's evidence, calibration's figures, the trainer's layout and its
 * non-finite report, compare's report, and the provider and numerics they are stated in. They are
 * declared here, apart from the code that fills them (which imports onnxruntime-node), so that the
 * public declarations compile without it: api/types.ts re-exports them for the API, and the
 * runtime modules import them from here, never from api/ (test/architecture.test.ts).
 */
import type { OutputComparison } from './compare.js';

export type Provider = 'cuda' | 'webgpu' | 'cpu';

/** How a run computes: 'emulate' rounds float16/bfloat16 where a GPU would (on any provider); 'native' as the provider computes. */
export type Numerics = 'emulate' | 'native';

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

/**
 * What the rewrite's verification found (runtime/verify.ts): the float32 model and the rewrite run
 * on the same inputs, nodes whose values leave float16's range kept float32, and the verdict.
 * 'not-verified' says why nothing could be run (no ONNX Runtime, a model too large, a reference
 * ONNX Runtime cannot run); the rewrite is then what the static pass made.
 */
export interface Verification {
  status: 'pass' | 'fail' | 'not-verified';
  /** Why, when not verified (one sentence). */
  reason?: string;
  /** Where the inputs came from: 'files' (--inputs) or 'random' (seeded, from the input roles). */
  inputs?: 'files' | 'random';
  seed?: number;
  batches?: number;
  provider?: Provider;
  numerics?: Numerics;
  /** The release of the runtime that ran it (onnxruntime-node, or runtimeName). */
  runtime?: string;
  /** The runtime where it is not onnxruntime-node: 'onnxruntime-web' in the web page. */
  runtimeName?: string;
  /** Rewrite-and-run rounds: 1 when the first rewrite passed. */
  rounds?: number;
  /** float16's max divided by the headroom: the magnitude from which a value pins its nodes. */
  limit?: number;
  /**
   * The values that keep the nodes reading or writing them float32, in the order found: those whose
   * magnitude in the float32 run reached the limit (`reached`), then those that first overflowed in
   * a round's run of the rewrite (`overflowedInRound`).
   */
  pinned?: Array<{ value: string; reached?: number; overflowedInRound?: number }>;
  /** ONNX Runtime's refusal of the rewritten model as it is (then FAIL). */
  candidateRefused?: string | null;
  /** Each output's judgement over every batch (compare's rule and default tolerance). */
  outputs?: OutputComparison[];
  tolerance?: { atol: number; rtol: number; atolFloor: number };
  notices?: string[];
  /** false when the command line did not write a model that failed (the verdict says so). */
  modelWritten?: boolean;
}
