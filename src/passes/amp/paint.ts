/**
 * Painting: Grappler's automatic-mixed-precision coloring adapted to ONNX nodes. Every node of a
 * scope becomes ALLOW (computes in the target type), DENY (kept fp32 because something fragile
 * feeds it) or NONE (kept fp32), with the rule and reason that decided it. Edges are the float32
 * tensors between nodes of one scope: those are the only values the pass can change.
 */
import { DataType, tensorTypeString } from '../../onnx/data-types.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import { slotCountOf, type GraphScope } from '../../onnx/graph.js';
import { normalizeDomain, type OpsetMap } from '../../onnx/opsets.js';
import { typeVariableOfInput, typeVariableOfOutput, typesOf, type OpSchema } from '../../onnx/schema.js';
import { schemaOf, type ElemTypes } from '../../onnx/type-inference.js';
import { AmpError } from '../../onnx/errors.js';
import { describeNode, type Color, type NodeDecision, type RuleCode } from './decisions.js';
import { whyNoFloat32 } from './no-float32.js';
import { tiedTypeVariables } from './tied-types.js';
import { float32BodyReason } from './float32-bodies.js';
import type { AttributeCondition, ListName, OpLists } from './op-lists.js';
import type { PinnedNode } from './weight-range.js';
import { findAttribute } from '../../onnx/attributes.js';
import { longToNumber } from '../../onnx/external-data.js';
import { printable } from '../../onnx/printable.js';
import type { ScopePromotions, TargetPolicy } from './target-policy.js';
import { quantizedUnitMembers } from './quantized-units.js';
import { opRuleTable } from './op-rules.js';
import { decodeUtf8 } from '../../onnx/utf8.js';

/** Ops whose output is a weight when every input is one (rules/weight-carriers.json), with the reason. */
const weightCarrier = opRuleTable<{ op: string; domain?: string; reason: string }, string>('weight-carriers.json', (entry) => entry.reason);

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

/**
 * The element types of `names` into `into` (undefined for '' and unknown), and their float32 bits
 * (0 beyond MAX_TYPE_BITS, where callers look up): one loop per list, not a second over the types.
 */
function floatBitsOfValues(
  names: string[] | null | undefined,
  scope: GraphScope,
  types: ElemTypes,
  into: Array<number | undefined>,
  hints: Int32Array | undefined,
  hintsAt: number,
): number {
  const count = names ? names.length : 0;
  let bits = 0;
  for (let i = 0; i < count; i++) {
    const name = (names as string[])[i];
    const type = name ? types.infoById(scope, scope.hintedValueId(hints?.[hintsAt + i], name), name)?.elemType : undefined;
    // Written over, not pushed after emptying: `length = 0` let go of the store, and every node
    // allocated a new one.
    into[i] = type;
    if (type === DataType.FLOAT) bits |= 1 << i;
  }
  if (into.length !== count) into.length = count;
  return count > MAX_TYPE_BITS ? 0 : bits;
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
  const acceptsTarget =
    mainVar !== undefined && [...convertedVars].every((v) => (schema.typeConstraints[v] ?? []).includes(tensorTypeString(target))) && float32BodyReason(node.domain, node.op_type) === undefined;
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
  const value = attribute ? (attribute.s?.length ? decodeUtf8(attribute.s) : longToNumber(attribute.i ?? 0)) : condition.default;
  return value !== undefined && condition.in.includes(value);
}

function unlistedReason(lists: OpLists, node: onnx.INodeProto): string {
  const deliberate = lists.unlistedReason(node.domain, node.op_type);
  return deliberate ? `${node.op_type} is deliberately on no list (rules/unlisted.json): ${deliberate}` : `${node.op_type} is on no list`;
}

/**
 * Every decision's castsAdded until cast planning adds one (most nodes get none): frozen, so a
 * push to it throws instead of adding to every node's list.
 */
const NO_CASTS = Object.freeze([]) as unknown as string[];

/**
 * A node's decision and what cast planning reads of its painting, in one object: the decision is
 * its own PaintedNode (`decision` is a getter on the prototype, no field). A big graph kept a
 * decision and a painting record of 15 fields per node; this is one object of 11 fields, and
 * painting's working state lives in typed arrays that are dropped when painting ends.
 */
class PaintedDecision implements NodeDecision, PaintedNode {
  node: onnx.INodeProto;
  scope: GraphScope;
  list: ListName | undefined;
  color: Color = 'NONE';
  rule: RuleCode = 'unlisted';
  reason = '';
  processable = false;
  castsAdded: string[] = NO_CASTS;
  facts: NodeFacts;
  floatInputs: number;
  floatOutputs: number;
  // Set by few nodes: no field (and no memory) on the others.
  declare castsOnOutputs?: string[];
  declare computesIn?: string;

  constructor(node: onnx.INodeProto, scope: GraphScope, list: ListName | undefined, facts: NodeFacts, floatInputs: number, floatOutputs: number) {
    this.node = node;
    this.scope = scope;
    this.list = list;
    this.facts = facts;
    this.floatInputs = floatInputs;
    this.floatOutputs = floatOutputs;
  }

  get decision(): NodeDecision {
    return this;
  }
}

