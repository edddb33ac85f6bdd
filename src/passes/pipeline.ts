/**
 * The rewrite as the CLI runs it: for a training graph, loss scaling on the fp32 graph first,
 * then the AMP pass with the parameters and optimizer state treated as fp32 master weights; for
 * an inference graph, the AMP pass alone.
 */
import { checkModel, type CheckOptions } from '../onnx/check-model.js';
import { repairTolerated } from '../onnx/repair.js';
import { decodeModel } from '../onnx/codec.js';
import { AmpError, namingTheModel } from '../onnx/errors.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { ampRewrite, type AmpOptions, type AmpReport } from './amp.js';
import { ortTrainingRefusal } from './training/ort-training.js';
import { addLossScaling, DEFAULT_DYNAMIC_SCALE, type LossScale, type LossScalingReport } from './loss-scaling.js';
import { checkRewriteOptions } from './option-checks.js';
import { looksLikeTrainingGraph, type ContractOptions } from './training/contract.js';

export interface RewriteOptions extends AmpOptions {
  /** 'auto' (default): a graph with some output X.next for an input X is a training graph. */
  training?: 'auto' | 'on' | 'off';
  contract?: ContractOptions;
  /** Default: dynamic for fp16, none for bf16 (whose range is fp32's). */
  lossScale?: LossScale;
  /**
   * The input check (ONNX-checker rules, exit 2 on failure) run before painting; false skips it
   * for a caller that has already checked the model.
   */
  check?: CheckOptions | false;
}

/**
 * rewriteModel on a model decoded from `bytes` (in place, as the command line and the bytes API run
 * it), its faults told apart: a rewrite that fails its own validation because the input already was
 * invalid is reported as the input's (the input's check runs again on a fresh decode, repaired as
 * the loaded model was), and a fault of the model names `source`.
 */
export function rewriteDecodedModel(model: onnx.IModelProto, bytes: Uint8Array, options: RewriteOptions & { check: CheckOptions }): ReturnType<typeof rewriteModel> {
  try {
    return rewriteModel(model, { ...options, inPlace: true });
  } catch (error) {
    const check = options.check;
    if (error instanceof AmpError && error.code === 'VALIDATION_FAILED') {
      checkModel(repairTolerated(decodeModel(bytes, { source: check.source ?? 'model', allowNewerIr: check.allowNewerIr ?? false }), { inPlace: true }).model, { ...check, structure: false });
    }
    throw namingTheModel(error, check.source ?? 'model');
  }
}

/**
 * What rewriteModel reports: the AMP report's fields at the top, as ampRewrite returns them (one
 * shape for both: `report.summary`, `report.nodes`), and the loss scaling of a training graph.
 */
export interface RewriteReport extends AmpReport {
  /** @deprecated The same AMP report as this one's own fields (`report.summary` is `report.amp.summary`); kept for one release. */
  amp: AmpReport;
  training?: LossScalingReport;
}

/** A RewriteReport over `amp`: its fields read through (the audit still built on first read). */
function rewriteReport(amp: AmpReport, training?: LossScalingReport): RewriteReport {
  const report = { amp, ...(training ? { training } : {}) } as RewriteReport;
  for (const key of ['pass', 'summary', 'nodes', 'lists', 'scopes'] as const) {
    Object.defineProperty(report, key, { get: () => amp[key], enumerable: false, configurable: true });
  }
  return report;
}

export function rewriteModel(input: onnx.IModelProto, options: RewriteOptions = {}): { model: onnx.ModelProto; report: RewriteReport; modified: boolean } {
  checkRewriteOptions(options as Record<string, unknown>);
  // What ONNX Runtime tolerates (duplicate Constants, a Constant's output declared another type) is
  // repaired first, on a copy unless in place, and said in the summary.
  const { model, repairs } = repairTolerated(input, { inPlace: options.inPlace });
  const rewritten = rewriteRepaired(model, repairs.length ? { ...options, inPlace: true } : options);
  if (repairs.length) {
    rewritten.report.amp.summary.repairs = [...(rewritten.report.amp.summary.repairs ?? []), ...repairs];
    return { ...rewritten, modified: true };
  }
  return rewritten;
}

