/**
 * The training loop for one-step training graphs: feed a batch, the parameters and optimizer
 * state, read back every X.next (and the loss-scale state of a scaled graph), repeat. Each epoch
 * reports the mean loss, test accuracy, time per step, skipped (non-finite) steps and the scale.
 */
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { cloneMessage } from '../onnx/clone.js';
import { encodeModel } from '../onnx/codec.js';
import { DataType } from '../onnx/data-types.js';
import { AmpError } from '../onnx/errors.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph } from '../onnx/graph.js';
import { opsetsOf } from '../onnx/opsets.js';
import { inferElemTypes } from '../onnx/type-inference.js';
import { LOSS_SCALE_NAMES } from '../passes/loss-scaling.js';
import { detectContract, type ContractOptions } from '../passes/training/contract.js';
import { epochOrder, type Dataset } from './mnist.js';
import type { Ort } from './ort.js';
import { openSession, type Provider } from './session.js';
import { tensorProtoToOrt } from './tensors.js';

export interface TrainOptions {
  epochs: number;
  batch: number;
  lr: number;
  providers: readonly Provider[];
  seed?: number;
  /** Stop an epoch after this many steps (for quick runs). */
  maxSteps?: number;
  initialLossScale?: number;
  contract?: ContractOptions;
  onStep?: (progress: { epoch: number; step: number; steps: number; loss: number }) => void;
}

export interface EpochResult {
  epoch: number;
  meanLoss: number;
  testAccuracy: number;
  msPerStep: number;
  steps: number;
  skippedSteps: number;
  lossScale: number | null;
}

export interface TrainResult {
  provider: Provider;
  epochs: EpochResult[];
}

interface Layout {
  features: onnx.IValueInfoProto;
  labels: string;
  lr: string | undefined;
  loss: string;
  logits: string | undefined;
  state: Array<{ input: string; output: string }>;
  scaled: boolean;
}

/** Finds the data, learning-rate, loss, logits and state names of a step graph. */
function layoutOf(model: onnx.IModelProto, contractOptions: ContractOptions | undefined): Layout {
  const graph = new ModelGraph(model);
  const types = inferElemTypes(graph, opsetsOf(model));
  const contract = detectContract(graph, types, contractOptions);
  // The loss-scale state is fed by the loop itself, not read from initializers.
  const lossScaleNames = new Set<string>(Object.values(LOSS_SCALE_NAMES));
  const state = contract.state.filter((s) => !lossScaleNames.has(s.input));
  const stateInputs = new Set(state.map((s) => s.input));
  const initializers = new Set((model.graph?.initializer ?? []).map((t) => t.name));
  const scaled = graph.main.inputs.has(LOSS_SCALE_NAMES.scale);
  const free = (model.graph?.input ?? []).filter(
    (i) => !stateInputs.has(i.name ?? '') && !initializers.has(i.name) && !Object.values(LOSS_SCALE_NAMES).includes(i.name as never),
  );
  const features = free.find((i) => i.type?.tensor_type?.elem_type === DataType.FLOAT && (i.type.tensor_type.shape?.dim?.length ?? 0) >= 2);
  const labels = free.find((i) => i.type?.tensor_type?.elem_type === DataType.INT64);
  const lr = free.find((i) => i !== features && i.type?.tensor_type?.elem_type === DataType.FLOAT && (i.type.tensor_type.shape?.dim?.length ?? 0) === 0);
  if (!features || !labels) {
    throw new AmpError('TRAINING_CONTRACT', 'the step graph needs a float features input (rank 2 or more) and an int64 labels input to train on a data set');
  }
  const logits = (model.graph?.output ?? []).find((o) => o.name === 'logits')?.name ?? undefined;
  return { features, labels: labels.name ?? '', lr: lr?.name ?? undefined, loss: contract.loss, logits, state, scaled };
}

function initialState(ort: Ort, model: onnx.IModelProto, state: Layout['state']): Map<string, Tensor> {
  const values = new Map<string, Tensor>();
  const initializers = new Map((model.graph?.initializer ?? []).map((t) => [t.name ?? '', t]));
  for (const { input } of state) {
    const tensor = initializers.get(input);
    if (!tensor) throw new AmpError('TRAINING_CONTRACT', `state input '${input}' has no initial value: give it an initializer of the same name`, { subject: input });
    values.set(input, tensorProtoToOrt(ort, tensor));
  }
  return values;
}

function batchFeeds(ort: Ort, data: Dataset, order: Uint32Array, start: number, size: number, layout: Layout): Record<string, Tensor> {
  const features = new Float32Array(size * data.width);
  const labels = new BigInt64Array(size);
  for (let i = 0; i < size; i++) {
    const index = order[start + i] as number;
    features.set(data.features.subarray(index * data.width, (index + 1) * data.width), i * data.width);
    labels[i] = data.labels[index] as bigint;
  }
  const declared = layout.features.type?.tensor_type?.shape?.dim ?? [];
  const inner = declared.slice(1).map((d) => Number(d.dim_value ?? 0));
  const dims = inner.every((d) => d > 0) && inner.reduce((a, b) => a * b, 1) === data.width ? [size, ...inner] : [size, data.width];
  return { [layout.features.name ?? '']: new ort.Tensor('float32', features, dims), [layout.labels]: new ort.Tensor('int64', labels, [size]) };
}

