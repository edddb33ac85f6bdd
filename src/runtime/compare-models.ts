/**
 * Running a reference and a candidate model on the same inputs and comparing their outputs: the
 * core of `compare`, and the full run `tune` verifies with. A model ONNX Runtime cannot load or
 * run is a typed error naming which of the two failed.
 */
import type { Tensor } from 'onnxruntime-node';
import { encodeModel } from '../onnx/codec.js';
import { AmpError, isAmpError } from '../onnx/errors.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { compareOutput, scaledTolerance, type OutputComparison } from './compare.js';
import type { Feeds } from './inputs.js';
import { modelForNumerics, type Numerics } from './numerics.js';
import { openSession, type OpenedSession, type Provider } from './session.js';

export type Role = 'reference' | 'candidate';

export interface ModelRun {
  outputs: Record<string, Tensor>;
  outputNames: readonly string[];
  provider: Provider;
  skipped: OpenedSession['skipped'];
}

/** Opens a session for `model` (bytes or a path), runs `feeds` once and releases it. */
export async function runOnce(model: Uint8Array | string, feeds: Feeds, providers: readonly Provider[], role: Role): Promise<ModelRun> {
  let opened: OpenedSession;
  try {
    opened = await openSession(model, providers);
  } catch (error) {
    if (isAmpError(error) && error.code === 'RUNTIME_FAILED') throw failed(role, error.message.replace(/^ONNX Runtime cannot load the model: /, 'cannot be loaded: '), error);
    throw error;
  }
  try {
    const outputs = await opened.session.run(feeds);
    return { outputs, outputNames: opened.session.outputNames, provider: opened.provider, skipped: opened.skipped };
  } catch (error) {
    throw failed(role, `failed to run: ${(error as Error).message.split('\n')[0]}`, error);
  } finally {
    await opened.session.release();
  }
}

function failed(role: Role, what: string, cause: unknown): AmpError {
  return role === 'reference'
    ? new AmpError('REFERENCE_FAILED', `the reference model ${what} (ONNX Runtime); nothing to compare against`, { cause })
    : new AmpError('RUNTIME_FAILED', `the candidate model ${what} (ONNX Runtime)`, { cause });
}

/** Runs `model` under `numerics` (the emulating model for 'emulate'). */
export function runUnder(model: onnx.IModelProto, numerics: Numerics, feeds: Feeds, providers: readonly Provider[], role: Role): Promise<ModelRun> {
  return runOnce(encodeModel(modelForNumerics(model, numerics)), feeds, providers, role);
}

/** Per reference output: the comparison against the candidate's output of the same name. */
export function compareRuns(reference: ModelRun, candidate: ModelRun, atol: number, rtol: number): OutputComparison[] {
  return reference.outputNames.map((name) => {
    const expected = reference.outputs[name] as Tensor;
    const got = candidate.outputs[name];
    if (!got) return { ...compareOutput(name, expected, expected, { atol: 0, rtol: 0 }), pass: false, note: 'missing in the candidate' };
    return compareOutput(name, expected, got, scaledTolerance(expected, atol, rtol));
  });
}
