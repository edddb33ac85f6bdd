/** `amp-rewrite <model.onnx> -o <out.onnx>`: the AMP pass from the command line. */
import path from 'node:path';
import type { Argv } from 'yargs';
import { AmpError } from '../onnx/errors.js';
import { writeTextAtomically } from '../onnx/io-text.js';
import { loadModel, saveModel, type SaveOptions } from '../onnx/model-io.js';
import { ampPassInfo, type AmpOptions } from '../passes/amp.js';
import { parseLossScale, type LossScalingReport } from '../passes/loss-scaling.js';
import { renderTrainingSummary, rewriteModel, type RewriteOptions } from '../passes/pipeline.js';
import { LIST_NAMES, readRulesFile, splitOps, type ListChanges } from '../passes/amp/op-lists.js';
import { renderAuditJson, renderAuditMarkdown } from '../report/audit.js';
import { renderSummary } from '../report/summary.js';
import { renderLists } from './render-lists.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { loadOrt } from '../runtime/ort.js';
import { mark, phase } from '../onnx/phases.js';

export interface RewriteArgs {
  model: string;
  output?: string;
  mode: 'fp16' | 'bf16';
  weights: 'fp32' | 'fp16';
  report: string[];
  quiet: boolean;
  json: boolean;
  verbose: boolean;
  dryRun: boolean;
  rules?: string;
  forceFp32: string[];
  forceFp16: string[];
  allowNewerIr: boolean;
  externalData: string;
  calibrate: boolean;
  training: 'auto' | 'on' | 'off';
  loss?: string;
  lossGrad?: string;
  gradSuffix?: string;
  stateSuffix?: string;
  lossScale: string;
  lossScaleInitial?: number;
  growthFactor?: number;
  backoffFactor?: number;
  growthInterval?: number;
  minScale?: number;
  maxScale?: number;
  inputs: string[];
  dim: string[];
  [flag: string]: unknown;
}

