/** `amp-rewrite <model.onnx> -o <out.onnx>`: the AMP pass from the command line. */
import path from 'node:path';
import type { Argv, Options, PositionalOptions } from 'yargs';
import { checkModel } from '../onnx/check-model.js';
import { repairTolerated } from '../onnx/repair.js';
import { externalRefOf } from '../onnx/external-data.js';
import { printable } from '../onnx/printable.js';
import { checkOutputs, OutputBatch, yieldToSignals, type NamedPath } from '../onnx/safe-write.js';
import { forEachTensor } from '../onnx/walk.js';
import { AmpError } from '../onnx/errors.js';
import { loadModelFile, saveModel, type SaveOptions, type SaveResult } from '../onnx/model-io.js';
import { ampPassInfo, type AmpOptions, type AmpReport } from '../passes/amp.js';
import { reportWarnings, unappliedForceFp16, unknownOpTypes, unmatchedPatterns } from './warnings.js';
import { parseLossScale, type LossScalingReport } from '../passes/loss-scaling.js';
import { renderTrainingSummary, rewriteDecodedModel, rewritesAsTraining, rewriteModel, type RewriteOptions, type RewriteReport } from '../passes/pipeline.js';
import { LIST_NAMES, splitOps, type ListChanges } from '../passes/amp/op-lists.js';
import { readRulesFile } from '../passes/amp/rules-file.js';
import { renderSummary, type VerifiedSummary } from '../report/summary.js';
import { renderVerification } from '../report/verification.js';
import type { VerifiedFigures, VerifyJob } from '../runtime/verify-process.js';
import { DEFAULT_TOLERANCE } from '../runtime/compare.js';
import { renderLists } from './render-lists.js';
import { TARGETS, type Target } from '../passes/amp/target-policy.js';
import type { onnx } from '../onnx/generated/onnx.js';
import type { Calibration } from '../runtime/calibration.js';
import { loadOrt } from '../runtime/ort.js';
import { phase, setPhaseListener } from '../onnx/phases.js';
import { mark } from './profile.js';
import { rewritePhaseProgress, withProgress } from './progress.js';
// Already in the rewrite's chunk (pipeline.ts refuses --loss-scale with it); its rules file is read only when asked.
import { ortTrainingSummary } from '../passes/training/ort-training.js';
import { writeStderr } from './standard-streams.js';
import { checkDimNames } from './option-rules.js';

export interface RewriteArgs {
  model: string;
  output?: string;
  mode: 'fp16' | 'bf16';
  weights: 'fp32' | 'fp16';
  kvCache: 'keep' | 'fp16';
  ioTypes: 'keep' | 'fp16' | 'bf16';
  report: string[];
  quiet: boolean;
  json: boolean;
  verbose: boolean;
  dryRun: boolean;
  rules?: string;
  forceFp32: string[];
  forceFp16: string[];
  allowNewerIr: boolean;
  allowExternalOutside?: boolean;
  externalData: string;
  state: 'initializers' | 'inputs';
  calibrate: boolean;
  verify: boolean;
  training: 'auto' | 'on' | 'off';
  loss?: string;
  lossGrad?: string;
  gradSuffix?: string;
  stateSuffix?: string;
  /** Absent: the mode's default (dynamic for fp16, none for bf16). */
  lossScale?: string;
  strict?: boolean;
  lossScaleInitial?: number;
  growthFactor?: number;
  backoffFactor?: number;
  growthInterval?: number;
  minScale?: number;
  maxScale?: number;
  inputs: string[];
  dim: string[];
  target: Target;
  numerics?: string;
  headroom: number;
  inputScale: number;
  inputDistribution: 'uniform' | 'normal';
  calibrationBatches: number;
  [flag: string]: unknown;
}

/**
 * --help's headings, in the order --help shows them: the main options first (yargs's default group,
 * so a command's own options join it), then the rarer groups; --strict, --help and --version last
 * (OTHER_GROUP, see rewriteOptions).
 */
const MAIN_GROUP = 'Options:';
const CALIBRATION_GROUP = 'Calibration and inputs:';
const FILES_GROUP = 'Model files:';
const TRAINING_GROUP = 'Training graphs:';
const LISTS_GROUP = 'Lists and pinned nodes:';
export const OTHER_GROUP = 'Other options:';

/**
 * The rewrite's options in --help order. yargs declares them from this table, and the plain
 * command line (plain-rewrite.ts) takes its defaults and choices from the same entries, so the
 * two cannot drift apart.
 */
