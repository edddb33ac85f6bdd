/**
 * The inputs of the library's compare functions (compareWithExpected, comparePerNode), in the forms
 * the command line takes: `inputs` files (`name=file` or in input order) or a folder of one batch,
 * or random ones from `dims` and `seed` that respect the model (input-roles.ts), as `compare` and
 * compareModels make them. A module of its own: its declarations name ONNX Runtime's types, and no
 * public declaration reaches it.
 */
import type { onnx } from '../onnx/generated/onnx.js';
import { oneBatchSpecs } from '../runtime/input-folders.js';
import { modelAwareRandomInputs } from '../runtime/input-roles.js';
import { inputsFromFiles, type Feeds } from '../runtime/inputs.js';
import type { Ort } from '../runtime/ort.js';
import type { InputOptions } from './execute.js';

export function comparisonFeeds(ort: Ort, model: onnx.IModelProto, options: InputOptions, notices?: string[], caller = 'this function'): Feeds {
  return options.inputs?.length
    ? inputsFromFiles(ort, model, oneBatchSpecs(model, options.inputs, caller))
    : modelAwareRandomInputs(ort, model, { dims: new Map(Object.entries(options.dims ?? {})), seed: options.seed ?? 0, notices });
}
