/**
 * The training-graph contract (design/training.md): a scalar fp32 loss output, a seed
 * `<loss>_grad` holding 1.0, gradients `<param>_grad`, and for each state input X an output
 * `X.next`. Detection says what it found, and refuses with what it looked for and which option
 * to pass when the graph does not fit.
 */
import { DataType } from '../../onnx/data-types.js';
import { AmpError } from '../../onnx/errors.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import type { ModelGraph } from '../../onnx/graph.js';
import type { ElemTypes } from '../../onnx/type-inference.js';

export interface ContractOptions {
  loss?: string;
  lossGrad?: string;
  gradSuffix?: string;
  stateSuffix?: string;
}

export interface TrainingContract {
  loss: string;
  /** The seed dLoss/dLoss. */
  lossGrad: string;
  /** Parameters: state inputs with a gradient. */
  params: Array<{ name: string; grad: string }>;
  /** Every state input X with its output X.next (parameters, moments, step counts). */
  state: Array<{ input: string; output: string }>;
}

export const DEFAULT_GRAD_SUFFIX = '_grad';
export const DEFAULT_STATE_SUFFIX = '.next';

/** Whether the graph looks like a training step: some input X has an output X.next. */
export function looksLikeTrainingGraph(model: onnx.IModelProto, stateSuffix = DEFAULT_STATE_SUFFIX): boolean {
  const outputs = new Set((model.graph?.output ?? []).map((o) => o.name));
  return (model.graph?.input ?? []).some((input) => outputs.has(`${input.name}${stateSuffix}`));
}

/** The rewrite scales float32 losses only; a runner also drives pure float16/float64 step graphs. */
const FLOAT32_LOSS: ReadonlySet<number> = new Set([DataType.FLOAT]);

export function detectContract(graph: ModelGraph, types: ElemTypes, options: ContractOptions = {}, lossTypes: ReadonlySet<number> = FLOAT32_LOSS): TrainingContract {
  const scope = graph.main;
  const gradSuffix = options.gradSuffix ?? DEFAULT_GRAD_SUFFIX;
  const stateSuffix = options.stateSuffix ?? DEFAULT_STATE_SUFFIX;
  const refuse = (message: string): never => {
    throw new AmpError('TRAINING_CONTRACT', `not a training graph amp-rewrite can scale: ${message}`);
  };
  const outputs = [...scope.outputs.keys()];
  const state = [...scope.inputs.keys()]
    .filter((name) => scope.outputs.has(`${name}${stateSuffix}`))
    .map((input) => ({ input, output: `${input}${stateSuffix}` }));
  if (!state.length) refuse(`no state: looked for an output X${stateSuffix} for some input X (pass --state-suffix)`);

  const defined = (name: string) => scope.producerOf(name) !== undefined || scope.inputs.has(name) || scope.initializers.has(name);
  let loss = options.loss;
  if (loss === undefined) {
    const candidates = outputs.filter((name) => lossTypes.has(types.get(scope, name) ?? -1) && defined(`${name}${gradSuffix}`));
    if (candidates.length !== 1) {
      refuse(
        candidates.length
          ? `several outputs have a seed ${candidates.map((c) => `${c}${gradSuffix}`).join(', ')}; pass --loss`
          : `no loss: looked for a float output L with a seed L${gradSuffix} (pass --loss and --loss-grad)`,
      );
    }
    loss = candidates[0] as string;
  }
  if (!scope.outputs.has(loss)) refuse(`--loss '${loss}' is not a graph output`);
  if (!lossTypes.has(types.get(scope, loss) ?? -1)) refuse(`the loss '${loss}' is not float32`);
  const lossGrad = options.lossGrad ?? `${loss}${gradSuffix}`;
  if (!defined(lossGrad)) refuse(`no seed '${lossGrad}' (an initializer, Constant or input holding 1.0); pass --loss-grad`);
  if (!scope.consumersOf(lossGrad).length) refuse(`the seed '${lossGrad}' is not read by any node: no backward pass starts from it`);

  const params = state
    .map(({ input }) => ({ name: input, grad: `${input}${gradSuffix}` }))
    .filter((p) => scope.producerOf(p.grad) !== undefined);
  if (!params.length) refuse(`no gradients: looked for values X${gradSuffix} for the state inputs X (pass --grad-suffix)`);
  return { loss, lossGrad, params, state };
}
