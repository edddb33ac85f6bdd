/**
 * Painting: Grappler's automatic-mixed-precision coloring adapted to ONNX nodes. Every node of a
 * scope becomes ALLOW (computes in the target type), DENY (kept fp32 because something fragile
 * feeds it) or NONE (kept fp32), with the rule and reason that decided it. Edges are the float32
 * tensors between nodes of one scope: those are the only values the pass can change.
 */
import { DataType, tensorTypeString } from '../../onnx/data-types.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import type { GraphScope } from '../../onnx/graph.js';
import { normalizeDomain, type OpsetMap } from '../../onnx/opsets.js';
import { typeVariableOfInput, typeVariableOfOutput, typesOf, type OpSchema } from '../../onnx/schema.js';
import { schemaOf, type ElemTypes } from '../../onnx/type-inference.js';
import { AmpError } from '../../onnx/errors.js';
import { describeNode, type NodeDecision, type RuleCode } from './decisions.js';
import { whyNoFloat32 } from './no-float32.js';
import { tiedTypeVariables } from './tied-types.js';
import type { AttributeCondition, OpLists } from './op-lists.js';
import type { PinnedNode } from './weight-range.js';
import { findAttribute } from '../../onnx/attributes.js';
import { longToNumber } from '../../onnx/external-data.js';
import type { TargetPolicy } from './target-policy.js';

export interface PaintOptions {
  target: number;
  mode: 'fp16' | 'bf16';
  forceFp32: NodeMatcher;
  /** Nodes kept fp32 for a reason found before painting (a weight outside the target's range). */
  pinned: ReadonlyMap<onnx.INodeProto, PinnedNode>;
  forceFp16: NodeMatcher;
  /** Graph inputs that hold weights (training parameters and optimizer state). */
  weightInputs: ReadonlySet<string>;
  /** What the execution provider's kernels allow (--target); absent for 'any'. */
  targetPolicy?: TargetPolicy;
}

export type NodeMatcher = (node: onnx.INodeProto) => boolean;

/** Per node facts the painting and the cast planning both need. */
export interface NodeFacts {
  schema: OpSchema | undefined;
  /** The type variable that carries the node's float32 data; the only one converted. */
  mainVar: string | undefined;
  /** Type variables converted with mainVar (rules/tied-type-variables.json), mainVar included. */
  convertedVars: ReadonlySet<string>;
  acceptsTarget: boolean;
}

export interface ScopePaint {
  decisions: Map<onnx.INodeProto, NodeDecision>;
  facts: Map<onnx.INodeProto, NodeFacts>;
}

const STANDARD_DOMAINS = new Set(['', 'ai.onnx.ml']);

export function analyzeNode(node: onnx.INodeProto, scope: GraphScope, types: ElemTypes, opsets: OpsetMap, target: number): NodeFacts {
  const schema = schemaOf(node, opsets);
  if (!schema) return { schema, mainVar: undefined, convertedVars: new Set(), acceptsTarget: false };
  let mainVar: string | undefined;
  const consider = (formal: ReturnType<typeof typeVariableOfInput>, name: string | undefined): void => {
    if (mainVar || !formal || formal.heterogeneous || !name) return;
    if (!(formal.typeStr in schema.typeConstraints)) return;
    if (types.get(scope, name) === DataType.FLOAT) mainVar = formal.typeStr;
  };
  (node.input ?? []).forEach((name, i) => consider(typeVariableOfInput(schema, i), name));
  (node.output ?? []).forEach((name, i) => consider(typeVariableOfOutput(schema, i), name));
  return sharedFacts(schema, mainVar, target, node);
}

/**
 * The facts depend only on the schema (which fixes domain and op), the main type variable and the
 * target, so nodes alike share one read-only object: a big graph allocated a Set per node here.
 */
const factsBySchema = new WeakMap<OpSchema, Map<string, NodeFacts>>();

