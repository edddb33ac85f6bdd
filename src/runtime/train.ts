/**
 * The training loop on a data set: a trainer (trainer.ts) fed batches of MNIST, the learning
 * rate, and the state it carries. Each epoch reports the mean loss, test accuracy (every test
 * example, the last partial batch included), time per step, skipped (non-finite) steps, the loss
 * scale, and where a collapse started when the graph has no guard against one.
 */
import type { Tensor } from 'onnxruntime-node';
import { DataType } from '../onnx/data-types.js';
import { AmpError } from '../onnx/errors.js';
import type { onnx } from '../onnx/generated/onnx.js';
import type { ContractOptions } from '../passes/training/contract.js';
import { epochOrder, type Dataset } from './mnist.js';
import type { Provider } from './session.js';
import { createTrainer, floatTensor, floatValues, type NonFiniteReport, type Trainer } from './trainer.js';

export interface TrainOptions {
  epochs: number;
  batch: number;
  lr: number;
  providers: readonly Provider[];
  seed?: number;
  /** Stop an epoch after this many steps (for quick runs). */
  maxSteps?: number;
  contract?: ContractOptions;
  /** The initial-state file of a graph written with --state inputs. */
  statePath?: string;
  onStep?: (progress: { epoch: number; step: number; steps: number; loss: number }) => void;
}

// Declared once, with no ONNX Runtime type, for the public API and the report.
export type { EpochResult, StepRecord, TrainResult } from './training-record.js';
import type { EpochResult, StepRecord, TrainResult } from './training-record.js';
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameProvider: Same<TrainResult['provider'], Provider> = true;
const sameNonFinite: Same<NonNullable<TrainResult['firstNonFinite']>, NonFiniteReport> = true;
void sameProvider;
void sameNonFinite;

interface DataLayout {
  features: { name: string; elemType: number; dims: Array<number | string> };
  labels: string;
  lr: { name: string; elemType: number } | undefined;
  logits: string;
}

/** The data, learning-rate and logits names of a step graph: a rank >= 2 float input, an int64 input, a float scalar. */
function dataLayout(trainer: Trainer): DataLayout {
  const floats = new Set<number>([DataType.FLOAT, DataType.FLOAT16, DataType.DOUBLE]);
  const { feeds, outputs } = trainer.layout;
  const features = feeds.find((f) => floats.has(f.elemType) && f.dims.length >= 2);
  const labels = feeds.find((f) => f.elemType === DataType.INT64);
  const lr = feeds.find((f) => f !== features && floats.has(f.elemType) && f.dims.length === 0);
  if (!features || !labels) {
    throw new AmpError('TRAINING_CONTRACT', 'the step graph needs a float features input (rank 2 or more) and an int64 labels input to train on a data set');
  }
  if (!outputs.includes('logits')) throw new AmpError('TRAINING_CONTRACT', "the step graph needs a 'logits' output to measure accuracy");
  const other = feeds.find((f) => f !== features && f !== labels && f !== lr);
  if (other) throw new AmpError('TRAINING_CONTRACT', `the step graph has an input '${other.name}' the MNIST loop cannot feed`, { subject: other.name });
  return { features, labels: labels.name, lr, logits: 'logits' };
}

/**
 * Rows `order[start .. start+size)` as features and labels. A graph with a fixed batch dimension
 * gets the rows padded to it by repeating the last one; only the first `size` rows are scored.
 */
function batchFeeds(trainer: Trainer, data: Dataset, order: Uint32Array, start: number, size: number, layout: DataLayout): Record<string, Tensor> {
  const declared = layout.features.dims;
  const fixedBatch = typeof declared[0] === 'number' && declared[0] > 0 ? declared[0] : undefined;
  const rows = Math.max(size, fixedBatch ?? 0);
  const features = new Float32Array(rows * data.width);
  const labels = new BigInt64Array(rows);
  for (let i = 0; i < rows; i++) {
    const index = order[start + Math.min(i, size - 1)] as number;
    features.set(data.features.subarray(index * data.width, (index + 1) * data.width), i * data.width);
    labels[i] = data.labels[index] as bigint;
  }
  const inner = declared.slice(1).map((d) => (typeof d === 'number' ? d : 0));
  const dims = inner.every((d) => d > 0) && inner.reduce((a, b) => a * b, 1) === data.width ? [rows, ...inner] : [rows, data.width];
  return {
    [layout.features.name]: floatTensor(trainer.ort, layout.features.elemType, features, dims),
    [layout.labels]: new trainer.ort.Tensor('int64', labels, [rows]),
  };
}

function correctPredictions(logits: Tensor, labels: BigInt64Array): number {
  const data = floatValues(logits);
  const classes = logits.dims[logits.dims.length - 1] ?? 1;
  let correct = 0;
  for (let row = 0; row < labels.length; row++) {
    let best = 0;
    for (let c = 1; c < classes; c++) if ((data[row * classes + c] as number) > (data[row * classes + best] as number)) best = c;
    if (BigInt(best) === labels[row]) correct++;
  }
  return correct;
}

