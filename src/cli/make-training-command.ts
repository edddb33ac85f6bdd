/**
 * `amp-rewrite make-training <model.onnx> -o <step.onnx>`: a forward model (exported from
 * PyTorch, TensorFlow...) made into a one-step training graph of our contract with a loss and an
 * optimizer (src/passes/autodiff/make-training.ts). The result is what `train`, createTrainer()
 * and the AMP rewrite with loss scaling take. Writes through the rewrite's safe path: the output
 * may be no input file, and nothing is written when anything fails.
 */
import type { Argv } from 'yargs';
import { AmpError } from '../onnx/errors.js';
import { saveModel } from '../onnx/model-io.js';
import { loadCheckedModel } from '../onnx/load-checked.js';
import { writeStderr } from './standard-streams.js';
import { externalRefOf } from '../onnx/external-data.js';
import { printable } from '../onnx/printable.js';
import { checkOutputs, type NamedPath } from '../onnx/safe-write.js';
import { forEachTensor } from '../onnx/walk.js';
import { LOSS_KINDS, type LossKind } from '../passes/autodiff/loss-heads.js';
import { makeTrainingStep, type MakeTrainingReport } from '../passes/autodiff/make-training.js';
import { OPTIMIZER_KINDS, type OptimizerKind, type OptimizerSpec } from '../passes/autodiff/optimizers.js';

/** The optimizer's hyper-parameters are OptimizerSpec's, one option each. */
export interface MakeTrainingArgs extends Omit<OptimizerSpec, 'kind'> {
  model: string;
  output: string;
  loss: LossKind;
  modelOutput?: string;
  labels?: string;
  targets?: string;
  optimizer: OptimizerKind;
  lr: number;
  trainable?: string[];
  frozen?: string[];
  trainAlso?: string[];
  untie?: boolean;
  json?: boolean;
  quiet?: boolean;
}

export function makeTrainingOptions(yargs: Argv): Argv<MakeTrainingArgs> {
  return yargs
    .positional('model', { type: 'string', demandOption: true, describe: 'a forward model (float32 weights as initializers)' })
    .option('output', { alias: 'o', type: 'string', demandOption: true, describe: 'where to write the training-step graph' })
    .option('loss', { choices: LOSS_KINDS, default: 'cross-entropy', describe: 'cross-entropy: mean softmax cross-entropy of logits [batch, classes] against an int64 labels input; mse: mean squared error against a targets input; output: a scalar the model already outputs' })
    .option('model-output', { type: 'string', describe: 'the output the loss reads (default: the only float32 output)' })
    .option('labels', { type: 'string', describe: "cross-entropy: the name of the labels input it adds (default 'labels')" })
    .option('targets', { type: 'string', describe: "mse: the name of the targets input it adds (default 'targets')" })
    .option('optimizer', { choices: OPTIMIZER_KINDS, default: 'adam', describe: 'the update spelled out in standard ops (PyTorch semantics)' })
    .option('lr', { type: 'number', default: 1e-3, describe: 'learning rate train feeds by default (recorded in the metadata; lr stays a graph input)' })
    .option('momentum', { type: 'number', describe: 'momentum: velocity decay (default 0.9)' })
    .option('beta1', { type: 'number', describe: 'adam/adamw: first-moment decay (default 0.9)' })
    .option('beta2', { type: 'number', describe: 'adam/adamw: second-moment decay (default 0.999)' })
    .option('rho', { type: 'number', describe: "rmsprop: the squared average's decay (PyTorch's alpha, default 0.99)" })
    .option('epsilon', { type: 'number', describe: 'adam/adamw/rmsprop: added to the denominator (default 1e-8)' })
    .option('weight-decay', { type: 'number', describe: 'L2 term added to the gradient; adamw: decoupled decay (default 0.01 there, 0 elsewhere)' })
    .option('trainable', { type: 'array', string: true, describe: 'names or glob patterns: exactly these float initializers train (default: the weights, found by how they are consumed)' })
    .option('frozen', { type: 'array', string: true, describe: 'names or glob patterns kept frozen (they stay initializers)' })
    .option('train-also', { type: 'array', string: true, describe: 'names or glob patterns trained besides the automatic choice (a buffer or scalar it freezes, such as a learned temperature)' })
    .option('untie', { type: 'boolean', default: false, describe: 'train the stored copies of a tied weight (an initializer equal to another or to its transpose) apart' })
    .option('json', { type: 'boolean', default: false, describe: 'print the report as JSON' })
    .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'print nothing on success' }) as unknown as Argv<MakeTrainingArgs>;
}

/** Which hyper-parameter options each optimizer reads: giving another is a mistake, said as such. */
const OPTIMIZER_OPTIONS: Record<OptimizerKind, ReadonlyArray<keyof MakeTrainingArgs>> = {
  sgd: ['weightDecay'],
  momentum: ['momentum', 'weightDecay'],
  adam: ['beta1', 'beta2', 'epsilon', 'weightDecay'],
  adamw: ['beta1', 'beta2', 'epsilon', 'weightDecay'],
  rmsprop: ['rho', 'epsilon', 'weightDecay'],
};
const KEBAB: Record<string, string> = { weightDecay: 'weight-decay' };

