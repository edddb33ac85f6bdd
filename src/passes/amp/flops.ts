/**
 * Matrix FLOPs of the allow-list ops, for the summary's "share of matrix FLOPs in low precision".
 * Shapes come from what the model declares (inputs, outputs, value_info, initializer dims);
 * a node whose shapes are not all declared is counted as unknown, never guessed.
 */
import { intAttribute } from '../../onnx/attributes.js';
import { longToNumber } from '../../onnx/external-data.js';
import type { GraphScope } from '../../onnx/graph.js';
import { computesOnFloat32, type NodeDecision } from './decisions.js';

type Shape = number[];

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

const product = (dims: readonly number[]): number => dims.reduce((a, b) => a * b, 1);

/** FLOPs of one node (a multiply-add counts 2), or undefined when its shapes are not declared. */
export function nodeFlops(decision: NodeDecision): number | undefined {
  const { node, scope } = decision;
  const shape = (i: number) => declaredShape(scope, node.input?.[i]);
  const out = () => declaredShape(scope, node.output?.[0]);
  switch (node.op_type) {
    case 'MatMul': {
      const a = shape(0);
      const b = shape(1);
      if (!a || !b || !a.length || !b.length) return undefined;
      const k = a[a.length - 1] as number;
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
    default:
      return undefined;
  }
}

export function matrixFlops(decisions: readonly NodeDecision[]): { lowPrecision: number; total: number; unknownNodes: number; nodes: number } {
  let lowPrecision = 0;
  let total = 0;
  let unknownNodes = 0;
  let nodes = 0;
  for (const decision of decisions) {
    if (decision.list !== 'allow' || !computesOnFloat32(decision)) continue;
    nodes++;
    const flops = nodeFlops(decision);
    if (flops === undefined) {
      unknownNodes++;
      continue;
    }
    total += flops;
    if (decision.color === 'ALLOW') lowPrecision += flops;
  }
  return { lowPrecision, total, unknownNodes, nodes };
}