export async function train(model: string | onnx.IModelProto, data: { train: Dataset; test: Dataset }, options: TrainOptions): Promise<TrainResult> {
  const trainer = await createTrainer(model, {
    providers: options.providers,
    ...(options.contract ? { contract: options.contract } : {}),
    ...(options.statePath ? { statePath: options.statePath } : {}),
  });
  try {
    const layout = dataLayout(trainer);
    const fixedBatch = layout.features.dims[0];
    if (typeof fixedBatch === 'number' && fixedBatch > 0 && fixedBatch !== options.batch) {
      throw new AmpError('BAD_OPTION', `the graph's input '${layout.features.name}' has a fixed batch of ${fixedBatch}: pass --batch ${fixedBatch}`, { subject: layout.features.name });
    }
    // The data set's rows must fit the features input's fixed dimensions (a 784-pixel image into a
    // 16-wide input is the user's graph, not ONNX Runtime's internal error).
    const inner = layout.features.dims.slice(1);
    const fixed = inner.every((d) => typeof d === 'number' && d > 0) ? (inner as number[]).reduce((a, b) => a * b, 1) : undefined;
    const lastFixed = inner.at(-1);
    if ((fixed !== undefined && fixed !== data.train.width) || (fixed === undefined && typeof lastFixed === 'number' && lastFixed > 0 && data.train.width % lastFixed !== 0)) {
      throw new AmpError(
        'TRAINING_CONTRACT',
        `the graph's input '${layout.features.name}' takes rows of [${inner.join(', ')}], and the data set's rows have ${data.train.width} values (MNIST: 28x28 = 784): train runs graphs made for the data set (amp-rewrite example mlp, or make-training on a model whose input takes 784 values)`,
        { subject: layout.features.name },
      );
    }
    const hyper: Record<string, Tensor> = layout.lr ? { [layout.lr.name]: floatTensor(trainer.ort, layout.lr.elemType, Float32Array.of(options.lr), []) } : {};
    const epochs: EpochResult[] = [];
    const history: StepRecord[] = [];
    if (!(options.batch <= data.train.count)) {
      throw new AmpError('BAD_OPTION', `--batch ${options.batch}: more than the ${data.train.count} training examples; no step would run`, { subject: 'batch' });
    }
    const stepsPerEpoch = Math.min(Math.floor(data.train.count / options.batch), options.maxSteps ?? Infinity);
    for (let epoch = 1; epoch <= options.epochs; epoch++) {
      const order = epochOrder(data.train.count, (options.seed ?? 0) * 1000 + epoch);
      const skippedBefore = trainer.skippedSteps;
      let lossSum = 0;
      let elapsed = 0;
      for (let step = 0; step < stepsPerEpoch; step++) {
        const feeds = { ...batchFeeds(trainer, data.train, order, step * options.batch, options.batch, layout), ...hyper };
        const result = await trainer.step(feeds);
        elapsed += result.ms;
        lossSum += result.loss;
        history.push({ step: history.length + 1, epoch, loss: result.loss, lossScale: result.lossScale, skipped: result.skipped, ms: result.ms });
        options.onStep?.({ epoch, step: step + 1, steps: stepsPerEpoch, loss: result.loss });
      }
      epochs.push({
        epoch,
        meanLoss: lossSum / Math.max(1, stepsPerEpoch),
        testAccuracy: await evaluate(trainer, data.test, options.batch, layout, hyper),
        msPerStep: elapsed / Math.max(1, stepsPerEpoch),
        steps: stepsPerEpoch,
        skippedSteps: trainer.skippedSteps - skippedBefore,
        lossScale: trainer.lossScale,
      });
    }
    return { provider: trainer.provider, epochs, history, ...(trainer.firstNonFinite ? { firstNonFinite: trainer.firstNonFinite } : {}) };
  } finally {
    await trainer.release();
  }
}

/** Test accuracy over every test example: the step graph's logits with the current state (its updates are discarded). */
async function evaluate(trainer: Trainer, test: Dataset, batch: number, layout: DataLayout, hyper: Record<string, Tensor>): Promise<number> {
  const order = Uint32Array.from({ length: test.count }, (_, i) => i);
  let correct = 0;
  for (let start = 0; start < test.count; start += batch) {
    const size = Math.min(batch, test.count - start);
    const out = await trainer.infer({ ...batchFeeds(trainer, test, order, start, size, layout), ...hyper }, [layout.logits]);
    // Padded rows past `size` are not scored: the labels bound the rows read.
    correct += correctPredictions(out[layout.logits] as Tensor, test.labels.subarray(start, start + size));
  }
  return test.count ? correct / test.count : NaN;
}
