/**
 * The inputs of a comparison: made once, from the reference's declared inputs (files from
 * --inputs, or random ones), then handed to each side in the types that side declares
 * (side-feeds.ts).
 */
import type { onnx } from '../onnx/generated/onnx.js';
import { inputBatches } from './input-folders.js';
import { modelAwareRandomInputs } from './input-roles.js';
import type { Ort } from './ort.js';
import { feedsForEachSide, type SideFeeds } from './side-feeds.js';

export { feedsForEachSide, type SideFeeds };

/** Where inputs come from: the same for the CLI and the library. */
export interface InputSpec {
  /** Files (`name=file` or in input order) or a folder (of batch folders); random inputs when empty. */
  inputs: readonly string[];
  dims: ReadonlyMap<string, number>;
  /** Size of symbolic dimensions not in `dims` (each use noted). */
  dimDefault?: number;
  seed: number;
}

/** The batches of inputs, each as the reference and as the candidate takes it. */
export function comparisonBatches(ort: Ort, reference: onnx.IModelProto, candidate: onnx.IModelProto, spec: InputSpec, notices: string[]): SideFeeds[] {
  const batches = spec.inputs.length
    ? inputBatches(ort, reference, spec.inputs)
    : [modelAwareRandomInputs(ort, reference, { dims: spec.dims, seed: spec.seed, defaultDim: spec.dimDefault, notices })];
  return batches.map((feeds) => feedsForEachSide(ort, feeds, candidate, notices));
}
