/**
 * Matrix FLOPs of the allow-list ops, for the summary's "share of matrix FLOPs in low precision".
 * Shapes come from what the model declares (inputs, outputs, value_info, initializer dims) and,
 * for the main graph, from static shape inference (shape-inference.ts) when the caller passes its
 * result; a node whose shapes are still not all known is counted as unknown, never guessed.
 */
import { findAttribute, intAttribute } from '../../onnx/attributes.js';
import { longToNumber } from '../../onnx/external-data.js';
import type { GraphScope } from '../../onnx/graph.js';
import { einsumLabels, ShapesById } from '../../onnx/shape-inference.js';
import { computesOnFloat32, type NodeDecision } from './decisions.js';
import { decodeUtf8 } from '../../onnx/utf8.js';

type Shape = readonly number[];

function declaredShape(scope: GraphScope, name: string | null | undefined): Shape | undefined {
  if (!name) return undefined;
  for (let s: GraphScope | undefined = scope; s; s = s.parent) {
    const tensor = s.initializers.get(name);
    if (tensor) return (tensor.dims ?? []).map((d) => longToNumber(d));
    const info = s.inputs.get(name) ?? s.valueInfo.get(name) ?? s.outputs.get(name);
    const dims = info?.type?.tensor_type?.shape?.dim;
    if (info) {
      if (!dims || dims.some((d) => d.dim_value == null || !Object.hasOwn(d, 'dim_value'))) return undefined;
      return dims.map((d) => longToNumber(d.dim_value));
    }
    if (s.definesLocally(name)) return undefined;
  }
  return undefined;
}

/**
 * A value's shape: inferred (the map holds main-graph values only, so it is used when the name
 * resolves to the main graph), else declared.
 */
export function knownShape(scope: GraphScope, name: string | null | undefined, inferred: ReadonlyMap<string, Shape> | undefined): Shape | undefined {
  if (!name) return undefined;
  if (inferred) {
    let s: GraphScope | undefined = scope;
    while (s.parent && !s.definesLocally(name)) s = s.parent;
    if (!s.parent) {
      const found = inferred.get(name);
      if (found) return found;
    }
  }
  return declaredShape(scope, name);
}

const product = (dims: readonly number[]): number => dims.reduce((a, b) => a * b, 1);

/**
 * The shapes one node's figures read (inputs 0 and 1, output 0), each looked up at most once per
 * node: the FLOPs share and the Tensor Core lint read the same ones. One instance serves a whole
 * walk, reset at each node. In the main graph a value's inferred shape is found by its id, from
 * the scope's hint table at the node's position (GraphScope.valueIdHints()) when the walk has
 * one: hashing each name was most of the figures' time (40 of 80 ms at 213k nodes).
 */
export class NodeShapes {
  private decision: NodeDecision | undefined;
  /** The node's hints start here in `hints` (its outputs', then its inputs' ids). */
  private hints: Int32Array | undefined;
  private at = 0;
  /** Bit i (0, 1: inputs; 2: output 0) set once looked up. */
  private looked = 0;
  private first: Shape | undefined;
  private second: Shape | undefined;
  private output: Shape | undefined;

  constructor(private readonly inferred: ReadonlyMap<string, Shape> | undefined) {}

  /** `hints` and `at`: the node's place in its scope's hint table, when the caller walks one. */
  reset(decision: NodeDecision, hints?: Int32Array, at = 0): void {
    this.decision = decision;
    this.hints = hints;
    this.at = at;
    this.looked = 0;
  }

  input(i: number): Shape | undefined {
    const { node } = this.decision as NodeDecision;
    const slot = (node.output?.length ?? 0) + i;
    if (i > 1) return this.shapeOf(node.input?.[i], slot);
    if ((this.looked & (1 << i)) === 0) {
      this.looked |= 1 << i;
      const found = this.shapeOf(node.input?.[i], slot);
      if (i === 0) this.first = found;
      else this.second = found;
    }
    return i === 0 ? this.first : this.second;
  }

  output0(): Shape | undefined {
    if ((this.looked & 4) === 0) {
      this.looked |= 4;
      this.output = this.shapeOf((this.decision as NodeDecision).node.output?.[0], 0);
    }
    return this.output;
  }

