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
import type { AttributeCondition, ListName, OpLists } from './op-lists.js';
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

/** What painting found for one node; cast planning reads both. */
export interface PaintedNode {
  decision: NodeDecision;
  facts: NodeFacts;
  /**
   * Bit i set: input i is float32 (when the node has at most MAX_TYPE_BITS inputs). Painting looks
   * each type up once and cast planning reads these bits: a type lookup is a hash on a big Map.
   */
  floatInputs: number;
  /** Bit i set: output i is float32 (same limit). */
  floatOutputs: number;
}

/** Values per node whose float32-ness fits the bit masks of PaintedNode; beyond, look types up. */
export const MAX_TYPE_BITS = 31;

/** Whether input `index` of a painted node is float32, from its bits when they cover it. */
export function isFloatInput(painted: PaintedNode | undefined, node: onnx.INodeProto, index: number, scope: GraphScope, types: ElemTypes): boolean {
  if (painted && (node.input as string[]).length <= MAX_TYPE_BITS) return ((painted.floatInputs >>> index) & 1) === 1;
  return types.get(scope, (node.input as string[])[index] as string) === DataType.FLOAT;
}

/** Whether output `index` of a painted node is float32, from its bits when they cover it. */
export function isFloatOutput(painted: PaintedNode | undefined, node: onnx.INodeProto, index: number, scope: GraphScope, types: ElemTypes): boolean {
  if (painted && (node.output as string[]).length <= MAX_TYPE_BITS) return ((painted.floatOutputs >>> index) & 1) === 1;
  return types.get(scope, (node.output as string[])[index] as string) === DataType.FLOAT;
}

/** The float32 bits of a list of looked-up types (0 beyond MAX_TYPE_BITS, where callers look up). */
function floatBits(valueTypes: ReadonlyArray<number | undefined>): number {
  if (valueTypes.length > MAX_TYPE_BITS) return 0;
  let bits = 0;
  for (let i = 0; i < valueTypes.length; i++) if (valueTypes[i] === DataType.FLOAT) bits |= 1 << i;
  return bits;
}

export interface ScopePaint {
  /** Every decided node's decision, in the topological order painting used. */
  decisions: NodeDecision[];
  /**
   * Decision and facts by node: one Map for both (with the painting's own records in it), where
   * a Map each for decisions, facts and records hashed every node three times.
   */
  nodes: ReadonlyMap<onnx.INodeProto, PaintedNode>;
}

const STANDARD_DOMAINS = new Set(['', 'ai.onnx.ml']);

export function analyzeNode(node: onnx.INodeProto, scope: GraphScope, types: ElemTypes, opsets: OpsetMap, target: number): NodeFacts {
  const schema = schemaOf(node, opsets);
  if (!schema) return { schema, mainVar: undefined, convertedVars: new Set(), acceptsTarget: false };
  return factsOf(node, schema, typesOfValues(node.input, scope, types, []), typesOfValues(node.output, scope, types, []), target);
}

/** The element types of `names` into `into` (emptied first; undefined for '' and unknown). */
function typesOfValues(names: string[] | null | undefined, scope: GraphScope, types: ElemTypes, into: Array<number | undefined>): Array<number | undefined> {
  into.length = 0;
  if (names) for (const name of names) into.push(name ? types.get(scope, name) : undefined);
  return into;
}

/** Facts of a node with a schema, from the types of its inputs and outputs (looked up once per node). */
function factsOf(node: onnx.INodeProto, schema: OpSchema, inputTypes: ReadonlyArray<number | undefined>, outputTypes: ReadonlyArray<number | undefined>, target: number): NodeFacts {
  return sharedFacts(schema, mainVarFor(schema, inputTypes, outputTypes), target, node);
}

function mainVarFor(schema: OpSchema, inputTypes: ReadonlyArray<number | undefined>, outputTypes: ReadonlyArray<number | undefined>): string | undefined {
  // Plain loops, the first float32 actual wins: this runs once per node of the graph.
  const mainVar = mainVarOf(inputTypes, schema, true);
  return mainVar === undefined ? mainVarOf(outputTypes, schema, false) : mainVar;
}

/**
 * What painting needs to know about one op of the default domain, found once per op type and
 * scope: its schema, its list entry, its facts by main type variable and its reason texts. A node
 * then costs one Map lookup by op type, where schemaOf, the list lookup (a key string built per
 * node) and the facts cache (three Maps) cost several.
 */
