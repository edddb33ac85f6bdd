/**
 * The options for the batches of inputs that calibrate and tune run on (batch-inputs.ts makes the
 * batches; this file names no ONNX Runtime type, so the public declarations can import it).
 */
import { checkChoice, checkNumber } from '../passes/option-checks.js';
import type { InputOptions } from './execute.js';

export interface BatchOptions extends InputOptions {
  /**
   * Input files as in `inputs` of run; here also one folder (one batch) or a folder of folders (one
   * batch each). Without them, `batches` batches of random inputs (default 2), seeds `seed`, `seed`+1, ...
   */
  batches?: number;
  /** Size of every symbolic dimension not given in `dims` (default 1). */
  dimDefault?: number;
  /** Random floats: uniform in [-inputScale, inputScale), or with that standard deviation when normal (default 1, uniform). */
  inputScale?: number;
  inputDistribution?: 'uniform' | 'normal';
}

export function checkBatchOptions(options: Readonly<Record<string, unknown>> | undefined): void {
  checkNumber(options, 'batches', 1, true);
  checkNumber(options, 'dimDefault', 1, true);
  checkNumber(options, 'inputScale', Number.MIN_VALUE);
  checkChoice(options, 'inputDistribution', ['uniform', 'normal']);
}