/**
 * Node -> its painting, as a ReadonlyMap over the decisions in painting's order. Most lookups walk
 * the nodes in that order (cast planning's pass over a sorted scope, the target's promotions), so a
 * lookup first tries the position after the last one found: a big graph's painting then builds no
 * Map from node to position at all (it cost a hash insert per node and a cache miss per edge). The
 * Map is built on the first lookup out of order.
 */
class PaintedNodes implements ReadonlyMap<onnx.INodeProto, PaintedNode> {
  /** The position after the last one found. */
  private next = 0;
  private byNode: Map<onnx.INodeProto, number> | undefined;

  constructor(private readonly painted: readonly PaintedDecision[]) {}

  /** The node's position in painting's order, or undefined when painting did not decide it. */
  positionOf(node: onnx.INodeProto): number | undefined {
    const painted = this.painted;
    let position: number | undefined = this.next;
    if (painted[position]?.node !== node) {
      // A new walk from the start, else a lookup.
      if (painted[0]?.node === node) position = 0;
      else {
        if (!this.byNode) {
          this.byNode = new Map();
          for (let at = 0; at < painted.length; at++) this.byNode.set((painted[at] as PaintedDecision).node, at);
        }
        position = this.byNode.get(node);
        if (position === undefined) return undefined;
      }
    }
    this.next = position + 1;
    return position;
  }

  get size(): number {
    return this.painted.length;
  }

  get(node: onnx.INodeProto): PaintedDecision | undefined {
    const position = this.positionOf(node);
    return position === undefined ? undefined : this.painted[position];
  }

  has(node: onnx.INodeProto): boolean {
    return this.positionOf(node) !== undefined;
  }

  *entries(): Generator<[onnx.INodeProto, PaintedNode], undefined, unknown> {
    for (const painted of this.painted) yield [painted.node, painted];
  }

  *keys(): Generator<onnx.INodeProto, undefined, unknown> {
    for (const painted of this.painted) yield painted.node;
  }

  *values(): Generator<PaintedNode, undefined, unknown> {
    yield* this.painted;
  }

  [Symbol.iterator](): Generator<[onnx.INodeProto, PaintedNode], undefined, unknown> {
    return this.entries();
  }

  forEach(callback: (value: PaintedNode, key: onnx.INodeProto, map: ReadonlyMap<onnx.INodeProto, PaintedNode>) => void, thisArg?: unknown): void {
    for (const painted of this.painted) callback.call(thisArg, painted, painted.node, this);
  }
}

/**
 * A node's effective list as a byte of the working arrays (a node the target promotes is
 * ALLOW_LIST); 0, as the arrays start, is no list.
 */
const ALLOW_LIST = 1;
const DENY_LIST = 2;
const INFER_LIST = 3;
const CLEAR_LIST = 4;
const LIST_CODES: Readonly<Record<ListName, number>> = { allow: ALLOW_LIST, deny: DENY_LIST, infer: INFER_LIST, clear: CLEAR_LIST };

/** A node's color as a byte of the working arrays; COLORS names them. */
const NONE = 0;
const ALLOW = 1;
const DENY = 2;
const COLORS: readonly Color[] = ['NONE', 'ALLOW', 'DENY'];

/** Bits of a node's working flags. */
const PROCESSABLE = 1;
const ACCEPTS_TARGET = 2;
/** Step 2: a deny or infer node, or a clear node a deny or infer node is reachable from. */
const PASSABLE = 4;
/** Step 3: reachable from an allow node through clear and infer nodes only. */
const DOWNSTREAM_OF_ALLOW = 8;

/**
 * What a float32 input of a processable node is, one slot per such input in input order: the
 * position of the processable node of this scope that produces it (an edge), or one of these.
 * The slots are both the node's incoming edges and the fp32-stream rule's answers without a lookup.
 */
/** A weight: produced here by a constant source, or from outside (see SLOT_OUTSIDE). */
const SLOT_WEIGHT = -1;
/** Never low precision: produced here by a node that takes no part (or is not in the order), or an outside value no weight. */
const SLOT_FP32 = -2;
/**
 * Not produced in this scope: a graph input, an initializer or an outer value. Whether it is a
 * weight is looked up when first asked, and the slot becomes SLOT_WEIGHT or SLOT_FP32.
 */
const SLOT_OUTSIDE = -3;

/**
 * A stack of node positions in an Int32Array that grows and never shrinks: an array used as a
 * stack reallocated its store as it grew and shrank again, most of painting's garbage.
 */
class PositionStack {
  private items = new Int32Array(256);
  length = 0;

  push(position: number): void {
    if (this.length === this.items.length) {
      const grown = new Int32Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.length++] = position;
  }

  pop(): number {
    return this.items[--this.length] as number;
  }

  at(index: number): number {
    return this.items[index] as number;
  }
}

/**
 * Reason texts that depend only on the op or the list, made once per paint instead of once per
 * node. `make` gets the node that asked first: a maker made once, not a closure per node.
 */
class ReasonTexts {
  /** By kind (or domain), then by key: no key string is built per node. */
  private readonly byKind = new Map<string, Map<string, string>>();

  get(kind: string, key: string, node: onnx.INodeProto, make: (node: onnx.INodeProto) => string): string {
    let byKey = this.byKind.get(kind);
    if (!byKey) this.byKind.set(kind, (byKey = new Map()));
    let text = byKey.get(key);
    if (text === undefined) byKey.set(key, (text = make(node)));
    return text;
  }
}

