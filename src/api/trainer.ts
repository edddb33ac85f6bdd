/**
 * The training loop as a public API: `createTrainer(model)` drives a one-step training graph
 * (runtime/trainer.ts: initial state from the file, state carried from step to step, skipped
 * steps counted, the first non-finite node named), with feeds, outputs and state as plain typed
 * arrays and dims, so the declarations name no ONNX Runtime type. Loads ONNX Runtime on first use.
 */
import type { Tensor } from 'onnxruntime-node';
import { DataType, dataTypeName } from '../onnx/data-types.js';
import { AmpError } from '../onnx/errors.js';
import { float16BitsToFloat32, toFloat16Array } from '../onnx/float16.js';
import type { ContractOptions } from '../passes/training/contract.js';
import { newTensor } from '../runtime/float16-bits.js';
import type { Ort } from '../runtime/ort.js';
import { parseProviders } from '../runtime/session.js';
import { createTrainer as openTrainer, type StepResult as RuntimeStepResult } from '../runtime/trainer.js';
import { checkBoolean, checkObject, checkStrings } from '../passes/option-checks.js';
import type { ModelSource } from './execute.js';
import type { NonFiniteReport, Provider, TrainerLayout } from './types.js';

export type TensorValues = Float32Array | Float64Array | Uint16Array | Int32Array | BigInt64Array | Uint8Array | Int8Array;

/** A tensor's values in row-major order. float16 values are their bits (Uint16Array); bool is a Uint8Array of 0 and 1. */
export interface TensorData {
  /** ONNX Runtime's name of the element type: 'float32', 'float16', 'float64', 'int64', 'int32', 'bool', ... */
  type: string;
  data: TensorValues;
  dims: number[];
}

/**
 * A value to feed: the input's declared element type decides the tensor; numbers are converted to
 * it (a Float32Array fed to a float16 input is rounded to float16, numbers to an int64 input become BigInts).
 */
export interface TensorFeed {
  data: TensorValues | readonly number[];
  dims: readonly number[];
}

export interface TrainerOptions {
  /** Execution providers in preference order (default ['cpu']). */
  providers?: Provider[];
  /** Names of the training contract, where the graph's own names differ (loss, gradient and state suffixes). */
  contract?: ContractOptions;
  /** The initial-state file of a graph written with `--state inputs` (default: <model>.state.onnx beside a model file). */
  statePath?: string;
  /** On a graph without the all-finite guard, find the node that first produced a non-finite value (default true). */
  diagnose?: boolean;
}

export interface StepResult {
  step: number;
  loss: number;
  /** A guarded graph left the state unchanged because a gradient was not finite. */
  skipped: boolean;
  /** amp.loss_scale as fed to this step; null for a graph without dynamic loss scaling. */
  lossScale: number | null;
  /** The first non-finite value of an unguarded graph, on the step it appeared. */
  nonFinite: NonFiniteReport | undefined;
  /** Every output of the step graph (the loss, X.next of each state value, ...). */
  outputs: Record<string, TensorData>;
  /** Time in ONNX Runtime's run, in milliseconds. */
  ms: number;
}

