/**
 * --target: what the painting may assume about the execution provider that will run the model.
 * The facts live in rules/kernels.json (each with its source in ONNX Runtime); this module turns
 * them into one decision painting reads, "which nodes of this scope run in the low type because
 * their kernel keeps the fragile arithmetic in float32", and into warnings for providers whose
 * low-precision kernels are missing or slow. `any` (the default) knows nothing and changes nothing.
 */
import type { onnx } from '../../onnx/generated/onnx.js';
import type { GraphScope } from '../../onnx/graph.js';
import { findAttribute } from '../../onnx/attributes.js';
import { DataType } from '../../onnx/data-types.js';
import { normalizeDomain } from '../../onnx/opsets.js';
import { describeNode, type NodeDecision } from './decisions.js';
import type { ListName } from './op-lists.js';
import { ruleFile } from '../../rules/rule-files.js';

export const TARGETS = ['any', 'cuda', 'cpu', 'webgpu'] as const;
export type Target = (typeof TARGETS)[number];
export type LowType = 'float16' | 'bfloat16';

interface KernelFact {
  op: string;
  domain?: string;
  types: LowType[];
  reason: string;
  source: string;
  /** The fact holds only for such nodes (spatial-axes: a reduction over every axis but N and C of a 4D input). */
  when?: 'spatial-axes';
}

/** A provider's graph fusion: `producer` whose only reader is `consumer` becomes one `into` node. */
interface FusionFact {
  name: string;
  producer: string;
  consumer: string;
  into: string;
  reason: string;
  source: string;
}

interface TargetFacts {
  provider: string;
  fp32Accumulating: KernelFact[];
  slowKernels: KernelFact[];
  fusions: FusionFact[];
  lowPrecisionKernels: { source: string; float16: string[]; bfloat16: string[] } | null;
}

interface KernelRules {
  runtime: string;
  targets: Record<Exclude<Target, 'any'>, TargetFacts>;
}

let cached: KernelRules | undefined;
export function readKernelRules(): KernelRules {
  cached ??= ruleFile<KernelRules>('kernels.json');
  return cached;
}

const factKey = (domain: string | null | undefined, op: string | null | undefined): string => `${normalizeDomain(domain ?? '')}:${op ?? ''}`;

/** Why a node runs in the low type under the target: the rule's text and the kernel source it rests on. */
export interface KernelPromotion {
  reason: string;
  source: string;
}

export interface ScopePromotions {
  /** Nodes painted ALLOW (rule 'target-kernel') although their list would keep them fp32. */
  promoted: Map<onnx.INodeProto, KernelPromotion>;
  /** Nodes with an fp32-accumulating kernel that still stay fp32, and why (feeds an output or a loss). */
  kept: Map<onnx.INodeProto, string>;
}

/**
 * A node whose kernel accumulates in float32 runs in the low type when it is in the middle of the
 * model: following its outputs through non-allow ops reaches an allow op (so its result goes on
 * into low-precision compute anyway), and reaches no graph output and no deny-list op (a loss, a
 * Log) first. This is done so the final softmax and the values a user reads stay float32, as
 * TensorFlow's mixed-precision guide advises, while the attention softmax and the pre-projection
 * LayerNorm skip their Cast pairs.
 */
export class TargetPolicy {
  /**
   * By domain, then by op: a node's fact is found without building a key string per node (the
   * promotions ask for every node of the graph).
   */
  private readonly facts = new Map<string, Map<string, KernelFact>>();
  private factCount = 0;

  constructor(
    readonly target: Target,
    readonly lowType: LowType,
  ) {
    if (target === 'any') return;
    for (const fact of readKernelRules().targets[target].fp32Accumulating) {
      if (!fact.types.includes(lowType)) continue;
      const domain = normalizeDomain(fact.domain ?? '');
      let byOp = this.facts.get(domain);
      if (!byOp) this.facts.set(domain, (byOp = new Map()));
      if (!byOp.has(fact.op)) this.factCount++;
      byOp.set(fact.op, fact);
    }
  }

  private factOf(node: onnx.INodeProto, scope: GraphScope): KernelFact | undefined {
    const fact = this.facts.get(normalizeDomain(node.domain ?? ''))?.get(node.op_type ?? '');
    if (fact?.when === 'spatial-axes' && !reducesSpatialAxes(node, scope)) return undefined;
    return fact;
  }