/** A processable listed op's reason until a step paints it, by list. */
const NOT_BETWEEN_ALLOW: Readonly<Record<ListName, string>> = {
  allow: 'allow-list op not between allow ops',
  deny: 'deny-list op not between allow ops',
  infer: 'infer-list op not between allow ops',
  clear: 'clear-list op not between allow ops',
};
const allowListed = (node: onnx.INodeProto): string => `${node.op_type} is on the allow list`;
const denyListed = (node: onnx.INodeProto): string => `${node.op_type} is on the deny list`;

/**
 * Paints one scope, step by step as Grappler's AutoMixedPrecisionImpl::Optimize() does. The steps
 * share one ScopePainting: the nodes by their position in the topological order, their lists,
 * colors and flags as bytes, and the float32 edges between processable nodes as Int32Arrays.
 */
export function paintScope(scope: GraphScope, types: ElemTypes, opsets: OpsetMap, lists: OpLists, options: PaintOptions): ScopePaint {
  const painting = new ScopePainting(scope, types, opsets, lists, options);
  painting.classifyNodes();
  painting.applyTargetPromotions();
  painting.buildFloat32Edges();
  painting.paintAllowOps(); // step 1, with step 6
  painting.propagateDenyForward(); // step 2
  painting.paintBetweenAllow(); // step 3
  if (options.mode === 'bf16') painting.paintInferAfterAllow(); // step 4
  painting.floodAllowThroughClear(); // step 5
  return { decisions: painting.decisions, nodes: painting.painted };
}

/** The edge arrays until buildFloat32Edges() lays them out. */
const NO_POSITIONS = new Int32Array(0);

/**
 * One paint of one scope: the working state every step reads and writes, as fields of one object
 * (Grappler's steps are methods over shared members the same way), where one 450-line function
 * held it in locals and closures. Lists, colors and flags are bytes in typed arrays by topological
 * position, and the float32 edges between processable nodes are Int32Arrays (incoming: the input
 * slots; outgoing: their transpose), where a record per node with arrays of records per edge was
 * most of painting's memory and garbage. A step copies the fields its loops read into locals
 * first: a loop then reads a register, not a property of `this`, per node.
 */
class ScopePainting {
  /** The scope's nodes in topological order: a node's position here indexes every array below. */
  readonly nodes: onnx.INodeProto[];
  readonly count: number;
  readonly decisions: PaintedDecision[];
  readonly painted: PaintedNodes;
  /** Each node's effective list (ALLOW_LIST...), color (NONE, ALLOW, DENY) and flags (PROCESSABLE...). */
  private readonly listCode: Uint8Array;
  private readonly color: Uint8Array;
  private readonly flags: Uint8Array;
  /**
   * Position + 1 of the node that writes each value (0: none), by the value's id in the scope's
   * index: an edge's producer is found from the id of the name its reader reads, where the
   * producer's node then had to be looked up in a Map of painting's own (a hash insert per node,
   * a cache miss per edge). Exact while every node of the scope is in the order and no value has
   * two writers (oneWriterEach); otherwise edges find their producer as GraphScope.producerNodeOf says.
   */
  private writerOf = new Int32Array(256);
  private oneWriterEach: boolean;
  /**
   * The ids of the nodes' names as the topological order or the type inference last looked them
   * up (checked before use, see GraphScope.valueIdHints()): each node's outputs, then its inputs,
   * from hintsAt[position].
   */
  private hints: Int32Array | undefined;
  private readonly hintsAt: Int32Array;
  /** Inputs of the processable nodes: at least as many as their float32 input slots. */
  private processableInputs = 0;
  /** The default domain's ops, found once per op type (see OpInfo). */
  private readonly opInfos = new Map<string, OpInfo>();
  private readonly texts = new ReasonTexts();
  /** Unlisted ops' texts by domain, then op. */
  private readonly unlistedTexts = new ReasonTexts();
  /** Reason makers for the texts above, made once per paint: they need the lists and the target. */
  private readonly unlisted: (node: onnx.INodeProto) => string;
  /** A deny-list op's reason with its list entry's why (mean and variance need fp32 accumulation...). */
  private readonly denyListedWhy: (node: onnx.INodeProto) => string;
  private readonly targetForbidden: (node: onnx.INodeProto) => string;
  /** The target's kernel facts (target-policy.ts), found by applyTargetPromotions(). */
  private promoted: ScopePromotions['promoted'] = new Map();
  private kept: ScopePromotions['kept'] = new Map();
  /** Input slots of the processable nodes (see SLOT_WEIGHT): slotStart[p] to slotStart[p + 1]. */
  private slotStart = NO_POSITIONS;
  private slots = NO_POSITIONS;
  /** Readers of each node's float32 outputs, one per edge: outs[outStart[p]] to outs[outStart[p + 1]]. */
  private outStart = NO_POSITIONS;
  private outs = NO_POSITIONS;
  /** `next to ...` of the node step 5's flood spreads from, made once for all its neighbours. */
  private floodFromText: string | undefined;

