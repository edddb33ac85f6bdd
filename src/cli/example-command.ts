/**
 * `amp-rewrite example <mlp|attention> -o model.onnx`: writes the one-step training graphs the
 * recipes build (src/builder/recipes/training.ts), with their initial state stored, so the
 * README's MNIST experiment runs from commands a user can copy. The defaults are the README
 * table's graph: MLP 784-64-64-10, RMSprop (epsilon 1e-8), learning rate 1e-3.
 */
import type { Argv } from 'yargs';
import {
  buildAttentionTrainingStep,
  buildMlpTrainingStep,
  withInitialState,
  type Optimizer,
} from '../builder/recipes/training.js';
import { AmpError } from '../onnx/errors.js';
import { onnx } from '../onnx/generated/onnx.js';
import { saveModel } from '../onnx/model-io.js';
import { checkOutputs } from '../onnx/safe-write.js';

export interface ExampleArgs {
  kind: 'mlp' | 'attention';
  output: string;
  hidden?: number;
  layers?: number;
  optimizer: 'rmsprop' | 'adam' | 'sgd';
  batch?: number;
  lr: number;
  epsilon?: number;
  seed: number;
  json?: boolean;
  quiet?: boolean;
}

/** The metadata key `train` reads its default learning rate from. */
export const LR_METADATA_KEY = 'amp-rewrite.train.lr';

const OPTIMIZERS: Record<ExampleArgs['optimizer'], Optimizer> = { rmsprop: 'rmsprop', adam: 'adam', sgd: 'sgd-momentum' };
const MNIST = { pixels: 784, side: 28, classes: 10 };

export function exampleOptions(yargs: Argv): Argv<ExampleArgs> {
  return yargs
    .positional('kind', { choices: ['mlp', 'attention'], demandOption: true, describe: 'mlp: 784 -> (Dense -> ReLU) x layers -> 10; attention: 28 rows of 28 pixels -> self-attention -> LayerNorm -> 10' })
    .option('output', { alias: 'o', type: 'string', demandOption: true, describe: 'where to write the training-step graph' })
    .option('hidden', { type: 'number', describe: 'mlp: width of each hidden layer (default 64; the seeds use 4096 on a GPU)' })
    .option('layers', { type: 'number', describe: 'mlp: number of hidden layers (default 2)' })
    .option('optimizer', { choices: ['rmsprop', 'adam', 'sgd'], default: 'rmsprop', describe: 'the update spelled out in the graph (sgd is SGD with momentum 0.9)' })
    .option('batch', { type: 'number', describe: 'fix the batch dimension (default: symbolic, any batch)' })
    .option('lr', { type: 'number', default: 1e-3, describe: 'learning rate train feeds by default (recorded in the model metadata; lr stays a graph input)' })
    .option('epsilon', { type: 'number', describe: "rmsprop/adam: the optimizer's epsilon (default 1e-8, PyTorch's)" })
    .option('seed', { type: 'number', default: 1, describe: 'seed of the initial weights' })
    .option('json', { type: 'boolean', default: false, describe: 'print what was written as JSON' })
    .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'print nothing on success' }) as unknown as Argv<ExampleArgs>;
}

const positiveInteger = (value: number | undefined): boolean => value === undefined || (Number.isInteger(value) && value >= 1);

/** Weights the example may hold: 2^28 float32 values (1 GiB), far past the README's 4096-wide seeds. */
const MAX_PARAMETERS = 2 ** 28;

export function buildExample(args: Omit<ExampleArgs, 'output'>): onnx.ModelProto {
  if (!positiveInteger(args.hidden) || !positiveInteger(args.layers) || !positiveInteger(args.batch)) {
    throw new AmpError('BAD_OPTION', '--hidden, --layers and --batch must be whole numbers of at least 1');
  }
  const hidden = args.hidden ?? 64;
  const layers = args.layers ?? 2;
  const parameters = MNIST.pixels * hidden + (layers - 1) * hidden * hidden + hidden * MNIST.classes;
  if (args.kind === 'mlp' && !(parameters <= MAX_PARAMETERS)) {
    throw new AmpError('BAD_OPTION', `--hidden ${hidden} --layers ${layers}: ${parameters.toExponential(2)} weights, more than the ${MAX_PARAMETERS} (1 GiB of float32) an example may hold`);
  }
  if (args.batch !== undefined && args.batch > 2 ** 31 - 1) throw new AmpError('BAD_OPTION', `--batch ${args.batch}: larger than any dimension can be (2^31-1)`);
  if (!Number.isSafeInteger(args.seed)) throw new AmpError('BAD_OPTION', `--seed ${args.seed}: expected a whole number`);
  if (!(args.lr > 0 && Number.isFinite(args.lr))) throw new AmpError('BAD_OPTION', `--lr ${args.lr}: the learning rate must be positive`);
  if (args.epsilon !== undefined && !(args.epsilon > 0 && Number.isFinite(args.epsilon))) throw new AmpError('BAD_OPTION', `--epsilon ${args.epsilon}: must be positive`);
  if (args.epsilon !== undefined && args.optimizer === 'sgd') throw new AmpError('BAD_OPTION', '--epsilon applies to rmsprop and adam; sgd has none');
  if (args.kind === 'attention' && (args.hidden !== undefined || args.layers !== undefined)) {
    throw new AmpError('BAD_OPTION', '--hidden and --layers shape the mlp; the attention example is 28 positions of width 28');
  }
  const common = {
    batch: args.batch ?? 'batch',
    optimizer: OPTIMIZERS[args.optimizer],
    classes: MNIST.classes,
    seed: args.seed,
    ...(args.epsilon !== undefined ? { constants: { eps: args.epsilon } } : {}),
  };
  const step =
    args.kind === 'mlp'
      ? buildMlpTrainingStep({ ...common, inputSize: MNIST.pixels, hidden: args.hidden ?? 64, hiddenLayers: args.layers ?? 2 })
      : buildAttentionTrainingStep({ ...common, sequence: MNIST.side, width: MNIST.side });
  const model = withInitialState(step);
  model.metadata_props = [onnx.StringStringEntryProto.create({ key: LR_METADATA_KEY, value: String(args.lr) })];
  return model;
}

/** The learning rate an example graph asks train to feed, if it records one. */
export function recordedLearningRate(model: onnx.IModelProto): number | undefined {
  const entry = (model.metadata_props ?? []).find((p) => p.key === LR_METADATA_KEY);
  const value = Number(entry?.value);
  return entry && value > 0 ? value : undefined;
}

export async function runExample(args: ExampleArgs, print: (text: string) => void): Promise<number> {
  checkOutputs([{ path: args.output, role: '-o' }], []);
  const model = buildExample(args);
  saveModel(model, args.output);
  const inputs = (model.graph?.input ?? []).length;
  const nodes = (model.graph?.node ?? []).length;
  if (args.json) print(`${JSON.stringify({ wrote: args.output, kind: args.kind, optimizer: args.optimizer, inputs, nodes }, null, 2)}\n`);
  else if (!args.quiet) print(`wrote ${args.output}: ${args.kind} training step (${args.optimizer}), ${inputs} inputs, ${(model.graph?.node ?? []).length} nodes; train it with: amp-rewrite train ${args.output} --compare fp32,amp,amp:unscaled,fp16\n`);
  return 0;
}
