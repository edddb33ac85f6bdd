/**
 * The graph model the passes work on: producers and consumers of every value in every scope
 * (the main graph and the subgraphs of If/Loop/Scan), outer-scope references resolved, a
 * topological order, unique names, and node insertion/removal/rewiring. Building it and every
 * edit are linear (or constant) in the size of the graph: maps, never scans inside loops.
 *
 * The model's messages are edited in place; call `commit()` to write the node lists back.
 * Passes that must not mutate their input clone the model first (clone.ts).
 */
import type { onnx } from './generated/onnx.js';
import { DataType } from './data-types.js';
import { stringHash, tableSlots } from './string-hash.js';

export interface ValueUse {
  node: onnx.INodeProto;
  /** Input slot of `node`; -1 when the value is used inside one of the node's subgraphs. */
  index: number;
}

export interface ValueProducer {
  node: onnx.INodeProto;
  /** Output slot of `node`. */
  index: number;
}

export type Definition =
  | { kind: 'node'; scope: GraphScope; producer: ValueProducer }
  | { kind: 'input'; scope: GraphScope; info: onnx.IValueInfoProto }
  | { kind: 'initializer'; scope: GraphScope; tensor: onnx.ITensorProto };

interface OrderResult {
  order: onnx.INodeProto[];
  blocked: onnx.INodeProto[];
  /** The order is the current node list itself: every read of a value produced here comes after its producer. */
  inFileOrder: boolean;
  /** Some node reads one of its own outputs (a cycle the order does not show). */
  readsOwnOutput: boolean;
  /** Names read by nodes (not inside subgraphs) that no node of the list produces. */
  unproduced: string[];
  /** The ids of `unproduced` (-1: a name the index does not know), when the in-order walk found them. */
  unproducedIds?: Int32Array;
}

/** Edge id 0 marks the end of a list of uses (typed arrays start zeroed: no fill needed). */
const NO_EDGE = 0;

/**
 * Value names of one scope, each given a small dense id on first sight, never taken back: the
 * scope keeps what it knows of a value (producer, list of readers) in arrays indexed by that id,
 * not in an object per value and per edge behind three maps (a big graph's model was 400 bytes
 * per node, most of it those objects, their arrays and the maps' tables).
 */
export class ValueIndex {
  /**
   * The name of each id, in id order. Also what lets an id remembered from an earlier lookup (a
   * hint, see hintedId()) be checked with one compare, a pointer compare for the decoder's shared
   * strings.
   */
  private readonly names: string[] = [];
  /** stringHash() of each id's name: probes compare it before the strings, growing needs no rehashing of text. */
  private hashes: Int32Array<ArrayBuffer>;
  /**
   * Open addressing (linear probing, at most half full) by stringHash(): id + 1 per slot, 0 empty.
   * A Map<string, number> of a big graph's names grew by rehashing itself again and again (two
   * million names: a second and a half of a million-node rewrite); this table is sized from the
   * graph once and grows by copying integers.
   */
  private slots: Int32Array<ArrayBuffer>;
  private mask: number;

  /** `expected`: about how many names the index will hold (sizes its table once). */
  constructor(expected = 0) {
    const capacity = tableSlots(expected, 64);
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
    this.hashes = new Int32Array(Math.max(32, expected));
  }

  idOf(name: string): number {
    // An empty slot holds 0: -1, no id.
    return (this.slots[this.slotOf(name, stringHash(name))] as number) - 1;
  }

  intern(name: string): number {
    return this.internHashed(name, stringHash(name));
  }

