/**
 * Running a reference and a candidate model on the same inputs and comparing their outputs: the
 * one implementation behind `compare` and `compareModels`, in named steps.
 *
 * 1. The reference runs as it is; the provider it ran on is the provider of the whole comparison
 *    and picks the numerics when none was asked for (emulate on cpu, native on a GPU).
 * 2. The candidate must load and run as it is on that provider: a model ONNX Runtime refuses is a
 *    FAIL carrying ONNX Runtime's message, never a PASS. The one exception is a candidate that is
 *    valid but has nodes without a kernel on this provider (bfloat16 on cpu) under emulated
 *    numerics, which exist to compute what another provider would: a notice says so.
 * 3. Both sides run under the same numerics: with emulation the reference is emulated too, so any
 *    model compared with itself has 0 error in every mode.
 * 4. Each output is judged by the shared tolerance rule, over every batch of inputs.
 *
 * A reference ONNX Runtime cannot run is a typed error (REFERENCE_FAILED): there is nothing to
 * compare against.
 */
import type { Tensor } from 'onnxruntime-node';
import { encodeModel } from '../onnx/codec.js';
import { AmpError, isAmpError } from '../onnx/errors.js';
import type { onnx } from '../onnx/generated/onnx.js';
import type { ComparisonReport } from './result-types.js';
import { printable } from '../onnx/printable.js';
import { emulateNumerics } from '../passes/emulate-numerics.js';
import { TOLERANCE_RULE, judgeTensors, type OutputComparison, type ToleranceRule } from './compare.js';
import type { Feeds } from './inputs.js';
import { defaultNumerics, modelForNumerics, type Numerics } from './numerics.js';
import { judgedDespiteRefusal, mergeBatches, refusalNotice } from './judgement.js';

export { judgedDespiteRefusal, mergeBatches, refusalNotice };
import { openSession, type OpenedSession, type Provider } from './session.js';

export type Role = 'reference' | 'candidate';

/** A model as compare holds it: decoded, and what to hand ONNX Runtime to run it as it is. */
export interface ComparedModel {
  model: onnx.IModelProto;
  /** A path (so external data beside it is found) or the encoded model. */
  source: string | Uint8Array;
}

export interface ModelRun {
  /** The outputs of each batch, in batch order. */
  outputs: Array<Record<string, Tensor>>;
  outputNames: readonly string[];
  provider: Provider;
  skipped: OpenedSession['skipped'];
}

/** Opens a session for `model` (bytes or a path), runs each batch and releases it. */
export async function runBatches(model: Uint8Array | string, batches: readonly Feeds[], providers: readonly Provider[], role: Role, what = 'model'): Promise<ModelRun> {
  let opened: OpenedSession;
  try {
    opened = await openSession(model, providers);
  } catch (error) {
    if (isAmpError(error) && error.code === 'RUNTIME_FAILED') throw failed(role, what, error.message.replace(/^ONNX Runtime cannot load the model: /, 'cannot be loaded: '), error);
    throw error;
  }
  try {
    const outputs: Array<Record<string, Tensor>> = [];
    for (const feeds of batches) outputs.push(await opened.session.run(feeds));
    return { outputs, outputNames: opened.session.outputNames, provider: opened.provider, skipped: opened.skipped };
  } catch (error) {
    throw failed(role, what, `failed to run: ${printable((error as Error).message.split('\n')[0], 600)}`, error);
  } finally {
    await opened.session.release();
  }
}

function failed(role: Role, what: string, message: string, cause: unknown): AmpError {
  return role === 'reference'
    ? new AmpError('REFERENCE_FAILED', `the reference ${what} ${message} (ONNX Runtime); nothing to compare against`, { cause })
    : new AmpError('RUNTIME_FAILED', `the candidate ${what} ${message} (ONNX Runtime)`, { cause });
}

// Declared with the public API's types, ORT-free.
export type { ComparisonReport };

export interface PairOptions {
  providers: readonly Provider[];
  /** undefined: the provider's default (emulate on cpu, native on a GPU). */
  numerics?: Numerics;
  tolerance: ToleranceRule;
  /** The inputs each side is fed, one entry per batch, in each side's declared types. */
  batches: ReadonlyArray<{ reference: Feeds; candidate: Feeds }>;
  /** Notices gathered while making the inputs; the report carries them. */
  notices?: string[];
}

