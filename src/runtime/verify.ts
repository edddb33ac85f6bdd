/**
 * The rewrite's verification: the float32 model and its rewrite run on the same inputs, and the
 * rewrite is judged by compare's rule. In named steps:
 *
 * 1. Inputs: the user's files, else one seeded batch that respects the model (input-roles.ts).
 * 2. The reference: the float32 model, every float32 value exposed (fp16 mode), run once per batch;
 *    its outputs are what the rewrite is judged against, and each value's largest magnitude is
 *    kept. A reference ONNX Runtime cannot run leaves the rewrite not verified, never failed.
 * 3. Rounds, at most `maxRounds`: rewrite with the values at or beyond the limit pinned (their
 *    nodes stay float32), check that ONNX Runtime takes the rewrite as it is, run it under the
 *    numerics (emulated: what a GPU computes, on the CPU) and judge every output. A round that
 *    fails is run again with every float32 value exposed, and the values whose float16 copy first
 *    became inf (their producer's inputs finite) are pinned for the next round. Nothing new to
 *    pin ends the rounds: FAIL, and `tune` is the next step.
 *
 * The reference runs once and the rewrite once per round; a rewrite that passes costs one
 * instrumented float32 run, one session check and one run of the rewrite. Everything here runs in
 * the verification worker (verify-worker.ts), so a crash inside ONNX Runtime ends that process,
 * not the rewrite; or in the web page's Worker on onnxruntime-web. Sessions are opened, and input
 * files read, through the functions the caller passes: this module touches no file and no runtime
 * of its own, so it runs in a browser too.
 */
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { encodeModel } from '../onnx/codec.js';
import { AmpError, isAmpError } from '../onnx/errors.js';
import { FLOAT16_MAX } from '../onnx/float16.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph } from '../onnx/graph.js';
import { printable } from '../onnx/printable.js';
import { ampRewrite, type AmpOptions } from '../passes/amp.js';
import { emulateNumerics } from '../passes/emulate-numerics.js';
import { judgeTensors, type OutputComparison, type ToleranceRule } from './compare.js';
import { judgedDespiteRefusal, mergeBatches, refusalNotice } from './judgement.js';
import { feedsForEachSide } from './side-feeds.js';
import { modelAwareRandomInputs } from './input-roles.js';
import type { Feeds } from './random-inputs.js';
import { addOverflowOrigins } from './overflow-origins.js';
import { instrument } from './instrument.js';
import { defaultNumerics, type Numerics } from './numerics.js';
import type { Ort } from './ort.js';
import type { Verification } from './result-types.js';
import type { OpenedSession, Provider } from './session.js';
import { AS_WRITTEN } from './session-options.js';

/** Opens a session of `model` on the first of `providers` that starts (session.ts openSession in Node). */
export type SessionOpener = (model: Uint8Array, providers: readonly Provider[], options?: InferenceSession.SessionOptions) => Promise<OpenedSession>;

export interface VerifyOptions {
  /** The rewrite's options, as the command line or the API passes them to the pass. */
  ampOptions: AmpOptions;
  /** Input files or folders (--inputs); one seeded random batch when empty. */
  inputs: readonly string[];
  dims: ReadonlyMap<string, number>;
  seed: number;
  scale?: number;
  distribution?: 'uniform' | 'normal';
  /** float16's max divided by this is the magnitude from which a value pins its nodes (2). */
  headroom: number;
  /** Providers in preference order; the first that starts runs both models. */
  providers: readonly Provider[];
  /** undefined: the provider's default (emulate on cpu, native on a GPU). */
  numerics?: Numerics;
  tolerance: ToleranceRule;
  maxRounds: number;
  open: SessionOpener;
  /** The batches of `inputs` (files or folders): the command line's reader; required when `inputs` is not empty. */
  readInputs?: (ort: Ort, model: onnx.IModelProto, inputs: readonly string[]) => Feeds[];
}

/** The verdict, and the figures the rewrite is to be made with: the same pins make the same model. */
export interface VerifyResult {
  verification: Verification;
  /** Every float32 value's largest magnitude in the reference run, overflow origins as Infinity. */
  ranges: Map<string, number>;
  limit: number;
}