function checkArgs(args: MakeTrainingArgs): void {
  if (!(args.lr > 0 && Number.isFinite(args.lr))) throw new AmpError('BAD_OPTION', `--lr ${args.lr}: the learning rate must be positive`);
  for (const key of ['momentum', 'beta1', 'beta2', 'rho', 'epsilon', 'weightDecay'] as const) {
    const value = args[key];
    if (value === undefined) continue;
    const flag = `--${KEBAB[key] ?? key}`;
    if (!OPTIMIZER_OPTIONS[args.optimizer].includes(key)) throw new AmpError('BAD_OPTION', `${flag} does not apply to --optimizer ${args.optimizer} (it reads ${OPTIMIZER_OPTIONS[args.optimizer].map((k) => `--${KEBAB[k] ?? k}`).join(', ')})`);
    const unit = key === 'momentum' || key === 'beta1' || key === 'beta2' || key === 'rho';
    if (!Number.isFinite(value) || value < 0 || (unit && value >= 1) || (key === 'epsilon' && value === 0)) {
      throw new AmpError('BAD_OPTION', `${flag} ${value}: expected ${unit ? 'a number in [0, 1)' : key === 'epsilon' ? 'a positive number' : 'a number of at least 0'}`);
    }
  }
  if (args.labels !== undefined && args.loss !== 'cross-entropy') throw new AmpError('BAD_OPTION', `--labels applies to --loss cross-entropy, not ${args.loss}`);
  if (args.targets !== undefined && args.loss !== 'mse') throw new AmpError('BAD_OPTION', `--targets applies to --loss mse, not ${args.loss}`);
  if (args.loss === 'output' && args.modelOutput === undefined) throw new AmpError('BAD_OPTION', '--loss output needs --model-output <name>: the scalar output to minimise');
}

/** At most this many names of a list are printed; --json has them all. */
const LISTED = 40;

function listed(title: string, lines: string[]): string[] {
  if (!lines.length) return [];
  const shown = lines.slice(0, LISTED).map((line) => `    ${line}`);
  return [`  ${title}:`, ...shown, ...(lines.length > LISTED ? [`    ... and ${lines.length - LISTED} more (--json lists them all)`] : [])];
}

const shapeText = (dims: number[]): string => `[${dims.join(', ')}]`;

export function renderMakeTrainingReport(report: MakeTrainingReport, output: string): string {
  const elements = report.trainable.reduce((a, p) => a + p.elements, 0);
  const ops = Object.entries(report.differentiated).sort(([a], [b]) => a.localeCompare(b)).map(([op, n]) => `${op} x${n}`).join(', ');
  const lines = [
    `wrote ${output}: a training step minimising '${report.loss}' (seed '${report.lossGrad}')`,
    `  parameters: ${report.trainable.length} trainable (${elements} values), ${report.frozen.length} frozen; optimizer state: ${report.optimizerState.length} tensors`,
    `  backward: ${report.backwardNodes} nodes for ${ops || 'no op'}`,
    ...listed('trainable', report.trainable.map((p) => `${printable(p.name)} ${shapeText(p.dims)}`)),
    ...listed('frozen', report.frozen.map((f) => `${printable(f.name)} ${shapeText(f.dims)}: ${f.reason}`)),
    ...(report.runningStatistics.length ? [`  running statistics: ${report.runningStatistics.length} (BatchNormalization in training mode), carried as state and updated as PyTorch updates them`] : []),
    ...report.tied.map((t) => `  tied: ${printable(t.copy)} is ${printable(t.parameter)}${t.transposed ? ' transposed' : ''}: one parameter, gradients summed (--untie trains them apart)`),
    ...report.shared.map((s) => `  shared: ${s.parameter} is also read as ${s.alsoReadAs.join(', ')} through Identity (the exporter stored equal initial values once): they train as one parameter`),
    `next: amp-rewrite train ${output} --compare fp32,amp   (or amp-rewrite ${output} -o step.amp.onnx)`,
  ];
  return `${lines.join('\n')}\n`;
}

export async function runMakeTraining(args: MakeTrainingArgs, print: (text: string) => void): Promise<number> {
  checkArgs(args);
  // The gate every command that reads a model goes through: decode limits, repairs, the checker's rules and types.
  const { model, externalTensors, repairs } = loadCheckedModel(args.model);
  for (const repair of repairs) writeStderr(`amp-rewrite: note: repaired: ${repair}\n`);
  const inputs: NamedPath[] = [{ path: args.model, role: 'the input model' }];
  if (externalTensors > 0) {
    forEachTensor(model, (tensor) => {
      const ref = externalRefOf(tensor);
      if (ref) inputs.push({ path: ref.file, role: `the external data of tensor '${printable(tensor.name)}'` });
    });
  }
  checkOutputs([{ path: args.output, role: '-o' }], inputs);
  const { model: step, report } = makeTrainingStep(model, {
    loss: { kind: args.loss, ...(args.modelOutput !== undefined ? { output: args.modelOutput } : {}), ...((args.labels ?? args.targets) !== undefined ? { target: (args.labels ?? args.targets) as string } : {}) },
    optimizer: {
      kind: args.optimizer,
      ...(args.momentum !== undefined ? { momentum: args.momentum } : {}),
      ...(args.beta1 !== undefined ? { beta1: args.beta1 } : {}),
      ...(args.beta2 !== undefined ? { beta2: args.beta2 } : {}),
      ...(args.rho !== undefined ? { rho: args.rho } : {}),
      ...(args.epsilon !== undefined ? { epsilon: args.epsilon } : {}),
      ...(args.weightDecay !== undefined ? { weightDecay: args.weightDecay } : {}),
    },
    trainable: { ...(args.trainable ? { trainable: args.trainable } : {}), ...(args.frozen ? { frozen: args.frozen } : {}), ...(args.trainAlso ? { also: args.trainAlso } : {}) },
    lr: args.lr,
    untie: args.untie ?? false,
  });
  saveModel(step, args.output);
  if (args.json) print(`${JSON.stringify({ wrote: args.output, ...report }, null, 2)}\n`);
  else if (!args.quiet) print(renderMakeTrainingReport(report, args.output));
  return 0;
}