export const REWRITE_OPTIONS: ReadonlyArray<readonly [name: string, spec: Options]> = [
  ['output', { group: MAIN_GROUP, alias: 'o', type: 'string', describe: 'where to write the rewritten model (required unless --dry-run)' }],
  ['mode', { group: MAIN_GROUP, ...ampPassInfo.options.mode, describe: ampPassInfo.options.mode.help, choices: [...ampPassInfo.options.mode.choices] }],
  ['weights', { group: MAIN_GROUP,
    ...ampPassInfo.options.weights,
    describe: ampPassInfo.options.weights.help,
    choices: [...ampPassInfo.options.weights.choices],
  }],
  ['report', { group: MAIN_GROUP, type: 'string', array: true, default: [], describe: 'write the per-node audit: audit.json, audit.md or audit.html (repeatable)' }],
  ['io-types', { group: MAIN_GROUP,
    type: 'string',
    choices: ['keep', 'fp16', 'bf16'],
    default: 'keep',
    describe: "the graph's float32 inputs and outputs: 'keep' their type, or declare them in the --mode type with the Casts at the model's edges removed (for pipelines that feed and read fp16)",
  }],
  ['kv-cache', { group: MAIN_GROUP,
    type: 'string',
    choices: ['keep', 'fp16'],
    default: 'keep',
    describe: "a decoder's past/present key-value cache inputs and outputs: 'keep' their declared type, or 'fp16' (halves the cache memory; the graph's I/O types change)",
  }],
  ['target', { group: MAIN_GROUP,
    choices: [...TARGETS],
    default: 'any',
    describe: "the provider that will run the model (rules/kernels.json): cuda runs LayerNorm/Softmax in the low type mid-model (their kernels accumulate in fp32); cpu warns where ORT's CPU provider has no fast fp16/bf16 kernel",
  }],
  ['verify', { group: MAIN_GROUP,
    type: 'boolean',
    default: true,
    describe:
      'run the float32 model and the rewrite on the same inputs (--inputs, else seeded random ones) under GPU-faithful numerics, keep float32 the nodes whose values leave float16\'s range, and on a FAIL that remains exit 1 without writing the model (needs onnxruntime-node; --no-verify: the static rewrite alone)',
  }],
  ['dry-run', { group: MAIN_GROUP, type: 'boolean', default: false, describe: 'print the summary, write no model' }],
  ['quiet', { group: MAIN_GROUP, alias: 'q', type: 'boolean', default: false, describe: 'print nothing on success' }],
  ['json', { group: MAIN_GROUP, type: 'boolean', default: false, describe: 'print the summary as JSON instead of text' }],
  ['verbose', { group: MAIN_GROUP, alias: 'v', type: 'boolean', default: false, describe: 'also print the effective op lists' }],
  ['calibrate', { group: CALIBRATION_GROUP,
    type: 'boolean',
    default: false,
    describe: 'run the model on calibration inputs (--inputs, or random ones that respect the model) and keep nodes that see values beyond float16 range (less the headroom), or that flush to zero, in fp32',
  }],
  ['inputs', { group: CALIBRATION_GROUP,
    type: 'string',
    array: true,
    default: [],
    describe: 'input tensors for the verification and --calibrate: name=file or files in input order (.pb, .npy, .json), or a folder (one batch) of them, or a folder of batch folders',
  }],
  ['dim', { group: CALIBRATION_GROUP, type: 'string', array: true, default: [], describe: 'size of a symbolic dimension, for random inputs and for the static shapes of the FLOPs share and Tensor Core lint: name=value (repeatable)' }],
  ['headroom', { group: CALIBRATION_GROUP, type: 'number', default: 2, describe: 'the verification and --calibrate pin values at or above 65504 / headroom (default 2: above half of float16\'s max)' }],
  ['input-scale', { group: CALIBRATION_GROUP, type: 'number', default: 1, describe: 'random floats (verification and calibration): uniform in [-scale, scale), or the standard deviation with --input-distribution normal' }],
  ['input-distribution', { group: CALIBRATION_GROUP, choices: ['uniform', 'normal'], default: 'uniform', describe: 'distribution of random calibration floats' }],
  ['calibration-batches', { group: CALIBRATION_GROUP, type: 'number', default: 2, describe: 'random calibration batches (different seeds)' }],
  ['numerics', { group: CALIBRATION_GROUP, choices: ['emulate', 'native'], describe: 'numerics of the verification and of --calibrate\'s overflow search: emulate (a GPU\'s float16/bfloat16 rounding, computed on the CPU; the default) or native (as the provider computes)' }],
  ['external-data', { group: FILES_GROUP,
    type: 'string',
    default: 'keep',
    describe: "weights stored outside the model: 'keep' their layout (converted copies that would take the model past 2 GiB go to <output>.data), 'embed' them, or a file name to gather them in",
  }],
  ['allow-newer-ir', { group: FILES_GROUP, type: 'boolean', default: false, describe: 'accept models with an IR version newer than 14' }],
  ['allow-external-outside', { group: FILES_GROUP,
    type: 'boolean',
    default: false,
    describe: "accept external data files whose real path (after symlinks) is outside the model's folder (ONNX Runtime refuses them)",
  }],
  ['state', { group: TRAINING_GROUP,
    choices: ['initializers', 'inputs'],
    default: 'initializers',
    describe: "training graphs: keep the initial state as same-name initializers, or make the state plain inputs with the initial values in <out>.state.onnx (onnxruntime-node ignores feeds for inputs that have an initializer)",
  }],
  ['training', { choices: ['auto', 'on', 'off'], default: 'auto', group: TRAINING_GROUP, describe: 'auto: a graph with an output X.next for an input X is a training graph' }],
  ['loss', { type: 'string', group: TRAINING_GROUP, describe: 'the loss output (default: the float output L that has a seed L_grad)' }],
  ['loss-grad', { type: 'string', group: TRAINING_GROUP, describe: 'the seed dLoss/dLoss (default <loss>_grad)' }],
  ['grad-suffix', { type: 'string', group: TRAINING_GROUP, describe: 'gradients are <param><suffix> (default _grad)' }],
  ['state-suffix', { type: 'string', group: TRAINING_GROUP, describe: 'updated state is <input><suffix> (default .next)' }],
  ['loss-scale', { type: 'string', group: TRAINING_GROUP, describe: 'dynamic, static:<value> or none (default: dynamic for fp16, none for bf16, whose range is fp32\'s)' }],
  ['loss-scale-initial', { type: 'number', group: TRAINING_GROUP, describe: 'initial dynamic scale (default 65536)' }],
  ['growth-factor', { type: 'number', group: TRAINING_GROUP, describe: 'scale multiplier after growth-interval finite steps (default 2)' }],
  ['backoff-factor', { type: 'number', group: TRAINING_GROUP, describe: 'scale multiplier on overflow (default 0.5)' }],
  ['growth-interval', { type: 'number', group: TRAINING_GROUP, describe: 'finite steps before the scale grows (default 2000)' }],
  ['min-scale', { type: 'number', group: TRAINING_GROUP, describe: 'smallest scale (default 1)' }],
  ['max-scale', { type: 'number', group: TRAINING_GROUP, describe: 'largest scale (default 16777216)' }],
  ['rules', { group: LISTS_GROUP, type: 'string', describe: 'JSON file of list changes: {"allow": {"add": [...], "remove": [...]}, "deny": ...}' }],
  ['force-fp32', { group: LISTS_GROUP, type: 'string', array: true, default: [], describe: 'keep these nodes fp32: node names or /regex/ (repeatable)' }],
  ['force-fp16', { group: LISTS_GROUP, type: 'string', array: true, default: [], describe: 'convert these nodes: node names or /regex/ (repeatable)' }],
  ...LIST_NAMES.flatMap((list): Array<readonly [string, Options]> => [
    [`${list}-add`, { type: 'string', describe: `add op types to the ${list} list (comma-separated; domain:Op for custom domains)`, group: LISTS_GROUP }],
    [`${list}-remove`, { type: 'string', describe: `remove op types from the ${list} list`, group: LISTS_GROUP }],
  ]),
];