interface OpInfo {
  schema: OpSchema | undefined;
  listed: ReturnType<OpLists['lookup']>;
  /** Facts by main type variable ('' for none), for this paint's target. */
  facts: Map<string, NodeFacts>;
}

function mainVarOf(valueTypes: ReadonlyArray<number | undefined>, schema: OpSchema, inputs: boolean): string | undefined {
  for (let i = 0; i < valueTypes.length; i++) {
    if (valueTypes[i] !== DataType.FLOAT) continue;
    const formal = inputs ? typeVariableOfInput(schema, i) : typeVariableOfOutput(schema, i);
    if (!formal || formal.heterogeneous || !(formal.typeStr in schema.typeConstraints)) continue;
    return formal.typeStr;
  }
  return undefined;
}

/**
 * The facts depend only on the schema (which fixes domain and op), the main type variable and the
 * target, so nodes alike share one read-only object: a big graph allocated a Set per node here.
 * Keyed by target, then by main type variable: no key string is built per node.
 */
const factsBySchema = new WeakMap<OpSchema, Map<number, Map<string, NodeFacts>>>();

function sharedFacts(schema: OpSchema, mainVar: string | undefined, target: number, node: onnx.INodeProto): NodeFacts {
  let bySchema = factsBySchema.get(schema);
  if (!bySchema) factsBySchema.set(schema, (bySchema = new Map()));
  let byVar = bySchema.get(target);
  if (!byVar) bySchema.set(target, (byVar = new Map()));
  const key = mainVar ?? '';
  const known = byVar.get(key);
  if (known) return known;
  const convertedVars = new Set(mainVar ? [mainVar, ...tiedTypeVariables(node.domain, node.op_type)] : []);
  const acceptsTarget = mainVar !== undefined && [...convertedVars].every((v) => (schema.typeConstraints[v] ?? []).includes(tensorTypeString(target)));
  const facts: NodeFacts = { schema, mainVar, convertedVars, acceptsTarget };
  byVar.set(key, facts);
  return facts;
}

/**
 * A float-capable input or output whose element type nobody could tell makes the node
 * unprocessable: a sequence or optional of tensors (its element type is not tracked), or a
 * tensor with no type information.
 */
