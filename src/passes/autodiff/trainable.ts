/**
 * Which float initializers are trainable parameters. A weight is told from a constant of the
 * computation by how it is consumed: every node reading it takes it at an input its gradient rule
 * differentiates (a MatMul operand, a Conv kernel, a LayerNormalization scale); a float read as a
 * statistic (BatchNormalization's running mean), a Dropout ratio or any input a rule holds
 * constant is not a weight, and neither is a scalar (an epsilon, a 1/sqrt(d) scale, an exponent).
 * The user overrides with name patterns: `trainable` lists exactly the parameters, `frozen`
 * removes some from the automatic choice.
 */
import { DataType } from '../../onnx/data-types.js';
import { AmpError } from '../../onnx/errors.js';
import type { ModelGraph } from '../../onnx/graph.js';
import type { ElemTypes } from '../../onnx/type-inference.js';
import { differentiableInputs, gradientRuleFor } from './gradient-rules.js';

export interface TrainableChoice {
  /** Names or glob patterns (`*`, `?`): exactly these initializers train. */
  trainable?: readonly string[];
  /** Names or glob patterns removed from the automatic choice (or from `trainable`). */
  frozen?: readonly string[];
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
function notAWeight(graph: ModelGraph, name: string, elements: number, reachesLoss: (name: string) => boolean): string | undefined {
  const uses = graph.main.consumersOf(name);
  if (!uses.length) return 'read by no node';
  for (const use of uses) {
    const node = use.node;
    const rule = gradientRuleFor(node);
    if (rule && !differentiableInputs(rule, node).includes(use.index)) {
      return `read by ${node.op_type} '${node.name ?? ''}' as input ${use.index}, which its gradient rule holds constant (a shape, index, statistic or mask)`;
    }
  }
  if (elements <= 1) return 'a scalar: a constant of the computation (an epsilon, a scale, an exponent); pass --trainable to train it';
  if (!reachesLoss(name)) return 'does not reach the loss';
  return undefined;
}

export function selectTrainable(graph: ModelGraph, types: ElemTypes, choice: TrainableChoice = {}, reachesLoss: (name: string) => boolean = () => true): TrainableSelection {
  const listed = matcher(choice.trainable);
  const frozenByUser = matcher(choice.frozen);
  const selection: TrainableSelection = { trainable: [], frozen: [] };
  const floats = [...graph.main.initializers.entries()].filter(([name, t]) => t.data_type === DataType.FLOAT && types.get(graph.main, name) === DataType.FLOAT);
  for (const pattern of [...(choice.trainable ?? []), ...(choice.frozen ?? [])]) {
    const r = globToRegExp(pattern);
    if (!floats.some(([name]) => r.test(name))) throw new AmpError('BAD_OPTION', `'${pattern}' names no float32 initializer of the model`, { subject: pattern });
  }
  for (const [name, tensor] of floats) {
    const elements = (tensor.dims ?? []).reduce((a: number, d) => a * Number(d), 1);
    if (frozenByUser?.(name)) {
      selection.frozen.push({ name, reason: 'frozen by --frozen' });
      continue;
    }
    if (listed) {
      if (listed(name)) selection.trainable.push(name);
      else selection.frozen.push({ name, reason: 'not named by --trainable' });
      continue;
    }
    const why = notAWeight(graph, name, elements, reachesLoss);
    if (why) selection.frozen.push({ name, reason: why });
    else selection.trainable.push(name);
  }
  if (!selection.trainable.length) throw new AmpError('BAD_OPTION', 'no trainable parameter: no float32 initializer is a weight that reaches the loss (pass --trainable)');
  return selection;
}