function rewriteRepaired(model: onnx.IModelProto, options: RewriteOptions): { model: onnx.ModelProto; report: RewriteReport; modified: boolean } {
  if (options.check !== false) checkModel(model, { ...options.check, types: false });
  // The input's type/order check costs about as much as the validation of the output, so it runs
  // only when its answer matters: when the output fails validation (then a bad input is exit 2,
  // not "the rewrite broke it") and when the input would be passed through unchanged.
  const checkInputTypes = (): void => {
    if (options.check !== false) checkModel(model, { ...options.check, structure: false });
  };
  const rewrite = (input: onnx.IModelProto, ampOptions: AmpOptions) => {
    try {
      const result = ampRewrite(input, ampOptions);
      if (!result.modified) checkInputTypes();
      return result;
    } catch (error) {
      // An input the pass edited in place is no longer the input: its caller checks the original.
      if (error instanceof AmpError && error.code === 'VALIDATION_FAILED' && !(ampOptions.inPlace && input === model)) checkInputTypes();
      throw error;
    }
  };
  const training = options.training ?? 'auto';
  const contractGiven = Object.values(options.contract ?? {}).some((v) => v !== undefined);
  const isTraining = rewritesAsTraining(model, options);
  if (!isTraining) {
    // Loss scaling asked of a graph it is not applied to is an error, never a silent no-op: an ONNX
    // Runtime training graph says what our contract lacks there; any other graph is an inference graph.
    if (options.lossScale && options.lossScale.kind !== 'none') {
      const refusal = training !== 'off' ? ortTrainingRefusal(model, `--loss-scale ${options.lossScale.kind}`) : undefined;
      if (refusal) throw refusal;
      throw new AmpError('BAD_OPTION', `--loss-scale and its growth/backoff/interval/min/max options (lossScale) apply to training graphs, and this is an inference graph (no output X${options.contract?.stateSuffix ?? '.next'} for an input X): drop them, or say --training on`, { subject: 'lossScale' });
    }
    if (training === 'off' || !contractGiven) {
      const result = rewrite(model, options);
      return { model: result.model, report: rewriteReport(result.report), modified: result.modified };
    }
    throw new AmpError('BAD_OPTION', '--loss/--loss-grad/--grad-suffix/--state-suffix describe a training graph; drop them or --training off');
  }
  const lossScale = options.lossScale ?? (options.mode === 'bf16' ? { kind: 'none' as const } : DEFAULT_DYNAMIC_SCALE);
  let scaled: ReturnType<typeof addLossScaling>;
  try {
    scaled = addLossScaling(model, lossScale, options.contract);
  } catch (error) {
    // An ONNX Runtime training graph fails our contract for reasons worth naming.
    if (error instanceof AmpError && error.code === 'TRAINING_CONTRACT') throw ortTrainingRefusal(model, '--training on') ?? error;
    throw error;
  }
  const weightInputs = [...(options.weightInputs ?? []), ...scaled.report.contract.state.map((s) => s.input)];
  // scaled.model is the loss-scaling pass's own copy: the AMP pass may edit it in place.
  const result = rewrite(scaled.model, { ...options, weightInputs, inPlace: true });
  return { model: result.model, report: rewriteReport(result.report, scaled.report), modified: true };
}

/** Whether the rewrite treats `model` as a training graph (loss scaling, state as master weights). */
export function rewritesAsTraining(model: onnx.IModelProto, options: Pick<RewriteOptions, 'training' | 'contract'>): boolean {
  const training = options.training ?? 'auto';
  const contractGiven = Object.values(options.contract ?? {}).some((v) => v !== undefined);
  return training === 'on' || (training === 'auto' && (contractGiven || looksLikeTrainingGraph(model, options.contract?.stateSuffix)));
}

export function renderTrainingSummary(report: LossScalingReport): string {
  const { contract, lossScale } = report;
  const lines = [
    `Training graph: loss '${contract.loss}', seed '${contract.lossGrad}', ${contract.params.length} gradients, ${contract.state.length} state tensors`,
  ];
  if (lossScale.kind === 'none') {
    lines.push('Loss scaling: none');
  } else {
    lines.push(
      lossScale.kind === 'dynamic'
        ? `Loss scaling: dynamic (initial ${lossScale.initial}, x${lossScale.growthFactor} after ${lossScale.growthInterval} finite steps, x${lossScale.backoffFactor} on overflow, clamped to [${lossScale.min}, ${lossScale.max}])`
        : `Loss scaling: static ${lossScale.value}`,
    );
    lines.push(
      `Added: scaled seed, ${report.gradientsUnscaled} fp32 gradient unscales, fp32 all-finite check, ${report.stateGuarded} state outputs guarded by Where (${report.nodesAdded} nodes)`,
    );
    if (report.inputsAdded.length) lines.push(`New inputs: ${report.inputsAdded.join(', ')} (feed ${lossScale.kind === 'dynamic' ? lossScale.initial : ''} and 0 at the first step, then the .next outputs)`);
    lines.push(`New outputs: ${report.outputsAdded.join(', ')}`);
  }
  return `${lines.join('\n')}\n`;
}