  /** knownShape(), by the hinted id where the shapes are the node's own scope's (the main graph's). */
  private shapeOf(name: string | null | undefined, slot: number): Shape | undefined {
    const scope = (this.decision as NodeDecision).scope;
    const inferred = this.inferred;
    if (!name || !(inferred instanceof ShapesById) || inferred.scope !== scope) return knownShape(scope, name, inferred);
    // A hint is checked against the name it stands for: a wrong one costs a lookup, never a wrong shape.
    const id = scope.hintedValueId(this.hints?.[this.at + slot], name);
    return inferred.getById(id, name) ?? declaredShape(scope, name);
  }
}

/**
 * FLOPs of one node (a multiply-add counts 2), or undefined when its shapes are not known.
 * `shapes`: the node's shapes, reset to this decision by the caller.
 */
function nodeFlops(decision: NodeDecision, shapes: NodeShapes): number | undefined {
  const node = decision.node;
  switch (node.op_type) {
    case 'MatMul': {
      const a = shapes.input(0);
      const b = shapes.input(1);
      if (!a || !b || !a.length || !b.length) return undefined;
      const k = a[a.length - 1] as number;
      const y = shapes.output0();
      // The output holds every (batch, m, n) once: exact even where batch dims broadcast.
      if (y) return 2 * product(y) * k;
      const m = a.length > 1 ? (a[a.length - 2] as number) : 1;
      const n = b.length > 1 ? (b[b.length - 1] as number) : 1;
      const batch = Math.max(product(a.slice(0, -2)), product(b.slice(0, -2)));
      return 2 * batch * m * k * n;
    }
    case 'Gemm': {
      const a = shapes.input(0);
      const b = shapes.input(1);
      if (!a || !b || a.length !== 2 || b.length !== 2) return undefined;
      const [m, k] = intAttribute(node, 'transA') ? [a[1], a[0]] : [a[0], a[1]];
      const n = intAttribute(node, 'transB') ? b[0] : b[1];
      return 2 * (m as number) * (k as number) * (n as number);
    }
    case 'Conv': {
      const w = shapes.input(1);
      const y = shapes.output0();
      return w && y ? 2 * product(y) * product(w.slice(1)) : undefined;
    }
    case 'ConvTranspose': {
      const x = shapes.input(0);
      const w = shapes.input(1);
      return x && w ? 2 * product(x) * product(w.slice(1)) : undefined;
    }
    case 'Einsum': {
      // Two operands: one multiply-add for every combination of label values (a contraction).
      if ((node.input ?? []).length !== 2) return undefined;
      const a = shapes.input(0);
      const b = shapes.input(1);
      const attribute = findAttribute(node, 'equation');
      if (!a || !b || !attribute?.s?.length) return undefined;
      const parsed = einsumLabels(decodeUtf8(attribute.s), [a, b]);
      return parsed ? 2 * product([...parsed.labels.values()]) * product(parsed.ellipsis) : undefined;
    }
    default:
      return undefined;
  }
}

export interface MatrixFlops {
  lowPrecision: number;
  total: number;
  unknownNodes: number;
  nodes: number;
  /** Symbolic input dimensions taken as 1 for the share (no --dim gave their size). */
  assumedOne?: string[];
}

/** The matrix FLOPs share, node by node. */
export class FlopsTally {
  readonly result: MatrixFlops = { lowPrecision: 0, total: 0, unknownNodes: 0, nodes: 0 };

  /** Whether the node counts at all: an allow-list op computing on float32. */
  static counts(decision: NodeDecision): boolean {
    return decision.list === 'allow' && computesOnFloat32(decision);
  }

  /** Adds a node that counts, its shapes reset to it. */
  add(decision: NodeDecision, shapes: NodeShapes): void {
    const result = this.result;
    result.nodes++;
    const flops = nodeFlops(decision, shapes);
    if (flops === undefined) {
      result.unknownNodes++;
      return;
    }
    result.total += flops;
    if (decision.color === 'ALLOW') result.lowPrecision += flops;
  }
}