function untypedFloatValue(
  node: onnx.INodeProto,
  schema: OpSchema,
  inputTypes: ReadonlyArray<number | undefined>,
  outputTypes: ReadonlyArray<number | undefined>,
): { name: string; rule: RuleCode } | undefined {
  // Only a value without a type needs its formal: nearly every value has one.
  const check = (name: string, formal: ReturnType<typeof typeVariableOfInput>) => {
    if (!formal) return undefined;
    const allowed = typesOf(schema, formal).filter((t) => /float/.test(t));
    if (!allowed.length) return undefined;
    return { name, rule: allowed.every((t) => t.startsWith('tensor(')) ? ('unknown-type' as const) : ('non-tensor-types' as const) };
  };
  const inputs = node.input ?? [];
  for (let i = 0; i < inputs.length; i++) {
    const name = inputs[i];
    if (!name || inputTypes[i] !== undefined) continue;
    const found = check(name, typeVariableOfInput(schema, i));
    if (found) return found;
  }
  const outputs = node.output ?? [];
  for (let i = 0; i < outputs.length; i++) {
    const name = outputs[i];
    if (!name || outputTypes[i] !== undefined) continue;
    const found = check(name, typeVariableOfOutput(schema, i));
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

/**
 * One node of a scope while it is painted: its decision, its effective list (a node the target
 * promotes paints as an allow op) and its float32 edges to other processable nodes. The steps walk
 * these records instead of looking each node up in Maps again and again.
 */
interface Vertex extends PaintedNode {
  node: onnx.INodeProto;
  list: ListName | undefined;
  processable: boolean;
  acceptsTarget: boolean;
  /** Processable producers of its float32 inputs, one entry per edge, in input order. */
  ins: Vertex[];
  /** Processable readers of its float32 outputs, one entry per edge. */
  outs: Vertex[];
  /** Step 2: a deny or infer node, or a clear node a deny or infer node is reachable from. */
  passable: boolean;
  /** Step 3: reachable from an allow node through clear and infer nodes only. */
  downstreamOfAllow: boolean;
}

/**
 * Every decision's castsAdded until cast planning adds one (most nodes get none): frozen, so a
 * push to it throws instead of adding to every node's list.
 */
const NO_CASTS = Object.freeze([]) as unknown as string[];

/** Shared by every vertex without edges: most nodes of a big graph have none. Never pushed to. */
const NO_VERTICES: Vertex[] = [];

/** Reason texts that depend only on the op or the list, made once per paint instead of once per node. */
class ReasonTexts {
  /** By kind (or domain), then by key: no key string is built per node. */
  private readonly byKind = new Map<string, Map<string, string>>();

  get(kind: string, key: string, make: () => string): string {
    let byKey = this.byKind.get(kind);
    if (!byKey) this.byKind.set(kind, (byKey = new Map()));
    let text = byKey.get(key);
    if (text === undefined) byKey.set(key, (text = make()));
    return text;
  }
}

export function paintScope(scope: GraphScope, types: ElemTypes, opsets: OpsetMap, lists: OpLists, options: PaintOptions): ScopePaint {
  const nodes = scope.topologicalOrder().order;
  const decisions: NodeDecision[] = new Array(nodes.length);
  const texts = new ReasonTexts();
  /** Unlisted ops' texts by domain, then op. */
  const unlistedTexts = new ReasonTexts();
  const decide = (vertex: Vertex, color: NodeDecision['color'], rule: RuleCode, reason: string): void => {
    const decision = vertex.decision;
    decision.color = color;
    decision.rule = rule;
    decision.reason = reason;
  };
  const vertices: Vertex[] = new Array(nodes.length);
  const vertexOf = new Map<onnx.INodeProto, Vertex>();
  // Each node's input and output types, looked up once and read by every check below.
  const inputTypes: Array<number | undefined> = [];
  const outputTypes: Array<number | undefined> = [];
  const opInfos = new Map<string, OpInfo>();
  /** The default domain's ops from opInfos; other domains (rare) looked up per node. */
  const opInfoOf = (node: onnx.INodeProto): OpInfo | undefined => {
    if (normalizeDomain(node.domain) !== '') return undefined;
    const op = node.op_type ?? '';
    let info = opInfos.get(op);
    if (!info) opInfos.set(op, (info = { schema: schemaOf(node, opsets), listed: lists.lookup(node.domain, node.op_type), facts: new Map() }));
    return info;
  };

  // Classification: list membership and whether the node takes part at all.
  for (let position = 0; position < nodes.length; position++) {
    const node = nodes[position] as onnx.INodeProto;
    const info = opInfoOf(node);
    const schema = info ? info.schema : schemaOf(node, opsets);
    // Every node's types, schema or not: cast planning reads them as bits.
    typesOfValues(node.input, scope, types, inputTypes);
    typesOfValues(node.output, scope, types, outputTypes);
    let nodeFacts: NodeFacts;
    if (!schema) nodeFacts = { schema, mainVar: undefined, convertedVars: new Set(), acceptsTarget: false };
    else if (!info) nodeFacts = factsOf(node, schema, inputTypes, outputTypes, options.target);
    else {
      const mainVar = mainVarFor(schema, inputTypes, outputTypes);
      const key = mainVar ?? '';
      const known = info.facts.get(key);
      if (known) nodeFacts = known;
      else info.facts.set(key, (nodeFacts = sharedFacts(schema, mainVar, options.target, node)));
    }
    const listed = info ? info.listed : lists.lookup(node.domain, node.op_type);
    const entry = listed && conditionHolds(node, listed.onlyWhen) ? listed : undefined;
    const decision: NodeDecision = {
      node, scope, list: entry?.list, color: 'NONE', rule: 'unlisted', reason: '', processable: false, castsAdded: NO_CASTS,
    };
    decisions[position] = decision;
    const vertex: Vertex = {
      node, decision, facts: nodeFacts, floatInputs: floatBits(inputTypes), floatOutputs: floatBits(outputTypes),
      list: entry?.list, processable: false, acceptsTarget: nodeFacts.acceptsTarget, ins: NO_VERTICES, outs: NO_VERTICES, passable: false, downstreamOfAllow: false,
    };
    vertices[position] = vertex;
    vertexOf.set(node, vertex);
    if (!nodeFacts.schema) {
      const domain = normalizeDomain(node.domain);
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
    const untyped = untypedFloatValue(node, nodeFacts.schema, inputTypes, outputTypes);
    if (untyped) {
      decision.rule = untyped.rule;
      decision.reason =
        untyped.rule === 'unknown-type'
          ? `element type of '${untyped.name}' is unknown`
          : `'${untyped.name}' is a sequence or optional whose element type the pass does not track`;
      continue;
    }
    if (!nodeFacts.mainVar) {
      const why = whyNoFloat32(node, scope, types);
      decision.rule = why.rule;
      decision.reason = why.reason;
      if ('computesIn' in why) decision.computesIn = why.computesIn;
      continue;
    }
    if (!entry && !inputTypes.includes(DataType.FLOAT)) {
      // Like Grappler's Const nodes: a node that makes floats from attributes or shapes alone
      // (Constant, ConstantOfShape, RandomNormal) is a weight source; its readers decide.
      decision.rule = 'constant-source';
      decision.reason = 'creates float values from attributes or shapes; its readers decide their precision';
      continue;
    }
    decision.processable = true;
    vertex.processable = true;
    decision.rule = entry ? 'not-between-allow' : 'unlisted';
    const op = node.op_type ?? '';
    decision.reason = entry
      ? texts.get('list', entry.list, () => `${entry.list}-list op not between allow ops`)
      : listed
        ? `${node.op_type} is on the ${listed.list} list only with ${listed.onlyWhen?.attribute} in [${listed.onlyWhen?.in.join(', ')}]`
        : unlistedTexts.get(node.domain ?? '', op, () => unlistedReason(lists, node));
  }

  // The target's kernel facts (target-policy.ts): a promoted node paints as an allow op.
  const { promoted, kept } = options.targetPolicy?.promotions(scope, nodes, (node) => vertexOf.get(node)?.decision) ?? { promoted: new Map(), kept: new Map() };
  if (promoted.size) for (const node of promoted.keys()) (vertexOf.get(node) as Vertex).list = 'allow';

  // float32 edges between processable nodes of this scope.
  for (const vertex of vertices) {
    if (!vertex.processable) continue;
    const inputs = vertex.node.input;
    if (!inputs) continue;
    for (let i = 0; i < inputs.length; i++) {
      const name = inputs[i];
      if (!name || !isFloatInput(vertex, vertex.node, i, scope, types)) continue;
      const producerNode = scope.producerOf(name)?.node;
      const producer = producerNode && vertexOf.get(producerNode);
      if (!producer || !producer.processable) continue;
      if (producer.outs === NO_VERTICES) producer.outs = [];
      producer.outs.push(vertex);
      if (vertex.ins === NO_VERTICES) vertex.ins = [];
      vertex.ins.push(producer);
    }
  }

  // Step 1, allow: every processable allow-list op (or --force-fp16 node) becomes ALLOW.
  // Step 6 is folded in here: an op whose schema cannot take the target type is never painted.
  for (const vertex of vertices) {
    if (!vertex.processable) continue;
    const node = vertex.node;
    const forced = options.forceFp16(node);
    if (vertex.list !== 'allow' && !forced) continue;
    if (!vertex.acceptsTarget) {
      decide(vertex, 'NONE', 'schema-forbids', `${node.op_type} at this opset does not accept ${tensorTypeString(options.target)}`);
      continue;
    }
    const promotion = promoted.get(node);
    if (promotion && !forced) decide(vertex, 'ALLOW', 'target-kernel', promotion.reason);
    else if (forced) decide(vertex, 'ALLOW', 'force-fp16', 'pinned to the target type by --force-fp16');
    else decide(vertex, 'ALLOW', 'allow-list', texts.get('allow', node.op_type ?? '', () => `${node.op_type} is on the allow list`));
  }

  // Step 2, deny forward through clear and infer. This is done so a fragile value is never
  // squeezed into fp16 on its way to another numeric op. Example:
  //   deny -> infer -> clear -> infer -> clear -> allow -> infer
  // becomes
  //   deny -> deny  -> deny  -> deny  -> clear -> allow -> infer
  // The trailing clear stays unpainted: no deny or infer node is reachable from it through clear only.
  const stack: Vertex[] = [];
  for (const vertex of vertices) {
    if (vertex.processable && vertex.decision.color !== 'ALLOW' && (vertex.list === 'deny' || vertex.list === 'infer')) {
      vertex.passable = true;
      stack.push(vertex);
    }
  }
  while (stack.length) {
    const vertex = stack.pop() as Vertex;
    for (const producer of vertex.ins) {
      if (producer.list === 'clear' && producer.decision.color !== 'ALLOW' && !producer.passable) {
        producer.passable = true;
        stack.push(producer);
      }
    }
  }
  for (const vertex of vertices) {
    if (!vertex.processable || vertex.list !== 'deny') continue;
    const keptWhy = kept.get(vertex.node);
    const op = vertex.node.op_type;
    decide(vertex, 'DENY', 'deny-list', keptWhy ? `${op} is on the deny list; ${keptWhy}` : texts.get('deny', op ?? '', () => `${op} is on the deny list`));
  }
  // Two parallel stacks (node, the node it was reached through), not a pair per step.
  const walk: Vertex[] = [];
  const walkVia: Vertex[] = [];
  for (const origin of vertices) {
    if (!origin.processable || origin.list !== 'deny') continue;
    for (const next of origin.outs) {
      walk.push(next);
      walkVia.push(origin);
    }
    let originText: string | undefined;
    while (walk.length) {
      const vertex = walk.pop() as Vertex;
      const via = walkVia.pop() as Vertex;
      if (!vertex.passable || vertex.decision.color === 'DENY') continue;
      originText ??= describeNode(origin.node);
      decide(vertex, 'DENY', 'deny-upstream', via === origin ? `downstream of ${originText}` : `downstream of ${originText} through ${describeNode(via.node)}`);
      for (const next of vertex.outs) {
        walk.push(next);
        walkVia.push(vertex);
      }
    }
  }

  // Step 3, clear and infer between allow. This is done so a chain allow -> infer -> allow runs
  // entirely in the target type instead of casting down and up again around the middle node.
  // Amended from Grappler: a node joins only if every float32 input comes from the low-precision
  // region or from a weight. This is done so an fp32 stream that merely passes allow ops, such as
  // a transformer's residual stream fed by fp32 embeddings, stays fp32 (PyTorch's autocast keeps
  // it fp32 by type promotion). Example, x a graph input:
  //   Add(x, MatMul) -> MatMul   stays   fp32 Add, with one Cast on the MatMul's output
  const isBridge = (vertex: Vertex): boolean =>
    vertex.processable && vertex.decision.color === 'NONE' && vertex.acceptsTarget && (vertex.list === 'clear' || vertex.list === 'infer');
  // In the order they were found (the recheck below walks them in reverse).
  const downstreamOfAllow: Vertex[] = [];
  const forward: Vertex[] = [];
  for (const vertex of vertices) {
    if (vertex.decision.color !== 'ALLOW') continue;
    pushAll(forward, vertex.outs);
    while (forward.length) {
      const next = forward.pop() as Vertex;
      if (next.downstreamOfAllow || !isBridge(next)) continue;
      next.downstreamOfAllow = true;
      downstreamOfAllow.push(next);
      pushAll(forward, next.outs);
    }
  }
  const fp32Source = (vertex: Vertex): string | undefined => {
    const node = vertex.node;
    const inputs = node.input;
    if (!inputs) return undefined;
    for (let i = 0; i < inputs.length; i++) {
      const name = inputs[i];
      if (!name || !isFloatInput(vertex, node, i, scope, types)) continue;
      if (!isWeightOrLowPrecision(name)) return name;
    }
    return undefined;
  };
  /**
   * Whether a float32 input comes from a weight or from the low-precision region. Walks the
   * scopes outwards as GraphScope.resolve would, without allocating its answer.
   */
  const isWeightOrLowPrecision = (name: string): boolean => {
    for (let owner: GraphScope | undefined = scope; owner; owner = owner.parent) {
      const produced = owner.producerOf(name);
      if (produced) {
        if (owner !== scope) return false;
        const producer = vertexOf.get(produced.node);
        if (producer?.decision.rule === 'constant-source') return true;
        return producer?.decision.color === 'ALLOW' || producer?.downstreamOfAllow === true;
      }
      // An input with a default (an initializer of the same name) or named a weight is a weight.
      if (owner.inputs.has(name)) return owner.initializers.has(name) || options.weightInputs.has(name);
      if (owner.initializers.has(name)) return true;
    }
    return false;
  };
  const excluded: Array<[Vertex, string]> = [];
  const recheck = downstreamOfAllow;
  while (recheck.length) {
    const vertex = recheck.pop() as Vertex;
    if (!vertex.downstreamOfAllow) continue;
    const source = fp32Source(vertex);
    if (source === undefined) continue;
    vertex.downstreamOfAllow = false;
    excluded.push([vertex, source]);
    pushAll(recheck, vertex.outs);
  }
  const backward: Vertex[] = [];
  for (const allowVertex of vertices) {
    const rule = allowVertex.decision.rule;
    if (allowVertex.decision.color !== 'ALLOW' || (rule !== 'allow-list' && rule !== 'force-fp16' && rule !== 'target-kernel')) continue;
    pushAll(backward, allowVertex.ins);
    let feeding: string | undefined;
    while (backward.length) {
      const previous = backward.pop() as Vertex;
      if (!previous.downstreamOfAllow || previous.decision.color !== 'NONE') continue;
      feeding ??= `between allow ops, feeding ${describeNode(allowVertex.node)}`;
      decide(previous, 'ALLOW', 'between-allow', feeding);
      pushAll(backward, previous.ins);
    }
  }
  for (const [vertex, source] of excluded) {
    if (vertex.decision.color === 'NONE') decide(vertex, 'NONE', 'fp32-stream', `input '${source}' is an fp32 value from outside the low-precision region`);
  }

  // Step 4 (bf16 only), infer after allow: bfloat16 keeps fp32's range, so an infer op fed by an
  // allow op and by nothing fragile can follow it. The fp32-stream rule of step 3 holds here too
  // (one rule in both modes): a residual Add(x, attention) stays fp32, so the stream is not
  // rounded to bfloat16's 8 bits at every layer.
  if (options.mode === 'bf16') {
    for (const vertex of vertices) {
      if (!vertex.processable || vertex.decision.color !== 'NONE' || vertex.list !== 'infer' || !vertex.acceptsTarget) continue;
      const producers = vertex.ins;
      let allowProducer: Vertex | undefined;
      let denyProducer = false;
      for (const producer of producers) {
        if (!allowProducer && producer.decision.color === 'ALLOW') allowProducer = producer;
        if (producer.decision.color === 'DENY') denyProducer = true;
      }
      if (!allowProducer || denyProducer) continue;
      const source = fp32Source(vertex);
      if (source !== undefined) {
        decide(vertex, 'NONE', 'fp32-stream', `input '${source}' is an fp32 value from outside the low-precision region`);
        continue;
      }
      decide(vertex, 'ALLOW', 'infer-after-allow', `fed by ${describeNode(allowProducer.node)} and nothing fragile (bf16 keeps fp32's range)`);
    }
  }

  // Step 5, allow through clear: data-movement ops next to allow ops follow them, in both
  // directions, so a Reshape or Transpose between two MatMuls costs no casts. Infer ops stop it.
  const flood: Vertex[] = [];
  for (const vertex of vertices) if (vertex.decision.color === 'ALLOW') flood.push(vertex);
  const floods = (from: Vertex, next: Vertex, isReader: boolean): boolean => {
    if (!next.processable || next.decision.color !== 'NONE' || next.list !== 'clear' || !next.acceptsTarget) return false;
    // Forward, the fp32-stream rule again: a Concat of an allow op's output and an fp32 stream stays fp32.
    if (isReader && fp32Source(next) !== undefined) return false;
    decide(next, 'ALLOW', 'clear-flood', `next to ${describeNode(from.node)}`);
    return true;
  };
  while (flood.length) {
    const from = flood.pop() as Vertex;
    const readers = from.outs;
    // Readers first, then producers, each in edge order: the order decides which neighbour a reason names.
    for (const next of readers) if (floods(from, next, true)) flood.push(next);
    for (const next of from.ins) if (floods(from, next, readers.includes(next))) flood.push(next);
  }

  // The edges are painting's alone: let them go before cast planning.
  for (const vertex of vertices) {
    vertex.ins = NO_VERTICES;
    vertex.outs = NO_VERTICES;
  }
  return { decisions, nodes: vertexOf };
}

/** Pushes every element (a spread of a long array into push() can overflow the stack). */
function pushAll<T>(target: T[], items: readonly T[]): void {
  for (let i = 0; i < items.length; i++) target.push(items[i] as T);
}