/** The positional model argument of the rewrite (and of inspect, tune and bench, which share the builder). */
export const MODEL_POSITIONAL: PositionalOptions = { type: 'string', describe: 'ONNX model to rewrite', demandOption: true };

/**
 * The rewrite's positional and options, for the rewrite and the commands that share them (inspect,
 * tune, bench), each naming its positional for what it does with it ("ONNX model to inspect").
 */
export function rewriteOptions(yargs: Argv, model: string = MODEL_POSITIONAL.describe as string): Argv<RewriteArgs> {
  let y = yargs.positional('model', { ...MODEL_POSITIONAL, describe: model });
  for (const [name, spec] of REWRITE_OPTIONS) y = y.option(name, spec);
  // The global options go last in --help: the options a command's own builder adds after this join the main group.
  return y.group(['strict', 'help', 'version'], OTHER_GROUP) as unknown as Argv<RewriteArgs>;
}

export function listChangesFromFlags(args: Record<string, unknown>): ListChanges {
  const changes: ListChanges = {};
  for (const list of LIST_NAMES) {
    const add = args[`${list}Add`];
    const remove = args[`${list}Remove`];
    if (typeof add === 'string' || typeof remove === 'string') {
      changes[list] = {
        ...(typeof add === 'string' ? { add: splitOps(add) } : {}),
        ...(typeof remove === 'string' ? { remove: splitOps(remove) } : {}),
      };
    }
  }
  return changes;
}

