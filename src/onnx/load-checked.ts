/**
 * The one gate every command that reads a model goes through: the strict decode with its size
 * limits (loadModelFile), the repairs ONNX Runtime tolerates (said, never silent), and the checker's
 * structural rules; the element types too where the command does not validate them itself (the
 * rewrite does, in its pass). A model that fails any of them is an AmpError (exit 2), before any
 * command builds on it.
 */
import { checkModel } from './check-model.js';
import type { onnx } from './generated/onnx.js';
import { loadModelFile, type LoadOptions } from './model-io.js';
import { repairTolerated } from './repair.js';

export interface CheckedLoad {
  model: onnx.ModelProto;
  bytes: Uint8Array;
  externalTensors: number;
  /** What was repaired as ONNX Runtime tolerates it (a graph output's declared type...). */
  repairs: string[];
}

/**
 * For the commands whose verdict is ONNX Runtime's (run, compare, bench, compare --expected): the
 * decode, its limits and the structure are checked, the element types are ONNX Runtime's to judge, so
 * a converter's broken candidate is compare's FAIL (exit 1) with ONNX Runtime's message, not a bad input.
 */
export const RUNTIME_JUDGES_TYPES = { types: false } as const;

export function loadCheckedModel(file: string, options: LoadOptions & { types?: boolean } = {}): CheckedLoad {
  const { types = true, ...load } = options;
  const { model, bytes, externalTensors } = loadModelFile(file, load);
  const { repairs } = repairTolerated(model, { inPlace: true });
  checkModel(model, { source: file, allowNewerIr: load.allowNewerIr ?? false, types });
  return { model, bytes, externalTensors, repairs };
}