  promotions(scope: GraphScope, nodes: readonly onnx.INodeProto[], decisionOf: (node: onnx.INodeProto) => NodeDecision | undefined): ScopePromotions {
    const promoted = new Map<onnx.INodeProto, KernelPromotion>();
    const kept = new Map<onnx.INodeProto, string>();
    if (!this.factCount) return { promoted, kept };
    const listOf = (node: onnx.INodeProto): ListName | undefined => decisionOf(node)?.list;
    for (const node of nodes) {
      const fact = this.factOf(node, scope);
      const decision = decisionOf(node);
      if (!fact || !decision?.processable || decision.list === 'allow') continue;
      const blocker = this.blockerDownstream(scope, node, listOf);
      if (blocker) {
        kept.set(node, `its ${this.lowType} ${this.target} kernel accumulates in float32, but it ${blocker}: kept float32 (--target ${this.target})`);
        continue;
      }
      promoted.set(node, {
        reason: `--target ${this.target}: ${fact.reason} (rules/kernels.json; source: ${fact.source})`,
        source: fact.source,
      });
    }
    return { promoted, kept };
  }

  /**
   * What keeps a node fp32 (a graph output or a deny-list op before any allow op), or undefined.
   * The walk stops at another node with an fp32-accumulating kernel: that node decides for itself
   * (a post-LN BERT's LayerNorm reaches the output only through the later norms of the residual
   * chain, and the last of them stays fp32 on its own account). The reason names the path taken.
   */
  private blockerDownstream(scope: GraphScope, origin: onnx.INodeProto, listOf: (node: onnx.INodeProto) => ListName | undefined): string | undefined {
    /** The node each node was reached from (origin: none), to name the path of a blocker. */
    const via = new Map<onnx.INodeProto, onnx.INodeProto | null>([[origin, null]]);
    const stack = [origin];
    let reachesAllow = false;
    while (stack.length) {
      const node = stack.pop() as onnx.INodeProto;
      for (const name of node.output ?? []) {
        if (!name) continue;
        if (scope.isGraphOutput(name)) return `feeds the graph output '${name}'${pathText(via, node)}`;
        for (const use of scope.consumersOf(name)) {
          const next = use.node;
          if (via.has(next)) continue;
          via.set(next, node);
          const list = listOf(next);
          if (list === 'allow') {
            reachesAllow = true;
            continue;
          }
          if (this.factOf(next, scope)) continue;
          if (list === 'deny') return `feeds ${describeNode(next)} (deny list)${pathText(via, node)}`;
          stack.push(next);
        }
      }
    }
    return reachesAllow ? undefined : 'feeds no allow-list op';
  }
}

/** ' through Add 'a' -> Mul 'b'': the nodes between the origin and `last` (included), at most 4 named. */
function pathText(via: ReadonlyMap<onnx.INodeProto, onnx.INodeProto | null>, last: onnx.INodeProto): string {
  const path: onnx.INodeProto[] = [];
  for (let node: onnx.INodeProto | null | undefined = last; node && via.get(node) !== null; node = via.get(node)) path.push(node);
  if (!path.length) return '';
  path.reverse();
  const named = path.length > 4 ? [...path.slice(0, 2).map(describeNode), `... (${path.length - 3} more)`, describeNode(path[path.length - 1] as onnx.INodeProto)] : path.map(describeNode);
  return ` through ${named.join(' -> ')}`;
}

/**
 * Whether a reduction is global average pooling as the dynamo exporter writes it: its input is 4D
 * (NCHW, rank from the declared shape; axes 2 and 3 need rank 4 at least) and it reduces axes 2 and
 * 3 (or -2 and -1), given as the `axes` attribute (before opset 18) or a constant `axes` input.
 */
function reducesSpatialAxes(node: onnx.INodeProto, scope: GraphScope): boolean {
  const data = node.input?.[0];
  if (!data) return false;
  const axes = findAttribute(node, 'axes')?.ints?.map(Number) ?? constantInts(scope, node.input?.[1]);
  if (!axes || axes.length !== 2) return false;
  const info = scope.inputs.get(data) ?? scope.valueInfo.get(data);
  const dims = info?.type?.tensor_type?.shape?.dim;
  const rank = dims ? dims.length : undefined;
  const sorted = [...axes].sort((a, b) => a - b);
  if (sorted[0] === 2 && sorted[1] === 3) return rank === undefined || rank === 4;
  return rank === 4 && sorted[0] === -2 && sorted[1] === -1;
}

