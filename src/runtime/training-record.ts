/**
 * What a training run and a training comparison produce, as `train --json` writes them and
 * `train --report` draws them: per step, per epoch, per variant. Types only, with no import, so the
 * public declarations (index.ts) need neither ONNX Runtime's nor Node.js's types.
 */

/** Where the first inf or NaN of an unguarded graph appeared (the trainer's NonFiniteReport). */
export interface FirstNonFinite {
  step: number;
  node: string;
  op: string;
  output: string;
}

/** One step as the run saw it: what the report's curves are drawn from. */
export interface StepRecord {
  /** 1-based over the whole run (epochs continue the count). */
  step: number;
  epoch: number;
  /** NaN when the step's loss was not finite (null once written as JSON). */
  loss: number;
  /** amp.loss_scale fed to the step; null without dynamic loss scaling. */
  lossScale: number | null;
  /** The guarded graph left the state unchanged (a gradient was not finite). */
  skipped: boolean;
  ms: number;
}

export interface EpochResult {
  epoch: number;
  meanLoss: number;
  testAccuracy: number;
  msPerStep: number;
  steps: number;
  skippedSteps: number;
  lossScale: number | null;
}

export interface TrainResult {
  /** The execution provider that ran it: 'cuda', 'webgpu' or 'cpu'. */
  provider: 'cuda' | 'webgpu' | 'cpu';
  epochs: EpochResult[];
  /** Every step in order. */
  history: StepRecord[];
  /** Where the first inf or NaN appeared, for a graph without loss scaling's guard. */
  firstNonFinite?: FirstNonFinite;
}

export interface TrainingVariantResult {
  /** The variant's label as given to --compare (fp32, amp, fp16:unscaled, ...), or 'as given'. */
  variant: string;
  /** Dynamic loss scaling on; undefined for the graph as given. */
  scaled?: boolean;
  result?: TrainResult;
  /** Why the variant could not run (a kernel the provider lacks). */
  failed?: string;
}

export interface TrainingRecord {
  graph: string;
  data: string;
  batch: number;
  lr: number;
  machine: string;
  date: string;
  results: TrainingVariantResult[];
}
