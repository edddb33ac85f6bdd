/**
 * A training loop users can drive: `createTrainer(model)` opens a one-step training graph, starts
 * from the initial state the file carries (initializers of the state inputs' names, or the
 * `--state inputs` sidecar), and each `step(feeds)` feeds the data and hyperparameters given plus
 * the current state, then carries every X.next (parameters, optimizer state, loss scale, growth
 * tracker) to the next step. It counts the steps a scaled graph skipped (amp.all_finite false)
 * and, on a graph without that guard, names the first node whose value went non-finite.
 */
import { existsSync } from 'node:fs';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { valueInfo } from '../builder/graph-builder.js';
import { cloneMessage } from '../onnx/clone.js';
import { encodeModel } from '../onnx/codec.js';
import { DataType } from '../onnx/data-types.js';
import { AmpError } from '../onnx/errors.js';
import { float16BitsToFloat32, toFloat16Array } from '../onnx/float16.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph } from '../onnx/graph.js';
import { loadModel } from '../onnx/model-io.js';
import { opsetsOf } from '../onnx/opsets.js';
import { inferElemTypes } from '../onnx/type-inference.js';
import { LOSS_SCALE_NAMES } from '../passes/loss-scaling.js';
import { detectContract, type ContractOptions } from '../passes/training/contract.js';
import { readInitialState, stateSidecarPath } from '../passes/training/state-sidecar.js';
import type { NonFiniteReport, TrainerLayout } from './result-types.js';
import { newTensor } from './float16-bits.js';
import type { Ort } from './ort.js';
import { openSession, type Provider } from './session.js';
import { tensorProtoToOrt } from './tensors.js';

// Declared once, ORT-free, with the public API's types.
export type { NonFiniteReport, TrainerLayout };

export interface TrainerOptions {
  /** Execution providers in preference order (default cpu). */
  providers?: readonly Provider[];
  contract?: ContractOptions;
  /** The initial-state file of a graph written with `--state inputs` (default: <model>.state.onnx beside a model file). */
  statePath?: string;
  /**
   * On a graph without the all-finite guard, check each step's loss and state outputs and find the
   * node that first produced a non-finite value (default true; the check reads every state value).
   */
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
  outputs: Record<string, Tensor>;
  /** Time in ONNX Runtime's run, in milliseconds (the trainer's own checks not included). */
  ms: number;
}

export interface Trainer {
  readonly provider: Provider;
  readonly layout: TrainerLayout;
  readonly ort: Ort;
  /** Steps run and steps skipped so far. */
  readonly steps: number;
  readonly skippedSteps: number;
  /** The loss scale the next step will use (null without dynamic loss scaling). */
  readonly lossScale: number | null;
  readonly firstNonFinite: NonFiniteReport | undefined;
  state(): ReadonlyMap<string, Tensor>;
  step(feeds: Record<string, Tensor>): Promise<StepResult>;
  /** Runs the graph on the current state and returns the named outputs; the state is not advanced. */
  infer(feeds: Record<string, Tensor>, outputs: readonly string[]): Promise<Record<string, Tensor>>;
  release(): Promise<void>;
}

function dimsOf(info: onnx.IValueInfoProto): Array<number | string> {
  return (info.type?.tensor_type?.shape?.dim ?? []).map((d) => (d.dim_param ? d.dim_param : Number(d.dim_value ?? 0)));
}

const FLOAT_TYPES: ReadonlySet<number> = new Set([DataType.FLOAT, DataType.FLOAT16, DataType.BFLOAT16, DataType.DOUBLE]);

export function trainerLayout(model: onnx.IModelProto, contractOptions?: ContractOptions): TrainerLayout {
  const graph = new ModelGraph(model);
  const types = inferElemTypes(graph, opsetsOf(model));
  const contract = detectContract(graph, types, contractOptions, FLOAT_TYPES);
  const stateInputs = new Set(contract.state.map((s) => s.input));
  const feeds = (model.graph?.input ?? [])
    .filter((i) => !stateInputs.has(i.name ?? ''))
    .map((i) => ({ name: i.name ?? '', elemType: i.type?.tensor_type?.elem_type ?? DataType.UNDEFINED, dims: dimsOf(i) }));
  const outputs = (model.graph?.output ?? []).map((o) => o.name ?? '');
  return { feeds, loss: contract.loss, state: contract.state, guarded: outputs.includes(LOSS_SCALE_NAMES.allFinite), outputs };
}