/** The values of an int64 constant (an initializer or a Constant's value), or undefined. */
function constantInts(scope: GraphScope, name: string | undefined): number[] | undefined {
  if (!name) return undefined;
  const producer = scope.producerOf(name)?.node;
  const tensor = scope.initializers.get(name) ?? (producer?.op_type === 'Constant' && !producer.domain ? findAttribute(producer, 'value')?.t : undefined);
  if (!tensor || tensor.data_type !== DataType.INT64) return undefined;
  if (tensor.int64_data?.length) return tensor.int64_data.map(Number);
  const raw = tensor.raw_data;
  if (!raw || raw.length % 8) return undefined;
  const copy = new Uint8Array(raw.length);
  copy.set(raw);
  return Array.from(new BigInt64Array(copy.buffer), Number);
}

export function targetPolicy(target: Target, lowType: LowType): TargetPolicy | undefined {
  return target === 'any' ? undefined : new TargetPolicy(target, lowType);
}

/** A converted node the target's provider runs slowly or without a kernel of the low type. */
export interface TargetWarning {
  node: string;
  op: string;
  kind: 'no-kernel' | 'slow-kernel' | 'fused-into-slow-kernel';
  message: string;
  source: string;
}

/**
 * Warnings for the converted nodes under --target: ops with no low-precision kernel in the
 * provider (ONNX Runtime then runs them through Casts to float32), ops whose kernel is a slow
 * reference loop, and MatMul + Add pairs that ORT's MatMulAddFusion turns into such a Gemm.
 */
export function targetWarnings(decisions: readonly NodeDecision[], target: Target, lowType: LowType): TargetWarning[] {
  if (target === 'any') return [];
  const facts = readKernelRules().targets[target];
  const provider = facts.provider;
  const slow = new Map(facts.slowKernels.filter((f) => f.types.includes(lowType)).map((f) => [factKey(f.domain, f.op), f]));
  const available = facts.lowPrecisionKernels ? new Set(facts.lowPrecisionKernels[lowType]) : undefined;
  const converted = decisions.filter((d) => d.color === 'ALLOW');
  const colorOf = new Map(decisions.map((d) => [d.node, d.color]));
  const warnings: TargetWarning[] = [];
  for (const { node, scope } of converted) {
    const op = node.op_type ?? '';
    const name = node.name || (node.output ?? [])[0] || '?';
    const slowFact = slow.get(factKey(node.domain, op));
    if (slowFact) {
      warnings.push({ node: name, op, kind: 'slow-kernel', message: `${describeNode(node)}: ${slowFact.reason}`, source: slowFact.source });
      continue;
    }
    if (available && normalizeDomain(node.domain) === '' && !available.has(op)) {
      warnings.push({
        node: name,
        op,
        kind: 'no-kernel',
        message: `${describeNode(node)}: ${provider} has no ${lowType} ${op} kernel; ONNX Runtime runs it through Casts to float32 (no speed-up, two extra copies)`,
        source: facts.lowPrecisionKernels?.source ?? '',
      });
    }
    // A converted pair the provider fuses into a slow kernel (rules/kernels.json `fusions`).
    const output = (node.output ?? [])[0];
    for (const fusion of facts.fusions) {
      const into = slow.get(factKey('', fusion.into));
      if (!into || op !== fusion.producer || normalizeDomain(node.domain) !== '' || !output) continue;
      const uses = scope.consumersOf(output);
      const reader = uses.length === 1 ? uses[0]?.node : undefined;
      if (reader?.op_type === fusion.consumer && normalizeDomain(reader.domain) === '' && colorOf.get(reader) === 'ALLOW') {
        warnings.push({
          node: name,
          op,
          kind: 'fused-into-slow-kernel',
          message: `${describeNode(node)} + ${describeNode(reader)}: ONNX Runtime's ${fusion.name} makes them one ${lowType} ${fusion.into}, a slow kernel on ${provider}`,
          source: `${fusion.source}; ${into.source}`,
        });
      }
    }
  }
  return warnings;
}