  /** intern(), given stringHash(name) (a caller that hashed the name for another table too). */
  protected internHashed(name: string, hash: number): number {
    const slot = this.slotOf(name, hash);
    const slots = this.slots;
    const entry = slots[slot] as number;
    if (entry !== 0) return entry - 1;
    const id = this.names.length;
    this.names.push(name);
    let hashes = this.hashes;
    if (id >= hashes.length) {
      hashes = new Int32Array(hashes.length * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
    }
    hashes[id] = hash;
    slots[slot] = id + 1;
    if ((id + 1) * 2 > this.mask + 1) this.grow();
    return id;
  }

  /** idOf(name), answered by `hint` when that is the name's id (any number may be given: it is checked). */
  hintedId(hint: number | undefined, name: string): number {
    return hint !== undefined && hint >= 0 && this.names[hint] === name ? hint : this.idOf(name);
  }

  /** intern(name), answered by `hint` when that is the name's id (see hintedId()). */
  hintedIntern(hint: number | undefined, name: string): number {
    return hint !== undefined && hint >= 0 && this.names[hint] === name ? hint : this.intern(name);
  }

  /** The name of `id` (undefined: no such id). */
  nameOf(id: number): string | undefined {
    return this.names[id];
  }

  /** Every name with its id, in id order (the order names were first seen). */
  *entries(): IterableIterator<[string, number]> {
    const names = this.names;
    for (let id = 0; id < names.length; id++) yield [names[id] as string, id];
  }

  get size(): number {
    return this.names.length;
  }

  /** The slot that holds `name` (hashed `hash`), else the empty slot where it would go. */
  private slotOf(name: string, hash: number): number {
    const slots = this.slots;
    const mask = this.mask;
    let slot = hash & mask;
    for (; ; slot = (slot + 1) & mask) {
      const entry = slots[slot] as number;
      if (entry === 0 || (this.hashes[entry - 1] === hash && this.names[entry - 1] === name)) return slot;
    }
  }

  private grow(): void {
    const capacity = (this.mask + 1) * 2;
    const slots = new Int32Array(capacity);
    const mask = capacity - 1;
    const hashes = this.hashes;
    for (let id = 0; id < this.names.length; id++) {
      let slot = (hashes[id] as number) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/**
 * A set of strings that is only added to: the strings in a list and an open-addressing table
 * (linear probing, at most half full) of positions in the list, by a hash computed here. A
 * Set<string> of a big model's node names took three times as long to fill (its table growing by
 * rehashing, a cache miss per insertion), and as long again to be asked about every name the
 * rewrite mints, in more memory; this one is sized once from the node count. No hash is kept per
 * string: a probe compares the strings (most differ in length), and growing hashes them again.
 */
export class StringSet {
  private list: string[];
  private count = 0;
  /** Position + 1 in `list` (0: empty). */
  private slots: Int32Array<ArrayBuffer>;
  private mask: number;

  constructor(expected = 0) {
    const capacity = tableSlots(expected, 32);
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
    // Sized once (filled in order, so never holey where it is read).
    this.list = new Array<string>(expected);
  }

  get size(): number {
    return this.count;
  }

  has(text: string): boolean {
    return this.find(text, stringHash(text)) >= 0;
  }

  /** has(), given stringHash(text). */
  hasHashed(text: string, hash: number): boolean {
    return this.find(text, hash) >= 0;
  }

  add(text: string): void {
    const found = this.find(text, stringHash(text));
    if (found >= 0) return;
    const position = this.count++;
    this.list[position] = text;
    this.slots[~found] = position + 1;
    if (this.count * 2 > this.mask + 1) this.rehash();
  }

  /** The slot holding `text`, or ~(the empty slot where it would go). */
  private find(text: string, hash: number): number {
    const slots = this.slots;
    const mask = this.mask;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[slot] as number;
      if (entry === 0) return ~slot;
      if (this.list[entry - 1] === text) return slot;
    }
  }

  private rehash(): void {
    const capacity = (this.mask + 1) * 2;
    const slots = new Int32Array(capacity);
    const mask = capacity - 1;
    for (let position = 0; position < this.count; position++) {
      let slot = stringHash(this.list[position] as string) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = position + 1;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/**
 * The model's names: the main graph's value index, which also holds the model's other value names
 * (subgraph values, minted names), with a flag per name telling whether uniqueName() must avoid it
 * (seen when the graph model was built, or handed out since), and the node names. One table serves
 * both for values: a separate Set of every name cost a hash-table entry per name on top of the
 * index's. Node names have their own set: in the index they would have doubled its table (and the
 * lookups every value's name makes in it) and taken a slot in each per-value array.
 */
export class ModelNames extends ValueIndex {
  private reservedFlags = new Uint8Array(1024);
  private readonly nodeNames: StringSet;

  /** `nodeCount`: the main graph's, to size the node names' table once. */
  constructor(nodeCount = 0) {
    // A transformer's graph has about two value names a node (outputs, then its weights).
    super(nodeCount * 2);
    this.nodeNames = new StringSet(nodeCount);
  }

  /** Marks a name taken; false when it was already. */
  reserve(name: string): boolean {
    return this.claim(name) >= 0;
  }

  /** reserve(), answering the name's id when it was free and -1 when it was taken. */
  claim(name: string): number {
    // One hash for both tables: a minted name (a Cast's output) is a new string, hashed character by character.
    const hash = stringHash(name);
    if (this.nodeNames.hasHashed(name, hash)) return -1;
    const id = this.internHashed(name, hash);
    return this.reserveId(id) ? id : -1;
  }

  /**
   * Marks a value name taken, whether or not a node has it as its name, and returns its id:
   * reserve() without its node-name lookup, for the names the model already has (where reserve()
   * telling whether the name was free is of no use).
   */
  reserveValueName(name: string): number {
    const id = this.intern(name);
    this.reserveId(id);
    return id;
  }

  /** Marks a node's name taken. */
  reserveNodeName(name: string): void {
    this.nodeNames.add(name);
  }

  reserveId(id: number): boolean {
    let flags = this.reservedFlags;
    if (id >= flags.length) flags = this.reservedFlags = grownBytes(flags, id);
    if (flags[id] === 1) return false;
    flags[id] = 1;
    return true;
  }

  isReserved(name: string): boolean {
    const id = this.idOf(name);
    return (id >= 0 && this.reservedFlags[id] === 1) || this.nodeNames.has(name);
  }
}

/** How many names a node has (outputs and inputs): its share of a scope's hint table. */
export function slotCountOf(node: onnx.INodeProto): number {
  return (node.output ? node.output.length : 0) + (node.input ? node.input.length : 0);
}

function grownBytes(array: Uint8Array<ArrayBuffer>, index: number): Uint8Array<ArrayBuffer> {
  const grown = new Uint8Array(Math.max(array.length * 2, index + 1));
  grown.set(array);
  return grown;
}

function grownInts(array: Int32Array<ArrayBuffer>, index: number): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(Math.max(array.length * 2, index + 1, 16));
  grown.set(array);
  return grown;
}

const NO_SCOPES: readonly GraphScope[] = Object.freeze([]);

export class GraphScope {
  readonly children: GraphScope[] = [];
  /** Ids of this scope's value names (the main graph's: the model's ModelNames). */
  private readonly values: ValueIndex;
  /** Producer node of each value id; undefined where none (or a name that is no value here). */
  private producerNodes: Array<onnx.INodeProto | undefined> = [];
  /** Output slot of each producer, by value id; only once some producer writes a slot other than 0. */
  private producerSlots: Int32Array<ArrayBuffer> | undefined;
  /**
   * Readers of each value as a circular linked list of edges in reading order: the last edge per
   * value id (whose next is the first), then per edge its node, input slot (-1: a read inside the
   * node's subgraphs) and next edge. Flat arrays: no object per edge and no array per value (a
   * one-reader value's array grew to 17 slots on a second push).
   */
  private lastUse = new Int32Array(16);
  private readonly edgeNodes: Array<onnx.INodeProto | undefined> = [undefined];
  private edgeSlots = new Int32Array(16);
  private edgeNexts = new Int32Array(16);
  /** Edges dropped by edits, chained through edgeNexts, for reuse. */
  private freeEdges = NO_EDGE;
  readonly inputs = new Map<string, onnx.IValueInfoProto>();
  readonly outputs = new Map<string, onnx.IValueInfoProto>();
  readonly initializers = new Map<string, onnx.ITensorProto>();
  readonly valueInfo = new Map<string, onnx.IValueInfoProto>();
  /**
   * outerReferences, for a subgraph as of the last resolveOuterReferences(); for the main graph
   * undefined until read (see the getter).
   */
  private outerReferenceSet: Set<string> | undefined = new Set<string>();
  /** Nodes of this scope in file order, with edits applied by commit(). */
  private nodes: onnx.INodeProto[];
  private readonly removed = new Set<onnx.INodeProto>();
  /** New nodes to place right after an anchor node (or first, under the key null). */
  private readonly insertedAfter = new Map<onnx.INodeProto | null, onnx.INodeProto[]>();
  /**
   * The value ids of the inserted nodes' names as insertNodeAfter() indexed them, node after node in
   * the hint layout, and where each node's start (by anchor, as insertedAfter): commit() builds the
   * next hint table from them and the old one, where the first walk after the commit hashed every
   * inserted Cast's names again.
   */
  private insertedIds = new Int32Array(0);
  private insertedIdsEnd = 0;
  private readonly insertedIdsAt = new Map<onnx.INodeProto | null, number[]>();
  private readonly childrenByNode = new Map<onnx.INodeProto, GraphScope[]>();
  /** topologicalOrder() result until the next edit, with what it saw on the way (see orderedReads()). */
  private orderCache: OrderResult | undefined;
  /**
   * Set once two nodes were seen writing one name (the producer table keeps one of them): then the
   * table alone cannot vouch for the node order. (A node writing a graph input or an initializer
   * is looked for when it matters, in orderedReads().)
   */
  private twoProducers = false;
  /**
   * Value ids of the names of `hintNodes`' nodes, node after node (each node's outputs, then its
   * inputs; -1 for an empty or unknown name), as looked up when the list was indexed or, after
   * edits that changed its length, by the next in-order walk over it (inOrderWalk() records them):
   * hints for the walks over the whole list (topological order, type inference, paint), which
   * hashed every name again and again. Only hints: each is checked against the name it stands
   * for (ValueIndex.hintedId()), so a name written behind the graph model's back, a node inserted
   * or removed, or a list in another order costs a lookup, never a wrong id.
   */
  private hintIds: Int32Array | undefined;
  private hintNodes: onnx.INodeProto[] | undefined;
  /** Hints as hintIds, for the values of `initializers` in its order (see initializerIdHints()). */
  private initializerHints: Int32Array | undefined;

  constructor(
    readonly graph: onnx.IGraphProto,
    readonly parent: GraphScope | undefined,
    /** The node in `parent` whose attribute holds this graph. */
    readonly owner: onnx.INodeProto | undefined,
    /** Readable position, e.g. "graph/loop_0.body". */
    readonly path: string,
    /**
     * @internal The model's name table, for the main graph (ModelGraph passes it): its values are
     * indexed there, and every name its nodes carry is reserved for uniqueName() as it is indexed.
     */
    names?: ModelNames,
  ) {
    this.values = names ?? new ValueIndex();
    this.nodes = graph.node ?? [];
    for (const info of graph.input ?? []) this.inputs.set(info.name ?? '', info);
    for (const info of graph.output ?? []) this.outputs.set(info.name ?? '', info);
    for (const info of graph.value_info ?? []) this.valueInfo.set(info.name ?? '', info);
    // Indexed loops over per-node and per-weight lists: see inferScope (type-inference.ts) on for...of.
    const initializer = graph.initializer ?? [];
    for (let i = 0; i < initializer.length; i++) {
      const tensor = initializer[i] as onnx.ITensorProto;
      this.initializers.set(tensor.name ?? '', tensor);
    }
    for (const sparse of graph.sparse_initializer ?? []) {
      if (sparse.values) this.initializers.set(sparse.values.name ?? '', sparse.values);
    }
    // Sized by a guess and trimmed after: counting the names first was a pass over every node
    // object before the one that indexes them (a cache miss or two per node on a big graph).
    let hints = new Int32Array(this.nodes.length * 4 + 16);
    let at = 0;
    const nodes = this.nodes;
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i] as onnx.INodeProto;
      const end = at + slotCountOf(node);
      if (end > hints.length) hints = grownInts(hints, end);
      at = this.index(node, names, hints, at);
    }
    this.hintIds = at === hints.length ? hints : hints.slice(0, at);
    this.hintNodes = this.nodes;
  }

  /**
   * Registers a node's edges and builds scopes for its subgraphs. Plain loops, no closure or
   * array per node: this runs for every node of the model, and those allocations were a good
   * part of building a big graph's model (and of its garbage collection). With `reserving`, also
   * reserves the node's names (its own, inputs and outputs, unnamed ones included) with the id
   * lookup already made, where a second pass over the model hashed every name again.
   */
  private index(node: onnx.INodeProto, reserving?: ModelNames, hints?: Int32Array, at = 0, known?: ArrayLike<number>): number {
    const values = this.values;
    // `known`: ids the caller has for the node's names, in the hint layout (outputs, then inputs),
    // each checked as a hint is: an inserted Cast's names were looked up just before, by its maker.
    if (reserving && node.name) reserving.reserveNodeName(node.name);
    const outputs = node.output;
    if (outputs) {
      for (let index = 0; index < outputs.length; index++) {
        const name = outputs[index] as string;
        if (name) {
          const id = known ? values.hintedIntern(known[index], name) : values.intern(name);
          if (this.setProducer(id, node, index)) this.twoProducers = true;
          if (reserving) reserving.reserveId(id);
          if (hints) hints[at++] = id;
        } else {
          if (reserving) reserving.reserve(name);
          if (hints) hints[at++] = -1;
        }
      }
    }
    const inputs = node.input;
    if (inputs) {
      for (let index = 0; index < inputs.length; index++) {
        const name = inputs[index] as string;
        if (name) {
          const id = known ? values.hintedIntern(known[(outputs ? outputs.length : 0) + index], name) : values.intern(name);
          this.addUseOf(id, node, index);
          if (reserving) reserving.reserveId(id);
          if (hints) hints[at++] = id;
        } else {
          if (reserving) reserving.reserve(name);
          if (hints) hints[at++] = -1;
        }
      }
    }
    const attributes = node.attribute;
    if (attributes?.length) this.indexSubgraphs(node, attributes);
    return at;
  }

  /**
   * @internal The hint table for a walk over `nodes` (see hintIds), when they look like the list it was
   * made for; the caller steps through it with slotCountOf() per node.
   */
  valueIdHints(nodes: readonly onnx.INodeProto[]): Int32Array | undefined {
    const hintNodes = this.hintNodes;
    if (!hintNodes || nodes.length !== hintNodes.length || (nodes.length > 0 && nodes[0] !== hintNodes[0])) return undefined;
    return this.hintIds;
  }

  /**
   * @internal Value ids of `initializers`' names in its order, as hints (checked before use, as
   * valueIdHints()'s), when a table of its size was noted.
   */
  initializerIdHints(): Int32Array | undefined {
    const hints = this.initializerHints;
    return hints && hints.length === this.initializers.size ? hints : undefined;
  }

  /** Lets go of this scope's hint tables (see ModelGraph.releaseValueIdHints()). */
  releaseValueIdHints(): void {
    this.hintIds = undefined;
    this.hintNodes = undefined;
    this.initializerHints = undefined;
  }

  /** @internal Notes the ids the next walk over `initializers` may take as hints. */
  noteInitializerIds(ids: Int32Array): void {
    this.initializerHints = ids;
  }

  /** @internal valueIdOf(name), answered by a hint from valueIdHints() when it is right. */
  hintedValueId(hint: number | undefined, name: string): number {
    return this.values.hintedId(hint, name);
  }

  /** @internal internValueId(name), answered by a hint from valueIdHints() when it is right. */
  hintedInternValueId(hint: number | undefined, name: string): number {
    return this.values.hintedIntern(hint, name);
  }

  /** Records `node` as the producer of value `id`; true when the value had a producer already. */
  private setProducer(id: number, node: onnx.INodeProto, slot: number): boolean {
    const producers = this.producerNodes;
    while (producers.length <= id) producers.push(undefined);
    const had = producers[id] !== undefined;
    producers[id] = node;
    let slots = this.producerSlots;
    if (slot !== 0 || slots) {
      if (!slots || id >= slots.length) slots = this.producerSlots = grownInts(slots ?? new Int32Array(producers.length), id);
      slots[id] = slot;
    }
    return had;
  }

  private indexSubgraphs(node: onnx.INodeProto, attributes: onnx.IAttributeProto[]): void {
    // Called for every node with attributes, nearly all of which hold no graph: nothing allocated for those.
    let children: GraphScope[] | undefined;
    for (let a = 0; a < attributes.length; a++) {
      const attribute = attributes[a] as onnx.IAttributeProto;
      if (!attribute.g && !attribute.graphs?.length) continue;
      children ??= [];
      const graphs = [...(attribute.g ? [attribute.g] : []), ...(attribute.graphs ?? [])];
      for (let i = 0; i < graphs.length; i++) {
        const suffix = attribute.graphs?.length ? `[${i}]` : '';
        children.push(new GraphScope(graphs[i] as onnx.IGraphProto, this, node, `${this.path}/${node.name || node.op_type}.${attribute.name}${suffix}`));
      }
    }
    if (children) {
      this.childrenByNode.set(node, children);
      this.children.push(...children);
    }
  }

  /**
   * Names read in this scope (or its descendants) that no node, input or initializer here defines.
   * A subgraph's are computed by resolveOuterReferences() (its owner's edges depend on them). The
   * main graph's are read by no pass (they have no owner to resolve to, only tests and API users
   * look): computed on first read from the graph as it is then, and again after any edit, so that
   * building the graph model and refreshing it after the rewrite skip three lookups per value name.
   */
  get outerReferences(): Set<string> {
    let set = this.outerReferenceSet;
    if (!set) {
      set = new Set<string>();
      this.collectOuterReferences(set);
      this.outerReferenceSet = set;
    }
    return set;
  }

  private collectOuterReferences(into: Set<string>): void {
    const lastUse = this.lastUse;
    for (const [name, id] of this.values.entries()) {
      if (id < lastUse.length && lastUse[id] !== NO_EDGE && !this.definesLocally(name)) into.add(name);
    }
  }

  /** Forgets the main graph's outer references after an edit (see the getter); a subgraph keeps its own. */
  private editedReads(): void {
    if (!this.parent) this.outerReferenceSet = undefined;
  }

  /** Resolves the outer references of every descendant scope to uses of the owning node here. */
  resolveOuterReferences(): void {
    for (const child of this.children) {
      child.resolveOuterReferences();
      for (const name of child.outerReferences) {
        if (!child.owner) continue;
        const id = this.values.intern(name);
        if (!this.hasUse(id, child.owner, -1)) this.addUseOf(id, child.owner, -1);
      }
    }
    if (!this.parent) this.outerReferenceSet = undefined;
    else this.collectOuterReferences(this.outerReferences);
  }

  /**
   * Forgets the uses that stand for reads inside subgraphs (index -1) and what this scope reads
   * from outside; ModelGraph.refreshOuterReferences() computes them again.
   */
  dropSubgraphUses(): void {
    // Only a scope with subgraphs has uses standing for reads inside them; a big graph's main
    // scope usually has none.
    if (this.children.length) {
      for (let id = 0; id < this.lastUse.length; id++) {
        let previous = NO_EDGE;
        for (let edge = this.firstEdge(id); edge !== NO_EDGE; ) {
          const next = this.nextEdge(id, edge);
          if (this.edgeSlots[edge] === -1) this.unlinkEdge(id, previous, edge);
          else previous = edge;
          edge = next;
        }
      }
    }
    if (this.parent) this.outerReferences.clear();
    else this.outerReferenceSet = undefined;
    this.orderCache = undefined;
    for (const child of this.children) child.dropSubgraphUses();
  }

  private hasUse(id: number, node: onnx.INodeProto, slot: number): boolean {
    for (let edge = this.firstEdge(id); edge !== NO_EDGE; edge = this.nextEdge(id, edge)) {
      if (this.edgeNodes[edge] === node && this.edgeSlots[edge] === slot) return true;
    }
    return false;
  }

  /** Appends a reader to value `id`'s list (reading order is kept: consumersOf() answers in it). */
  private addUseOf(id: number, node: onnx.INodeProto, slot: number): void {
    if (id >= this.lastUse.length) this.lastUse = grownInts(this.lastUse, id);
    let edge = this.freeEdges;
    if (edge !== NO_EDGE) {
      this.freeEdges = this.edgeNexts[edge] as number;
      this.edgeNodes[edge] = node;
    } else {
      edge = this.edgeNodes.length;
      this.edgeNodes.push(node);
      if (edge >= this.edgeSlots.length) {
        this.edgeSlots = grownInts(this.edgeSlots, edge);
        this.edgeNexts = grownInts(this.edgeNexts, edge);
      }
    }
    this.edgeSlots[edge] = slot;
    const last = this.lastUse[id] as number;
    if (last === NO_EDGE) this.edgeNexts[edge] = edge;
    else {
      this.edgeNexts[edge] = this.edgeNexts[last] as number;
      this.edgeNexts[last] = edge;
    }
    this.lastUse[id] = edge;
  }

  /** The first reader's edge of value `id` (NO_EDGE: none). */
  private firstEdge(id: number): number {
    const last = id < this.lastUse.length ? (this.lastUse[id] as number) : NO_EDGE;
    return last === NO_EDGE ? NO_EDGE : (this.edgeNexts[last] as number);
  }

  /** The edge after `edge` in value `id`'s list (NO_EDGE after the last). */
  private nextEdge(id: number, edge: number): number {
    return edge === this.lastUse[id] ? NO_EDGE : (this.edgeNexts[edge] as number);
  }

  /** Takes `edge` (after `previous`, NO_EDGE when first) out of value `id`'s list and frees it. */
  private unlinkEdge(id: number, previous: number, edge: number): void {
    const last = this.lastUse[id] as number;
    // The first edge's predecessor in the circle is the last.
    const before = previous === NO_EDGE ? last : previous;
    if (before === edge) this.lastUse[id] = NO_EDGE;
    else {
      this.edgeNexts[before] = this.edgeNexts[edge] as number;
      if (edge === last) this.lastUse[id] = before;
    }
    this.edgeNodes[edge] = undefined;
    this.edgeNexts[edge] = this.freeEdges;
    this.freeEdges = edge;
  }

  private dropUse(name: string, node: onnx.INodeProto, index: number, hint?: number): void {
    const id = this.values.hintedId(hint, name);
    if (id < 0) return;
    let previous = NO_EDGE;
    for (let edge = this.firstEdge(id); edge !== NO_EDGE; edge = this.nextEdge(id, edge)) {
      if (this.edgeNodes[edge] === node && this.edgeSlots[edge] === index) {
        this.unlinkEdge(id, previous, edge);
        return;
      }
      previous = edge;
    }
  }

  definesLocally(name: string): boolean {
    return this.producerNodeOf(name) !== undefined || this.inputs.has(name) || this.initializers.has(name);
  }

  /** Where a name visible in this scope is defined, searching enclosing scopes outwards. */
  resolve(name: string): Definition | undefined {
    for (let scope: GraphScope | undefined = this; scope; scope = scope.parent) {
      const producer = scope.producerOf(name);
      if (producer) return { kind: 'node', scope, producer };
      const info = scope.inputs.get(name);
      if (info) return { kind: 'input', scope, info };
      const tensor = scope.initializers.get(name);
      if (tensor) return { kind: 'initializer', scope, tensor };
    }
    return undefined;
  }

  /** The node writing a value here and its output slot (a new object per call: see producerNodeOf()). */
  producerOf(name: string): ValueProducer | undefined {
    const id = this.values.idOf(name);
    const node = id < 0 ? undefined : this.producerNodes[id];
    if (node === undefined) return undefined;
    return { node, index: this.producerSlots ? (this.producerSlots[id] as number) : 0 };
  }

  /** @internal producerNodeOf() for a caller that has the name's id (valueIdOf(), hintedValueId()); -1: none. */
  producerNodeOfId(id: number): onnx.INodeProto | undefined {
    return id < 0 ? undefined : this.producerNodes[id];
  }

  /**
   * isVisible() for a name that no node here writes (one of lastUnproducedReads()): the inputs,
   * the initializers and the enclosing scopes are all there is to look at.
   */
  isVisibleUnproduced(name: string): boolean {
    return this.inputs.has(name) || this.initializers.has(name) || (this.parent !== undefined && this.parent.isVisible(name));
  }

  /** The node writing a value here, without producerOf()'s answer object: for callers that need only the node. */
  producerNodeOf(name: string): onnx.INodeProto | undefined {
    const id = this.values.idOf(name);
    return id < 0 ? undefined : this.producerNodes[id];
  }

  /**
   * Uses of a value in this scope, in reading order; a use with index -1 is a read inside the
   * node's subgraph. A new array of new objects per call (a snapshot: later edits do not change
   * it); consumerCount() and someConsumer() answer without allocating.
   */
  consumersOf(name: string): readonly ValueUse[] {
    const uses: ValueUse[] = [];
    const id = this.values.idOf(name);
    if (id < 0) return uses;
    for (let edge = this.firstEdge(id); edge !== NO_EDGE; edge = this.nextEdge(id, edge)) {
      uses.push({ node: this.edgeNodes[edge] as onnx.INodeProto, index: this.edgeSlots[edge] as number });
    }
    return uses;
  }

  /** How many uses consumersOf() would list. */
  consumerCount(name: string): number {
    const id = this.values.idOf(name);
    if (id < 0) return 0;
    let count = 0;
    for (let edge = this.firstEdge(id); edge !== NO_EDGE; edge = this.nextEdge(id, edge)) count++;
    return count;
  }

  /**
   * Whether `test` holds for some use of a value, asked in reading order and stopping at the first
   * yes (consumersOf().some() without its array and objects). `test` must not edit the graph.
   */
  someConsumer(name: string, test: (node: onnx.INodeProto, index: number) => boolean): boolean {
    const id = this.values.idOf(name);
    if (id < 0) return false;
    for (let edge = this.firstEdge(id); edge !== NO_EDGE; edge = this.nextEdge(id, edge)) {
      if (test(this.edgeNodes[edge] as onnx.INodeProto, this.edgeSlots[edge] as number)) return true;
    }
    return false;
  }

  /** @internal The id of a value name in this scope's index (-1: never seen), for ElemTypes' tables. */
  valueIdOf(name: string): number {
    return this.values.idOf(name);
  }

  /** @internal The id of a value name, given one if new (see valueIdOf()). */
  internValueId(name: string): number {
    return this.values.intern(name);
  }

  /** @internal Every name of this scope's index with its id, in id order. */
  valueIds(): IterableIterator<[string, number]> {
    return this.values.entries();
  }

  subgraphsOf(node: onnx.INodeProto): readonly GraphScope[] {
    // A scope without subgraphs (a big model's main graph, usually) answers without hashing the node.
    if (!this.childrenByNode.size) return NO_SCOPES;
    return this.childrenByNode.get(node) ?? NO_SCOPES;
  }

  isGraphOutput(name: string): boolean {
    return this.outputs.has(name);
  }

  /** Current nodes of this scope, in file order with pending insertions placed. */
  currentNodes(): onnx.INodeProto[] {
    // Unedited (the common case for every scope but the edited ones): a plain copy.
    if (!this.insertedAfter.size && !this.removed.size) return this.nodes.slice();
    const result: onnx.INodeProto[] = [...(this.insertedAfter.get(null) ?? [])];
    const anyRemoved = this.removed.size > 0;
    for (const node of this.nodes) {
      if (!anyRemoved || !this.removed.has(node)) result.push(node);
      this.placeInsertedAfter(node, result);
    }
    return result;
  }

  private placeInsertedAfter(anchor: onnx.INodeProto, result: onnx.INodeProto[]): void {
    const inserted = this.insertedAfter.get(anchor);
    if (!inserted) return;
    for (const node of inserted) {
      if (!this.removed.has(node)) result.push(node);
      this.placeInsertedAfter(node, result);
    }
  }

  /** Whether a name is defined here or in an enclosing scope (resolve() without building its answer). */
  isVisible(name: string): boolean {
    for (let scope: GraphScope | undefined = this; scope; scope = scope.parent) {
      if (scope.producerNodeOf(name) !== undefined || scope.inputs.has(name) || scope.initializers.has(name)) return true;
    }
    return false;
  }

  /**
   * Adds a node right after `anchor` (null: before every node). Placing a Cast right after its
   * producer keeps the file order readable and diffs small. `knownIds`: value ids the caller has for
   * the node's names (outputs, then inputs; -1 where it has none), each checked before it is used.
   */
  insertNodeAfter(anchor: onnx.INodeProto | null, node: onnx.INodeProto, knownIds?: ArrayLike<number>): void {
    this.orderCache = undefined;
    this.editedReads();
    let list = this.insertedAfter.get(anchor);
    let starts = this.insertedIdsAt.get(anchor);
    if (!list) this.insertedAfter.set(anchor, (list = []));
    if (!starts) this.insertedIdsAt.set(anchor, (starts = []));
    list.push(node);
    const start = this.insertedIdsEnd;
    const end = start + slotCountOf(node);
    if (end > this.insertedIds.length) this.insertedIds = grownInts(this.insertedIds, end);
    starts.push(start);
    this.insertedIdsEnd = this.index(node, undefined, this.insertedIds, start, knownIds);
    // An inserted Cast has no subgraphs: no iterator made for an empty list once per Cast.
    const children = this.childrenByNode.get(node);
    if (children) for (let i = 0; i < children.length; i++) (children[i] as GraphScope).resolveOuterReferences();
  }

  removeNode(node: onnx.INodeProto): void {
    this.orderCache = undefined;
    this.editedReads();
    this.removed.add(node);
    for (const name of node.output ?? []) {
      const id = this.values.idOf(name);
      if (id >= 0 && this.producerNodes[id] === node) this.producerNodes[id] = undefined;
    }
    (node.input ?? []).forEach((name, index) => {
      if (name) this.dropUse(name, node, index);
    });
  }

  /** Points input `index` of `node` at another value. */
  setInput(node: onnx.INodeProto, index: number, name: string): void {
    this.rewire(node, index, name, undefined, undefined);
  }

  /**
   * @internal setInput() from a walk over valueIdHints()' list, where `slot` is the input's place in
   * that table: the table is kept true for the walks after the commit. `newId` and `oldId` are the
   * ids the caller has for the new and the old name (-1: none), checked before use.
   */
  setHintedInput(node: onnx.INodeProto, index: number, name: string, slot: number, newId: number, oldId: number): void {
    const id = this.rewire(node, index, name, newId, oldId);
    const hints = this.hintIds;
    if (hints && slot >= 0 && slot < hints.length) hints[slot] = id;
  }

  /** setInput() with ids the caller may have for the names; answers the new name's id (-1: none). */
  private rewire(node: onnx.INodeProto, index: number, name: string, newId: number | undefined, oldId: number | undefined): number {
    this.orderCache = undefined;
    this.editedReads();
    const inputs = node.input ?? (node.input = []);
    const old = inputs[index];
    if (old) this.dropUse(old, node, index, oldId);
    inputs[index] = name;
    if (!name) return -1;
    const id = this.values.hintedIntern(newId, name);
    this.addUseOf(id, node, index);
    return id;
  }

  /**
   * Gives output `index` of `node` a new name. Consumers keep reading the old name, which the
   * caller must define again (the AMP pass feeds it from a Cast of the new one).
   */
  renameNodeOutput(node: onnx.INodeProto, index: number, newName: string): void {
    this.orderCache = undefined;
    this.editedReads();
    const outputs = node.output ?? (node.output = []);
    const old = outputs[index];
    if (old) {
      const oldId = this.values.idOf(old);
      if (oldId >= 0 && this.producerNodes[oldId] === node) this.producerNodes[oldId] = undefined;
    }
    outputs[index] = newName;
    if (this.setProducer(this.values.intern(newName), node, index)) this.twoProducers = true;
  }

  /** Renames a graph output (the value it reads). */
  renameOutput(oldName: string, newName: string): void {
    const info = this.outputs.get(oldName);
    if (!info) throw new Error(`${this.path}: '${oldName}' is not a graph output`);
    info.name = newName;
    this.outputs.delete(oldName);
    this.outputs.set(newName, info);
  }

  /** Writes pending insertions and removals back to the GraphProto's node list. */
  commit(): void {
    const hints = this.insertedAfter.size ? this.valueIdHints(this.nodes) : undefined;
    if (hints) {
      const committed = this.committedWithHints(hints);
      this.nodes = committed.nodes;
      this.hintIds = committed.hints;
      this.hintNodes = committed.nodes;
    } else this.nodes = this.currentNodes();
    this.graph.node = this.nodes;
    this.removed.clear();
    this.insertedAfter.clear();
    this.insertedIdsAt.clear();
    this.insertedIds = new Int32Array(0);
    this.insertedIdsEnd = 0;
    for (const child of this.children) child.commit();
  }

  /**
   * currentNodes(), and the hint table for that list: the old table's ids for the nodes kept (edits
   * that rewired a read leave a stale id there, which its check turns into a lookup) and the
   * inserted nodes' ids as they were indexed. The table assumes each kept node has as many names
   * as when it was indexed; were one to differ, hints after it would miss, never mislead.
   */
  private committedWithHints(oldHints: Int32Array): { nodes: onnx.INodeProto[]; hints: Int32Array } {
    const nodes: onnx.INodeProto[] = [];
    let hints = new Int32Array(oldHints.length + this.insertedIdsEnd);
    let at = 0;
    const insertedIds = this.insertedIds;
    const place = (anchor: onnx.INodeProto | null): void => {
      const inserted = this.insertedAfter.get(anchor);
      if (!inserted) return;
      const starts = this.insertedIdsAt.get(anchor) as number[];
      for (let k = 0; k < inserted.length; k++) {
        const node = inserted[k] as onnx.INodeProto;
        if (!this.removed.has(node)) {
          nodes.push(node);
          const start = starts[k] as number;
          const count = slotCountOf(node);
          if (at + count > hints.length) hints = grownInts(hints, at + count);
          for (let slot = 0; slot < count; slot++) hints[at++] = insertedIds[start + slot] as number;
        }
        place(node);
      }
    };
    place(null);
    const anyRemoved = this.removed.size > 0;
    let oldAt = 0;
    const old = this.nodes;
    for (let i = 0; i < old.length; i++) {
      const node = old[i] as onnx.INodeProto;
      const count = slotCountOf(node);
      if (!anyRemoved || !this.removed.has(node)) {
        nodes.push(node);
        if (at + count > hints.length) hints = grownInts(hints, at + count);
        // A loop, not set(subarray()): a view object per node cost as much as the rest of the walk.
        for (let k = 0; k < count; k++) hints[at++] = oldAt + k < oldHints.length ? (oldHints[oldAt + k] as number) : -1;
      }
      oldAt += count;
      place(node);
    }
    return { nodes, hints: at === hints.length ? hints : hints.slice(0, at) };
  }

  /**
   * Nodes in an order where every value is produced before it is read (Kahn's algorithm, ties
   * broken by file order). Reads inside a node's subgraphs count as reads by the node. Returns
   * the nodes that could not be placed (a cycle or a missing producer) in `blocked`.
   */
  topologicalOrder(): { order: onnx.INodeProto[]; blocked: onnx.INodeProto[] } {
    if (this.orderCache) return this.orderCache;
    const nodes = this.currentNodes();
    const inOrder = this.inOrderWalk(nodes);
    if (inOrder) {
      this.orderCache = inOrder;
      return inOrder;
    }
    const n = nodes.length;
    const position = new Map<onnx.INodeProto, number>();
    for (let i = 0; i < n; i++) position.set(nodes[i] as onnx.INodeProto, i);
    // Edges producer -> reader, each pair once: lastReader[p] === i when node i already counted
    // producer p (no Set or array per node: a big graph's sort allocated one of each for every node).
    const lastReader = new Int32Array(n).fill(-1);
    const hasSubgraphs = this.childrenByNode.size > 0;
    const from: number[] = [];
    const to: number[] = [];
    const unproduced: string[] = [];
    let backward = false;
    let readsOwnOutput = false;
    const edge = (at: number, i: number): void => {
      if (lastReader[at] === i) return;
      lastReader[at] = i;
      if (at > i) backward = true;
      from.push(at);
      to.push(i);
    };
    for (let i = 0; i < n; i++) {
      const node = nodes[i] as onnx.INodeProto;
      const inputs = node.input;
      if (inputs) {
        for (let k = 0; k < inputs.length; k++) {
          const name = inputs[k];
          if (!name) continue;
          const producer = this.producerNodeOf(name);
          const at = producer === undefined ? undefined : position.get(producer);
          if (at === undefined) unproduced.push(name);
          else if (at === i) readsOwnOutput = true;
          else edge(at, i);
        }
      }
      const children = hasSubgraphs ? this.childrenByNode.get(node) : undefined;
      if (children) {
        for (const child of children) {
          for (const name of child.outerReferences) {
            const producer = this.producerNodeOf(name);
            const at = producer === undefined ? undefined : position.get(producer);
            if (at !== undefined && at !== i) edge(at, i);
          }
        }
      }
    }
    // Every edge forward: the file order is already topological, and it is exactly what the
    // heap below would produce (the smallest ready position is always the next one), so the
    // common case (a sorted model, casts placed after their producers) skips the sort.
    if (!backward) {
      this.orderCache = { order: nodes, blocked: [], inFileOrder: true, readsOwnOutput, unproduced };
      return this.orderCache;
    }
    const waiting = new Int32Array(n);
    for (const i of to) waiting[i] = (waiting[i] as number) + 1;
    // Readers grouped by producer (compressed rows): no array per node.
    const first = new Int32Array(n + 1);
    for (const f of from) first[f + 1] = (first[f + 1] as number) + 1;
    for (let i = 0; i < n; i++) first[i + 1] = (first[i + 1] as number) + (first[i] as number);
    const cursor = first.slice(0, n);
    const readers = new Int32Array(from.length);
    for (let e = 0; e < from.length; e++) {
      const f = from[e] as number;
      readers[cursor[f] as number] = to[e] as number;
      cursor[f] = (cursor[f] as number) + 1;
    }
    // A min-heap of file positions keeps the result stable (file order wherever it is already
    // topological) and the whole sort O(n log n).
    const ready = new IndexHeap(n);
    for (let i = 0; i < n; i++) if (waiting[i] === 0) ready.push(i);
    const order: onnx.INodeProto[] = [];
    const placed = new Uint8Array(n);
    while (ready.size) {
      const i = ready.pop();
      order.push(nodes[i] as onnx.INodeProto);
      placed[i] = 1;
      for (let e = first[i] as number; e < (first[i + 1] as number); e++) {
        const next = readers[e] as number;
        waiting[next] = (waiting[next] as number) - 1;
        if (waiting[next] === 0) ready.push(next);
      }
    }
    this.orderCache = { order, blocked: nodes.filter((_, i) => !placed[i]), inFileOrder: false, readsOwnOutput, unproduced };
    return this.orderCache;
  }

  /**
   * The names read by nodes here that no node of the list produces, as topologicalOrder() last saw
   * them while no edit has come since; nothing is computed. Every other read has its producer here.
   */
  lastUnproducedReads(): readonly string[] | undefined {
    return this.orderCache?.unproduced;
  }

  /**
   * Whether every read lastUnproducedReads() lists is of a value visible here (a graph input or an
   * initializer of this scope, or visible in an enclosing one); undefined without such a list. By
   * the ids the in-order walk found for them, against the ids of the inputs and initializers
   * (hinted, see initializerIdHints()), where each read was two lookups (most are a weight's).
   */
  unproducedReadsVisible(): boolean | undefined {
    const cache = this.orderCache;
    if (!cache) return undefined;
    const { unproduced, unproducedIds } = cache;
    if (!unproduced.length) return true;
    if (!unproducedIds) return unproduced.every((name) => this.isVisibleUnproduced(name));
    const values = this.values;
    const local = new Uint8Array(values.size);
    for (const name of this.inputs.keys()) {
      const id = values.idOf(name);
      if (id >= 0) local[id] = 1;
    }
    const initializerIds = this.initializerIdHints();
    let position = 0;
    this.initializers.forEach((_tensor, name) => {
      const id = values.hintedId(initializerIds?.[position++], name);
      if (id >= 0) local[id] = 1;
    });
    for (let i = 0; i < unproduced.length; i++) {
      const id = unproducedIds[i] as number;
      if ((id < 0 || local[id] === 0) && !this.isVisibleUnproduced(unproduced[i] as string)) return false;
    }
    return true;
  }

  /** The node order topologicalOrder() last gave, while no edit has come since; nothing is computed. */
  lastOrder(): readonly onnx.INodeProto[] | undefined {
    return this.orderCache?.order;
  }

  /**
   * When the committed node list is known, from the topological order already computed on it,
   * to have every read of a value produced here after its producer, with one definition per name
   * and no node reading its own output: the names its nodes read that no node here produces
   * (graph inputs, initializers, outer values, or undefined names), for the caller to resolve.
   * Undefined when that cannot be told without checking every node: no order computed since the
   * last edit, the list out of order, two producers of a name or a node writing a graph input or
   * an initializer, edits not committed, or the node list changed behind the graph model's back.
   */
  orderedReads(): readonly string[] | undefined {
    const cache = this.orderCache;
    if (!cache?.inFileOrder || cache.readsOwnOutput || this.twoProducers) return undefined;
    if (this.insertedAfter.size || this.removed.size || this.graph.node !== this.nodes || cache.order.length !== this.nodes.length) return undefined;
    // A node writing a graph input or an initializer: looked for now, over the tables as they are
    // (a lookup per input and initializer, where checking every edit cost three per new output).
    for (const name of this.inputs.keys()) if (this.producerNodeOf(name) !== undefined) return undefined;
    const values = this.values;
    const producers = this.producerNodes;
    const initializerIds = this.initializerIdHints();
    let position = 0;
    let writesInitializer = false;
    this.initializers.forEach((_tensor, name) => {
      const id = values.hintedId(initializerIds?.[position++], name);
      if (id >= 0 && producers[id] !== undefined) writesInitializer = true;
    });
    return writesInitializer ? undefined : cache.unproduced;
  }

  /**
   * The common case of topologicalOrder(), a list already in order (a sorted model, casts placed
   * after their producers), told in one walk that marks each producer as it passes it: a read
   * whose producer is not marked yet is a read before its producer (or of a producer not in the
   * list), and then undefined sends the caller to the full sort. The order is then the list itself,
   * exactly what the sort's heap would give; the walk needs no map of positions.
   */
  private inOrderWalk(nodes: onnx.INodeProto[]): OrderResult | undefined {
    // One byte per value id for this walk, marking the values whose producer it has passed (kept
    // per producer object before; a byte array that dies with the walk costs no retained memory).
    const values = this.values;
    const producers = this.producerNodes;
    const placed = new Uint8Array(values.size);
    const hasSubgraphs = this.childrenByNode.size > 0;
    const unproduced: string[] = [];
    // An Int32Array (trimmed at the end): the order cache keeps it, a read of a weight per node or so.
    let unproducedIds = new Int32Array(Math.max(16, nodes.length));
    let readsOwnOutput = false;
    const hints = this.valueIdHints(nodes);
    // Without hints for this list (edits inserted or removed nodes), the ids this walk looks up
    // become the hints of the walks that follow on the same list (the type inference's). It takes
    // its own from the old table where it meets the nodes of the old list in their old order (as
    // commit() keeps them; one removed node skipped): only inserted nodes and rewired reads miss.
    let recording = hints ? undefined : new Int32Array(nodes.length * 4 + 16);
    const oldNodes = recording ? this.hintNodes : undefined;
    const oldIds = this.hintIds;
    let oldPosition = 0;
    let oldAt = 0;
    let at = 0;
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i] as onnx.INodeProto;
      const inputs = node.input;
      const outputs = node.output;
      const outputCount = outputs ? outputs.length : 0;
      // Where this node's hints start in `table`, outputs first.
      let table = hints;
      let base = at;
      if (oldNodes) {
        table = undefined;
        if (oldNodes[oldPosition] !== node && oldNodes[oldPosition + 1] === node) oldAt += slotCountOf(oldNodes[oldPosition++] as onnx.INodeProto);
        if (oldNodes[oldPosition] === node) {
          table = oldIds;
          base = oldAt;
          oldAt += slotCountOf(node);
          oldPosition++;
        }
      }
      const inputsAt = at + outputCount;
      at = inputsAt + (inputs ? inputs.length : 0);
      if (recording && at > recording.length) recording = grownInts(recording, at);
      if (inputs) {
        for (let k = 0; k < inputs.length; k++) {
          const name = inputs[k];
          if (!name) continue;
          const hint = table?.[base + outputCount + k];
          const id = values.hintedId(hint, name);
          if (recording) recording[inputsAt + k] = id;
          // A stale hint (a read rewired behind the table) is put right for the walks that follow.
          else if (id !== hint && table) table[base + outputCount + k] = id;
          const producer = id < 0 ? undefined : producers[id];
          if (producer === undefined) {
            if (unproduced.length === unproducedIds.length) unproducedIds = grownInts(unproducedIds, unproduced.length);
            unproducedIds[unproduced.length] = id;
            unproduced.push(name);
          } else if (producer === node) readsOwnOutput = true;
          else if (placed[id] === 0) return undefined;
        }
      }
      const children = hasSubgraphs ? this.childrenByNode.get(node) : undefined;
      if (children) {
        for (const child of children) {
          for (const name of child.outerReferences) {
            const id = values.idOf(name);
            const producer = id < 0 ? undefined : producers[id];
            if (producer !== undefined && producer !== node && placed[id] === 0) return undefined;
          }
        }
      }
      if (outputs) {
        for (let k = 0; k < outputCount; k++) {
          const name = outputs[k];
          const hint = table?.[base + k];
          const id = name ? values.hintedId(hint, name) : -1;
          if (recording) recording[inputsAt - outputCount + k] = id;
          else if (id !== hint && table) table[base + k] = id;
          if (id < 0 || producers[id] !== node) continue;
          // Seen already: the same node twice in the list (or one output written twice), which the
          // full sort orders by the last position.
          if (placed[id] === 1) return undefined;
          placed[id] = 1;
        }
      }
    }
    if (recording) {
      this.hintIds = at === recording.length ? recording : recording.slice(0, at);
      this.hintNodes = nodes;
    }
    return { order: nodes, blocked: [], inFileOrder: true, readsOwnOutput, unproduced, unproducedIds: unproducedIds.slice(0, unproduced.length) };
  }

  /**
   * Rewrites this scope's node list in topological order (stable: file order wherever it is
   * free). ONNX requires the order but exporters and runtimes tolerate graphs without it; the
   * rewrite's output must have it. Returns the nodes a cycle kept from being placed (left untouched).
   */
  sortTopologically(): onnx.INodeProto[] {
    const { order, blocked } = this.topologicalOrder();
    if (blocked.length) return blocked;
    // The in-order walk's answer is the node list itself, which no edit has changed since.
    if ((this.orderCache as OrderResult).inFileOrder) return [];
    const current = this.currentNodes();
    if (order.length === current.length && order.every((node, i) => node === current[i])) return [];
    this.commit();
    this.nodes = [...order];
    // Hints by position would all miss: the next in-order walk records new ones.
    this.hintIds = undefined;
    this.hintNodes = undefined;
    this.graph.node = this.nodes;
    this.orderCache = undefined;
    return [];
  }

  /** Element type declared for a value: graph input/output, value_info, initializer or Constant. */
  declaredElemType(name: string): number | undefined {
    for (let scope: GraphScope | undefined = this; scope; scope = scope.parent) {
      const found = scope.localDeclaredElemType(name);
      if (found !== undefined) return found;
      if (scope.definesLocally(name)) return undefined;
    }
    return undefined;
  }

  private localDeclaredElemType(name: string): number | undefined {
    const tensor = this.initializers.get(name);
    if (tensor) return tensor.data_type ?? DataType.UNDEFINED;
    for (const info of [this.inputs.get(name), this.valueInfo.get(name), this.outputs.get(name)]) {
      const elemType = info?.type?.tensor_type?.elem_type;
      if (elemType) return elemType;
    }
    const producer = this.producerNodeOf(name);
    if (producer && producer.op_type === 'Constant' && !producer.domain) {
      const value = producer.attribute?.find((a) => a.name === 'value' || a.name === 'sparse_value');
      if (value?.t) return value.t.data_type ?? undefined;
      if (value?.sparse_tensor?.values) return value.sparse_tensor.values.data_type ?? undefined;
    }
    return undefined;
  }
}

export class ModelGraph {
  readonly main: GraphScope;
  /** Every scope, the main graph first, parents before children. */
  readonly scopes: GraphScope[] = [];
  /** The main graph's value index, and which names uniqueName() must avoid (see ModelNames). */
  private readonly names: ModelNames;

