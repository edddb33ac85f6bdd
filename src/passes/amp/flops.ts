/**
 * Matrix FLOPs of the allow-list ops, for the summary's "share of matrix FLOPs in low precision".
 * Shapes come from what the model declares (inputs, outputs, value_info, initializer dims) and,
 * for the main graph, from static shape inference (shape-inference.ts) when the caller passes its
 * result; a node whose shapes are still not all known is counted as unknown, never guessed.
 */
import { findAttribute, intAttribute } from '../../onnx/attributes.js';
import { longToNumber } from '../../onnx/external-data.js';
import type { GraphScope } from '../../onnx/graph.js';
import { einsumLabels } from '../../onnx/shape-inference.js';
import { computesOnFloat32, type NodeDecision } from './decisions.js';

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
 * FLOPs of one node (a multiply-add counts 2), or undefined when its shapes are not known.
 * `inferred`: shapes from inferShapes() for the main graph, used in addition to declared ones.
 */
export function nodeFlops(decision: NodeDecision, inferred?: ReadonlyMap<string, Shape>): number | undefined {
  const { node, scope } = decision;
  const shape = (i: number) => knownShape(scope, node.input?.[i], inferred);
  const out = () => knownShape(scope, node.output?.[0], inferred);
  switch (node.op_type) {
    case 'MatMul': {
      const a = shape(0);
      const b = shape(1);
      if (!a || !b || !a.length || !b.length) return undefined;
      const k = a[a.length - 1] as number;
      const y = out();
      // The output holds every (batch, m, n) once: exact even where batch dims broadcast.
      if (y) return 2 * product(y) * k;
      const m = a.length > 1 ? (a[a.length - 2] as number) : 1;
      const n = b.length > 1 ? (b[b.length - 1] as number) : 1;
      const batch = Math.max(product(a.slice(0, -2)), product(b.slice(0, -2)));
      return 2 * batch * m * k * n;
    }
    case 'Gemm': {
      const a = shape(0);
      const b = shape(1);
      if (!a || !b || a.length !== 2 || b.length !== 2) return undefined;
      const [m, k] = intAttribute(node, 'transA') ? [a[1], a[0]] : [a[0], a[1]];
      const n = intAttribute(node, 'transB') ? b[0] : b[1];
      return 2 * (m as number) * (k as number) * (n as number);
    }
    case 'Conv': {
      const w = shape(1);
      const y = out();
      return w && y ? 2 * product(y) * product(w.slice(1)) : undefined;
    }
    case 'ConvTranspose': {
      const x = shape(0);
      const w = shape(1);
      return x && w ? 2 * product(x) * product(w.slice(1)) : undefined;
    }
    case 'Einsum': {
      // Two operands: one multiply-add for every combination of label values (a contraction).
      if ((node.input ?? []).length !== 2) return undefined;
      const a = shape(0);
      const b = shape(1);
      const attribute = findAttribute(node, 'equation');
      if (!a || !b || !attribute?.s?.length) return undefined;
      const parsed = einsumLabels(Buffer.from(attribute.s).toString('utf8'), [a, b]);
      return parsed ? 2 * product([...parsed.labels.values()]) * product(parsed.ellipsis) : undefined;
    }
    default:
      return undefined;
  }
}

/** `shapes`: inferShapes() of the model, computed once by the caller; declared shapes only when absent. */
export function matrixFlops(
  decisions: readonly NodeDecision[],
  shapes?: ReadonlyMap<string, Shape>,
): { lowPrecision: number; total: number; unknownNodes: number; nodes: number } {
  let lowPrecision = 0;
  let total = 0;
  let unknownNodes = 0;
  let nodes = 0;
  for (const decision of decisions) {
    if (decision.list !== 'allow' || !computesOnFloat32(decision)) continue;
    nodes++;
    const flops = nodeFlops(decision, shapes);
    if (flops === undefined) {
      unknownNodes++;
      continue;
    }
    total += flops;
    if (decision.color === 'ALLOW') lowPrecision += flops;
  }
  return { lowPrecision, total, unknownNodes, nodes };
}
