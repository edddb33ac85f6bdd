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

export class GraphScope {
  readonly children: GraphScope[] = [];
  private readonly producers = new Map<string, ValueProducer>();
  private readonly consumerLists = new Map<string, ValueUse[]>();
  readonly inputs = new Map<string, onnx.IValueInfoProto>();
  readonly outputs = new Map<string, onnx.IValueInfoProto>();
  readonly initializers = new Map<string, onnx.ITensorProto>();
  readonly valueInfo = new Map<string, onnx.IValueInfoProto>();
  /** Names read in this scope (or its descendants) that no node, input or initializer here defines. */
  readonly outerReferences = new Set<string>();
  /** Nodes of this scope in file order, with edits applied by commit(). */
  private nodes: onnx.INodeProto[];
  private readonly removed = new Set<onnx.INodeProto>();
  /** New nodes to place right after an anchor node (or first, under the key null). */
  private readonly insertedAfter = new Map<onnx.INodeProto | null, onnx.INodeProto[]>();
  private readonly childrenByNode = new Map<onnx.INodeProto, GraphScope[]>();

  constructor(
    readonly graph: onnx.IGraphProto,
    readonly parent: GraphScope | undefined,
    /** The node in `parent` whose attribute holds this graph. */
    readonly owner: onnx.INodeProto | undefined,
    /** Readable position, e.g. "graph/loop_0.body". */
    readonly path: string,
  ) {
    this.nodes = graph.node ?? [];
    for (const info of graph.input ?? []) this.inputs.set(info.name ?? '', info);
    for (const info of graph.output ?? []) this.outputs.set(info.name ?? '', info);
    for (const info of graph.value_info ?? []) this.valueInfo.set(info.name ?? '', info);
    for (const tensor of graph.initializer ?? []) this.initializers.set(tensor.name ?? '', tensor);
    for (const sparse of graph.sparse_initializer ?? []) {
      if (sparse.values) this.initializers.set(sparse.values.name ?? '', sparse.values);
    }
    for (const node of this.nodes) this.index(node);
  }

  /** Registers a node's edges and builds scopes for its subgraphs. */
  private index(node: onnx.INodeProto): void {
    (node.output ?? []).forEach((name, index) => {
      if (name) this.producers.set(name, { node, index });
    });
    (node.input ?? []).forEach((name, index) => {
      if (name) this.addUse(name, { node, index });
    });
    const children: GraphScope[] = [];
    for (const attribute of node.attribute ?? []) {
      const graphs = [...(attribute.g ? [attribute.g] : []), ...(attribute.graphs ?? [])];
      graphs.forEach((graph, i) => {
        const suffix = attribute.graphs?.length ? `[${i}]` : '';
        children.push(new GraphScope(graph, this, node, `${this.path}/${node.name || node.op_type}.${attribute.name}${suffix}`));
      });
    }
    if (children.length) {
      this.childrenByNode.set(node, children);
      this.children.push(...children);
    }
  }

  /** Resolves the outer references of every descendant scope to uses of the owning node here. */
  resolveOuterReferences(): void {
    for (const child of this.children) {
      child.resolveOuterReferences();
      for (const name of child.outerReferences) {
        if (!child.owner) continue;
        const list = this.consumerLists.get(name);
        if (!list?.some((use) => use.node === child.owner && use.index === -1)) this.addUse(name, { node: child.owner, index: -1 });
      }
    }
    for (const name of this.consumerLists.keys()) {
      if (!this.definesLocally(name)) this.outerReferences.add(name);
    }
  }

  private addUse(name: string, use: ValueUse): void {
    let list = this.consumerLists.get(name);
    if (!list) this.consumerLists.set(name, (list = []));
    list.push(use);
  }

  private dropUse(name: string, node: onnx.INodeProto, index: number): void {
    const list = this.consumerLists.get(name);
    if (!list) return;
    const at = list.findIndex((use) => use.node === node && use.index === index);
    if (at >= 0) list.splice(at, 1);
    if (!list.length) this.consumerLists.delete(name);
  }

  definesLocally(name: string): boolean {
    return this.producers.has(name) || this.inputs.has(name) || this.initializers.has(name);
  }

