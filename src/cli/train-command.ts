/** `amp-rewrite train <graph.onnx>`: run a one-step training graph in a loop on MNIST. */
import { loadCheckedModel } from '../onnx/load-checked.js';
import { existsSync } from 'node:fs';
import type { Argv } from 'yargs';
import { AmpError } from '../onnx/errors.js';
import { checkOutputs, OutputBatch } from '../onnx/safe-write.js';
import { requireNumber } from './numeric-options.js';
import { checkCudaDevice, lowPrecisionTypesOf, type DeviceQuery } from '../runtime/device-check.js';
import { stateSidecarPath, withInitialStateFrom } from '../passes/training/state-sidecar.js';
import { looksLikeTrainingGraph } from '../passes/training/contract.js';
import { printable } from '../onnx/printable.js';
import { parseVariants, variantGraph, type Variant } from '../passes/training/variants.js';
import { loadMnist } from '../runtime/mnist.js';
import { parseProviders } from '../runtime/session.js';
import { train, type EpochResult, type TrainResult } from '../runtime/train.js';
import type { TrainingRecord, TrainingVariantResult } from '../runtime/training-record.js';
import { renderTrainingReport } from '../report/training-report.js';
import type { NonFiniteReport } from '../runtime/trainer.js';
import { recordedLearningRate } from './example-command.js';
import { machineDescription } from './execute-commands.js';

export interface TrainArgs {
  graph: string;
  data: string;
  epochs: number;
  batch: number;
  lr?: number;
  ep: string;
  compare?: string;
  maxSteps?: number;
  seed: number;
  json?: string;
  report?: string;
  quiet: boolean;
}

/** What the commands that run models take from the machine; tests pass a faked device query. */
export interface DeviceDeps {
  queryDevice?: DeviceQuery;
}

export function trainOptions(yargs: Argv): Argv<TrainArgs> {
  return yargs
    .positional('graph', { type: 'string', demandOption: true, describe: 'a one-step training graph (fp32, or already rewritten)' })
    .option('data', { choices: ['mnist'], default: 'mnist', describe: 'data set: the 10,000 MNIST digits of the mnist package' })
    .option('epochs', { type: 'number', default: 1, describe: 'passes over the training set' })
    .option('batch', { type: 'number', default: 64, describe: 'examples per step' })
    .option('lr', { type: 'number', describe: 'learning rate fed to the graph (default: the one an example graph records, else 0.05)' })
    .option('ep', { type: 'string', default: 'cpu', describe: 'execution provider: cuda, webgpu, cpu, a comma list, or auto' })
    .option('compare', { type: 'string', describe: 'train variants of an fp32 graph side by side: a comma list of fp64, fp32, amp, amp-bf16, fp16, each optionally :scaled or :unscaled (dynamic loss scaling; amp has it by default)' })
    .option('max-steps', { type: 'number', describe: 'stop each epoch after this many steps' })
    .option('seed', { type: 'number', default: 0, describe: 'seed for the data split and shuffling' })
    .option('json', { type: 'string', describe: 'the results as JSON: on stdout (--json alone, instead of the text), or written to the file given' })
    .option('report', { type: 'string', describe: 'write the curves as one self-contained HTML page (.html): loss per step, loss scale with skipped steps, accuracy, step times' })
    .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'print nothing: the exit code, --json and --report carry the results' }) as unknown as Argv<TrainArgs>;
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

export function renderNonFinite(label: string, where: NonFiniteReport): string {
  return `${label}: first non-finite value at step ${where.step}: output '${where.output}' of ${where.op} node '${where.node}'\n`;
}

export type VariantResult = TrainingVariantResult;

export function renderComparisonTable(results: VariantResult[]): string {
  const lines = ['variant        provider  loss scaling  final loss  test accuracy  ms/step  skipped  loss scale'];
  const notes: string[] = [];
  for (const { variant, scaled, result, failed } of results) {
    const scaling = scaled === undefined ? '-' : scaled ? 'dynamic' : 'none';
    const last = result?.epochs[result.epochs.length - 1];
    if (!result || !last) {
      lines.push(`${variant.padEnd(14)} ${'-'.padEnd(9)} ${scaling.padEnd(12)}  could not run: ${failed ?? 'no epochs'}`);
      continue;
    }
    const skipped = result.epochs.reduce((n, e) => n + e.skippedSteps, 0);
    lines.push(
      `${variant.padEnd(14)} ${result.provider.padEnd(9)} ${scaling.padEnd(12)} ${last.meanLoss.toFixed(4).padStart(10)} ${`${(100 * last.testAccuracy).toFixed(2)}%`.padStart(14)} ${last.msPerStep.toFixed(2).padStart(8)} ${String(skipped).padStart(8)} ${String(last.lossScale ?? '-').padStart(11)}`,
    );
    if (result.firstNonFinite) notes.push(renderNonFinite(variant, result.firstNonFinite));
  }
  return `${lines.join('\n')}\n${notes.join('')}`;
}