/** Where the verification is: the worker tells its parent, so a crash can be put in words. */
export type VerifyStage = 'reference' | 'rewrite';

export async function verifyRewrite(ort: Ort, model: onnx.IModelProto, options: VerifyOptions, onStage: (stage: VerifyStage) => void = () => {}): Promise<VerifyResult> {
  const notices: string[] = [];
  const limit = FLOAT16_MAX / options.headroom;
  const fp16 = (options.ampOptions.mode ?? 'fp16') === 'fp16';
  const ranges = new Map<string, number>(options.ampOptions.activationRanges ?? []);
  const base: Verification = {
    status: 'not-verified',
    limit,
    inputs: options.inputs.length ? 'files' : 'random',
    ...(options.inputs.length ? {} : { seed: options.seed }),
    ...runtimeOf(ort),
    tolerance: { ...options.tolerance },
    notices,
  };
  const finish = (verification: Verification): VerifyResult => ({ verification, ranges, limit });

  // 1. The inputs. Random ones a model's input type does not allow (uint16, strings) leave the
  // rewrite unverified, not refused: the rewrite itself needs no inputs. Files that do not fit are
  // the user's mistake and stay an error.
  let batches: Feeds[];
  try {
    batches = referenceBatches(ort, model, options, notices);
  } catch (error) {
    if (!isAmpError(error) || error.code !== 'BAD_OPTION' || options.inputs.length) throw error;
    return finish({ ...base, reason: `${printable(error.message, 300)} to verify` });
  }
  base.batches = batches.length;

  // 2. The reference.
  onStage('reference');
  let reference: ReferenceRun;
  try {
    reference = await runReference(model, batches, options, fp16);
  } catch (error) {
    if (!isAmpError(error)) throw error;
    return finish({ ...base, reason: `ONNX Runtime cannot run the float32 model (${printable(error.message.split('\n')[0] ?? '', 400)}), so there is nothing to verify against` });
  }
  for (const [name, largest] of reference.largest) ranges.set(name, Math.max(ranges.get(name) ?? 0, largest));
  const numerics = options.numerics ?? defaultNumerics(reference.provider);
  Object.assign(base, { provider: reference.provider, numerics });
  const pinned: NonNullable<Verification['pinned']> = [];
  if (fp16) {
    for (const name of reference.watched) {
      const reached = ranges.get(name) ?? 0;
      if (reached >= limit) pinned.push({ value: name, reached });
    }
  }

  // 3. The rounds.
  onStage('rewrite');
  let last: Verification = base;
  for (let round = 1; round <= options.maxRounds; round++) {
    const rewritten = ampRewrite(model, { ...options.ampOptions, activationRanges: ranges, activationLimit: limit, audit: false, figures: false });
    if (!rewritten.modified) return finish({ ...base, status: 'pass', rounds: round, pinned, outputs: [], candidateRefused: null });
    let candidateFeeds: Feeds[];
    try {
      candidateFeeds = batches.map((feeds) => feedsForEachSide(ort, feeds, rewritten.model, notices).candidate);
    } catch (error) {
      // Inputs the rewrite declares in a type JavaScript cannot hand ONNX Runtime (bfloat16 with --io-types bf16).
      if (!isAmpError(error)) throw error;
      return finish({ ...base, rounds: round, pinned, reason: `the rewrite's inputs cannot be fed to it here (${printable(error.message, 300)})` });
    }
    const judged = await judgeCandidate(rewritten.model, candidateFeeds, reference, numerics, options.tolerance, notices);
    if (judged.unverifiable) return finish({ ...base, rounds: round, pinned, reason: judged.unverifiable });
    last = { ...base, status: judged.pass ? 'pass' : 'fail', rounds: round, pinned: [...pinned], outputs: judged.outputs, candidateRefused: judged.refused };
    if (judged.pass || judged.refused !== null || !fp16 || round === options.maxRounds) break;
    const origins = await overflowOrigins(model, rewritten.model, candidateFeeds, reference, numerics);
    const fresh = origins.filter((name) => (ranges.get(name) ?? 0) < limit);
    if (!fresh.length) break;
    for (const name of fresh) {
      ranges.set(name, Infinity);
      pinned.push({ value: name, overflowedInRound: round });
    }
  }
  return finish(last);
}