export interface Trainer {
  readonly provider: Provider;
  readonly layout: TrainerLayout;
  /** Steps run and steps skipped so far. */
  readonly steps: number;
  readonly skippedSteps: number;
  /** The loss scale the next step will use (null without dynamic loss scaling). */
  readonly lossScale: number | null;
  readonly firstNonFinite: NonFiniteReport | undefined;
  /** The current parameters and optimizer state, by state input name. */
  state(): Map<string, TensorData>;
  /** One step: `feeds` holds the data and hyperparameters (`layout.feeds`); the trainer feeds the state and carries it on. */
  step(feeds: Record<string, TensorFeed>): Promise<StepResult>;
  /** Runs the graph on the current state and returns the named outputs; the state is not advanced. */
  infer(feeds: Record<string, TensorFeed>, outputs: readonly string[]): Promise<Record<string, TensorData>>;
  release(): Promise<void>;
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const inStep: Same<Omit<StepResult, 'outputs'>, Omit<RuntimeStepResult, 'outputs'>> = true;
void inStep;

/** A float tensor's values as numbers (float16 bits decoded); other types' data as it is. */
export function tensorValues(tensor: TensorData): ArrayLike<number> | BigInt64Array {
  if (tensor.type === 'float16') return Float32Array.from(tensor.data as Uint16Array, float16BitsToFloat32);
  return tensor.data as ArrayLike<number> | BigInt64Array;
}

const plain = (tensor: Tensor): TensorData => ({ type: tensor.type, data: tensor.data as TensorValues, dims: [...tensor.dims] });

function badFeed(name: string, message: string): never {
  throw new AmpError('BAD_OPTION', `feed '${name}': ${message}`, { subject: name });
}

function numbers(name: string, data: TensorFeed['data']): ArrayLike<number> {
  if (data instanceof BigInt64Array) badFeed(name, 'a BigInt64Array for a non-integer input');
  return data as ArrayLike<number>;
}

/** The ONNX Runtime tensor for a feed, of the element type the input declares. */
function toTensor(ort: Ort, name: string, elemType: number, feed: TensorFeed): Tensor {
  if (!feed || typeof feed !== 'object' || !Array.isArray(feed.dims) || !(ArrayBuffer.isView(feed.data) || Array.isArray(feed.data))) {
    badFeed(name, 'expected { data: a typed array or numbers, dims: number[] }');
  }
  const dims = [...feed.dims];
  if (!dims.every((d) => Number.isInteger(d) && d >= 0)) badFeed(name, `dims ${JSON.stringify(dims)} are not sizes`);
  const size = dims.reduce((a, b) => a * b, 1);
  const data = feed.data;
  if (data.length !== size) badFeed(name, `${data.length} values for dims [${dims.join(', ')}] (${size})`);
  switch (elemType) {
    case DataType.FLOAT:
      return new ort.Tensor('float32', data instanceof Float32Array ? data : Float32Array.from(numbers(name, data)), dims);
    case DataType.FLOAT16:
      return newTensor(ort, 'float16', data instanceof Uint16Array ? data : toFloat16Array(Float32Array.from(numbers(name, data))), dims);
    case DataType.DOUBLE:
      return new ort.Tensor('float64', data instanceof Float64Array ? data : Float64Array.from(numbers(name, data)), dims);
    case DataType.INT64:
      return new ort.Tensor('int64', data instanceof BigInt64Array ? data : BigInt64Array.from(numbers(name, data), (v) => BigInt(Math.trunc(v))), dims);
    case DataType.INT32:
      return new ort.Tensor('int32', data instanceof Int32Array ? data : Int32Array.from(numbers(name, data)), dims);
    case DataType.BOOL:
      return new ort.Tensor('bool', Uint8Array.from(numbers(name, data), (v) => (v ? 1 : 0)), dims);
    case DataType.UINT8:
      return new ort.Tensor('uint8', data instanceof Uint8Array ? data : Uint8Array.from(numbers(name, data)), dims);
    case DataType.INT8:
      return new ort.Tensor('int8', data instanceof Int8Array ? data : Int8Array.from(numbers(name, data)), dims);
    default:
      return badFeed(name, `the trainer cannot feed an input of element type ${dataTypeName(elemType)}`);
  }
}

/** Opens a training step graph (a file, with its --state inputs sidecar beside it, or a model in memory). */
export async function createTrainer(source: ModelSource, options: TrainerOptions = {}): Promise<Trainer> {
  const untyped = options as Record<string, unknown>;
  checkStrings(untyped, 'providers');
  if (options.providers) parseProviders(options.providers.join(','));
  checkObject(untyped, 'contract');
  checkBoolean(untyped, 'diagnose');
  if (untyped.statePath !== undefined && typeof untyped.statePath !== 'string') {
    throw new AmpError('BAD_OPTION', `option statePath: expected a file name, got ${JSON.stringify(untyped.statePath)}`, { subject: 'statePath' });
  }
  const trainer = await openTrainer(source, options);
  const { ort, layout } = trainer;
  const elemTypes = new Map(layout.feeds.map((f) => [f.name, f.elemType]));
  const stateInputs = new Set(layout.state.map((s) => s.input));
  const tensors = (feeds: Record<string, TensorFeed>): Record<string, Tensor> => {
    if (!feeds || typeof feeds !== 'object') throw new AmpError('BAD_OPTION', `feeds: expected an object of { data, dims } by input name, got ${String(feeds)}`);
    return Object.fromEntries(
      Object.entries(feeds).map(([name, feed]) => {
        const elemType = elemTypes.get(name);
        if (elemType === undefined) {
          badFeed(name, stateInputs.has(name) ? 'is state: the trainer feeds it and carries it from step to step' : `the graph has no such input (it takes ${layout.feeds.map((f) => f.name).join(', ')})`);
        }
        return [name, toTensor(ort, name, elemType, feed)];
      }),
    );
  };
  const plainAll = (values: Record<string, Tensor>): Record<string, TensorData> => Object.fromEntries(Object.entries(values).map(([name, t]) => [name, plain(t)]));
  return {
    provider: trainer.provider,
    layout,
    get steps() {
      return trainer.steps;
    },
    get skippedSteps() {
      return trainer.skippedSteps;
    },
    get lossScale() {
      return trainer.lossScale;
    },
    get firstNonFinite() {
      return trainer.firstNonFinite;
    },
    state: () => new Map([...trainer.state()].map(([name, t]) => [name, plain(t)])),
    async step(feeds) {
      const { outputs, ...rest } = await trainer.step(tensors(feeds));
      return { ...rest, outputs: plainAll(outputs) };
    },
    async infer(feeds, outputs) {
      return plainAll(await trainer.infer(tensors(feeds), outputs));
    },
    release: () => trainer.release(),
  };
}