  constructor(readonly model: onnx.IModelProto) {
    if (!model.graph) throw new Error('model has no graph');
    this.names = new ModelNames(model.graph.node?.length ?? 0);
    // The main graph reserves its nodes' names as it indexes them; the lists below and every
    // subgraph are noted after.
    this.main = new GraphScope(model.graph, undefined, undefined, 'graph', this.names);
    this.main.resolveOuterReferences();
    const collect = (scope: GraphScope): void => {
      this.scopes.push(scope);
      if (scope !== this.main) this.noteNodeNames(scope.graph);
      this.noteListNames(scope);
      scope.children.forEach(collect);
    };
    collect(this.main);
  }

  private noteNodeNames(graph: onnx.IGraphProto): void {
    const names = this.names;
    for (const node of graph.node ?? []) {
      if (node.name) names.reserveNodeName(node.name);
      const inputs = node.input;
      if (inputs) for (let i = 0; i < inputs.length; i++) names.reserve(inputs[i] as string);
      const outputs = node.output;
      if (outputs) for (let i = 0; i < outputs.length; i++) names.reserve(outputs[i] as string);
    }
  }

  private noteListNames(scope: GraphScope): void {
    const names = this.names;
    const graph = scope.graph;
    for (const list of [graph.input, graph.output, graph.value_info]) for (const info of list ?? []) names.reserveValueName(info.name ?? '');
    const tensors = graph.initializer ?? [];
    // The main graph's names are its value ids: the type inference's hints for its initializers
    // (a list without duplicates or sparse tensors is in the order of scope.initializers).
    const ids = scope === this.main ? new Int32Array(tensors.length) : undefined;
    for (let i = 0; i < tensors.length; i++) {
      const id = names.reserveValueName((tensors[i] as onnx.ITensorProto).name ?? '');
      if (ids) ids[i] = id;
    }
    if (ids) scope.noteInitializerIds(ids);
  }