/** A float tensor of the element type an input declares (float32, float16 or float64). */
export function floatTensor(ort: Ort, elemType: number, values: Float32Array, dims: readonly number[]): Tensor {
  if (elemType === DataType.FLOAT16) return newTensor(ort, 'float16', toFloat16Array(values), dims);
  if (elemType === DataType.DOUBLE) return new ort.Tensor('float64', Float64Array.from(values), dims);
  if (elemType === DataType.FLOAT) return new ort.Tensor('float32', values, dims);
  throw new AmpError('TRAINING_CONTRACT', `cannot feed floats to an input of element type ${elemType}`);
}

/** A float tensor's values as numbers (float16 decoded from its bits). */
export function floatValues(tensor: Tensor): ArrayLike<number> {
  if (tensor.type === 'float16') return Float32Array.from(tensor.data as Uint16Array, float16BitsToFloat32);
  return tensor.data as Float32Array | Float64Array;
}

function hasNonFinite(tensor: Tensor): boolean {
  if (tensor.type === 'float16') return (tensor.data as Uint16Array).some((bits) => (bits & 0x7c00) === 0x7c00);
  if (tensor.type === 'float32' || tensor.type === 'float64') return (tensor.data as Float32Array).some((v) => !Number.isFinite(v));
  return false;
}

function initialState(ort: Ort, model: onnx.IModelProto, layout: TrainerLayout, sidecar: Map<string, onnx.ITensorProto> | undefined): Map<string, Tensor> {
  const initializers = new Map((model.graph?.initializer ?? []).map((t) => [t.name ?? '', t]));
  const values = new Map<string, Tensor>();
  for (const { input } of layout.state) {
    const tensor = initializers.get(input) ?? sidecar?.get(input);
    if (!tensor) {
      throw new AmpError(
        'TRAINING_CONTRACT',
        `state input '${input}' has no initial value: give it an initializer of the same name, or write the graph with --state inputs and keep its .state.onnx beside it`,
        { subject: input },
      );
    }
    values.set(input, tensorProtoToOrt(ort, tensor));
  }
  return values;
}

/** The step graph with every float node output exposed, to find where a non-finite value starts. */
function probeModel(model: onnx.ModelProto): { model: onnx.ModelProto; order: onnx.INodeProto[] } {
  const probe = cloneMessage(model);
  const outputs = (probe.graph!.output ??= []);
  const graph = new ModelGraph(probe);
  const types = inferElemTypes(graph, opsetsOf(probe));
  const order = graph.main.topologicalOrder().order;
  const declared = new Set(outputs.map((o) => o.name));
  for (const node of order) {
    for (const name of node.output ?? []) {
      const type = types.get(graph.main, name);
      if (name && !declared.has(name) && (type === DataType.FLOAT || type === DataType.FLOAT16 || type === DataType.DOUBLE)) {
        outputs.push(valueInfo(name, type));
        declared.add(name);
      }
    }
  }
  return { model: probe, order };
}

