/**
 * The rewrite from bytes to bytes, as the command line makes it, for a caller with no file system
 * (the web page, a build step that holds the model in memory): decode, repair what ONNX Runtime
 * tolerates, check, rewrite, encode, and the summary and audits. The model written is the one
 * `amp-rewrite model.onnx -o out.onnx --no-verify` writes for the same options, byte for byte
 * (`--external-data embed` where the model keeps its weights in external data: here they are
 * embedded). `rewriteAndVerifyBytes` verifies first, as the command line does by default, on the
 * ONNX Runtime the caller hands it (onnxruntime-web in the page). No file or process is touched:
 * this module runs in a browser.
 */
import { decodeModel, encodeModelFile } from '../onnx/codec.js';
import { checkModel, type CheckOptions } from '../onnx/check-model.js';
import { AmpError } from '../onnx/errors.js';
import { embedExternalBytes } from '../onnx/external-bytes.js';
import { printable } from '../onnx/printable.js';
import { repairTolerated } from '../onnx/repair.js';
import { ampPassInfo, type AmpOptions, type AmpReport } from '../passes/amp.js';
import { parseRulesText, type ListChangeLayer, type ListChanges } from '../passes/amp/op-lists.js';
import { rewriteDecodedModel, renderTrainingSummary, type RewriteReport } from '../passes/pipeline.js';
import { renderAuditJson, renderAuditMarkdown } from '../report/audit.js';
import { renderAuditHtml } from '../report/html/render-html.js';
import { renderSummary, type VerifiedSummary } from '../report/summary.js';
import { DEFAULT_TOLERANCE } from '../runtime/compare.js';
import type { InferenceSession } from 'onnxruntime-node';
import { withFloat16Bits } from '../runtime/float16-bits.js';
import type { Ort } from '../runtime/ort.js';
import type { Verification } from '../runtime/result-types.js';
import { rewritesAsTraining } from '../passes/pipeline.js';
import { verifyRewrite, type SessionOpener } from '../runtime/verify.js';
import { DEFAULT_HEADROOM, MAX_VERIFY_ROUNDS, tooLargeToRunTwice } from '../runtime/verify-defaults.js';

export interface BytesRewriteOptions {
  /** The model's name in messages and in the audit's title (its file name). */
  source?: string;
  mode?: AmpOptions['mode'];
  weights?: AmpOptions['weights'];
  ioTypes?: 'keep' | 'fp16' | 'bf16';
  kvCache?: 'keep' | 'fp16';
  target?: AmpOptions['target'];
  /** Node names or /regex/ kept in float32 or run in float16 (--force-fp32, --force-fp16). */
  forceFp32?: readonly string[];
  forceFp16?: readonly string[];
  /** Op list changes (--allow-add, --deny-remove, …). */
  listChanges?: ListChanges;
  /** A --rules file's text and name. */
  rules?: { name: string; text: string };
  allowNewerIr?: boolean;
  /** The external data files, by the location the model names (or by file name). */
  externalData?: ReadonlyMap<string, Uint8Array>;
}

export interface BytesRewrite {
  /** The model to write: the input's own bytes when nothing changed. */
  bytes: Uint8Array;
  modified: boolean;
  /** How many external tensors were embedded from the files given. */
  embeddedTensors: number;
  report: RewriteReport;
  /** The summary as the command line prints it. */
  summaryText: string;
  auditJson(): string;
  auditMarkdown(): string;
  auditHtml(): string;
}

/** The AMP options the command line makes of the same choices (rewrite-command.ts ampOptionsFromArgs), without its environment. */
function ampOptionsOf(options: BytesRewriteOptions): AmpOptions {
  const layers: ListChangeLayer[] = [];
  if (options.rules) layers.push(parseRulesText(options.rules.text, options.rules.name));
  layers.push({ origin: 'page options', changes: options.listChanges ?? {} });
  return {
    mode: options.mode ?? ampPassInfo.options.mode.default,
    weights: options.weights ?? ampPassInfo.options.weights.default,
    ...(options.kvCache === 'fp16' ? { kvCache: 'fp16' as const } : {}),
    ...(options.ioTypes && options.ioTypes !== 'keep' ? { ioTypes: options.ioTypes } : {}),
    env: {},
    listChanges: layers,
    forceFp32: [...(options.forceFp32 ?? [])],
    forceFp16: [...(options.forceFp16 ?? [])],
    target: options.target ?? 'any',
    dims: new Map(),
  };
}

export function rewriteBytes(input: Uint8Array, options: BytesRewriteOptions = {}): BytesRewrite {
  return rewriteWith(input, options);
}

/** What a verification hands the rewrite: its verdict, and the pins the rewrite is to be made with. */
interface VerifiedFigures {
  verification: Verification;
  ranges: Map<string, number>;
  limit: number;
}