function sharedFacts(schema: OpSchema, mainVar: string | undefined, target: number, node: onnx.INodeProto): NodeFacts {
  let bySchema = factsBySchema.get(schema);
  if (!bySchema) factsBySchema.set(schema, (bySchema = new Map()));
  const key = `${target}:${mainVar ?? ''}`;
  const known = bySchema.get(key);
  if (known) return known;
  const convertedVars = new Set(mainVar ? [mainVar, ...tiedTypeVariables(node.domain, node.op_type)] : []);
  const acceptsTarget = mainVar !== undefined && [...convertedVars].every((v) => (schema.typeConstraints[v] ?? []).includes(tensorTypeString(target)));
  const facts: NodeFacts = { schema, mainVar, convertedVars, acceptsTarget };
  bySchema.set(key, facts);
  return facts;
}

/**
 * A float-capable input or output whose element type nobody could tell makes the node
 * unprocessable: a sequence or optional of tensors (its element type is not tracked), or a
 * tensor with no type information.
 */
function untypedFloatValue(node: onnx.INodeProto, scope: GraphScope, types: ElemTypes, schema: OpSchema): { name: string; rule: RuleCode } | undefined {
  const check = (name: string | null | undefined, formal: ReturnType<typeof typeVariableOfInput>) => {
    if (!name || !formal || types.get(scope, name) !== undefined) return undefined;
    const allowed = typesOf(schema, formal).filter((t) => /float/.test(t));
    if (!allowed.length) return undefined;
    return { name, rule: allowed.every((t) => t.startsWith('tensor(')) ? ('unknown-type' as const) : ('non-tensor-types' as const) };
  };
  const inputs = node.input ?? [];
  for (let i = 0; i < inputs.length; i++) {
    const found = check(inputs[i], typeVariableOfInput(schema, i));
    if (found) return found;
  }
  const outputs = node.output ?? [];
  for (let i = 0; i < outputs.length; i++) {
    const found = check(outputs[i], typeVariableOfOutput(schema, i));
    if (found) return found;
  }
  return undefined;
}

function conditionHolds(node: onnx.INodeProto, condition: AttributeCondition | undefined): boolean {
  if (!condition) return true;
  const attribute = findAttribute(node, condition.attribute);
  const value = attribute ? (attribute.s?.length ? Buffer.from(attribute.s).toString('utf8') : longToNumber(attribute.i ?? 0)) : condition.default;
  return value !== undefined && condition.in.includes(value);
}

function unlistedReason(lists: OpLists, node: onnx.INodeProto): string {
  const deliberate = lists.unlistedReason(node.domain, node.op_type);
  return deliberate ? `${node.op_type} is deliberately on no list (rules/unlisted.json): ${deliberate}` : `${node.op_type} is on no list`;
}

export function hasFloatInput(node: onnx.INodeProto, scope: GraphScope, types: ElemTypes): boolean {
  return (node.input ?? []).some((name) => name && types.get(scope, name) === DataType.FLOAT);
}