/** The runtime's release, and its name where it is not onnxruntime-node (the page's onnxruntime-web). */
function runtimeOf(ort: Ort): Pick<Verification, 'runtime' | 'runtimeName'> {
  const versions = (ort.env.versions ?? {}) as Record<string, string | undefined>;
  if (versions.node === undefined && versions.web !== undefined) return { runtime: versions.web, runtimeName: 'onnxruntime-web' };
  return { runtime: String(versions.node ?? 'unknown') };
}

function referenceBatches(ort: Ort, model: onnx.IModelProto, options: VerifyOptions, notices: string[]): Feeds[] {
  if (options.inputs.length) {
    if (!options.readInputs) throw new AmpError('BAD_OPTION', 'input files cannot be read here: verify on random inputs');
    return options.readInputs(ort, model, options.inputs);
  }
  const random = { dims: options.dims, seed: options.seed, defaultDim: 1, notices, ...(options.scale ? { scale: options.scale } : {}), ...(options.distribution ? { distribution: options.distribution } : {}) };
  return [modelAwareRandomInputs(ort, model, random)];
}

interface ReferenceRun {
  provider: Provider;
  /** How this verification opens its sessions (the caller's). */
  open: SessionOpener;
  outputNames: readonly string[];
  /** The model's own outputs, per batch. */
  outputs: Array<Record<string, Tensor>>;
  /** The float32 values exposed, and each one's largest finite magnitude over the batches. */
  watched: readonly string[];
  largest: Map<string, number>;
  /** Values that held an inf or NaN in float32 already: an overflow there is not the rewrite's. */
  nonFinite: Set<string>;
}

async function runReference(model: onnx.IModelProto, batches: readonly Feeds[], options: VerifyOptions, exposeAll: boolean): Promise<ReferenceRun> {
  const outputNames = (model.graph?.output ?? []).map((o) => o.name ?? '');
  // A model that already holds float16 parts computes differently under emulation: its reference is emulated too.
  const asEmulated = options.numerics !== 'native' && options.providers[0] === 'cpu' ? emulateNumerics(model) : undefined;
  const referenceModel = asEmulated?.changed ? asEmulated.model : model;
  const probe = exposeAll ? instrument(referenceModel) : { model: referenceModel, watched: [] as string[] };
  const opened = await options.open(encodeModel(probe.model), options.providers, AS_WRITTEN);
  const largest = new Map<string, number>();
  const nonFinite = new Set<string>();
  const outputs: Array<Record<string, Tensor>> = [];
  try {
    for (const feeds of batches) {
      const run = await ranOrFailed(opened.session.run(feeds));
      outputs.push(Object.fromEntries(outputNames.map((name) => [name, run[name] as Tensor])));
      for (const name of probe.watched) {
        const data = (run[name] ?? feeds[name])?.data;
        if (!(data instanceof Float32Array)) continue;
        let top = largest.get(name) ?? 0;
        for (let i = 0; i < data.length; i++) {
          const v = Math.abs(data[i] as number);
          if (!Number.isFinite(v)) nonFinite.add(name);
          else if (v > top) top = v;
        }
        largest.set(name, top);
      }
    }
  } finally {
    await opened.session.release();
  }
  return { provider: opened.provider, open: options.open, outputNames, outputs, watched: probe.watched, largest, nonFinite };
}

interface Judged {
  pass: boolean;
  outputs: OutputComparison[];
  refused: string | null;
  /** Why the run could not be judged, when it could not: then the rewrite is not verified. */
  unverifiable?: string;
}

/**
 * The rewrite as ONNX Runtime takes it on the reference's provider (a refusal is FAIL, except a
 * kernel the provider lacks under emulated numerics, as compare judges it), then its run judged.
 */
