/**
 * The rewrite, verified, as a function: what `amp-rewrite model.onnx -o out.onnx` does by default.
 * The float32 model and the rewrite run on the same inputs in a worker process (a crash inside
 * ONNX Runtime there is a verdict, not a dead caller), nodes whose values leave float16's range
 * stay float32, and the result says PASS, FAIL or why it was not verified. A FAIL is returned,
 * not thrown: gate on `verification.status`. The rewrite is `rewriteModel`'s, made with the pins
 * the verification found: the very model it judged.
 */
import { encodeModel } from '../onnx/codec.js';
import { AmpError } from '../onnx/errors.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { checkChoice, checkNumber, checkObject, checkStrings } from '../passes/option-checks.js';
import { rewriteModel, rewritesAsTraining, type RewriteOptions, type RewriteReport } from '../passes/pipeline.js';
import type { VerifiedSummary } from '../report/summary.js';
import { DEFAULT_TOLERANCE } from '../runtime/compare.js';
import type { Verification } from '../runtime/result-types.js';
import { DEFAULT_HEADROOM } from '../runtime/calibration.js';
import { MAX_VERIFY_ROUNDS, NOT_INSTALLED, runtimeInstalled, serialAmpOptions, tooLargeToVerify, verifyInWorker, type VerifyJob } from '../runtime/verify-process.js';
import { modelOf, providersOf, type ModelSource } from './execute.js';

export type { Verification };

export interface VerifyOptions {
  /** Input files or a folder (of batch folders), as the CLI's --inputs; one seeded random batch when absent. */
  inputs?: string[];
  /** Sizes of symbolic dimensions for random inputs (others are 1). */
  dims?: Record<string, number>;
  /** Seed of the random inputs (default 0). */
  seed?: number;
  /** float16's max divided by this is the magnitude from which a value keeps its nodes float32 (default 2). */
  headroom?: number;
  /** 'auto' (default): emulate on cpu, native on a GPU. */
  numerics?: 'auto' | 'emulate' | 'native';
  /** Providers, as compareModels' ep (default 'cpu'; the CLI uses 'cuda,cpu' under --target cuda). */
  ep?: string | string[];
  /** compare's tolerance (defaults 0.01, 0.01, 1e-5). */
  atol?: number;
  rtol?: number;
  atolFloor?: number;
  /** Rewrite-and-run rounds (default 3: the first rewrite and two repairs). */
  maxRounds?: number;
}

export interface VerifiedRewrite {
  model: onnx.ModelProto;
  /** The rewrite's report; its summary carries the verdict (renderSummary prints it). */
  report: RewriteReport & { amp: { summary: VerifiedSummary } };
  modified: boolean;
  verification: Verification;
}

const VERIFY_KEYS = ['inputs', 'dims', 'seed', 'headroom', 'numerics', 'ep', 'atol', 'rtol', 'atolFloor', 'maxRounds'];

function checkVerifyOptions(options: Readonly<Record<string, unknown>>): void {
  for (const key of Object.keys(options)) {
    if (!VERIFY_KEYS.includes(key)) throw new AmpError('BAD_OPTION', `option verify.${key}: unknown (expected ${VERIFY_KEYS.join(', ')})`, { subject: `verify.${key}` });
  }
  checkStrings(options, 'inputs');
  checkObject(options, 'dims');
  checkNumber(options, 'seed', 0, true);
  checkNumber(options, 'headroom', 1);
  checkChoice(options, 'numerics', ['auto', 'emulate', 'native']);
  for (const key of ['atol', 'rtol', 'atolFloor']) checkNumber(options, key, 0);
  checkNumber(options, 'maxRounds', 1, true);
  providersOf(options);
}

/**
 * Rewrites `source` and verifies the result (`verify: false`: the static rewrite, not verified).
 * Not verified, with the reason, without onnxruntime-node, for a training graph, or for a model
 * too large to run twice in memory.
 */
export async function rewriteAndVerify(source: ModelSource, options: RewriteOptions & { verify?: VerifyOptions | false } = {}): Promise<VerifiedRewrite> {
  const { verify = {}, ...rewriteOptions } = options;
  if (verify !== false) {
    if (typeof verify !== 'object' || verify === null) throw new AmpError('BAD_OPTION', 'option verify: expected an object of verification options, or false', { subject: 'verify' });
    checkVerifyOptions(verify as Record<string, unknown>);
  }
  const model = modelOf(source);
  const verification = verify === false ? undefined : await verifyModel(source, model, rewriteOptions, verify);
  const pins = verification && verification.verification.status !== 'not-verified' && verification.ranges.size ? { activationRanges: verification.ranges, activationLimit: verification.limit } : {};
  const rewritten = rewriteModel(model, { ...rewriteOptions, ...pins });
  const status: Verification = verification?.verification ?? { status: 'not-verified', reason: 'verify: false' };
  (rewritten.report.amp.summary as VerifiedSummary).verification = status;
  return { ...rewritten, report: rewritten.report as VerifiedRewrite['report'], verification: status };
}

async function verifyModel(source: ModelSource, model: onnx.IModelProto, rewrite: RewriteOptions, options: VerifyOptions) {
  const notVerified = (reason: string) => ({ verification: { status: 'not-verified' as const, reason }, ranges: new Map<string, number>(), limit: Infinity });
  if (rewritesAsTraining(model, rewrite)) return notVerified('a training graph; amp-rewrite train --compare fp32,amp runs its steps against float32');
  if (!runtimeInstalled()) return notVerified(NOT_INSTALLED);
  // A file is read by the worker (its external data beside it); a model in memory is sent encoded.
  const bytes = typeof source === 'string' ? undefined : encodeModel(model);
  const tooLarge = bytes ? tooLargeToVerify(bytes.length) : undefined;
  if (tooLarge) return notVerified(tooLarge);
  const { training: _training, contract: _contract, lossScale: _lossScale, check: _check, inPlace: _inPlace, ...ampOptions } = rewrite;
  const numerics = options.numerics === 'emulate' || options.numerics === 'native' ? options.numerics : undefined;
  const job: VerifyJob = {
    ...(typeof source === 'string' ? { modelPath: source } : {}),
    allowNewerIr: true,
    allowExternalOutside: false,
    amp: serialAmpOptions(ampOptions),
    inputs: options.inputs ?? [],
    dims: Object.entries(options.dims ?? {}),
    seed: options.seed ?? 0,
    headroom: options.headroom ?? DEFAULT_HEADROOM,
    providers: providersOf(options),
    ...(numerics ? { numerics } : {}),
    tolerance: { atol: options.atol ?? DEFAULT_TOLERANCE.atol, rtol: options.rtol ?? DEFAULT_TOLERANCE.rtol, atolFloor: options.atolFloor ?? DEFAULT_TOLERANCE.atolFloor },
    maxRounds: options.maxRounds ?? MAX_VERIFY_ROUNDS,
  };
  return verifyInWorker(job, bytes);
}