export function paintScope(scope: GraphScope, types: ElemTypes, opsets: OpsetMap, lists: OpLists, options: PaintOptions): ScopePaint {
  const nodes = scope.topologicalOrder().order;
  const decisions = new Map<onnx.INodeProto, NodeDecision>();
  const facts = new Map<onnx.INodeProto, NodeFacts>();
  const decide = (node: onnx.INodeProto, color: NodeDecision['color'], rule: RuleCode, reason: string): void => {
    const decision = decisions.get(node) as NodeDecision;
    decision.color = color;
    decision.rule = rule;
    decision.reason = reason;
  };

  // Classification: list membership and whether the node takes part at all.
  for (const node of nodes) {
    const nodeFacts = analyzeNode(node, scope, types, opsets, options.target);
    facts.set(node, nodeFacts);
    const listed = lists.lookup(node.domain, node.op_type);
    const entry = listed && conditionHolds(node, listed.onlyWhen) ? listed : undefined;
    const decision: NodeDecision = {
      node, scope, list: entry?.list, color: 'NONE', rule: 'unlisted', reason: '', processable: false, castsAdded: [],
    };
    decisions.set(node, decision);
    const domain = normalizeDomain(node.domain);
    if (!nodeFacts.schema) {
      if (STANDARD_DOMAINS.has(domain) && !scope.subgraphsOf(node).length && opsets.has(domain)) {
        throw new AmpError(
          'UNKNOWN_OP',
          `node ${describeNode(node)}: op ${node.op_type} is not defined in ${domain || 'ai.onnx'} at opset ${opsets.get(domain)}`,
          { subject: node.name ?? '' },
        );
      }
      decision.rule = 'no-schema';
      decision.reason = `no schema known for ${domain ? `${domain}:` : ''}${node.op_type}; left as it is`;
      continue;
    }
    const pin = options.pinned.get(node);
    // Only when the weight would be converted: BatchNormalization-15 reads its variance through its own type variable.
    if (pin && (pin.inputIndex < 0 || typeVariableOfInput(nodeFacts.schema, pin.inputIndex)?.typeStr === nodeFacts.mainVar)) {
      decision.rule = pin.rule;
      decision.reason = pin.reason;
      continue;
    }
    if (options.forceFp32(node)) {
      decision.rule = 'force-fp32';
      decision.reason = 'pinned to fp32 by --force-fp32';
      continue;
    }
    const untyped = untypedFloatValue(node, scope, types, nodeFacts.schema);
    if (untyped) {
      decision.rule = untyped.rule;
      decision.reason =
        untyped.rule === 'unknown-type'
          ? `element type of '${untyped.name}' is unknown`
          : `'${untyped.name}' is a sequence or optional whose element type the pass does not track`;
      continue;
    }
    if (!nodeFacts.mainVar) {
      Object.assign(decision, whyNoFloat32(node, scope, types));
      continue;
    }
    if (!entry && !hasFloatInput(node, scope, types)) {
      // Like Grappler's Const nodes: a node that makes floats from attributes or shapes alone
      // (Constant, ConstantOfShape, RandomNormal) is a weight source; its readers decide.
      decision.rule = 'constant-source';
      decision.reason = 'creates float values from attributes or shapes; its readers decide their precision';
      continue;
    }
    decision.processable = true;
    decision.rule = entry ? 'not-between-allow' : 'unlisted';
    decision.reason = entry
      ? `${entry.list}-list op not between allow ops`
      : listed
        ? `${node.op_type} is on the ${listed.list} list only with ${listed.onlyWhen?.attribute} in [${listed.onlyWhen?.in.join(', ')}]`
        : unlistedReason(lists, node);
  }

  // The target's kernel facts (target-policy.ts): a promoted node paints as an allow op.
  const { promoted, kept } = options.targetPolicy?.promotions(scope, nodes, decisions) ?? { promoted: new Map(), kept: new Map() };
  const isProcessable = (node: onnx.INodeProto): boolean => decisions.get(node)?.processable === true;
  const listOf = (node: onnx.INodeProto) => (promoted.has(node) ? 'allow' : decisions.get(node)?.list);
  const colorOf = (node: onnx.INodeProto) => decisions.get(node)?.color;
  const accepts = (node: onnx.INodeProto): boolean => facts.get(node)?.acceptsTarget === true;

  // float32 edges between processable nodes of this scope.
  const fanout = new Map<onnx.INodeProto, onnx.INodeProto[]>();
  const fanin = new Map<onnx.INodeProto, onnx.INodeProto[]>();
  for (const node of nodes) {
    if (!isProcessable(node)) continue;
    for (const name of node.input ?? []) {
      if (!name || types.get(scope, name) !== DataType.FLOAT) continue;
      const producer = scope.producerOf(name)?.node;
      if (!producer || !isProcessable(producer)) continue;
      (fanout.get(producer) ?? fanout.set(producer, []).get(producer)!).push(node);
      (fanin.get(node) ?? fanin.set(node, []).get(node)!).push(producer);
    }
  }
  const outs = (node: onnx.INodeProto) => fanout.get(node) ?? [];
  const ins = (node: onnx.INodeProto) => fanin.get(node) ?? [];

  // Step 1, allow: every processable allow-list op (or --force-fp16 node) becomes ALLOW.
  // Step 6 is folded in here: an op whose schema cannot take the target type is never painted.
  for (const node of nodes) {
    if (!isProcessable(node)) continue;
    const forced = options.forceFp16(node);
    if (listOf(node) !== 'allow' && !forced) continue;
    if (!accepts(node)) {
      decide(node, 'NONE', 'schema-forbids', `${node.op_type} at this opset does not accept ${tensorTypeString(options.target)}`);
      continue;
    }
    const promotion = promoted.get(node);
    if (promotion && !forced) decide(node, 'ALLOW', 'target-kernel', promotion.reason);
    else decide(node, 'ALLOW', forced ? 'force-fp16' : 'allow-list', forced ? 'pinned to the target type by --force-fp16' : `${node.op_type} is on the allow list`);
  }

  // Step 2, deny forward through clear and infer. This is done so a fragile value is never
  // squeezed into fp16 on its way to another numeric op. Example:
  //   deny -> infer -> clear -> infer -> clear -> allow -> infer
  // becomes
  //   deny -> deny  -> deny  -> deny  -> clear -> allow -> infer
  // The trailing clear stays unpainted: no deny or infer node is reachable from it through clear only.
  const passable = new Set<onnx.INodeProto>();
  const stack: onnx.INodeProto[] = [];
  for (const node of nodes) {
    if (isProcessable(node) && colorOf(node) !== 'ALLOW' && (listOf(node) === 'deny' || listOf(node) === 'infer')) {
      passable.add(node);
      stack.push(node);
    }
  }
  while (stack.length) {
    const node = stack.pop() as onnx.INodeProto;
    for (const producer of ins(node)) {
      if (listOf(producer) === 'clear' && colorOf(producer) !== 'ALLOW' && !passable.has(producer)) {
        passable.add(producer);
        stack.push(producer);
      }
    }
  }
  for (const node of nodes) {
    if (!isProcessable(node) || listOf(node) !== 'deny') continue;
    const keptWhy = kept.get(node);
    decide(node, 'DENY', 'deny-list', `${node.op_type} is on the deny list${keptWhy ? `; ${keptWhy}` : ''}`);
  }
  for (const origin of nodes) {
    if (!isProcessable(origin) || listOf(origin) !== 'deny') continue;
    const walk: Array<[onnx.INodeProto, onnx.INodeProto]> = outs(origin).map((next) => [next, origin]);
    while (walk.length) {
      const [node, via] = walk.pop() as [onnx.INodeProto, onnx.INodeProto];
      if (!passable.has(node) || colorOf(node) === 'DENY') continue;
      const through = via === origin ? '' : ` through ${describeNode(via)}`;
      decide(node, 'DENY', 'deny-upstream', `downstream of ${describeNode(origin)}${through}`);
      for (const next of outs(node)) walk.push([next, node]);
    }
  }

  // Step 3, clear and infer between allow. This is done so a chain allow -> infer -> allow runs
  // entirely in the target type instead of casting down and up again around the middle node.
  // Amended from Grappler: a node joins only if every float32 input comes from the low-precision
  // region or from a weight. This is done so an fp32 stream that merely passes allow ops, such as
  // a transformer's residual stream fed by fp32 embeddings, stays fp32 (PyTorch's autocast keeps
  // it fp32 by type promotion). Example, x a graph input:
  //   Add(x, MatMul) -> MatMul   stays   fp32 Add, with one Cast on the MatMul's output
  const isBridge = (node: onnx.INodeProto): boolean =>
    isProcessable(node) && colorOf(node) === 'NONE' && accepts(node) && (listOf(node) === 'clear' || listOf(node) === 'infer');
  const downstreamOfAllow = new Set<onnx.INodeProto>();
  for (const node of nodes) {
    if (colorOf(node) !== 'ALLOW') continue;
    const forward = [...outs(node)];
    while (forward.length) {
      const next = forward.pop() as onnx.INodeProto;
      if (downstreamOfAllow.has(next) || !isBridge(next)) continue;
      downstreamOfAllow.add(next);
      forward.push(...outs(next));
    }
  }
  const fp32Source = (node: onnx.INodeProto): string | undefined =>
    (node.input ?? []).find((name) => {
      if (!name || types.get(scope, name) !== DataType.FLOAT) return false;
      const definition = scope.resolve(name);
      if (definition?.kind === 'initializer') return false;
      // An input with a default (an initializer of the same name) or named a weight is a weight.
      if (definition?.kind === 'input' && (definition.scope.initializers.has(name) || options.weightInputs.has(name))) return false;
      if (definition?.kind === 'input' || definition?.scope !== scope) return true;
      const producer = definition.producer.node;
      const decision = decisions.get(producer);
      if (decision?.rule === 'constant-source') return false;
      return !(colorOf(producer) === 'ALLOW' || downstreamOfAllow.has(producer));
    });
  const excluded = new Map<onnx.INodeProto, string>();
  const recheck = [...downstreamOfAllow];
  while (recheck.length) {
    const node = recheck.pop() as onnx.INodeProto;
    if (!downstreamOfAllow.has(node)) continue;
    const source = fp32Source(node);
    if (source === undefined) continue;
    downstreamOfAllow.delete(node);
    excluded.set(node, source);
    recheck.push(...outs(node));
  }
  for (const allowNode of nodes) {
    if (colorOf(allowNode) !== 'ALLOW' || !['allow-list', 'force-fp16', 'target-kernel'].includes(decisions.get(allowNode)?.rule ?? '')) continue;
    const backward = [...ins(allowNode)];
    while (backward.length) {
      const previous = backward.pop() as onnx.INodeProto;
      if (!downstreamOfAllow.has(previous) || colorOf(previous) !== 'NONE') continue;
      decide(previous, 'ALLOW', 'between-allow', `between allow ops, feeding ${describeNode(allowNode)}`);
      backward.push(...ins(previous));
    }
  }
  for (const [node, source] of excluded) {
    if (colorOf(node) === 'NONE') decide(node, 'NONE', 'fp32-stream', `input '${source}' is an fp32 value from outside the low-precision region`);
  }

  // Step 4 (bf16 only), infer after allow: bfloat16 keeps fp32's range, so an infer op fed by an
  // allow op and by nothing fragile can follow it. The fp32-stream rule of step 3 holds here too
  // (one rule in both modes): a residual Add(x, attention) stays fp32, so the stream is not
  // rounded to bfloat16's 8 bits at every layer.
  if (options.mode === 'bf16') {
    for (const node of nodes) {
      if (!isProcessable(node) || colorOf(node) !== 'NONE' || listOf(node) !== 'infer' || !accepts(node)) continue;
      const producers = ins(node);
      const allowProducer = producers.find((p) => colorOf(p) === 'ALLOW');
      if (!allowProducer || producers.some((p) => colorOf(p) === 'DENY')) continue;
      const source = fp32Source(node);
      if (source !== undefined) {
        decide(node, 'NONE', 'fp32-stream', `input '${source}' is an fp32 value from outside the low-precision region`);
        continue;
      }
      decide(node, 'ALLOW', 'infer-after-allow', `fed by ${describeNode(allowProducer)} and nothing fragile (bf16 keeps fp32's range)`);
    }
  }

  // Step 5, allow through clear: data-movement ops next to allow ops follow them, in both
  // directions, so a Reshape or Transpose between two MatMuls costs no casts. Infer ops stop it.
  const flood = nodes.filter((node) => colorOf(node) === 'ALLOW');
  while (flood.length) {
    const from = flood.pop() as onnx.INodeProto;
    const readers = outs(from);
    for (const next of [...readers, ...ins(from)]) {
      if (!isProcessable(next) || colorOf(next) !== 'NONE' || listOf(next) !== 'clear' || !accepts(next)) continue;
      // Forward, the fp32-stream rule again: a Concat of an allow op's output and an fp32 stream stays fp32.
      if (readers.includes(next) && fp32Source(next) !== undefined) continue;
      decide(next, 'ALLOW', 'clear-flood', `next to ${describeNode(from)}`);
      flood.push(next);
    }
  }

  return { decisions, facts };
}
