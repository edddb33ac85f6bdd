/**
 * Which float initializers are trainable parameters: what the framework trained, as far as the
 * file tells. A weight is told from a constant of the computation by how it is consumed: every
 * node reading it takes it at an input its gradient rule differentiates (a MatMul operand, a Conv
 * kernel, a LayerNormalization scale); a float read as a statistic (BatchNormalization's running
 * mean), a Dropout ratio or any input a rule holds constant is not a weight. Then by its content
 * and name (buffers.ts, rules/parameters.json): masks, fills and sinusoidal position tables are
 * buffers, rank-0 scalars and one-element values with generated names are constants; a
 * one-element parameter (a Linear(d, 1)'s bias) trains. The user overrides with name patterns:
 * `trainable` lists exactly the parameters, `also` adds to the automatic choice, `frozen` removes.
 */
import { DataType } from '../../onnx/data-types.js';
import { AmpError } from '../../onnx/errors.js';
import type { ModelGraph } from '../../onnx/graph.js';
import type { ElemTypes } from '../../onnx/type-inference.js';
import { bufferReason } from './buffers.js';
import { differentiableInputs, gradientRuleFor } from './gradient-rules.js';

export interface TrainableChoice {
  /** Names or glob patterns (`*`, `?`): exactly these initializers train. */
  trainable?: readonly string[];
  /** Names or glob patterns removed from the automatic choice (or from `trainable`). */
  frozen?: readonly string[];
  /** Names or glob patterns trained besides the automatic choice (a buffer or scalar it leaves out). */
  also?: readonly string[];
}

/** What the pass knows of the model beyond its graph: the values an unrolled LSTM or GRU read as initial states. */
export interface ModelFacts {
  initialStates?: ReadonlySet<string>;
}

export interface TrainableSelection {
  trainable: string[];
  frozen: Array<{ name: string; reason: string }>;
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}

function matcher(patterns: readonly string[] | undefined): ((name: string) => boolean) | undefined {
  if (!patterns) return undefined;
  const expressions = patterns.map(globToRegExp);
  return (name) => expressions.some((r) => r.test(name));
}

/** Why an initializer is not a weight by how it is consumed, or undefined when it is one. */
function notReadAsAWeight(graph: ModelGraph, name: string): string | undefined {
  const uses = graph.main.consumersOf(name);
  if (!uses.length) return 'read by no node';
  for (const use of uses) {
    const node = use.node;
    const rule = gradientRuleFor(node);
    if (rule && !differentiableInputs(rule, node).includes(use.index)) {
      return `read by ${node.op_type} '${node.name ?? ''}' as input ${use.index}, which its gradient rule holds constant (a shape, index, statistic or mask)`;
    }
  }
  return undefined;
}

const readers = (graph: ModelGraph, name: string): string[] => graph.main.consumersOf(name).map((use) => use.node.op_type ?? '');

/** Why an initializer is not a parameter, or undefined when it is one; `alsoTrained` sets its content and name aside. */
function notAWeight(graph: ModelGraph, name: string, reachesLoss: (name: string) => boolean, alsoTrained: boolean, facts: ModelFacts): string | undefined {
  const why = notReadAsAWeight(graph, name) ?? (alsoTrained ? undefined : bufferReason(name, graph.main.initializers.get(name)!, readers(graph, name), facts.initialStates?.has(name)));
  if (why) return why;
  if (!reachesLoss(name)) return 'does not reach the loss';
  return undefined;
}

/**
 * The float initializers a tie may join (tied-weights.ts): read as weights, not buffers or
 * constants, and not removed from the choice by the user's patterns.
 */
export function tieCandidates(graph: ModelGraph, choice: TrainableChoice = {}, facts: ModelFacts = {}): Set<string> {
  const listed = matcher(choice.trainable);
  const frozen = matcher(choice.frozen);
  const candidates = new Set<string>();
  for (const [name, tensor] of graph.main.initializers) {
    if (tensor.data_type !== DataType.FLOAT || frozen?.(name) || (listed && !listed(name))) continue;
    if (!notReadAsAWeight(graph, name) && !bufferReason(name, tensor, readers(graph, name), facts.initialStates?.has(name))) candidates.add(name);
  }
  return candidates;
}

export function selectTrainable(graph: ModelGraph, types: ElemTypes, choice: TrainableChoice = {}, reachesLoss: (name: string) => boolean = () => true, facts: ModelFacts = {}): TrainableSelection {
  const listed = matcher(choice.trainable);
  const frozenByUser = matcher(choice.frozen);
  const also = matcher(choice.also);
  const selection: TrainableSelection = { trainable: [], frozen: [] };
  const floats = [...graph.main.initializers.entries()].filter(([name, t]) => t.data_type === DataType.FLOAT && types.get(graph.main, name) === DataType.FLOAT);
  for (const pattern of [...(choice.trainable ?? []), ...(choice.frozen ?? []), ...(choice.also ?? [])]) {
    const r = globToRegExp(pattern);
    if (!floats.some(([name]) => r.test(name))) throw new AmpError('BAD_OPTION', `'${pattern}' names no float32 initializer of the model`, { subject: pattern });
  }
  for (const [name] of floats) {
    if (frozenByUser?.(name)) {
      selection.frozen.push({ name, reason: 'frozen by --frozen' });
      continue;
    }
    if (listed) {
      if (listed(name)) selection.trainable.push(name);
      else selection.frozen.push({ name, reason: 'not named by --trainable' });
      continue;
    }
    const why = notAWeight(graph, name, reachesLoss, also?.(name) ?? false, facts);
    if (why) selection.frozen.push({ name, reason: why });
    else selection.trainable.push(name);
  }
  if (!selection.trainable.length) throw new AmpError('BAD_OPTION', 'no trainable parameter: no float32 initializer is a weight that reaches the loss (pass --trainable)');
  return selection;
}