export function rewriteOptionsFromArgs(args: RewriteArgs): RewriteOptions {
  const dynamicGiven = [args.lossScaleInitial, args.growthFactor, args.backoffFactor, args.growthInterval, args.minScale, args.maxScale].some((v) => v !== undefined);
  const lossScale = args.lossScale ?? (dynamicGiven ? 'dynamic' : undefined);
  if (dynamicGiven && lossScale !== 'dynamic') throw new AmpError('BAD_OPTION', 'the growth/backoff/interval/min/max options apply to --loss-scale dynamic only');
  return {
    ...ampOptionsFromArgs(args),
    training: args.training,
    contract: { loss: args.loss, lossGrad: args.lossGrad, gradSuffix: args.gradSuffix, stateSuffix: args.stateSuffix },
    ...(lossScale !== undefined
      ? {
          lossScale: parseLossScale(lossScale, {
            initial: args.lossScaleInitial,
            growthFactor: args.growthFactor,
            backoffFactor: args.backoffFactor,
            growthInterval: args.growthInterval,
            min: args.minScale,
            max: args.maxScale,
          }),
        }
      : {}),
  };
}

export function ampOptionsFromArgs(args: RewriteArgs): AmpOptions {
  return {
    mode: args.mode,
    weights: args.weights,
    ...(args.kvCache === 'fp16' ? { kvCache: 'fp16' as const } : {}),
    ...(args.ioTypes && args.ioTypes !== 'keep' ? { ioTypes: args.ioTypes } : {}),
    env: process.env,
    listChanges: [...(args.rules ? [readRulesFile(args.rules)] : []), { origin: 'command-line flags', changes: listChangesFromFlags(args) }],
    forceFp32: args.forceFp32,
    forceFp16: args.forceFp16,
    target: args.target,
    dims: parseDims(args.dim),
  };
}

/** --external-data: keep, embed, or a file name (with an extension) beside the output, so that a typo is not taken for one. */
export function saveOptions(externalData: string): SaveOptions {
  if (externalData === 'keep' || externalData === 'embed') return { externalData };
  if (!/^[^/\\]+\.[A-Za-z0-9]+$/.test(externalData) || externalData.startsWith('.')) {
    throw new AmpError('BAD_OPTION', `--external-data ${externalData}: expected keep, embed, or a file name with an extension to gather the weights in, such as model.onnx.data`);
  }
  return { externalData: { location: externalData } };
}

/** Warnings about options that name nothing: ops in no schema table, force patterns that match no node. */
export function listWarnings(args: RewriteArgs): string[] {
  const warnings: string[] = [];
  for (const list of LIST_NAMES) {
    const added = args[`${list}Add`];
    if (typeof added === 'string') warnings.push(...unknownOpTypes(`--${list}-add`, splitOps(added)));
    const fromEnv = process.env[`AMP_REWRITE_${list.toUpperCase()}LIST_ADD`];
    if (fromEnv) warnings.push(...unknownOpTypes(`AMP_REWRITE_${list.toUpperCase()}LIST_ADD`, splitOps(fromEnv)));
  }
  if (args.rules) {
    const { changes } = readRulesFile(args.rules);
    for (const list of LIST_NAMES) warnings.push(...unknownOpTypes(`--rules ${args.rules}: ${list}.add`, changes[list]?.add ?? []));
  }
  return warnings;
}

/**
 * Whether the rewrite command reads the per-node audit (report.nodes, report.scopes): the
 * --report files, and the warnings about --force-fp32/--force-fp16 patterns that match no node.
 * The summary, --json and --verbose's op lists are not part of it.
 */
export function auditRead(args: Pick<RewriteArgs, 'report' | 'forceFp32' | 'forceFp16'>): boolean {
  return args.report.length > 0 || args.forceFp32.length > 0 || args.forceFp16.length > 0;
}