function argmaxAccuracy(logits: Tensor, labels: BigInt64Array): number {
  const data = logits.data as Float32Array;
  const classes = logits.dims[logits.dims.length - 1] ?? 1;
  let correct = 0;
  for (let row = 0; row < labels.length; row++) {
    let best = 0;
    for (let c = 1; c < classes; c++) if ((data[row * classes + c] as number) > (data[row * classes + best] as number)) best = c;
    if (BigInt(best) === labels[row]) correct++;
  }
  return correct;
}

export async function train(model: onnx.IModelProto, data: { train: Dataset; test: Dataset }, options: TrainOptions): Promise<TrainResult> {
  const layout = layoutOf(model, options.contract);
  if (!layout.logits) throw new AmpError('TRAINING_CONTRACT', "the step graph needs a 'logits' output to measure accuracy");
  // ONNX Runtime's Node binding only feeds inputs without an initializer, so the defaults of the
  // state inputs are taken out of the session's copy and fed by the loop instead.
  const stateNames = new Set(layout.state.map((s) => s.input));
  const sessionModel = cloneMessage(model) as onnx.ModelProto;
  sessionModel.graph!.initializer = (sessionModel.graph?.initializer ?? []).filter((t) => !stateNames.has(t.name ?? ''));
  const opened = await openSession(encodeModel(sessionModel), options.providers);
  const { ort, session } = opened;
  try {
    let state = initialState(ort, model, layout.state);
    let scale: Tensor = new ort.Tensor('float32', Float32Array.of(options.initialLossScale ?? 65536), []);
    let tracker: Tensor = new ort.Tensor('int64', BigInt64Array.of(0n), []);
    const lr = new ort.Tensor('float32', Float32Array.of(options.lr), []);
    const epochs: EpochResult[] = [];
    const stepsPerEpoch = Math.min(Math.floor(data.train.count / options.batch), options.maxSteps ?? Infinity);
    for (let epoch = 1; epoch <= options.epochs; epoch++) {
      const order = epochOrder(data.train.count, (options.seed ?? 0) * 1000 + epoch);
      let lossSum = 0;
      let skipped = 0;
      let elapsed = 0;
      for (let step = 0; step < stepsPerEpoch; step++) {
        const feeds: Record<string, Tensor> = { ...batchFeeds(ort, data.train, order, step * options.batch, options.batch, layout), ...Object.fromEntries(state) };
        if (layout.lr) feeds[layout.lr] = lr;
        if (layout.scaled) Object.assign(feeds, { [LOSS_SCALE_NAMES.scale]: scale, [LOSS_SCALE_NAMES.tracker]: tracker });
        const start = process.hrtime.bigint();
        const out = await session.run(feeds);
        elapsed += Number(process.hrtime.bigint() - start) / 1e6;
        const loss = (out[layout.loss]?.data as Float32Array)[0] as number;
        lossSum += loss;
        state = new Map(layout.state.map(({ input, output }) => [input, out[output] as Tensor]));
        if (layout.scaled) {
          if (!(out[LOSS_SCALE_NAMES.allFinite]?.data as Uint8Array | boolean[])[0]) skipped++;
          scale = out[LOSS_SCALE_NAMES.scaleNext] as Tensor;
          tracker = out[LOSS_SCALE_NAMES.trackerNext] as Tensor;
        }
        options.onStep?.({ epoch, step: step + 1, steps: stepsPerEpoch, loss });
      }
      epochs.push({
        epoch,
        meanLoss: lossSum / Math.max(1, stepsPerEpoch),
        testAccuracy: await evaluate(ort, session, data.test, options.batch, layout, state, lr, scale, tracker),
        msPerStep: elapsed / Math.max(1, stepsPerEpoch),
        steps: stepsPerEpoch,
        skippedSteps: skipped,
        lossScale: layout.scaled ? ((scale.data as Float32Array)[0] as number) : null,
      });
    }
    return { provider: opened.provider, epochs };
  } finally {
    await session.release();
  }
}

/** Test accuracy: the step graph's logits for each test batch with the current state (its updates are discarded). */
async function evaluate(
  ort: Ort,
  session: InferenceSession,
  test: Dataset,
  batch: number,
  layout: Layout,
  state: Map<string, Tensor>,
  lr: Tensor,
  scale: Tensor,
  tracker: Tensor,
): Promise<number> {
  const order = Uint32Array.from({ length: test.count }, (_, i) => i);
  let correct = 0;
  let seen = 0;
  for (let start = 0; start + batch <= test.count; start += batch) {
    const feeds: Record<string, Tensor> = { ...batchFeeds(ort, test, order, start, batch, layout), ...Object.fromEntries(state) };
    if (layout.lr) feeds[layout.lr] = lr;
    if (layout.scaled) Object.assign(feeds, { [LOSS_SCALE_NAMES.scale]: scale, [LOSS_SCALE_NAMES.tracker]: tracker });
    const out = await session.run(feeds, [layout.logits as string]);
    correct += argmaxAccuracy(out[layout.logits as string] as Tensor, test.labels.subarray(start, start + batch));
    seen += batch;
  }
  return seen ? correct / seen : NaN;
}