  /** Where a name visible in this scope is defined, searching enclosing scopes outwards. */
  resolve(name: string): Definition | undefined {
    for (let scope: GraphScope | undefined = this; scope; scope = scope.parent) {
      const producer = scope.producers.get(name);
      if (producer) return { kind: 'node', scope, producer };
      const info = scope.inputs.get(name);
      if (info) return { kind: 'input', scope, info };
      const tensor = scope.initializers.get(name);
      if (tensor) return { kind: 'initializer', scope, tensor };
    }
    return undefined;
  }

  producerOf(name: string): ValueProducer | undefined {
    return this.producers.get(name);
  }

  /** Uses of a value in this scope; a use with index -1 is a read inside the node's subgraph. */
  consumersOf(name: string): readonly ValueUse[] {
    return this.consumerLists.get(name) ?? [];
  }

  subgraphsOf(node: onnx.INodeProto): readonly GraphScope[] {
    return this.childrenByNode.get(node) ?? [];
  }

  isGraphOutput(name: string): boolean {
    return this.outputs.has(name);
  }

  /** Current nodes of this scope, in file order with pending insertions placed. */
  currentNodes(): onnx.INodeProto[] {
    const result: onnx.INodeProto[] = [...(this.insertedAfter.get(null) ?? [])];
    const placeAfter = (node: onnx.INodeProto): void => {
      for (const inserted of this.insertedAfter.get(node) ?? []) {
        if (!this.removed.has(inserted)) result.push(inserted);
        placeAfter(inserted);
      }
    };
    for (const node of this.nodes) {
      if (!this.removed.has(node)) result.push(node);
      placeAfter(node);
    }
    return result;
  }

  /**
   * Adds a node right after `anchor` (null: before every node). Placing a Cast right after its
   * producer keeps the file order readable and diffs small.
   */
  insertNodeAfter(anchor: onnx.INodeProto | null, node: onnx.INodeProto): void {
    let list = this.insertedAfter.get(anchor);
    if (!list) this.insertedAfter.set(anchor, (list = []));
    list.push(node);
    this.index(node);
    for (const child of this.childrenByNode.get(node) ?? []) child.resolveOuterReferences();
  }

  removeNode(node: onnx.INodeProto): void {
    this.removed.add(node);
    (node.output ?? []).forEach((name) => {
      if (this.producers.get(name)?.node === node) this.producers.delete(name);
    });
    (node.input ?? []).forEach((name, index) => {
      if (name) this.dropUse(name, node, index);
    });
  }

  /** Points input `index` of `node` at another value. */
  setInput(node: onnx.INodeProto, index: number, name: string): void {
    const inputs = node.input ?? (node.input = []);
    const old = inputs[index];
    if (old) this.dropUse(old, node, index);
    inputs[index] = name;
    if (name) this.addUse(name, { node, index });
  }

  /**
   * Gives output `index` of `node` a new name. Consumers keep reading the old name, which the
   * caller must define again (the AMP pass feeds it from a Cast of the new one).
   */
  renameNodeOutput(node: onnx.INodeProto, index: number, newName: string): void {
    const outputs = node.output ?? (node.output = []);
    const old = outputs[index];
    if (old && this.producers.get(old)?.node === node) this.producers.delete(old);
    outputs[index] = newName;
    this.producers.set(newName, { node, index });
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
    this.nodes = this.currentNodes();
    this.graph.node = this.nodes;
    this.removed.clear();
    this.insertedAfter.clear();
    for (const child of this.children) child.commit();
  }