  constructor(
    private readonly scope: GraphScope,
    private readonly types: ElemTypes,
    private readonly opsets: OpsetMap,
    private readonly lists: OpLists,
    private readonly options: PaintOptions,
  ) {
    const { order, blocked } = scope.topologicalOrder();
    this.nodes = order;
    this.count = order.length;
    this.decisions = new Array(this.count);
    this.painted = new PaintedNodes(this.decisions);
    this.oneWriterEach = blocked.length === 0;
    this.listCode = new Uint8Array(this.count);
    this.color = new Uint8Array(this.count);
    this.flags = new Uint8Array(this.count);
    this.hintsAt = new Int32Array(this.count);
    this.unlisted = (node) => unlistedReason(lists, node);
    this.denyListedWhy = (node) => {
      const why = lists.lookup(node.domain, node.op_type)?.reason;
      return why ? `${denyListed(node)}: ${why}` : denyListed(node);
    };
    this.targetForbidden = (node) => {
      const body = float32BodyReason(node.domain, node.op_type);
      return body ? `${node.op_type} cannot run in ${tensorTypeString(options.target)}: ${body}` : `${node.op_type} at this opset does not accept ${tensorTypeString(options.target)}`;
    };
  }

  /** Paints a node: its color byte and its decision together. */
  private decide(position: number, code: number, rule: RuleCode, reason: string): void {
    const decision = this.decisions[position] as PaintedDecision;
    this.color[position] = code;
    decision.color = COLORS[code] as Color;
    decision.rule = rule;
    decision.reason = reason;
  }

  private nodeAt(position: number): onnx.INodeProto {
    return (this.decisions[position] as PaintedDecision).node;
  }

  /** The default domain's ops from opInfos; other domains (rare) are looked up per node. */
  private opInfoOf(node: onnx.INodeProto): OpInfo | undefined {
    if (normalizeDomain(node.domain) !== '') return undefined;
    const op = node.op_type ?? '';
    let info = this.opInfos.get(op);
    if (!info) this.opInfos.set(op, (info = { schema: schemaOf(node, this.opsets), listed: this.lists.lookup(node.domain, node.op_type), facts: new Map() }));
    return info;
  }