/**
 * Whether the rewrite command reads the summary's matrix FLOPs share and Tensor Core lint: the
 * printed summary (plain or --json) and the --report files do; a quiet run without --report
 * reads neither, and is spared the shape inference over every node they need.
 */
export function figuresRead(args: Pick<RewriteArgs, 'report' | 'quiet'>): boolean {
  return !args.quiet || args.report.length > 0;
}

/** What the saves did that the user did not ask for by name: where data went instead (printed as notes). */
export function saveNotes(saved: readonly SaveResult[]): string[] {
  const notes: string[] = [];
  for (const { copiesMoved: moved } of saved) {
    if (!moved) continue;
    notes.push(
      `External data: the converted copies of ${moved.tensors} external weight${moved.tensors === 1 ? '' : 's'} (${moved.bytes >= 2 ** 30 ? `${(moved.bytes / 2 ** 30).toFixed(2)} GiB` : `${(moved.bytes / 2 ** 20).toFixed(1)} MiB`}) would make the model file larger than protobuf's 2 GiB limit; they are in ${printable(path.basename(moved.file))}`,
    );
  }
  for (const { requested, actual } of saved.flatMap((result) => result.renamedData)) {
    notes.push(`External data: ${printable(path.basename(requested))} already exists and was not overwritten; the weights are in ${printable(path.basename(actual))}`);
  }
  return notes;
}

export function patternWarnings(args: RewriteArgs, report: AmpReport): string[] {
  // Without a pattern there is nothing to match: reading report.nodes would build the whole audit.
  if (!args.forceFp32.length && !args.forceFp16.length) return [];
  const names = report.nodes.map((n) => n.node);
  return [...unmatchedPatterns('--force-fp32', args.forceFp32, names), ...unmatchedPatterns('--force-fp16', args.forceFp16, names), ...unappliedForceFp16(args.forceFp16, report.nodes)];
}

export function parseDims(specs: readonly string[]): Map<string, number> {
  const dims = new Map<string, number>();
  for (const spec of specs) {
    const match = /^([^=]+)=(\d+)$/.exec(spec);
    if (!match) throw new AmpError('BAD_OPTION', `--dim ${printable(spec, 200)}: expected name=size, e.g. --dim batch=8`);
    const size = Number(match[2]);
    // ONNX Runtime takes dimensions as int32 in places; beyond that no input fits in memory anyway.
    if (size > 2 ** 31 - 1) throw new AmpError('BAD_OPTION', `--dim ${printable(spec, 200)}: ${match[2]} is larger than any dimension can be (2^31-1)`);
    dims.set(match[1] as string, size);
  }
  return dims;
}

// What only some rewrites use is loaded when one does: a plain rewrite's start-up does not pay for it.
const stateSidecar = () => import('../passes/training/state-sidecar.js');
type StateSidecarModule = Awaited<ReturnType<typeof stateSidecar>>;
const verifyProcess = () => import('../runtime/verify-process.js');
const reportRenderers = () => Promise.all([import('../report/audit.js'), import('../report/html/render-html.js')]);

/** The calibration runs, on ONNX Runtime (loaded only here, as are the calibration modules). */
async function calibrateFromArgs(model: onnx.ModelProto, args: RewriteArgs, ampOptions: AmpOptions, notices: string[]): Promise<Calibration> {
  const ort = await loadOrt();
  const [{ calibrate, inputBatches, modelAwareRandomInputs }, { parseNumerics }] = await Promise.all([import('../runtime/calibration.js'), import('../runtime/numerics.js')]);
  if (!(Number.isInteger(args.calibrationBatches) && args.calibrationBatches >= 1)) throw new AmpError('BAD_OPTION', `--calibration-batches ${args.calibrationBatches}: expected a positive integer`);
  if (!(args.inputScale > 0)) throw new AmpError('BAD_OPTION', `--input-scale ${args.inputScale}: expected a positive number`);
  const batches = args.inputs.length
    ? inputBatches(ort, model, args.inputs)
    : Array.from({ length: args.calibrationBatches }, (_, seed) =>
        modelAwareRandomInputs(ort, model, { dims: parseDims(args.dim), seed, defaultDim: 1, notices, scale: args.inputScale, distribution: args.inputDistribution }),
      );
  return withProgress('calibrate', args.quiet || args.json, (onProgress) =>
    calibrate(ort, model, batches, { numerics: parseNumerics(args.numerics) ?? 'emulate', headroom: args.headroom, ampOptions, onProgress }),
  );
}