  /**
   * Nodes in an order where every value is produced before it is read (Kahn's algorithm, ties
   * broken by file order). Reads inside a node's subgraphs count as reads by the node. Returns
   * the nodes that could not be placed (a cycle or a missing producer) in `blocked`.
   */
  topologicalOrder(): { order: onnx.INodeProto[]; blocked: onnx.INodeProto[] } {
    const nodes = this.currentNodes();
    const position = new Map(nodes.map((node, i) => [node, i]));
    const waiting = new Map<onnx.INodeProto, number>();
    const dependents = new Map<onnx.INodeProto, onnx.INodeProto[]>();
    for (const node of nodes) {
      const needs = new Set<onnx.INodeProto>();
      const reads = [...(node.input ?? [])];
      for (const child of this.childrenByNode.get(node) ?? []) reads.push(...child.outerReferences);
      for (const name of reads) {
        const producer = name ? this.producers.get(name)?.node : undefined;
        if (producer && producer !== node && position.has(producer)) needs.add(producer);
      }
      waiting.set(node, needs.size);
      for (const producer of needs) {
        let list = dependents.get(producer);
        if (!list) dependents.set(producer, (list = []));
        list.push(node);
      }
    }
    // A binary heap on file position keeps the result stable and the whole sort O(n log n).
    const ready = new MinHeap<onnx.INodeProto>((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0));
    for (const node of nodes) if (waiting.get(node) === 0) ready.push(node);
    const order: onnx.INodeProto[] = [];
    while (ready.size) {
      const node = ready.pop() as onnx.INodeProto;
      order.push(node);
      for (const next of dependents.get(node) ?? []) {
        const left = (waiting.get(next) ?? 0) - 1;
        waiting.set(next, left);
        if (left === 0) ready.push(next);
      }
    }
    const placed = new Set(order);
    return { order, blocked: nodes.filter((node) => !placed.has(node)) };
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
    const producer = this.producers.get(name);
    if (producer && producer.node.op_type === 'Constant' && !producer.node.domain) {
      const value = producer.node.attribute?.find((a) => a.name === 'value' || a.name === 'sparse_value');
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
  private readonly usedNames = new Set<string>();

  constructor(readonly model: onnx.IModelProto) {
    if (!model.graph) throw new Error('model has no graph');
    this.main = new GraphScope(model.graph, undefined, undefined, 'graph');
    this.main.resolveOuterReferences();
    const collect = (scope: GraphScope): void => {
      this.scopes.push(scope);
      this.noteNames(scope.graph);
      scope.children.forEach(collect);
    };
    collect(this.main);
  }

  private noteNames(graph: onnx.IGraphProto): void {
    for (const node of graph.node ?? []) {
      if (node.name) this.usedNames.add(node.name);
      for (const name of node.input ?? []) this.usedNames.add(name);
      for (const name of node.output ?? []) this.usedNames.add(name);
    }
    for (const list of [graph.input, graph.output, graph.value_info]) for (const info of list ?? []) this.usedNames.add(info.name ?? '');
    for (const tensor of graph.initializer ?? []) this.usedNames.add(tensor.name ?? '');
  }

  /**
   * A value or node name not used anywhere in the model, derived from `base`: `base` itself when
   * free, else `base_1`, `base_2`, ... The same model and calls give the same names.
   */
  uniqueName(base: string): string {
    let name = base;
    for (let i = 1; this.usedNames.has(name); i++) name = `${base}_${i}`;
    this.usedNames.add(name);
    return name;
  }

  isNameUsed(name: string): boolean {
    return this.usedNames.has(name);
  }

  commit(): void {
    this.main.commit();
  }

  nodeCount(): number {
    let count = 0;
    for (const scope of this.scopes) count += scope.currentNodes().length;
    return count;
  }
}

class MinHeap<T> {
  private readonly items: T[] = [];
  constructor(private readonly less: (a: T, b: T) => number) {}
  get size(): number {
    return this.items.length;
  }
  push(item: T): void {
    const items = this.items;
    items.push(item);
    for (let i = items.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (this.less(items[i] as T, items[parent] as T) >= 0) break;
      [items[i], items[parent]] = [items[parent] as T, items[i] as T];
      i = parent;
    }
  }
  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length && last !== undefined) {
      items[0] = last;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < items.length && this.less(items[left] as T, items[smallest] as T) < 0) smallest = left;
        if (right < items.length && this.less(items[right] as T, items[smallest] as T) < 0) smallest = right;
        if (smallest === i) break;
        [items[i], items[smallest]] = [items[smallest] as T, items[i] as T];
        i = smallest;
      }
    }
    return top;
  }
}
