/**
 * The Tensor Core lint: converted matrix ops whose multiplied dimensions are not multiples of 8
 * (rules/tensor-core.json), with the padding that would fix each. Shapes are the static ones
 * (declared, or inferred by shape-inference.ts, with --dim sizes for symbolic dimensions); a node
 * whose dimensions are not known is counted, never guessed.
 */
import { readFileSync } from 'node:fs';
import { intAttribute } from '../../onnx/attributes.js';
import { describeNode, type NodeDecision } from './decisions.js';
import { knownShape } from './flops.js';

interface TensorCoreRules {
  multiple: number;
  reason: string;
  source: string;
  ops: string[];
}

let cached: TensorCoreRules | undefined;
export function readTensorCoreRules(): TensorCoreRules {
  cached ??= JSON.parse(readFileSync(new URL('../../../rules/tensor-core.json', import.meta.url), 'utf8')) as TensorCoreRules;
  return cached;
}

/** One dimension the op multiplies over, named as the performance guides name it. */
export interface LintDim {
  role: string;
  size: number;
  padTo: number;
}

export interface LintFinding {
  node: string;
  op: string;
  dims: LintDim[];
  message: string;
}

export interface TensorCoreLint {
  multiple: number;
  /** Converted matrix ops whose dimensions were all known. */
  checked: number;
  /** Converted matrix ops with some dimension unknown (give --dim name=size for symbolic ones). */
  unknown: number;
  findings: LintFinding[];
  source: string;
}

type Shape = readonly number[];

/** The dimensions that must be multiples of 8, by op; undefined when a shape is unknown. */
function matrixDims(decision: NodeDecision, shapes: ReadonlyMap<string, Shape> | undefined): Array<[string, number]> | undefined {
  const { node, scope } = decision;
  const shape = (i: number) => knownShape(scope, node.input?.[i], shapes);
  const last = (s: Shape, from = 1) => s[s.length - from] as number;
  switch (node.op_type) {
    case 'MatMul': {
      const a = shape(0);
      const b = shape(1);
      if (!a?.length || !b?.length) return undefined;
      const dims: Array<[string, number]> = [['K (inner)', last(a)]];
      if (b.length > 1) dims.push(['N (output features)', last(b)]);
      // One row is a vector-matrix product: no padding of it helps, so it is not reported.
      if (a.length > 1 && last(a, 2) !== 1) dims.push(['M (rows: batch x sequence)', last(a, 2)]);
      return dims;
    }
    case 'Gemm': {
      const a = shape(0);
      const b = shape(1);
      if (a?.length !== 2 || b?.length !== 2) return undefined;
      const [m, k] = intAttribute(node, 'transA') ? [a[1], a[0]] : [a[0], a[1]];
      const n = intAttribute(node, 'transB') ? b[0] : b[1];
      return [['K (inner)', k as number], ['N (output features)', n as number], ...(m === 1 ? [] : [['M (rows: batch)', m as number] as [string, number]])];
    }
    case 'Conv': {
      const w = shape(1);
      if (!w || w.length < 3) return undefined;
      return [['input channels per group', w[1] as number], ['output channels', w[0] as number]];
    }
    case 'ConvTranspose': {
      const w = shape(1);
      if (!w || w.length < 3) return undefined;
      const group = intAttribute(node, 'group') ?? 1;
      return [['input channels', w[0] as number], ['output channels', (w[1] as number) * group]];
    }
    case 'RNN':
    case 'LSTM':
    case 'GRU': {
      const x = shape(0);
      const hidden = intAttribute(node, 'hidden_size');
      if (!x || x.length !== 3 || hidden === undefined) return undefined;
      const batch = intAttribute(node, 'layout') ? x[0] : x[1];
      return [['input size', x[2] as number], ['hidden size', hidden], ['batch', batch as number]];
    }
    default:
      return undefined;
  }
}

const padTo = (size: number, multiple: number): number => Math.ceil(size / multiple) * multiple;

export function tensorCoreLint(decisions: readonly NodeDecision[], shapes: ReadonlyMap<string, Shape> | undefined): TensorCoreLint {
  const rules = readTensorCoreRules();
  const ops = new Set(rules.ops);
  const lint: TensorCoreLint = { multiple: rules.multiple, checked: 0, unknown: 0, findings: [], source: rules.source };
  for (const decision of decisions) {
    const op = decision.node.op_type ?? '';
    if (decision.color !== 'ALLOW' || !ops.has(op) || decision.node.domain) continue;
    const dims = matrixDims(decision, shapes);
    if (!dims || dims.some(([, size]) => !(size > 0))) {
      lint.unknown++;
      continue;
    }
    lint.checked++;
    const off = dims.filter(([, size]) => size % rules.multiple !== 0).map(([role, size]) => ({ role, size, padTo: padTo(size, rules.multiple) }));
    if (!off.length) continue;
    lint.findings.push({
      node: decision.node.name || (decision.node.output ?? [])[0] || '?',
      op,
      dims: off,
      message: `${describeNode(decision.node)}: ${off.map((d) => `${d.role} ${d.size} -> pad to ${d.padTo}`).join(', ')}`,
    });
  }
  return lint;
}
