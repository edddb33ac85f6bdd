/** `amp-rewrite train <graph.onnx>`: run a one-step training graph in a loop on MNIST. */
import type { Argv } from 'yargs';
import { AmpError } from '../onnx/errors.js';
import { writeTextAtomically } from '../onnx/io-text.js';
import { loadModel } from '../onnx/model-io.js';
import { checkCudaDevice, lowPrecisionTypesOf, type DeviceQuery } from '../runtime/device-check.js';

/** What the commands that run models take from the machine; tests pass a faked device query. */
export interface DeviceDeps {
  queryDevice?: DeviceQuery;
}
import type { onnx } from '../onnx/generated/onnx.js';
import { ampRewrite } from '../passes/amp.js';
import { rewriteModel } from '../passes/pipeline.js';
import { loadMnist } from '../runtime/mnist.js';
import { parseProviders } from '../runtime/session.js';
import { train, type EpochResult, type TrainResult } from '../runtime/train.js';
import { machineDescription } from './execute-commands.js';

export interface TrainArgs {
  graph: string;
  data: string;
  epochs: number;
  batch: number;
  lr: number;
  ep: string;
  compare?: string;
  maxSteps?: number;
  seed: number;
  json?: string;
  quiet: boolean;
}

const VARIANTS = ['fp32', 'amp', 'fp16'] as const;
type Variant = (typeof VARIANTS)[number];

export function trainOptions(yargs: Argv): Argv<TrainArgs> {
  return yargs
    .positional('graph', { type: 'string', demandOption: true, describe: 'a one-step training graph (fp32, or already rewritten)' })
    .option('data', { choices: ['mnist'], default: 'mnist', describe: 'data set: the 10,000 MNIST digits of the mnist package' })
    .option('epochs', { type: 'number', default: 1, describe: 'passes over the training set' })
    .option('batch', { type: 'number', default: 64, describe: 'examples per step' })
    .option('lr', { type: 'number', default: 0.05, describe: 'learning rate fed to the graph' })
    .option('ep', { type: 'string', default: 'cpu', describe: 'execution provider: cuda, webgpu, cpu, a comma list, or auto' })
    .option('compare', { type: 'string', describe: 'train variants of an fp32 graph side by side: a comma list of fp32, amp, fp16' })
    .option('max-steps', { type: 'number', describe: 'stop each epoch after this many steps' })
    .option('seed', { type: 'number', default: 0, describe: 'seed for the data split and shuffling' })
    .option('json', { type: 'string', describe: 'the results as JSON: on stdout (--json alone, instead of the text), or written to the file given' })
    .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'no progress bar' }) as unknown as Argv<TrainArgs>;
}

/** The graph each --compare variant trains: the original, the AMP rewrite, or every float op in fp16 without scaling. */
export function variantGraph(model: onnx.ModelProto, variant: Variant): onnx.ModelProto {
  if (variant === 'fp32') return model;
  if (variant === 'amp') return rewriteModel(model).model;
  return ampRewrite(model, { forceFp16: ['/.*/'] }).model;
}

function progressBar(label: string): (p: { epoch: number; step: number; steps: number; loss: number }) => void {
  if (!process.stderr.isTTY) return () => undefined;
  return ({ epoch, step, steps, loss }) => {
    const width = 30;
    const done = Math.round((width * step) / steps);
    process.stderr.write(`\r${label} epoch ${epoch} [${'='.repeat(done)}${' '.repeat(width - done)}] ${step}/${steps} loss ${loss.toFixed(4)}`);
    if (step === steps) process.stderr.write('\r\x1b[2K');
  };
}

export function renderEpoch(label: string, e: EpochResult): string {
  const scale = e.lossScale === null ? '' : `, loss scale ${e.lossScale}`;
  return `${label} epoch ${e.epoch}: loss ${e.meanLoss.toFixed(4)}, test accuracy ${(100 * e.testAccuracy).toFixed(2)}%, ${e.msPerStep.toFixed(2)} ms/step, skipped ${e.skippedSteps} of ${e.steps}${scale}\n`;
}

export function renderComparisonTable(results: Array<{ variant: string; result: TrainResult }>): string {
  const lines = ['variant  provider  final loss  test accuracy  ms/step  skipped  loss scale'];
  for (const { variant, result } of results) {
    const last = result.epochs[result.epochs.length - 1];
    if (!last) continue;
    const skipped = result.epochs.reduce((n, e) => n + e.skippedSteps, 0);
    lines.push(
      `${variant.padEnd(8)} ${result.provider.padEnd(9)} ${last.meanLoss.toFixed(4).padStart(10)} ${`${(100 * last.testAccuracy).toFixed(2)}%`.padStart(14)} ${last.msPerStep.toFixed(2).padStart(8)} ${String(skipped).padStart(8)} ${String(last.lossScale ?? '-').padStart(11)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export async function runTrain(args: TrainArgs, print: (text: string) => void, deps: DeviceDeps = {}): Promise<number> {
  if (!(args.epochs >= 1 && args.batch >= 1 && args.lr > 0)) throw new AmpError('BAD_OPTION', '--epochs and --batch must be at least 1 and --lr positive');
  const variants = (args.compare ?? '').split(',').map((v) => v.trim()).filter(Boolean);
  for (const v of variants) if (!(VARIANTS as readonly string[]).includes(v)) throw new AmpError('BAD_OPTION', `--compare ${args.compare}: '${v}' is not one of ${VARIANTS.join(', ')}`);
  const providers = parseProviders(args.ep);
  const model = loadModel(args.graph);
  // The device check covers every graph about to run: amp and fp16 variants compute in float16.
  const types = lowPrecisionTypesOf(model);
  if (variants.some((v) => v !== 'fp32')) types.add('float16');
  const check = checkCudaDevice(providers, types, args.graph, deps.queryDevice);
  if (check && !args.quiet) print(`${check.notes.join('\n')}\n`);
  const data = loadMnist({ seed: args.seed });
  const results: Array<{ variant: string; result: TrainResult }> = [];
  // `--json` alone means JSON, and only JSON, on stdout.
  const jsonOnStdout = args.json === '';
  const printJson = print;
  if (jsonOnStdout) print = () => undefined;
  for (const variant of variants.length ? (variants as Variant[]) : ['as given']) {
    const graph = variant === 'as given' ? model : variantGraph(model, variant as Variant);
    const result = await train(graph, data, {
      epochs: args.epochs,
      batch: args.batch,
      lr: args.lr,
      providers,
      seed: args.seed,
      ...(args.maxSteps ? { maxSteps: args.maxSteps } : {}),
      ...(args.quiet ? {} : { onStep: progressBar(variant) }),
    });
    results.push({ variant, result });
    if (!args.quiet) {
      print(`${variant}: execution provider ${result.provider}\n`);
      for (const epoch of result.epochs) print(renderEpoch(variant, epoch));
    }
  }
  if (variants.length) print(renderComparisonTable(results));
  if (args.json !== undefined) {
    const record = { graph: args.graph, data: args.data, batch: args.batch, lr: args.lr, machine: machineDescription(), date: new Date().toISOString(), results };
    if (jsonOnStdout) printJson(`${JSON.stringify(record, null, 2)}\n`);
    else writeTextAtomically(args.json, `${JSON.stringify(record, null, 2)}\n`);
  }
  return 0;
}