export async function createTrainer(source: string | onnx.IModelProto, options: TrainerOptions = {}): Promise<Trainer> {
  const model = (typeof source === 'string' ? loadModel(source) : cloneMessage(source)) as onnx.ModelProto;
  const layout = trainerLayout(model, options.contract);
  const statePath = options.statePath ?? (typeof source === 'string' ? stateSidecarPath(source) : undefined);
  if (options.statePath && !existsSync(options.statePath)) throw new AmpError('FILE_NOT_FOUND', `initial-state file ${options.statePath} not found`, { subject: options.statePath });
  const sidecar = statePath && existsSync(statePath) ? readInitialState(loadModel(statePath), statePath) : undefined;
  // onnxruntime-node ignores feeds for inputs that have a same-name initializer, so the session's
  // copy has none for the state: the trainer feeds it.
  const stateNames = new Set(layout.state.map((s) => s.input));
  const sessionModel = cloneMessage(model);
  sessionModel.graph!.initializer = (sessionModel.graph!.initializer ?? []).filter((t) => !stateNames.has(t.name ?? ''));
  const providers = options.providers ?? ['cpu'];
  const opened = await openSession(encodeModel(sessionModel), providers);
  const { ort, session } = opened;
  let state = initialState(ort, model, layout, sidecar);
  let steps = 0;
  let skippedSteps = 0;
  let firstNonFinite: NonFiniteReport | undefined;
  let probe: { session: InferenceSession; order: onnx.INodeProto[] } | undefined;
  const scaleOf = (values: ReadonlyMap<string, Tensor>): number | null => {
    const scale = values.get(LOSS_SCALE_NAMES.scale);
    return scale ? (floatValues(scale)[0] as number) : null;
  };

  const locateNonFinite = async (feeds: Record<string, Tensor>, step: number): Promise<NonFiniteReport | undefined> => {
    if (!probe) {
      const built = probeModel(sessionModel);
      probe = { session: (await openSession(encodeModel(built.model), [opened.provider])).session, order: built.order };
    }
    const out = await probe.session.run(feeds);
    for (const node of probe.order) {
      for (const name of node.output ?? []) {
        const value = name ? out[name] : undefined;
        if (value && hasNonFinite(value)) return { step, node: node.name || name, op: node.op_type ?? '', output: name };
      }
    }
    return undefined;
  };

  const withState = (feeds: Record<string, Tensor>): Record<string, Tensor> => {
    for (const { name } of layout.feeds) {
      if (!(name in feeds)) throw new AmpError('BAD_OPTION', `no feed for input '${name}' (the trainer feeds the state; the caller feeds ${layout.feeds.map((f) => f.name).join(', ')})`, { subject: name });
    }
    return { ...feeds, ...Object.fromEntries(state) };
  };

  return {
    provider: opened.provider,
    layout,
    ort,
    get steps() {
      return steps;
    },
    get skippedSteps() {
      return skippedSteps;
    },
    get lossScale() {
      return scaleOf(state);
    },
    get firstNonFinite() {
      return firstNonFinite;
    },
    state: () => state,
    async step(feeds) {
      const all = withState(feeds);
      const lossScale = scaleOf(state);
      const start = process.hrtime.bigint();
      const outputs = await session.run(all).catch((error: unknown) => {
        throw missingKernel(error) ?? error;
      });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      steps++;
      const loss = floatValues(outputs[layout.loss] as Tensor)[0] as number;
      const finite = outputs[LOSS_SCALE_NAMES.allFinite];
      const skipped = layout.guarded && !(finite?.data as Uint8Array)[0];
      if (skipped) skippedSteps++;
      let nonFinite: NonFiniteReport | undefined;
      if (!layout.guarded && !firstNonFinite && (options.diagnose ?? true)) {
        const bad = !Number.isFinite(loss) || layout.state.some(({ output }) => hasNonFinite(outputs[output] as Tensor));
        if (bad) nonFinite = firstNonFinite = (await locateNonFinite(all, steps)) ?? { step: steps, node: '?', op: '?', output: layout.loss };
      }
      state = new Map(layout.state.map(({ input, output }) => [input, outputs[output] as Tensor]));
      return { step: steps, loss, skipped, lossScale, nonFinite, outputs, ms };
    },
    async infer(feeds, outputs) {
      return session.run(withState(feeds), [...outputs]);
    },
    async release() {
      await session.release();
      await probe?.session.release();
    },
  };
}

/**
 * A kernel the provider lacks that shows only when a node runs (ONNX Runtime's CPU provider has
 * float16 ScatterElements, but not with reduction add): the provider cannot run the graph, as
 * when a session cannot load it, so `train --compare` reports it in the variant's row.
 */
function missingKernel(error: unknown): AmpError | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (!/data type is not supported|Could not find an implementation|NOT_IMPLEMENTED/.test(message)) return undefined;
  return new AmpError('RUNTIME_FAILED', `ONNX Runtime cannot run the model on this provider: ${message.split('\n')[0]}`, { cause: error });
}