export async function compareModelPair(reference: ComparedModel, candidate: ComparedModel, options: PairOptions): Promise<ComparisonReport> {
  const notices = [...(options.notices ?? [])];
  const referenceFeeds = options.batches.map((b) => b.reference);
  const candidateFeeds = options.batches.map((b) => b.candidate);
  const native = await runBatches(reference.source, referenceFeeds, options.providers, 'reference');
  const provider = native.provider;
  const numerics = options.numerics ?? defaultNumerics(provider);
  const report = (outputs: OutputComparison[], candidateRefused: string | null): ComparisonReport => ({
    provider,
    skipped: native.skipped,
    numerics,
    pass: candidateRefused === null && outputs.every((o) => o.pass),
    tolerance: { ...options.tolerance, rule: TOLERANCE_RULE },
    notices,
    candidateRefused,
    batches: options.batches.length,
    outputs,
  });

  const asIs = await candidateAsIs(candidate.source, candidateFeeds, provider);
  const refused = 'refused' in asIs ? asIs.refused : null;
  if (refused !== null && !judgedDespiteRefusal(refused, numerics)) return report([], refused);

  let expected = native;
  let got = 'run' in asIs ? asIs.run : undefined;
  if (numerics === 'emulate') {
    expected = (await emulatedRun(reference.model, referenceFeeds, provider, 'reference')) ?? native;
    got = (await emulatedRun(candidate.model, candidateFeeds, provider, 'candidate')) ?? got;
  }
  // Without low-precision values emulation is the model itself, which did not run: still refused.
  if (!got) return report([], refused);
  if (refused !== null) notices.push(refusalNotice('the candidate', provider, refused));
  return report(judgeRuns(expected, got, options.tolerance), null);
}

/** The candidate run as it is on `provider`, or ONNX Runtime's reason for refusing it. */
async function candidateAsIs(source: string | Uint8Array, batches: readonly Feeds[], provider: Provider): Promise<{ run: ModelRun } | { refused: string }> {
  try {
    return { run: await runBatches(source, batches, [provider], 'candidate') };
  } catch (error) {
    // RUNTIME_UNAVAILABLE here means the provider the reference ran on refused this model.
    if (isAmpError(error) && (error.code === 'RUNTIME_FAILED' || error.code === 'RUNTIME_UNAVAILABLE')) {
      return { refused: error.message };
    }
    throw error;
  }
}

/** The emulating model's run, or undefined when the model has no low-precision value (emulation is the model itself). */
async function emulatedRun(model: onnx.IModelProto, batches: readonly Feeds[], provider: Provider, role: Role): Promise<ModelRun | undefined> {
  const emulated = emulateNumerics(model);
  if (!emulated.changed) return undefined;
  return runBatches(encodeModel(emulated.model), batches, [provider], role, 'model emulated');
}

/** Per reference output: the judgement over every batch, merged. */
export function judgeRuns(reference: ModelRun, candidate: ModelRun, tolerance: ToleranceRule): OutputComparison[] {
  return reference.outputNames.map((name) =>
    mergeBatches(reference.outputs.map((outputs, batch) => judgeTensors(name, outputs[name] as Tensor, candidate.outputs[batch]?.[name], tolerance))),
  );
}


/** One batch's run, as the single-input comparisons use it (golden outputs, per node). */
export interface SingleRun extends Omit<ModelRun, 'outputs'> {
  outputs: Record<string, Tensor>;
}

/** Opens a session for `model`, runs `feeds` once and releases it. */
export async function runOnce(model: Uint8Array | string, feeds: Feeds, providers: readonly Provider[], role: Role): Promise<SingleRun> {
  const run = await runBatches(model, [feeds], providers, role);
  return { ...run, outputs: run.outputs[0] ?? {} };
}

/** Runs `model` under `numerics` (the emulating model for 'emulate'). */
export function runUnder(model: onnx.IModelProto, numerics: Numerics, feeds: Feeds, providers: readonly Provider[], role: Role): Promise<SingleRun> {
  return runOnce(encodeModel(modelForNumerics(model, numerics)), feeds, providers, role);
}

/** Per reference output of one batch: compare's judgement against the candidate's output of the same name. */
export function compareRuns(reference: SingleRun, candidate: SingleRun, rule: ToleranceRule): OutputComparison[] {
  return judgeRuns({ ...reference, outputs: [reference.outputs] }, { ...candidate, outputs: [candidate.outputs] }, rule);
}
