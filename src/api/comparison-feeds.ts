/**
 * The inputs of the library's compare functions (compareWithExpected, comparePerNode): `inputs`
 * files, or random ones from `dims` and `seed`, as compareModels makes them (api/execute.ts). A
 * module of its own: its declarations name ONNX Runtime's types, and no public declaration reaches it.
 */
import type { onnx } from '../onnx/generated/onnx.js';
import { inputsFromFiles, randomInputs, type Feeds } from '../runtime/inputs.js';
import type { Ort } from '../runtime/ort.js';
import type { InputOptions } from './execute.js';

export function comparisonFeeds(ort: Ort, model: onnx.IModelProto, options: InputOptions): Feeds {
  return options.inputs?.length
    ? inputsFromFiles(ort, model, options.inputs)
    : randomInputs(ort, model, { dims: new Map(Object.entries(options.dims ?? {})), seed: options.seed ?? 0 });
}