export function rewriteOptions(yargs: Argv): Argv<RewriteArgs> {
  let y = yargs
    .positional('model', { type: 'string', describe: 'ONNX model to rewrite', demandOption: true })
    .option('output', { alias: 'o', type: 'string', describe: 'where to write the rewritten model (required unless --dry-run)' })
    .option('mode', { ...ampPassInfo.options.mode, describe: ampPassInfo.options.mode.help, choices: [...ampPassInfo.options.mode.choices] })
    .option('weights', {
      ...ampPassInfo.options.weights,
      describe: ampPassInfo.options.weights.help,
      choices: [...ampPassInfo.options.weights.choices],
    })
    .option('report', { type: 'string', array: true, default: [], describe: 'write the per-node audit: audit.json or audit.md (repeatable)' })
    .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'print nothing on success' })
    .option('json', { type: 'boolean', default: false, describe: 'print the summary as JSON instead of text' })
    .option('verbose', { alias: 'v', type: 'boolean', default: false, describe: 'also print the effective op lists' })
    .option('dry-run', { type: 'boolean', default: false, describe: 'print the summary, write no model' })
    .option('rules', { type: 'string', describe: 'JSON file of list changes: {"allow": {"add": [...], "remove": [...]}, "deny": ...}' })
    .option('force-fp32', { type: 'string', array: true, default: [], describe: 'keep these nodes fp32: node names or /regex/ (repeatable)' })
    .option('force-fp16', { type: 'string', array: true, default: [], describe: 'convert these nodes: node names or /regex/ (repeatable)' })
    .option('allow-newer-ir', { type: 'boolean', default: false, describe: 'accept models with an IR version newer than 14' })
    .option('calibrate', {
      type: 'boolean',
      default: false,
      describe: 'run the fp32 model once (random inputs, or --inputs) and keep nodes that see values beyond float16 range in fp32',
    })
    .option('inputs', { type: 'string', array: true, default: [], describe: 'input tensors for --calibrate: name=file or files in input order (.pb, .npy, .json)' })
    .option('dim', { type: 'string', array: true, default: [], describe: 'size of a symbolic dimension for random inputs: name=value (repeatable)' })
    .option('external-data', {
      type: 'string',
      default: 'keep',
      describe: "weights stored outside the model: 'keep' their layout, 'embed' them, or a file name to gather them in",
    });
  const training = 'Training graphs:';
  y = y
    .option('training', { choices: ['auto', 'on', 'off'], default: 'auto', group: training, describe: 'auto: a graph with an output X.next for an input X is a training graph' })
    .option('loss', { type: 'string', group: training, describe: 'the loss output (default: the float output L that has a seed L_grad)' })
    .option('loss-grad', { type: 'string', group: training, describe: 'the seed dLoss/dLoss (default <loss>_grad)' })
    .option('grad-suffix', { type: 'string', group: training, describe: 'gradients are <param><suffix> (default _grad)' })
    .option('state-suffix', { type: 'string', group: training, describe: 'updated state is <input><suffix> (default .next)' })
    .option('loss-scale', { type: 'string', default: 'dynamic', group: training, describe: 'dynamic, static:<value> or none (bf16 needs none)' })
    .option('loss-scale-initial', { type: 'number', group: training, describe: 'initial dynamic scale (default 65536)' })
    .option('growth-factor', { type: 'number', group: training, describe: 'scale multiplier after growth-interval finite steps (default 2)' })
    .option('backoff-factor', { type: 'number', group: training, describe: 'scale multiplier on overflow (default 0.5)' })
    .option('growth-interval', { type: 'number', group: training, describe: 'finite steps before the scale grows (default 2000)' })
    .option('min-scale', { type: 'number', group: training, describe: 'smallest scale (default 1)' })
    .option('max-scale', { type: 'number', group: training, describe: 'largest scale (default 16777216)' });
  for (const list of LIST_NAMES) {
    y = y
      .option(`${list}-add`, { type: 'string', describe: `add op types to the ${list} list (comma-separated; domain:Op for custom domains)`, group: 'Lists:' })
      .option(`${list}-remove`, { type: 'string', describe: `remove op types from the ${list} list`, group: 'Lists:' });
  }
  return y as unknown as Argv<RewriteArgs>;
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
  if (dynamicGiven && args.lossScale !== 'dynamic') throw new AmpError('BAD_OPTION', 'the growth/backoff/interval/min/max options apply to --loss-scale dynamic only');
  const explicitScale = args.lossScale !== 'dynamic' || dynamicGiven;
  return {
    ...ampOptionsFromArgs(args),
    training: args.training,
    contract: { loss: args.loss, lossGrad: args.lossGrad, gradSuffix: args.gradSuffix, stateSuffix: args.stateSuffix },
    ...(explicitScale || args.mode !== 'bf16'
      ? {
          lossScale: parseLossScale(args.lossScale, {
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
    env: process.env,
    listChanges: [...(args.rules ? [readRulesFile(args.rules)] : []), { origin: 'command-line flags', changes: listChangesFromFlags(args) }],
    forceFp32: args.forceFp32,
    forceFp16: args.forceFp16,
  };
}

function saveOptions(externalData: string): SaveOptions {
  if (externalData === 'keep' || externalData === 'embed') return { externalData };
  return { externalData: { location: externalData } };
}

export function parseDims(specs: readonly string[]): Map<string, number> {
  const dims = new Map<string, number>();
  for (const spec of specs) {
    const match = /^([^=]+)=(\d+)$/.exec(spec);
    if (!match) throw new AmpError('BAD_OPTION', `--dim ${spec}: expected name=size, e.g. --dim batch=8`);
    dims.set(match[1] as string, Number(match[2]));
  }
  return dims;
}

/** The fp32 calibration run, on ONNX Runtime (loaded only here). */
async function calibrate(model: onnx.ModelProto, args: RewriteArgs): Promise<Map<string, number>> {
  // Loaded here: a rewrite without --calibrate needs none of the runtime modules.
  const [{ activationRanges }, { inputsFromFiles, randomInputs }] = await Promise.all([import('../runtime/activation-range.js'), import('../runtime/inputs.js')]);
  const ort = await loadOrt();
  const feeds = args.inputs.length ? inputsFromFiles(ort, model, args.inputs) : randomInputs(ort, model, { dims: parseDims(args.dim), seed: 0 });
  return activationRanges(ort, model, feeds);
}

export async function runRewrite(args: RewriteArgs, print: (text: string) => void): Promise<number> {
  if (!args.output && !args.dryRun) throw new AmpError('BAD_OPTION', 'no output file: pass -o <out.onnx> (or --dry-run)');
  for (const report of args.report) {
    if (!/\.(json|md)$/.test(report)) throw new AmpError('BAD_OPTION', `--report ${report}: the file name must end in .json or .md`);
  }
  if (args.output && path.resolve(args.output) === path.resolve(args.model)) {
    throw new AmpError('BAD_OPTION', `-o ${args.output} is the input model; write to another file`);
  }
  mark('startupMs');
  const options = rewriteOptionsFromArgs(args);
  const model = phase('loadMs', () => loadModel(args.model, { allowNewerIr: args.allowNewerIr }));
  if (args.calibrate) options.activationRanges = await calibrate(model, args);
  // The loaded model is not used after the rewrite: no copy of it is needed.
  const { model: rewritten, report } = phase('passMs', () => rewriteModel(model, { ...options, inPlace: true }));
  if (args.output && !args.dryRun) phase('saveMs', () => saveModel(rewritten, args.output as string, saveOptions(args.externalData)));
  for (const file of args.report) {
    writeTextAtomically(file, file.endsWith('.md') ? renderAuditMarkdown(report.amp, report.training) : renderAuditJson(report.amp, report.training));
  }
  if (!args.quiet) {
    const text = renderSummary(report.amp.summary) + (report.training ? renderTrainingSummary(report.training) : '');
    print(args.json ? `${JSON.stringify({ ...report.amp.summary, ...(report.training ? { training: trainingJson(report.training) } : {}) }, null, 2)}\n` : text);
    if (args.verbose) print(renderLists(report.amp.lists));
  }
  return 0;
}

/** The training part of the JSON summary: names, not node objects. */
export function trainingJson(report: LossScalingReport) {
  const { contract, ...rest } = report;
  return { loss: contract.loss, lossGrad: contract.lossGrad, gradients: contract.params.map((p) => p.grad), state: contract.state.map((s) => s.input), ...rest };
}