  /**
   * A value or node name not used anywhere in the model, derived from `base`: `base` itself when
   * free, else `base_1`, `base_2`, ... The same model and calls give the same names.
   */
  uniqueName(base: string): string {
    return this.uniqueNameInto(base, undefined, 0);
  }

  /**
   * uniqueName(), also writing the name's id in the main graph's value index into `ids[slot]`: an
   * id the caller can hand insertNodeAfter() and setInput() for the node it names, which would
   * each hash the new name again.
   */
  uniqueNameInto(base: string, ids: Int32Array | undefined, slot: number): string {
    // A free base (nearly every call) costs one lookup and an insertion.
    let id = this.names.claim(base);
    let name = base;
    if (id < 0) {
      for (let i = 1; this.names.isReserved(name); i++) name = `${base}_${i}`;
      id = this.names.claim(name);
    }
    if (ids) ids[slot] = id;
    return name;
  }

  isNameUsed(name: string): boolean {
    return this.names.isReserved(name);
  }

  commit(): void {
    this.main.commit();
  }

  /**
   * Recomputes which outer values each subgraph reads (and the owner nodes' uses of them) after
   * edits that rewired reads inside subgraphs, such as a Cast hoisted out of a loop body.
   */
  refreshOuterReferences(): void {
    this.main.dropSubgraphUses();
    this.main.resolveOuterReferences();
  }

