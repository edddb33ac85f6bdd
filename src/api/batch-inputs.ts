/**
 * The batches of inputs that calibrate and tune run on, from the public options: files or folders
 * (`inputs`, as the CLI's --inputs), else `batches` batches of random inputs that respect the model
 * (Gather indices over the whole table, floats at the chosen scale), one seed each.
 */
import type { onnx } from '../onnx/generated/onnx.js';
import { inputBatches, modelAwareRandomInputs } from '../runtime/calibration.js';
import type { Feeds } from '../runtime/inputs.js';
import type { Ort } from '../runtime/ort.js';
import type { BatchOptions } from './batches.js';

/** The batches, and in words what they are (a result holds for these inputs). */
export function batchesFor(ort: Ort, model: onnx.IModelProto, options: BatchOptions): { batches: Feeds[]; holdsFor: string } {
  if (options.inputs?.length) {
    const batches = inputBatches(ort, model, options.inputs);
    return { batches, holdsFor: `the ${batches.length} batch(es) of inputs ${options.inputs.join(' ')}` };
  }
  const seed = options.seed ?? 0;
  const scale = options.inputScale ?? 1;
  const distribution = options.inputDistribution ?? 'uniform';
  const dims = new Map(Object.entries(options.dims ?? {}));
  const batches = Array.from({ length: options.batches ?? 2 }, (_, i) =>
    modelAwareRandomInputs(ort, model, { dims, seed: seed + i, defaultDim: options.dimDefault ?? 1, scale, distribution }),
  );
  return { batches, holdsFor: `${batches.length} batch(es) of random inputs (seed ${seed}, ${distribution} x${scale}); pass real inputs with inputs` };
}