/**
 * The verification of the rewrite (runtime/verify.ts, in a worker process: ONNX Runtime is never
 * loaded here), or why there is none; undefined with --no-verify.
 */
async function verifyFromArgs(model: onnx.ModelProto, args: RewriteArgs, options: RewriteOptions, files: { bytes: Uint8Array; externalFiles: string[] }): Promise<VerifiedFigures | undefined> {
  if (!args.verify) return undefined;
  const worker = await verifyProcess();
  const notVerified = (reason: string): VerifiedFigures => ({ verification: { status: 'not-verified', reason }, ranges: new Map(), limit: Infinity });
  if (rewritesAsTraining(model, options)) return notVerified('a training graph; amp-rewrite train --compare fp32,amp runs its steps against float32');
  if (!worker.runtimeInstalled()) return notVerified(worker.NOT_INSTALLED);
  if (!(args.headroom >= 1)) throw new AmpError('BAD_OPTION', `--headroom ${args.headroom}: must be 1 or more`);
  if (!(args.inputScale > 0)) throw new AmpError('BAD_OPTION', `--input-scale ${args.inputScale}: expected a positive number`);
  const tooLarge = worker.tooLargeToVerify(files.externalFiles.length ? worker.modelFileBytes(args.model, files.externalFiles) : files.bytes.length);
  if (tooLarge) return notVerified(tooLarge);
  const { training: _training, contract: _contract, lossScale: _lossScale, check: _check, ...ampOptions } = options;
  const numerics = args.numerics === 'emulate' || args.numerics === 'native' ? args.numerics : undefined;
  const job: VerifyJob = {
    // A model with external data is read by the worker from its file; any other is sent as the bytes read here.
    ...(files.externalFiles.length ? { modelPath: args.model } : {}),
    allowNewerIr: args.allowNewerIr,
    allowExternalOutside: args.allowExternalOutside ?? false,
    amp: worker.serialAmpOptions(ampOptions),
    inputs: args.inputs ?? [],
    dims: [...parseDims(args.dim ?? [])],
    seed: 0,
    scale: args.inputScale,
    distribution: args.inputDistribution,
    headroom: args.headroom,
    // Under --target cuda the CUDA provider runs both models natively where it starts.
    providers: args.target === 'cuda' ? ['cuda', 'cpu'] : ['cpu'],
    ...(numerics ? { numerics } : {}),
    tolerance: { ...DEFAULT_TOLERANCE },
    maxRounds: worker.MAX_VERIFY_ROUNDS,
  };
  return withProgress('verify', args.quiet || args.json, () => worker.verifyInWorker(job, files.externalFiles.length ? undefined : files.bytes));
}

/**
 * Writes the model, or with --state inputs the step graph with plain state inputs and, beside it,
 * the initial-state sidecar (its own data file when one is asked for: sharing the model's would
 * overwrite one with the other).
 */
function saveRewritten(model: onnx.ModelProto, args: RewriteArgs, options: SaveOptions & { batch: OutputBatch }, stateModule: StateSidecarModule | undefined): SaveResult[] {
  const output = args.output as string;
  if (args.state !== 'inputs' || !stateModule) return [saveModel(model, output, options)];
  const { splitInitialState, stateSidecarPath } = stateModule;
  const { model: stepGraph, sidecar } = splitInitialState(model);
  const { unchangedBytes: _unchanged, ...written } = options;
  const sidecarData = args.externalData === 'keep' || args.externalData === 'embed' ? 'embed' : `${path.basename(stateSidecarPath(output))}.data`;
  return [saveModel(sidecar, stateSidecarPath(output), { ...written, ...saveOptions(sidecarData) }), saveModel(stepGraph, output, written)];
}

export async function runRewrite(args: RewriteArgs, print: (text: string) => void): Promise<number> {
  const endProgress = rewritePhaseProgress(args.quiet || args.json, setPhaseListener);
  try {
    return await rewriteAndSave(args, print);
  } finally {
    endProgress();
  }
}

