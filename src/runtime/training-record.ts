/**
 * What a training comparison produced, as `train --json` writes it and `train --report` draws it:
 * the run's settings and, per variant, its result or why it could not run. Types only, shared by
 * the command, the report and the API.
 */
import type { TrainResult } from './train.js';

export type { EpochResult, StepRecord, TrainResult } from './train.js';

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