async function judgeCandidate(candidate: onnx.IModelProto, feeds: readonly Feeds[], reference: ReferenceRun, numerics: Numerics, tolerance: ToleranceRule, notices: string[]): Promise<Judged> {
  const asIs = encodeModel(candidate);
  let run: Array<Record<string, Tensor>> | undefined;
  try {
    // Under native numerics the check is the run itself; under emulation opening the session is the check.
    run = numerics === 'native' ? await runAll(reference.open, asIs, feeds, reference.provider) : (await openAndRelease(reference.open, asIs, reference.provider, AS_WRITTEN), undefined);
  } catch (error) {
    if (!isAmpError(error)) throw error;
    const refused = error.message;
    if (!judgedDespiteRefusal(refused, numerics)) return { pass: false, outputs: [], refused };
    notices.push(refusalNotice('the rewritten model', reference.provider, refused));
  }
  try {
    run ??= await runAll(reference.open, encodeModel(emulateNumerics(candidate).model), feeds, reference.provider, AS_WRITTEN);
  } catch (error) {
    if (!isAmpError(error)) throw error;
    // The emulating model did not run: the rewrite itself is FAIL only if it does not run either.
    const asIsFailure = await runAll(reference.open, asIs, feeds, reference.provider).then(() => undefined, (failure: unknown) => (isAmpError(failure) ? failure.message : undefined));
    if (asIsFailure !== undefined) return { pass: false, outputs: [], refused: asIsFailure };
    return { pass: false, outputs: [], refused: null, unverifiable: `the rewrite runs, but its emulation could not (${printable(error.message, 300)})` };
  }
  const outputs = reference.outputNames.map((name) =>
    mergeBatches(reference.outputs.map((expected, batch) => judgeTensors(name, expected[name] as Tensor, run[batch]?.[name], tolerance))),
  );
  return { pass: outputs.every((o) => o.pass), outputs, refused: null };
}

/** A run ONNX Runtime refused, as the typed error a refused session is. */
async function ranOrFailed<T>(run: Promise<T>): Promise<T> {
  try {
    return await run;
  } catch (error) {
    throw new AmpError('RUNTIME_FAILED', `failed to run: ${printable((error as Error).message.split('\n')[0] ?? '', 600)}`, { cause: error });
  }
}

async function openAndRelease(open: SessionOpener, model: Uint8Array, provider: Provider, sessionOptions: InferenceSession.SessionOptions): Promise<void> {
  const opened = await open(model, [provider], sessionOptions);
  await opened.session.release();
}

async function runAll(open: SessionOpener, model: Uint8Array, batches: readonly Feeds[], provider: Provider, sessionOptions: InferenceSession.SessionOptions = {}): Promise<Array<Record<string, Tensor>>> {
  const opened = await open(model, [provider], sessionOptions);
  try {
    const outputs: Array<Record<string, Tensor>> = [];
    for (const feeds of batches) outputs.push(await ranOrFailed(opened.session.run(feeds)));
    return outputs;
  } finally {
    await opened.session.release();
  }
}

/**
 * The float32 values of the original graph whose copy in the rewrite's run first became non-finite
 * (finite in float32) while every exposed input of their producer was finite: where an overflow
 * starts, not everything downstream of it.
 */
async function overflowOrigins(original: onnx.IModelProto, candidate: onnx.IModelProto, feeds: readonly Feeds[], reference: ReferenceRun, numerics: Numerics): Promise<string[]> {
  const running = numerics === 'emulate' ? emulateNumerics(candidate).model : candidate;
  const probe = instrument(running, new Set(reference.watched));
  const exposed = new Set(probe.watched);
  const runs = await runAll(reference.open, encodeModel(probe.model), feeds, reference.provider, AS_WRITTEN);
  const origins = new Set<string>();
  // The original's nodes: their inputs are the float32 values exposed (the rewrite's read Casts).
  const nodes = new ModelGraph(original).main.currentNodes();
  for (const [batch, outputs] of runs.entries()) {
    addOverflowOrigins(nodes, exposed, (name) => (outputs[name] ?? feeds[batch]?.[name])?.data, reference.nonFinite, origins);
  }
  return reference.watched.filter((name) => origins.has(name));
}