async function rewriteAndSave(args: RewriteArgs, print: (text: string) => void): Promise<number> {
  if (!args.output && !args.dryRun) throw new AmpError('BAD_OPTION', 'no output file: pass -o <out.onnx> (or --dry-run)');
  for (const report of args.report) {
    if (!/\.(json|md|html)$/.test(report)) throw new AmpError('BAD_OPTION', `--report ${report}: the file name must end in .json, .md or .html`);
  }
  mark('startupMs');
  const options = rewriteOptionsFromArgs(args);
  reportWarnings(listWarnings(args), Boolean(args.strict));
  const { model, bytes, externalTensors } = phase('loadMs', () => loadModelFile(args.model, { allowNewerIr: args.allowNewerIr, allowExternalOutside: args.allowExternalOutside ?? false, sharedEmptyFields: true }));
  // ONNX Runtime's training ops (onnxruntime-training artifacts) are named in the summary; the module loads only for a graph that may hold them.
  const ortTraining = !args.quiet && (model.opset_import ?? []).some((o) => o.domain === 'com.microsoft' || o.domain === 'ai.onnx.preview.training') ? ortTrainingSummary(model) : undefined;
  // Every output must be a file of its own: not an input (through a symlink, a hard link or
  // /proc/self/cwd included), not another output. Checked before anything is written.
  checkDimNames(model, parseDims(args.dim ?? []), args.model);
  const inputs = phase('inputFilesMs', () => inputFilesOf(args, model, externalTensors > 0));
  const writesModel = Boolean(args.output && !args.dryRun);
  const stateModule = writesModel && args.state === 'inputs' ? await stateSidecar() : undefined;
  const outputs = [
    ...(writesModel ? [{ path: args.output as string, role: '-o' }] : []),
    ...(stateModule ? [{ path: stateModule.stateSidecarPath(args.output as string), role: 'the --state inputs sidecar' }] : []),
    ...args.report.map((file) => ({ path: file, role: '--report' })),
  ];
  // The door (safe-write.ts): no output is an input or another output, none is a device, FIFO,
  // socket or folder, and every output folder is writable, checked before any work.
  checkOutputs(outputs, inputs);
  // What ONNX Runtime tolerates is repaired first (said in the summary); the loaded model is the command's own.
  const { repairs } = repairTolerated(model, { inPlace: true });
  // The structure before ONNX Runtime sees the model (--calibrate); the types in the rewrite.
  phase('inputCheckMs', () => checkModel(model, { source: args.model, allowNewerIr: args.allowNewerIr, types: false }));
  const check = { source: args.model, allowNewerIr: args.allowNewerIr, structure: false };
  options.check = check;
  const notices: string[] = [];
  if (args.calibrate) {
    const calibration = await calibrateFromArgs(model, args, options, notices);
    Object.assign(options, { activationRanges: calibration.ranges, activationLimit: calibration.limit, flushedShares: calibration.flushedShares });
  }
  // The verification runs before the rewrite: the rewrite is then made with the pins it found,
  // the very model it judged (the pass is deterministic).
  const verified = await verifyFromArgs(model, args, options, { bytes, externalFiles: inputs.filter((i) => i.role.startsWith('the external data')).map((i) => i.path) });
  if (verified && verified.verification.status !== 'not-verified' && verified.ranges.size) {
    Object.assign(options, { activationRanges: verified.ranges, activationLimit: verified.limit });
  }
  const failed = verified?.verification.status === 'fail';
  // The loaded model is not used after the rewrite: the pass edits it in place, no copy. If the
  // output fails validation, the input's own check runs on a fresh decode of its bytes. The
  // per-node audit is gathered only when something reads it (auditRead): a big graph's wiring,
  // node order and element types are otherwise not kept. So are the FLOPs share and the lint
  // (figuresRead).
  let rewrite: ReturnType<typeof rewriteModel> | undefined = phase('passMs', () =>
    rewriteDecodedModel(model, bytes, { ...options, check, audit: auditRead(args), figures: figuresRead(args) }),
  );
  const { model: rewritten } = rewrite;
  // A repaired model is written repaired, never as the input's bytes.
  const modified = rewrite.modified || repairs.length > 0;
  if (repairs.length) rewrite.report.amp.summary.repairs = [...repairs, ...(rewrite.report.amp.summary.repairs ?? [])];
  if (verified) (rewrite.report.amp.summary as VerifiedSummary).verification = { ...verified.verification, ...(failed && writesModel ? { modelWritten: false } : {}) };
  reportWarnings(patternWarnings(args, rewrite.report.amp), Boolean(args.strict));
  // Without --report only the summary (and with --verbose the op lists) is printed: taken now, the
  // report is let go before the save, and with it the graph model, the element types and the
  // decisions its unread audit would be built from (about 1.7 KB a node, at the save's peak).
  const printed = printedPart(rewrite.report, args);
  let report: RewriteReport | undefined = args.report.length ? rewrite.report : undefined;
  rewrite = undefined;
  // Every output is staged (written to a temporary beside it), the reports first and the model
  // last, then all are committed together: a report that cannot be written leaves no model behind.
  const batch = new OutputBatch();
  const notes: string[] = [];
  try {
    if (report) {
      const [{ renderAuditJson, renderAuditMarkdown }, { renderAuditHtml }] = await reportRenderers();
      for (const file of args.report) {
        const text = file.endsWith('.html')
          ? renderAuditHtml(report.amp, { title: path.basename(args.model), model, ...(report.training ? { training: report.training.contract } : {}) })
          : file.endsWith('.md')
            ? renderAuditMarkdown(report.amp, report.training)
            : renderAuditJson(report.amp, report.training);
        batch.stage(file, '--report', Buffer.from(text, 'utf8'));
        await yieldToSignals();
      }
      report = undefined;
    }
    // A rewrite that failed its verification is not written: a pipeline that ignores the exit code ships nothing broken.
    if (writesModel && !failed) {
      const saved = phase('saveMs', () =>
        saveRewritten(rewritten, args, {
          ...saveOptions(args.externalData),
          ...(modified ? {} : { unchangedBytes: bytes }),
          protect: [...inputs, ...args.report.map((file) => ({ path: file, role: '--report' }))],
          batch,
        }, stateModule),
      );
      notes.push(...saveNotes(saved));
    }
    // A SIGINT/SIGTERM that came while the files were staged ends the run here, nothing committed.
    await yieldToSignals();
  } catch (error) {
    batch.abort();
    throw error;
  }
  batch.commit();
  // A signal that came during the commit is honoured now, and says what was written.
  await yieldToSignals();
  for (const note of notes) writeStderr(`amp-rewrite: note: ${note}\n`);
  if (!args.quiet) {
    const { summary, lists, training } = printed;
    const text = renderSummary(summary) + (training ? renderTrainingSummary(training) : '');
    if (args.json) {
      const json = { ...summary, ...(training ? { training: trainingJson(training) } : {}), ...(ortTraining ? { ortTrainingOps: ortTraining.ops } : {}), ...(lists ? { lists } : {}) };
      print(`${JSON.stringify(json, null, 2)}\n`);
    } else {
      for (const notice of notices) print(`notice: ${notice}\n`);
      print(text);
      if (ortTraining) print(ortTraining.line);
      if (lists) print(renderLists(lists));
    }
  } else if (failed) {
    // Quiet, a failure still says why it exits 1.
    writeStderr(`amp-rewrite: ${renderVerification(verified.verification, printed.summary.mode)}`);
  }
  return failed ? 1 : 0;
}

