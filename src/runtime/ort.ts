/**
 * The one place that loads ONNX Runtime. It is an optional peer dependency, imported lazily on
 * first use by the commands that run a model, so that the rewrite never needs or loads it.
 */
import { AmpError } from '../onnx/errors.js';

export type Ort = typeof import('onnxruntime-node');

/** What to tell a user whose command needs ONNX Runtime and whose project lacks it. */
export const ORT_MISSING =
  'this command runs a model and needs onnxruntime-node, an optional peer dependency of amp-rewrite: npm install onnxruntime-node@1.29.0';

let loaded: Promise<Ort> | undefined;

export function loadOrt(): Promise<Ort> {
  loaded ??= import('onnxruntime-node').catch((error: unknown) => {
    loaded = undefined;
    throw new AmpError('RUNTIME_UNAVAILABLE', `${ORT_MISSING}: ${(error as Error).message.split('\n')[0]}`, {
      cause: error,
    });
  });
  return loaded;
}
