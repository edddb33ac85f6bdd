/**
 * The one place that loads ONNX Runtime. It is imported lazily, on first use, so that the rewrite
 * itself never pays for loading the native runtime.
 */
import { AmpError } from '../onnx/errors.js';

export type Ort = typeof import('onnxruntime-node');

let loaded: Promise<Ort> | undefined;

export function loadOrt(): Promise<Ort> {
  loaded ??= import('onnxruntime-node').catch((error: unknown) => {
    loaded = undefined;
    throw new AmpError('RUNTIME_UNAVAILABLE', `cannot load onnxruntime-node: ${(error as Error).message.split('\n')[0]} (run npm ci)`, {
      cause: error,
    });
  });
  return loaded;
}
