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
  readonly role: string;
  readonly size: number;
  readonly padTo: number;
}

export interface LintFinding {
  node: string;
  op: string;
  /** Shared (frozen) between the findings with the same dimensions off the multiple. */
  dims: readonly LintDim[];
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

/** The dims off the multiple, and the message's text about them. */
interface OffDims {
  dims: readonly LintDim[];
  text: string;
}

/**
 * Off dims by role and size: a big model's findings repeat a handful of them (every projection of a
 * transformer with a batch of 4 has M = 4), so each distinct list, and its text, is made once.
 */
class OffDimsTable {
  private readonly known = new Map<string, OffDims>();

  constructor(private readonly multiple: number) {}

  /** Undefined when every dim is a multiple. */
  of(dims: ReadonlyArray<[string, number]>): OffDims | undefined {
    let key = '';
    for (const [role, size] of dims) if (size % this.multiple !== 0) key += `${role}\u0000${size}\u0001`;
    if (!key) return undefined;
    let off = this.known.get(key);
    if (!off) {
      const list = dims
        .filter(([, size]) => size % this.multiple !== 0)
        .map(([role, size]) => Object.freeze({ role, size, padTo: padTo(size, this.multiple) }));
      off = { dims: Object.freeze(list), text: list.map((d) => `${d.role} ${d.size} -> pad to ${d.padTo}`).join(', ') };
      this.known.set(key, off);
    }
    return off;
  }
}

export function tensorCoreLint(decisions: readonly NodeDecision[], shapes: ReadonlyMap<string, Shape> | undefined): TensorCoreLint {
  const rules = readTensorCoreRules();
  const ops = new Set(rules.ops);
  const lint: TensorCoreLint = { multiple: rules.multiple, checked: 0, unknown: 0, findings: [], source: rules.source };
  const offDims = new OffDimsTable(rules.multiple);
  for (const decision of decisions) {
    const op = decision.node.op_type ?? '';
    if (decision.color !== 'ALLOW' || !ops.has(op) || decision.node.domain) continue;
    const dims = matrixDims(decision, shapes);
    if (!dims || dims.some(([, size]) => !(size > 0))) {
      lint.unknown++;
      continue;
    }
    lint.checked++;
    const off = offDims.of(dims);
    if (!off) continue;
    lint.findings.push({
      node: decision.node.name || (decision.node.output ?? [])[0] || '?',
      op,
      dims: off.dims,
      // Joined: one flat string, where a template literal leaves a tree of concatenations (the
      // findings live as long as the report, and a big model has one per matrix op).
      message: [describeNode(decision.node), ': ', off.text].join(''),
    });
  }
  return lint;
}