/** What a rewrite prints of its report: the summary, the op lists under --verbose, the training part. */
interface PrintedReport {
  summary: AmpReport['summary'];
  lists?: AmpReport['lists'];
  training?: LossScalingReport;
}

function printedPart(report: RewriteReport, args: RewriteArgs): PrintedReport {
  if (args.quiet) return { summary: report.amp.summary };
  return { summary: report.amp.summary, ...(args.verbose ? { lists: report.amp.lists } : {}), ...(report.training ? { training: report.training } : {}) };
}

/**
 * The files a rewrite reads: the model, its external data, the rules file and --inputs files.
 * `hasExternalData` false (loadModelFile found no external tensor) spares a walk over the model.
 */
export function inputFilesOf(args: RewriteArgs, model: onnx.IModelProto, hasExternalData = true): NamedPath[] {
  const files: NamedPath[] = [{ path: args.model, role: 'the input model' }];
  if (hasExternalData) {
    forEachTensor(model, (tensor) => {
      const ref = externalRefOf(tensor);
      if (ref) files.push({ path: ref.file, role: `the external data of tensor '${printable(tensor.name)}'` });
    });
  }
  if (args.rules) files.push({ path: args.rules, role: 'the --rules file' });
  // Library callers (the fuzz test, inspect's API use) may pass no --inputs at all.
  for (const spec of args.inputs ?? []) {
    const at = spec.indexOf('=');
    files.push({ path: at > 0 ? spec.slice(at + 1) : spec, role: 'an --inputs file' });
  }
  return files;
}

/** The training part of the JSON summary: names, not node objects. */
export function trainingJson(report: LossScalingReport) {
  const { contract, ...rest } = report;
  return { loss: contract.loss, lossGrad: contract.lossGrad, gradients: contract.params.map((p) => p.grad), state: contract.state.map((s) => s.input), ...rest };
}