  /**
   * Lets go of every scope's value id hints (GraphScope.valueIdHints()): a graph model kept after
   * its pass's last walk (returned with the rewritten model) then holds no more than its tables. Nothing changes but speed: the next in-order walk of a
   * scope records its hints again.
   */
  releaseValueIdHints(): void {
    for (const scope of this.scopes) scope.releaseValueIdHints();
  }

  nodeCount(): number {
    let count = 0;
    for (const scope of this.scopes) count += scope.currentNodes().length;
    return count;
  }
}

/** A binary min-heap of small non-negative integers. */
class IndexHeap {
  private readonly items: Int32Array;
  size = 0;
  constructor(capacity: number) {
    this.items = new Int32Array(Math.max(1, capacity));
  }
  push(value: number): void {
    const items = this.items;
    let i = this.size++;
    items[i] = value;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((items[parent] as number) <= value) break;
      items[i] = items[parent] as number;
      i = parent;
    }
    items[i] = value;
  }
  pop(): number {
    const items = this.items;
    const top = items[0] as number;
    const last = items[--this.size] as number;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.size) break;
      const right = left + 1;
      const child = right < this.size && (items[right] as number) < (items[left] as number) ? right : left;
      if ((items[child] as number) >= last) break;
      items[i] = items[child] as number;
      i = child;
    }
    items[i] = last;
    return top;
  }
}
