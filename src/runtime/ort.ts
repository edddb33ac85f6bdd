/**
 * The one place that loads ONNX Runtime. It is an optional peer dependency, imported lazily on
 * first use by the commands that run a model, so that the rewrite never needs or loads it.
 */
import { AmpError } from '../onnx/errors.js';

export type Ort = typeof import('onnxruntime-node');

/** What to tell a user whose command needs ONNX Runtime and whose project lacks it. */
export const ORT_MISSING =
  'this command runs a model and needs onnxruntime-node (1.29 or 1.30), an optional peer dependency of amp-rewrite: ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node@1.30.0';

let loaded: Promise<Ort> | undefined;
let verbose = false;

/**
 * ONNX Runtime's own log: fatal only by default (its errors reach the user as our one-line
 * errors), warnings too when verbose. Set before the first session: ONNX Runtime reads it once,
 * and sessions that set no severity of their own follow it.
 */
export function setRuntimeVerbose(on: boolean): void {
  verbose = on;
}

export function runtimeLogLevel(): 'warning' | 'fatal' {
  return verbose ? 'warning' : 'fatal';
}

/** The same level as a session's logSeverityLevel (1 info, 2 warning, 3 error, 4 fatal). */
export function runtimeLogSeverity(): 2 | 4 {
  return verbose ? 2 : 4;
}

export function loadOrt(): Promise<Ort> {
  loaded ??= import('onnxruntime-node').then((ort) => {
    ort.env.logLevel = runtimeLogLevel();
    return ort;
  }, (error: unknown) => {
    loaded = undefined;
    throw new AmpError('RUNTIME_UNAVAILABLE', `${ORT_MISSING}: ${(error as Error).message.split('\n')[0]}`, {
      cause: error,
    });
  });
  return loaded;
}