export async function runTrain(args: TrainArgs, print: (text: string) => void, deps: DeviceDeps = {}): Promise<number> {
  if (!(args.epochs >= 1 && args.batch >= 1 && (args.lr === undefined || args.lr > 0))) throw new AmpError('BAD_OPTION', '--epochs and --batch must be at least 1 and --lr positive');
  requireNumber('epochs', args.epochs, { integer: true, min: 1 });
  requireNumber('batch', args.batch, { integer: true, min: 1 });
  if (args.lr !== undefined) requireNumber('lr', args.lr);
  if (args.maxSteps !== undefined) requireNumber('max-steps', args.maxSteps, { integer: true, min: 1 });
  requireNumber('seed', args.seed, { integer: true });
  const variants = args.compare === undefined ? [] : parseVariants(args.compare);
  if (args.compare !== undefined && !variants.length) throw new AmpError('BAD_OPTION', '--compare needs at least one variant');
  const providers = parseProviders(args.ep);
  // A graph written with --state inputs: its variants are made from the stored-state form.
  const sidecar = stateSidecarPath(args.graph);
  // --json FILE is written after the training: checked now, so that it can never be the graph or its state.
  if (args.report !== undefined && !/\.html?$/i.test(args.report)) throw new AmpError('BAD_OPTION', `--report ${args.report}: the training report is an HTML page: name a .html file`, { subject: 'report' });
  const written = [
    ...(args.json ? [{ path: args.json, role: '--json' }] : []),
    ...(args.report ? [{ path: args.report, role: '--report' }] : []),
  ];
  if (written.length) checkOutputs(written, [{ path: args.graph, role: 'the training graph' }, { path: sidecar, role: 'its --state inputs sidecar' }]);
  const model = existsSync(sidecar) ? withInitialStateFrom(loadCheckedModel(args.graph).model, loadCheckedModel(sidecar).model, sidecar) : loadCheckedModel(args.graph).model;
  // A forward model (no X -> X.next state) is no step graph: say which command makes one.
  if (!looksLikeTrainingGraph(model)) {
    throw new AmpError('TRAINING_CONTRACT', `${printable(args.graph)} is a forward model, not a training step (no input X with an output X.next): make one with amp-rewrite make-training ${printable(args.graph)} -o step.onnx, then train step.onnx`);
  }
  const lr = args.lr ?? recordedLearningRate(model) ?? 0.05;
  // The device check covers every graph about to run: the amp and fp16 variants compute in float16, amp-bf16 in bfloat16.
  const types = lowPrecisionTypesOf(model);
  for (const v of variants) {
    if (v.name === 'amp' || v.name === 'fp16') types.add('float16');
    if (v.name === 'amp-bf16') types.add('bfloat16');
  }
  const check = checkCudaDevice(providers, types, args.graph, deps.queryDevice);
  if (check && !args.quiet && args.json !== '') print(`${check.notes.join('\n')}\n`);
  const data = loadMnist({ seed: args.seed });
  const results: VariantResult[] = [];
  // `--json` alone means JSON, and only JSON, on stdout.
  const jsonOnStdout = args.json === '';
  const printJson = print;
  if (jsonOnStdout) print = () => undefined;
  const runs: Array<{ label: string; variant?: Variant }> = variants.length ? variants.map((v) => ({ label: v.label, variant: v })) : [{ label: 'as given' }];
  for (const { label, variant } of runs) {
    const graph = variant ? variantGraph(model, variant) : args.graph;
    let result: TrainResult;
    try {
      result = await train(graph, data, {
        epochs: args.epochs,
        batch: args.batch,
        lr,
        providers,
        seed: args.seed,
        ...(args.maxSteps ? { maxSteps: args.maxSteps } : {}),
        ...(args.quiet ? {} : { onStep: progressBar(label) }),
      });
    } catch (error) {
      // One variant the provider cannot run (bfloat16 kernels on a CPU) does not end the comparison.
      if (!variant || !(error instanceof AmpError) || error.code !== 'RUNTIME_FAILED') throw error;
      results.push({ variant: label, scaled: variant.scaled, failed: error.message });
      continue;
    }
    results.push({ variant: label, ...(variant ? { scaled: variant.scaled } : {}), result });
    // -q prints nothing (the exit code, --json and --report carry the results), as on every other command.
    if (!args.quiet) {
      print(`${label}: execution provider ${result.provider}\n`);
      for (const epoch of result.epochs) print(renderEpoch(label, epoch));
      if (result.firstNonFinite && !variants.length) print(renderNonFinite(label, result.firstNonFinite));
    }
  }
  if (variants.length && !args.quiet) print(renderComparisonTable(results));
  const record: TrainingRecord = { graph: args.graph, data: args.data, batch: args.batch, lr, machine: machineDescription(), date: new Date().toISOString(), results };
  // Through the door (safe-write.ts): the files staged, then committed together (both or neither).
  const batch = new OutputBatch();
  try {
    if (args.report) batch.stage(args.report, '--report', Buffer.from(renderTrainingReport(record), 'utf8'));
    if (args.json !== undefined && !jsonOnStdout) batch.stage(args.json, '--json', Buffer.from(`${JSON.stringify(record, null, 2)}\n`, 'utf8'));
  } catch (error) {
    batch.abort();
    throw error;
  }
  batch.commit();
  if (args.json !== undefined && jsonOnStdout) printJson(`${JSON.stringify(record, null, 2)}\n`);
  return 0;
}
