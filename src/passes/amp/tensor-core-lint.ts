/**
 * The Tensor Core lint: converted matrix ops whose multiplied dimensions are not multiples of 8
 * (rules/tensor-core.json), with the padding that would fix each. Shapes are the static ones
 * (declared, or inferred by shape-inference.ts, with --dim sizes for symbolic dimensions); a node
 * whose dimensions are not known is counted, never guessed.
 */
import { intAttribute } from '../../onnx/attributes.js';
import { slotCountOf, type GraphScope } from '../../onnx/graph.js';
import { describeNode, type NodeDecision } from './decisions.js';
import { FlopsTally, NodeShapes, type MatrixFlops } from './flops.js';
import { ruleFile } from '../../rules/rule-files.js';

interface TensorCoreRules {
  multiple: number;
  reason: string;
  source: string;
  ops: string[];
}

let cached: TensorCoreRules | undefined;
export function readTensorCoreRules(): TensorCoreRules {
  cached ??= ruleFile<TensorCoreRules>('tensor-core.json');
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

/** The dimensions of one node that must be multiples of 8: scratch lists reused for every node. */
class MatrixDims {
  readonly roles: string[] = [];
  readonly sizes: number[] = [];
  count = 0;

  add(role: string, size: number): void {
    this.roles[this.count] = role;
    this.sizes[this.count] = size;
    this.count++;
  }
}

/** Fills `into` with the dimensions that must be multiples of 8, by op; false when a shape is unknown. */
function matrixDims(decision: NodeDecision, shapes: NodeShapes, into: MatrixDims): boolean {
  const node = decision.node;
  into.count = 0;
  const last = (s: Shape, from = 1) => s[s.length - from] as number;
  switch (node.op_type) {
    case 'MatMul': {
      const a = shapes.input(0);
      const b = shapes.input(1);
      if (!a?.length || !b?.length) return false;
      into.add('K (inner)', last(a));
      if (b.length > 1) into.add('N (output features)', last(b));
      // One row is a vector-matrix product: no padding of it helps, so it is not reported.
      if (a.length > 1 && last(a, 2) !== 1) into.add('M (rows: batch x sequence)', last(a, 2));
      return true;
    }
    case 'Gemm': {
      const a = shapes.input(0);
      const b = shapes.input(1);
      if (a?.length !== 2 || b?.length !== 2) return false;
      const [m, k] = intAttribute(node, 'transA') ? [a[1], a[0]] : [a[0], a[1]];
      const n = intAttribute(node, 'transB') ? b[0] : b[1];
      into.add('K (inner)', k as number);
      into.add('N (output features)', n as number);
      if (m !== 1) into.add('M (rows: batch)', m as number);
      return true;
    }
    case 'Conv': {
      const w = shapes.input(1);
      if (!w || w.length < 3) return false;
      into.add('input channels per group', w[1] as number);
      into.add('output channels', w[0] as number);
      return true;
    }
    case 'ConvTranspose': {
      const w = shapes.input(1);
      if (!w || w.length < 3) return false;
      const group = intAttribute(node, 'group') ?? 1;
      into.add('input channels', w[0] as number);
      into.add('output channels', (w[1] as number) * group);
      return true;
    }
    case 'RNN':
    case 'LSTM':
    case 'GRU': {
      const x = shapes.input(0);
      const hidden = intAttribute(node, 'hidden_size');
      if (!x || x.length !== 3 || hidden === undefined) return false;
      const batch = intAttribute(node, 'layout') ? x[0] : x[1];
      into.add('input size', x[2] as number);
      into.add('hidden size', hidden);
      into.add('batch', batch as number);
      return true;
    }
    default:
      return false;
  }
}

const padTo = (size: number, multiple: number): number => Math.ceil(size / multiple) * multiple;

/** The dims off the multiple, and the message's text about them. */
interface OffDims {
  dims: readonly LintDim[];
  text: string;
}

/** A step of OffDimsTable's trie: the dims off the multiple so far, then by the next one's role and size. */
interface OffDimsStep {
  off: OffDims | undefined;
  next: Map<string, Map<number, OffDimsStep>> | undefined;
}

/**
 * Off dims by role and size: a big model's findings repeat a handful of them (every projection of a
 * transformer with a batch of 4 has M = 4), so each distinct list, and its text, is made once. Found
 * through a trie keyed by the roles (a few constant strings) and sizes, with no key string per node.
 */
class OffDimsTable {
  private readonly root: OffDimsStep = { off: undefined, next: undefined };

  constructor(private readonly multiple: number) {}

  /** Undefined when every dim is a multiple. */
  of(dims: MatrixDims): OffDims | undefined {
    const multiple = this.multiple;
    let step = this.root;
    for (let i = 0; i < dims.count; i++) {
      const size = dims.sizes[i] as number;
      if (size % multiple === 0) continue;
      const role = dims.roles[i] as string;
      step.next ??= new Map();
      let bySize = step.next.get(role);
      if (!bySize) step.next.set(role, (bySize = new Map()));
      let next = bySize.get(size);
      if (!next) bySize.set(size, (next = { off: undefined, next: undefined }));
      step = next;
    }
    if (step === this.root) return undefined;
    if (!step.off) {
      const list: LintDim[] = [];
      for (let i = 0; i < dims.count; i++) {
        const size = dims.sizes[i] as number;
        if (size % multiple !== 0) list.push(Object.freeze({ role: dims.roles[i] as string, size, padTo: padTo(size, multiple) }));
      }
      step.off = { dims: Object.freeze(list), text: list.map((d) => `${d.role} ${d.size} -> pad to ${d.padTo}`).join(', ') };
    }
    return step.off;
  }
}

/** The Tensor Core lint, node by node. */
class LintCollector {
  readonly lint: TensorCoreLint;
  private readonly ops: ReadonlySet<string>;
  private readonly offDims: OffDimsTable;
  private readonly dims = new MatrixDims();

  constructor() {
    const rules = readTensorCoreRules();
    this.ops = new Set(rules.ops);
    this.lint = { multiple: rules.multiple, checked: 0, unknown: 0, findings: [], source: rules.source };
    this.offDims = new OffDimsTable(rules.multiple);
  }

  /** Whether the lint looks at the node: a converted matrix op of the default domain. */
  checks(decision: NodeDecision): boolean {
    return decision.color === 'ALLOW' && this.ops.has(decision.node.op_type ?? '') && !decision.node.domain;
  }

  /** Adds a node it checks, its shapes reset to it. */
  add(decision: NodeDecision, shapes: NodeShapes): void {
    const lint = this.lint;
    const dims = this.dims;
    if (!matrixDims(decision, shapes, dims) || !allPositive(dims)) {
      lint.unknown++;
      return;
    }
    lint.checked++;
    const off = this.offDims.of(dims);
    if (!off) return;
    lint.findings.push({
      node: decision.node.name || (decision.node.output ?? [])[0] || '?',
      op: decision.node.op_type ?? '',
      dims: off.dims,
      // Joined: one flat string, where a template literal leaves a tree of concatenations (the
      // findings live as long as the report, and a big model has one per matrix op).
      message: [describeNode(decision.node), ': ', off.text].join(''),
    });
  }
}

function allPositive(dims: MatrixDims): boolean {
  for (let i = 0; i < dims.count; i++) if (!((dims.sizes[i] as number) > 0)) return false;
  return true;
}

/**
 * The summary's matrix FLOPs share and, unless `withLint` is false, the Tensor Core lint, in one
 * walk over the decisions: a node both look at has its shapes looked up once. `shapes`:
 * inferShapes() of the model, computed once by the caller; declared shapes only when absent.
 */
export function matrixFigures(
  decisions: readonly NodeDecision[],
  shapes: ReadonlyMap<string, Shape> | undefined,
  withLint: boolean,
): { flops: MatrixFlops; lint: TensorCoreLint | null } {
  const tally = new FlopsTally();
  const collector = withLint ? new LintCollector() : undefined;
  const nodeShapes = new NodeShapes(shapes);
  // Each scope's decisions come in its topological order, the order its hint table follows: a
  // node's hints start where the slots of the nodes before it end.
  let scope: GraphScope | undefined;
  let hints: Int32Array | undefined;
  let at = 0;
  for (const decision of decisions) {
    if (decision.scope !== scope) {
      scope = decision.scope;
      hints = scope.valueIdHints(scope.topologicalOrder().order);
      at = 0;
    }
    const counted = FlopsTally.counts(decision);
    const checked = collector !== undefined && collector.checks(decision);
    if (counted || checked) {
      nodeShapes.reset(decision, hints, at);
      if (counted) tally.add(decision, nodeShapes);
      if (checked) collector.add(decision, nodeShapes);
    }
    at += slotCountOf(decision.node);
  }
  return { flops: tally.result, lint: collector ? collector.lint : null };
}