  /**
   * Classification: each node's decision, list membership and whether it takes part at all, with
   * the rule and reason of the nodes that do not; records who writes each value for the edges.
   */
  classifyNodes(): void {
    const { scope, types, opsets, lists, options, nodes, count, decisions, listCode, flags, hintsAt } = this;
    let { writerOf, oneWriterEach } = this;
    // Each node's input and output types, looked up once and read by every check below.
    const inputTypes: Array<number | undefined> = [];
    const outputTypes: Array<number | undefined> = [];
    const pinned = options.pinned.size ? options.pinned : undefined;
    // Quantized node units are left as they are (rules/quantized-units.json): found before painting.
    const quantizedUnits = quantizedUnitMembers(scope, nodes, types);
    let processableInputs = 0;
    /** The outputs of this scope's constant sources so far (the order is topological): weights their carriers move on. */
    const weightValues = new Set<string>();
    const hints = scope.valueIdHints(nodes);
    this.hints = hints;
    let at = 0;
    for (let position = 0; position < count; position++) {
      const node = nodes[position] as onnx.INodeProto;
      const info = this.opInfoOf(node);
      const schema = info ? info.schema : schemaOf(node, opsets);
      const outputs = node.output;
      const outputCount = outputs ? outputs.length : 0;
      hintsAt[position] = at;
      // Every node's types, schema or not: cast planning reads them as bits.
      const floatInputs = floatBitsOfValues(node.input, scope, types, inputTypes, hints, at + outputCount);
      const floatOutputs = floatBitsOfValues(outputs, scope, types, outputTypes, hints, at);
      at += slotCountOf(node);
      if (outputs) {
        for (let i = 0; i < outputs.length; i++) {
          const name = outputs[i];
          // A name the index does not know has no producer either (see slotOf).
          const id = name ? scope.hintedValueId(hints?.[hintsAt[position] + i], name) : -1;
          if (id < 0) continue;
          if (id >= writerOf.length) {
            const grown = new Int32Array(Math.max(writerOf.length * 2, id + 1));
            grown.set(writerOf);
            writerOf = grown;
          }
          if (writerOf[id] !== 0) oneWriterEach = false;
          writerOf[id] = position + 1;
        }
      }
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
      const decision = new PaintedDecision(node, scope, entry?.list, nodeFacts, floatInputs, floatOutputs);
      decisions[position] = decision;
      if (entry) listCode[position] = LIST_CODES[entry.list];
      if (nodeFacts.acceptsTarget) flags[position] = ACCEPTS_TARGET;
      if (!nodeFacts.schema) {
        const domain = normalizeDomain(node.domain);
        if (STANDARD_DOMAINS.has(domain) && !scope.subgraphsOf(node).length && opsets.has(domain)) {
          throw new AmpError(
            'UNKNOWN_OP',
            `node ${printable(describeNode(node), 300)}: op ${printable(node.op_type)} is not defined in ${printable(domain) || 'ai.onnx'} at opset ${opsets.get(domain)}`,
            { subject: node.name ?? '' },
          );
        }
        decision.rule = 'no-schema';
        decision.reason = `no schema known for ${domain ? `${domain}:` : ''}${node.op_type}; left as it is`;
        continue;
      }
      const unitReason = quantizedUnits.size ? quantizedUnits.get(node) : undefined;
      if (unitReason !== undefined) {
        decision.rule = 'quantized-unit';
        decision.reason = unitReason;
        continue;
      }
      const pin = pinned?.get(node);
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
        for (const output of node.output ?? []) if (output) weightValues.add(output);
        continue;
      }
      const carries = weightCarrier(node.domain, node.op_type);
      if (carries !== undefined && this.readsOnlyWeights(node, weightValues)) {
        // A weight moved by Identity, Reshape, Transpose... (rules/weight-carriers.json) is a weight:
        // one shared Cast where a float16 reader needs it, never an activation's Cast pair.
        decision.rule = 'constant-source';
        decision.reason = `${carries} (rules/weight-carriers.json); its readers decide its precision, as a weight's`;
        for (const output of node.output ?? []) if (output) weightValues.add(output);
        continue;
      }
      decision.processable = true;
      flags[position] |= PROCESSABLE;
      processableInputs += inputTypes.length;
      decision.rule = entry ? 'not-between-allow' : 'unlisted';
      const op = node.op_type ?? '';
      decision.reason = entry
        ? NOT_BETWEEN_ALLOW[entry.list]
        : listed
          ? `${node.op_type} is on the ${listed.list} list only with ${listed.onlyWhen?.attribute} in [${listed.onlyWhen?.in.join(', ')}]`
          : this.unlistedTexts.get(node.domain ?? '', op, node, this.unlisted);
    }
    this.writerOf = writerOf;
    this.oneWriterEach = oneWriterEach;
    this.processableInputs = processableInputs;
  }

  /** The target's kernel facts (target-policy.ts): a promoted node paints as an allow op. */
  applyTargetPromotions(): void {
    const painted = this.painted;
    const { promoted, kept } = this.options.targetPolicy?.promotions(this.scope, this.nodes, (node) => painted.get(node)) ?? { promoted: new Map(), kept: new Map() };
    this.promoted = promoted;
    this.kept = kept;
    if (promoted.size) for (const node of promoted.keys()) this.listCode[painted.positionOf(node) as number] = ALLOW_LIST;
  }

  /** The slot of a float32 input of a processable node (see SLOT_WEIGHT). */
  private slotOf(name: string, hint: number | undefined): number {
    const scope = this.scope;
    let producer: number | undefined;
    if (this.oneWriterEach) {
      const writerOf = this.writerOf;
      const id = scope.hintedValueId(hint, name);
      const writer = id >= 0 && id < writerOf.length ? (writerOf[id] as number) : 0;
      // A node outside the order would be a producer that takes no part; none is, but asking is cheap.
      if (writer === 0) return scope.producerNodeOfId(id) ? SLOT_FP32 : SLOT_OUTSIDE;
      producer = writer - 1;
    } else {
      const producerNode = scope.producerNodeOf(name);
      if (!producerNode) return SLOT_OUTSIDE;
      producer = this.painted.positionOf(producerNode);
      if (producer === undefined) return SLOT_FP32;
    }
    if (this.flags[producer] & PROCESSABLE) return producer;
    return (this.decisions[producer] as PaintedDecision).rule === 'constant-source' ? SLOT_WEIGHT : SLOT_FP32;
  }

  /**
   * The float32 edges between processable nodes: each one's input slots (its incoming edges, or
   * what feeds it from elsewhere) and, transposed, each one's readers.
   */
  buildFloat32Edges(): void {
    const { scope, types, count, decisions, flags, hints, hintsAt } = this;
    const slotStart = new Int32Array(count + 1);
    const slots = new Int32Array(this.processableInputs);
    // Outgoing edges per producer, counted here and laid out below.
    const outStart = new Int32Array(count + 1);
    let slotCount = 0;
    for (let position = 0; position < count; position++) {
      slotStart[position] = slotCount;
      if (!(flags[position] & PROCESSABLE)) continue;
      const decision = decisions[position] as PaintedDecision;
      const node = decision.node;
      const inputs = node.input;
      if (!inputs) continue;
      const inputsAt = (hintsAt[position] as number) + (node.output ? node.output.length : 0);
      for (let i = 0; i < inputs.length; i++) {
        const name = inputs[i];
        if (!name || !isFloatInput(decision, node, i, scope, types)) continue;
        const slot = this.slotOf(name, hints?.[inputsAt + i]);
        if (slot >= 0) outStart[slot + 1]++;
        slots[slotCount++] = slot;
      }
    }
    slotStart[count] = slotCount;
    for (let position = 0; position < count; position++) outStart[position + 1] += outStart[position] as number;
    // Readers in the order the slots list them (by reader, then input): the order reasons depend on.
    const outs = new Int32Array(outStart[count] as number);
    const outFill = outStart.slice(0, count);
    for (let reader = 0; reader < count; reader++) {
      for (let k = slotStart[reader] as number; k < (slotStart[reader + 1] as number); k++) {
        const producer = slots[k] as number;
        if (producer >= 0) outs[(outFill[producer] as number)++] = reader;
      }
    }
    this.slotStart = slotStart;
    this.slots = slots;
    this.outStart = outStart;
    this.outs = outs;
  }

  /** Pushes the processable producers of a node's float32 inputs, in input order. */
  private pushProducers(target: PositionStack, position: number): void {
    const { slotStart, slots } = this;
    for (let k = slotStart[position] as number; k < (slotStart[position + 1] as number); k++) {
      const producer = slots[k] as number;
      if (producer >= 0) target.push(producer);
    }
  }

  /** Pushes the processable readers of a node's float32 outputs, one per edge. */
  private pushReaders(target: PositionStack, position: number): void {
    const { outStart, outs } = this;
    for (let k = outStart[position] as number; k < (outStart[position + 1] as number); k++) target.push(outs[k] as number);
  }

  /**
   * Step 1, allow: every processable allow-list op (or --force-fp16 node) becomes ALLOW.
   * Step 6 is folded in here: an op whose schema cannot take the target type is never painted.
   */
  paintAllowOps(): void {
    const { options, count, flags, listCode, promoted, texts } = this;
    for (let position = 0; position < count; position++) {
      if (!(flags[position] & PROCESSABLE)) continue;
      const node = this.nodeAt(position);
      const forced = options.forceFp16(node);
      if (listCode[position] !== ALLOW_LIST && !forced) continue;
      const op = node.op_type ?? '';
      if (!(flags[position] & ACCEPTS_TARGET)) {
        this.decide(position, NONE, 'schema-forbids', texts.get('forbids', op, node, this.targetForbidden));
        continue;
      }
      const promotion = promoted.size ? promoted.get(node) : undefined;
      if (promotion && !forced) this.decide(position, ALLOW, 'target-kernel', promotion.reason);
      else if (forced) this.decide(position, ALLOW, 'force-fp16', 'pinned to the target type by --force-fp16');
      else this.decide(position, ALLOW, 'allow-list', texts.get('allow', op, node, allowListed));
    }
  }

  /**
   * Step 2, deny forward through clear and infer. This is done so a fragile value is never
   * squeezed into fp16 on its way to another numeric op. Example:
   *   deny -> infer -> clear -> infer -> clear -> allow -> infer
   * becomes
   *   deny -> deny  -> deny  -> deny  -> clear -> allow -> infer
   * The trailing clear stays unpainted: no deny or infer node is reachable from it through clear only.
   */
  propagateDenyForward(): void {
    this.markDenyPassable();
    this.paintDenyListOps();
    this.paintDenyDownstream();
  }

  /**
   * Flags PASSABLE every processable deny or infer node not painted ALLOW, and every clear node not
   * painted ALLOW from which one of those is reachable through clear nodes only.
   */
  private markDenyPassable(): void {
    const { count, flags, listCode, color, slotStart, slots } = this;
    const stack = new PositionStack();
    for (let position = 0; position < count; position++) {
      const list = listCode[position];
      if (flags[position] & PROCESSABLE && color[position] !== ALLOW && (list === DENY_LIST || list === INFER_LIST)) {
        flags[position] |= PASSABLE;
        stack.push(position);
      }
    }
    while (stack.length) {
      const position = stack.pop() as number;
      for (let k = slotStart[position] as number; k < (slotStart[position + 1] as number); k++) {
        const producer = slots[k] as number;
        if (producer >= 0 && listCode[producer] === CLEAR_LIST && color[producer] !== ALLOW && !(flags[producer] & PASSABLE)) {
          flags[producer] |= PASSABLE;
          stack.push(producer);
        }
      }
    }
  }

  /**
   * Every processable deny-list op becomes DENY (saying why the target's kernel did not promote it,
   * where it has one), but one --force-fp16 named: step 1 painted it ALLOW and the user's pin wins.
   */
  private paintDenyListOps(): void {
    const { count, flags, listCode, color, kept, texts } = this;
    for (let position = 0; position < count; position++) {
      if (!(flags[position] & PROCESSABLE) || listCode[position] !== DENY_LIST || color[position] === ALLOW) continue;
      const node = this.nodeAt(position);
      const keptWhy = kept.size ? kept.get(node) : undefined;
      const op = node.op_type;
      const listed = keptWhy ? `${op} is on the deny list; ${keptWhy}` : texts.get(`deny:${node.domain ?? ''}`, op ?? '', node, this.denyListedWhy);
      // A --force-fp16 pin step 1 could not apply (the op cannot run in the target type) is said, not dropped.
      const decision = this.decisions[position] as PaintedDecision;
      this.decide(position, DENY, 'deny-list', decision.rule === 'schema-forbids' ? `${listed}; --force-fp16 not applied: ${decision.reason}` : listed);
    }
  }

  /**
   * From each deny-list op painted DENY, its PASSABLE readers become DENY, and their PASSABLE readers in turn,
   * each naming the deny-list op it comes from and the node it was reached through.
   */
  private paintDenyDownstream(): void {
    const { count, flags, listCode, color, outStart, outs } = this;
    // Two parallel stacks (node, the node it was reached through), not a pair per step.
    const walk = new PositionStack();
    const walkVia = new PositionStack();
    for (let origin = 0; origin < count; origin++) {
      // A deny-list op --force-fp16 painted ALLOW is no origin: its value is float16 by the user's choice.
      if (!(flags[origin] & PROCESSABLE) || listCode[origin] !== DENY_LIST || color[origin] !== DENY) continue;
      for (let k = outStart[origin] as number; k < (outStart[origin + 1] as number); k++) {
        walk.push(outs[k] as number);
        walkVia.push(origin);
      }
      let originText: string | undefined;
      // Shared by every node right after the origin.
      let nextToOrigin: string | undefined;
      while (walk.length) {
        const position = walk.pop() as number;
        const via = walkVia.pop() as number;
        if (!(flags[position] & PASSABLE) || color[position] === DENY) continue;
        originText ??= describeNode(this.nodeAt(origin));
        const reason = via === origin ? (nextToOrigin ??= `downstream of ${originText}`) : `downstream of ${originText} through ${describeNode(this.nodeAt(via))}`;
        this.decide(position, DENY, 'deny-upstream', reason);
        for (let k = outStart[position] as number; k < (outStart[position + 1] as number); k++) {
          walk.push(outs[k] as number);
          walkVia.push(position);
        }
      }
    }
  }

  /**
   * Step 3, clear and infer between allow. This is done so a chain allow -> infer -> allow runs
   * entirely in the target type instead of casting down and up again around the middle node.
   * Amended from Grappler: a node joins only if every float32 input comes from the low-precision
   * region or from a weight. This is done so an fp32 stream that merely passes allow ops, such as
   * a transformer's residual stream fed by fp32 embeddings, stays fp32 (PyTorch's autocast keeps
   * it fp32 by type promotion). Example, x a graph input:
   *   Add(x, MatMul) -> MatMul   stays   fp32 Add, with one Cast on the MatMul's output
   */
  paintBetweenAllow(): void {
    const downstreamOfAllow = this.markDownstreamOfAllow();
    const fp32Streams = new PositionStack();
    const fp32StreamSources: string[] = [];
    this.excludeFp32Streams(downstreamOfAllow, fp32Streams, fp32StreamSources);
    this.paintUpstreamOfAllow();
    this.paintFp32Streams(fp32Streams, fp32StreamSources);
  }

  /** A processable clear or infer node, not yet painted, that can take the target type. */
  private isBridge(position: number): boolean {
    const list = this.listCode[position];
    return (
      (this.flags[position] & (PROCESSABLE | ACCEPTS_TARGET)) === (PROCESSABLE | ACCEPTS_TARGET) &&
      this.color[position] === NONE &&
      (list === CLEAR_LIST || list === INFER_LIST)
    );
  }

  /**
   * Flags DOWNSTREAM_OF_ALLOW the bridges reachable from an allow node through bridges only;
   * returns them in the order they were found (the recheck walks them in reverse).
   */
  private markDownstreamOfAllow(): PositionStack {
    const { count, flags, color } = this;
    const downstreamOfAllow = new PositionStack();
    const forward = new PositionStack();
    for (let position = 0; position < count; position++) {
      if (color[position] !== ALLOW) continue;
      this.pushReaders(forward, position);
      while (forward.length) {
        const next = forward.pop() as number;
        if (flags[next] & DOWNSTREAM_OF_ALLOW || !this.isBridge(next)) continue;
        flags[next] |= DOWNSTREAM_OF_ALLOW;
        downstreamOfAllow.push(next);
        this.pushReaders(forward, next);
      }
    }
    return downstreamOfAllow;
  }

  /** Whether every input of `node` is a weight: an output of an earlier constant source of this scope, or a weight from outside it. */
  private readsOnlyWeights(node: onnx.INodeProto, weightValues: ReadonlySet<string>): boolean {
    const inputs = node.input ?? [];
    if (!inputs.some(Boolean)) return false;
    for (const name of inputs) {
      if (!name || weightValues.has(name)) continue;
      if (this.scope.producerNodeOf(name) || !this.isOutsideWeight(name)) return false;
    }
    return true;
  }

  /**
   * Whether a value not produced in this scope is a weight. Walks the scopes outwards as
   * GraphScope.resolve would, without allocating its answer.
   */
  private isOutsideWeight(name: string): boolean {
    const scope = this.scope;
    for (let owner: GraphScope | undefined = scope; owner; owner = owner.parent) {
      // A value an enclosing scope's node produces is no weight.
      if (owner !== scope && owner.producerNodeOf(name)) return false;
      // An input with a default (an initializer of the same name) or named a weight is a weight.
      if (owner.inputs.has(name)) return owner.initializers.has(name) || this.options.weightInputs.has(name);
      if (owner.initializers.has(name)) return true;
    }
    return false;
  }

  /** The first float32 input of a processable node from neither a weight nor the low-precision region. */
  private fp32Source(position: number): string | undefined {
    const { scope, types, slots, color, flags } = this;
    const decision = this.decisions[position] as PaintedDecision;
    const node = decision.node;
    const inputs = node.input;
    if (!inputs) return undefined;
    // The slots list the same inputs, in the same order, as this filter passes them.
    let k = this.slotStart[position] as number;
    for (let i = 0; i < inputs.length; i++) {
      const name = inputs[i];
      if (!name || !isFloatInput(decision, node, i, scope, types)) continue;
      let slot = slots[k] as number;
      // Whether a value from outside is a weight never changes: asked once per slot.
      if (slot === SLOT_OUTSIDE) slots[k] = slot = this.isOutsideWeight(name) ? SLOT_WEIGHT : SLOT_FP32;
      k++;
      const lowOrWeight = slot >= 0 ? color[slot] === ALLOW || (flags[slot] & DOWNSTREAM_OF_ALLOW) !== 0 : slot === SLOT_WEIGHT;
      if (!lowOrWeight) return name;
    }
    return undefined;
  }

  /**
   * Unflags the nodes downstream of allow that read an fp32 source, and their readers in turn,
   * into `excluded` with the source each read (in `sources`, at the same index).
   */
  private excludeFp32Streams(recheck: PositionStack, excluded: PositionStack, sources: string[]): void {
    const flags = this.flags;
    while (recheck.length) {
      const position = recheck.pop() as number;
      if (!(flags[position] & DOWNSTREAM_OF_ALLOW)) continue;
      const source = this.fp32Source(position);
      if (source === undefined) continue;
      flags[position] &= ~DOWNSTREAM_OF_ALLOW;
      excluded.push(position);
      sources.push(source);
      this.pushReaders(recheck, position);
    }
  }

  /** Walking up from each allow op, the nodes still downstream of allow become ALLOW: they lie between allow ops. */
  private paintUpstreamOfAllow(): void {
    const { count, decisions, flags, color } = this;
    const backward = new PositionStack();
    for (let allowPosition = 0; allowPosition < count; allowPosition++) {
      if (color[allowPosition] !== ALLOW) continue;
      const rule = (decisions[allowPosition] as PaintedDecision).rule;
      if (rule !== 'allow-list' && rule !== 'force-fp16' && rule !== 'target-kernel') continue;
      this.pushProducers(backward, allowPosition);
      let feeding: string | undefined;
      while (backward.length) {
        const previous = backward.pop() as number;
        if (!(flags[previous] & DOWNSTREAM_OF_ALLOW) || color[previous] !== NONE) continue;
        feeding ??= `between allow ops, feeding ${describeNode(this.nodeAt(allowPosition))}`;
        this.decide(previous, ALLOW, 'between-allow', feeding);
        this.pushProducers(backward, previous);
      }
    }
  }

  /** The excluded nodes still unpainted get the fp32-stream rule, naming the fp32 input that excluded them. */
  private paintFp32Streams(excluded: PositionStack, sources: readonly string[]): void {
    const color = this.color;
    for (let i = 0; i < excluded.length; i++) {
      const position = excluded.at(i);
      if (color[position] === NONE) this.decide(position, NONE, 'fp32-stream', `input '${sources[i]}' is an fp32 value from outside the low-precision region`);
    }
  }

  /**
   * Step 4 (bf16 only), infer after allow: bfloat16 keeps fp32's range, so an infer op fed by an
   * allow op and by nothing fragile can follow it. The fp32-stream rule of step 3 holds here too
   * (one rule in both modes): a residual Add(x, attention) stays fp32, so the stream is not
   * rounded to bfloat16's 8 bits at every layer.
   */
  paintInferAfterAllow(): void {
    const { count, flags, color, listCode, slotStart, slots } = this;
    for (let position = 0; position < count; position++) {
      if (!(flags[position] & PROCESSABLE) || color[position] !== NONE || listCode[position] !== INFER_LIST || !(flags[position] & ACCEPTS_TARGET)) continue;
      let allowProducer = -1;
      let denyProducer = false;
      for (let k = slotStart[position] as number; k < (slotStart[position + 1] as number); k++) {
        const producer = slots[k] as number;
        if (producer < 0) continue;
        if (allowProducer < 0 && color[producer] === ALLOW) allowProducer = producer;
        if (color[producer] === DENY) denyProducer = true;
      }
      if (allowProducer < 0 || denyProducer) continue;
      const source = this.fp32Source(position);
      if (source !== undefined) {
        this.decide(position, NONE, 'fp32-stream', `input '${source}' is an fp32 value from outside the low-precision region`);
        continue;
      }
      this.decide(position, ALLOW, 'infer-after-allow', `fed by ${describeNode(this.nodeAt(allowProducer))} and nothing fragile (bf16 keeps fp32's range)`);
    }
  }

  /**
   * Step 5, allow through clear: data-movement ops next to allow ops follow them, in both
   * directions, so a Reshape or Transpose between two MatMuls costs no casts. Infer ops stop it.
   */
  floodAllowThroughClear(): void {
    const { count, color, slotStart, slots, outStart, outs } = this;
    const flood = new PositionStack();
    for (let position = 0; position < count; position++) if (color[position] === ALLOW) flood.push(position);
    while (flood.length) {
      const from = flood.pop() as number;
      this.floodFromText = undefined;
      const readersStart = outStart[from] as number;
      const readersEnd = outStart[from + 1] as number;
      // Readers first, then producers, each in edge order: the order decides which neighbour a reason names.
      for (let k = readersStart; k < readersEnd; k++) {
        const next = outs[k] as number;
        if (this.floods(from, next, true)) flood.push(next);
      }
      for (let k = slotStart[from] as number; k < (slotStart[from + 1] as number); k++) {
        const next = slots[k] as number;
        if (next < 0) continue;
        let isReader = false;
        for (let r = readersStart; r < readersEnd && !isReader; r++) isReader = outs[r] === next;
        if (this.floods(from, next, isReader)) flood.push(next);
      }
    }
  }

  /** Whether the flood from `from` paints its neighbour `next` (and paints it). */
  private floods(from: number, next: number, isReader: boolean): boolean {
    const flags = this.flags;
    if (!(flags[next] & PROCESSABLE) || this.color[next] !== NONE || this.listCode[next] !== CLEAR_LIST || !(flags[next] & ACCEPTS_TARGET)) return false;
    // Forward, the fp32-stream rule again: a Concat of an allow op's output and an fp32 stream stays fp32.
    if (isReader && this.fp32Source(next) !== undefined) return false;
    this.floodFromText ??= `next to ${describeNode(this.nodeAt(from))}`;
    this.decide(next, ALLOW, 'clear-flood', this.floodFromText);
    return true;
  }
}