function rewriteWith(input: Uint8Array, options: BytesRewriteOptions, verified?: VerifiedFigures): BytesRewrite {
  const source = options.source ?? 'model.onnx';
  const ampOptions = ampOptionsOf(options);
  // As the command line: the rewrite is made with the pins the verification found, the very model it judged.
  if (verified && verified.verification.status !== 'not-verified' && verified.ranges.size) Object.assign(ampOptions, { activationRanges: verified.ranges, activationLimit: verified.limit });
  const model = decodeModel(input, { source, allowNewerIr: options.allowNewerIr ?? false, sharedEmptyFields: true });
  const embeddedTensors = embedExternalBytes(model, options.externalData ?? new Map());
  const { repairs } = repairTolerated(model, { inPlace: true });
  const check: CheckOptions = { source, allowNewerIr: options.allowNewerIr ?? false };
  checkModel(model, { ...check, types: false });
  const rewrite = rewriteDecodedModel(model, input, { ...ampOptions, check: { ...check, structure: false }, audit: true, figures: true });
  const { model: rewritten, report } = rewrite;
  const modified = rewrite.modified || repairs.length > 0 || embeddedTensors > 0;
  if (repairs.length) report.amp.summary.repairs = [...repairs, ...(report.amp.summary.repairs ?? [])];
  if (verified) (report.amp.summary as VerifiedSummary).verification = { ...verified.verification, ...(verified.verification.status === 'fail' ? { modelWritten: false } : {}) };
  const bytes = modified ? encodeModelFile(rewritten, source, 'rewrite it with the command line, which keeps weights in external data') : input;
  return {
    bytes,
    modified,
    embeddedTensors,
    report,
    summaryText: renderSummary(report.amp.summary) + (report.training ? renderTrainingSummary(report.training) : ''),
    auditJson: () => renderAuditJson(report.amp, report.training),
    auditMarkdown: () => renderAuditMarkdown(report.amp, report.training),
    auditHtml: () => renderAuditHtml(report.amp as AmpReport, { title: source, model: rewritten, ...(report.training ? { training: report.training.contract } : {}) }),
  };
}

/**
 * The ONNX Runtime a verification runs on (the page: onnxruntime-web's WebAssembly build), and how
 * it makes a session of a model with the session options given (`(model, options) =>
 * ort.InferenceSession.create(model, { ...options, executionProviders: ['wasm'] })`). Typed
 * loosely, so that these declarations name no ONNX Runtime type.
 */
export interface BytesVerifier {
  ort: object;
  open: (model: Uint8Array, options: Record<string, unknown>) => Promise<object>;
  /**
   * The provider `open` starts sessions on: 'cpu' (default) verifies under emulated numerics, as the
   * command line does on its CPU; 'webgpu' runs both models natively on the GPU (the page's native run).
   */
  provider?: 'cpu' | 'webgpu';
}

/** The verifier's sessions as the verification opens them: float16 as bits, a refusal as RUNTIME_FAILED, on its CPU provider. */
function sessionOpener(verifier: BytesVerifier): SessionOpener {
  const ort = verifier.ort as Ort;
  return async (model, _providers, options = {}) => {
    let session: InferenceSession;
    try {
      session = (await verifier.open(model, { ...options })) as InferenceSession;
    } catch (error) {
      throw new AmpError('RUNTIME_FAILED', `ONNX Runtime cannot load the model: ${printable(String((error as Error)?.message ?? error).split('\n')[0] ?? '', 600)}`, { cause: error });
    }
    return { session: withFloat16Bits(session), provider: verifier.provider ?? 'cpu', skipped: [], ort };
  };
}

export interface VerifiedBytesRewrite extends BytesRewrite {
  verification: Verification;
  /** False when the rewrite failed its verification: the command line writes nothing then, and exits 1. */
  written: boolean;
}

/**
 * Verifies, then rewrites, as `amp-rewrite model.onnx -o out.onnx` does by default: the float32
 * model and its rewrite run on one seeded batch of random inputs under emulated float16 numerics on
 * the verifier's CPU provider, pins found on the way kept float32, the verdict in the summary. A
 * rewrite that fails is `written: false`: the caller must not ship it.
 */
export async function rewriteAndVerifyBytes(input: Uint8Array, options: BytesRewriteOptions, verifier: BytesVerifier): Promise<VerifiedBytesRewrite> {
  const verified = await verifyBytes(input, options, verifier);
  const rewrite = rewriteWith(input, options, verified);
  return { ...rewrite, verification: verified.verification, written: verified.verification.status !== 'fail' };
}

async function verifyBytes(input: Uint8Array, options: BytesRewriteOptions, verifier: BytesVerifier): Promise<VerifiedFigures> {
  const notVerified = (reason: string): VerifiedFigures => ({ verification: { status: 'not-verified', reason }, ranges: new Map(), limit: Infinity });
  const source = options.source ?? 'model.onnx';
  // The model the rewrite starts from, made the same way: decoded, its external data embedded, repaired.
  const model = decodeModel(input, { source, allowNewerIr: options.allowNewerIr ?? false });
  embedExternalBytes(model, options.externalData ?? new Map());
  repairTolerated(model, { inPlace: true });
  if (rewritesAsTraining(model, {})) return notVerified('a training graph; amp-rewrite train --compare fp32,amp runs its steps against float32');
  const tooLarge = tooLargeToRunTwice(input.length + [...(options.externalData ?? new Map()).values()].reduce((sum, bytes) => sum + bytes.length, 0));
  if (tooLarge) return notVerified(tooLarge);
  const result = await verifyRewrite(verifier.ort as Ort, model, {
    ampOptions: ampOptionsOf(options),
    inputs: [],
    dims: new Map(),
    seed: 0,
    scale: 1,
    distribution: 'uniform',
    headroom: DEFAULT_HEADROOM,
    // The provider's default numerics: emulated on cpu, native on webgpu.
    providers: [verifier.provider ?? 'cpu'],
    tolerance: { ...DEFAULT_TOLERANCE },
    maxRounds: MAX_VERIFY_ROUNDS,
    open: sessionOpener(verifier),
  });
  return result;
}
