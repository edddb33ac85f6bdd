/**
 * Checks a model before any pass looks at it, in the spirit of ONNX's checker: a model the
 * checker (or ONNX Runtime) would reject is a bad input (exit 2, naming the node or tensor), not
 * a crash in the middle of painting, and never passed through as "nothing to convert".
 *
 * What is checked: a graph is present; ir_version is in range; an opset is imported; in every
 * graph scope value names are non-empty where required and each value has one producer; the
 * nodes form no cycle; every tensor's data agrees with its dims and type, and a tensor held in
 * memory fits in what this tool can hold; and the type/order checks the rewrite's own validator
 * runs on its output.
 */
import { MAX_BUFFER_BYTES } from './byte-limits.js';
import Long from 'long';
import { SUPPORTED_IR_VERSION } from './codec.js';
import { DataType, bytesPerElement, dataTypeName } from './data-types.js';
import { AmpError } from './errors.js';
import { externalRefOf, isExternal } from './external-data.js';
import { ValueIndex } from './graph.js';
import type { onnx } from './generated/onnx.js';
import { pendingConversionOf } from './pending-conversion.js';
import { printable } from './printable.js';
import { runsAsOwnSession } from './session-graphs.js';
import { NodeRules } from './check-nodes.js';
import { forEachTensor, holdsGraph } from './walk.js';
import { validateModel } from './validate.js';

/** The largest tensor this tool can hold in memory: one byte array. */
export const MAX_TENSOR_BYTES = MAX_BUFFER_BYTES;
const MAX_TENSOR_BIGINT = BigInt(MAX_TENSOR_BYTES);

export interface CheckOptions {
  /** Name of the model in messages (a file path). */
  source?: string;
  /** Accept an ir_version newer than this tool knows (as --allow-newer-ir does when loading). */
  allowNewerIr?: boolean;
  /** Run the structural checks: graph, IR version, opsets, names, cycles, tensor data (default true). */
  structure?: boolean;
  /** Run the type and order checks of the rewrite's validator on the input (default true). */
  types?: boolean;
}

function invalid(message: string, subject: string): AmpError {
  return new AmpError('INVALID_MODEL', message, { subject });
}

/** Throws an AmpError (INVALID_MODEL or MODEL_TOO_LARGE) for the first problem found. */
export function checkModel(model: onnx.IModelProto, options: CheckOptions = {}): void {
  const source = options.source ?? 'model';
  if (options.structure ?? true) {
    try {
      checkStructure(model, source, options);
    } catch (error) {
      // The graph's own messages say where in the model ("graph/loop.body: ..."); the file comes first.
      if (!options.source || !(error instanceof AmpError) || error.code !== 'INVALID_MODEL' || error.message.startsWith(`${printable(source)}:`)) throw error;
      throw new AmpError(error.code, `${printable(source)}: ${error.message}`, { ...(error.subject === undefined ? {} : { subject: error.subject }), cause: error });
    }
  }
  if (options.types ?? true) {
    const problems = validateModel(model);
    const first = problems[0];
    if (first) {
      const more = problems.length > 1 ? ` (and ${problems.length - 1} more problems)` : '';
      throw invalid(`${options.source ? `${printable(options.source)}: ` : ''}the input model is invalid: ${printable(first.message, 400)}${more}`, first.node);
    }
  }
}

function checkStructure(model: onnx.IModelProto, source: string, options: CheckOptions): void {
  if (!model.graph) throw invalid(`${printable(source)}: the model has no graph`, source);
  checkIrVersion(model, source, options.allowNewerIr ?? false);
  if (Long.fromValue(model.ir_version ?? 0).toNumber() < 3 && (model.opset_import ?? []).length) {
    throw invalid(`${printable(source)}: ir_version ${Long.fromValue(model.ir_version ?? 0).toNumber()} predates opset imports (IR 3), yet the model has them`, source);
  }
  if (!(model.opset_import ?? []).length) {
    throw invalid(`${printable(source)}: the model imports no opset (opset_import is empty), so its operators have no meaning`, source);
  }
  const opsets = new Map<string, number>();
  for (const opset of model.opset_import ?? []) {
    const version = Long.fromValue(opset.version ?? 0).toNumber();
    // An opset version is an int32 in ONNX's and ONNX Runtime's registries: 2^40 is no version.
    if (version < 1 || version > MAX_OPSET_VERSION) {
      throw invalid(`${printable(source)}: opset_import of domain '${printable(opset.domain)}' has version ${version} (an opset version is 1 to ${MAX_OPSET_VERSION})`, source);
    }
    const domain = opset.domain === 'ai.onnx' ? '' : (opset.domain ?? '');
    if (opsets.has(domain)) throw invalid(`${printable(source)}: opset_import names domain '${printable(opset.domain)}' twice`, source);
    opsets.set(domain, version);
  }
  checkGraph(model.graph, 'graph', { opsets, rules: new NodeRules(opsets, Long.fromValue(model.ir_version ?? 0).toNumber()), outer: [] });
  checkFunctionCalls(model, source);
  forEachTensor(model, checkTensor);
}

/** A function's key as a node calls it: `domain:name:overload` ('' and 'ai.onnx' are one domain). */
function callKey(domain: string | null | undefined, name: string | null | undefined, overload: string | null | undefined): string {
  return `${domain === 'ai.onnx' ? '' : (domain ?? '')}:${name ?? ''}:${overload ?? ''}`;
}

/** The nodes of a function body, and of the subgraphs its nodes hold. */
function forEachBodyNode(nodes: readonly onnx.INodeProto[], visit: (node: onnx.INodeProto) => void): void {
  for (const node of nodes) {
    visit(node);
    for (const attribute of node.attribute ?? []) {
      if (attribute.g) forEachBodyNode(attribute.g.node ?? [], visit);
      for (const graph of attribute.graphs ?? []) forEachBodyNode(graph.node ?? [], visit);
    }
  }
}

/**
 * Model-local functions call no function that leads back to them (F calling F, or F → G → F): the
 * ONNX spec says a function graph may not be recursive, ONNX Runtime cannot inline one, and the
 * rewrite's inlining would unfold it without end.
 */
function checkFunctionCalls(model: onnx.IModelProto, source: string): void {
  const functions = model.functions ?? [];
  if (!functions.length) return;
  const calls = new Map<string, { name: string; callees: string[] }>();
  for (const fn of functions) calls.set(callKey(fn.domain, fn.name, fn.overload), { name: fn.name ?? '', callees: [] });
  for (const fn of functions) {
    const callees = calls.get(callKey(fn.domain, fn.name, fn.overload))?.callees as string[];
    forEachBodyNode(fn.node ?? [], (node) => {
      const key = callKey(node.domain, node.op_type, node.overload);
      if (calls.has(key)) callees.push(key);
    });
  }
  // Depth-first, iteratively (a chain of thousands of functions must not overflow the stack).
  const state = new Map<string, 'open' | 'done'>();
  for (const start of calls.keys()) {
    if (state.has(start)) continue;
    const stack: Array<{ key: string; next: number }> = [{ key: start, next: 0 }];
    state.set(start, 'open');
    while (stack.length) {
      const top = stack[stack.length - 1] as { key: string; next: number };
      const callees = calls.get(top.key)?.callees ?? [];
      if (top.next >= callees.length) {
        state.set(top.key, 'done');
        stack.pop();
        continue;
      }
      const callee = callees[top.next++] as string;
      if (state.get(callee) === 'open') {
        const from = stack.findIndex((frame) => frame.key === callee);
        const cycle = [...stack.slice(from).map((frame) => frame.key), callee].map((key) => `'${printable(calls.get(key)?.name, 80)}'`);
        throw invalid(`${printable(source)}: model-local function ${cycle[0]} calls itself (${cycle.slice(0, 8).join(' → ')}${cycle.length > 8 ? ' → …' : ''}); a function may not be recursive`, calls.get(callee)?.name ?? '');
      }
      if (!state.has(callee)) {
        state.set(callee, 'open');
        stack.push({ key: callee, next: 0 });
      }
    }
  }
}

function checkIrVersion(model: onnx.IModelProto, source: string, allowNewer: boolean): void {
  const ir = Long.fromValue(model.ir_version ?? 0).toNumber();
  if (ir < 1 || (!allowNewer && ir > SUPPORTED_IR_VERSION)) {
    throw invalid(`${printable(source)}: ir_version ${ir} is not a valid IR version (1 to ${SUPPORTED_IR_VERSION})`, source);
  }
}

/** The largest opset version: an int32. */
const MAX_OPSET_VERSION = 2 ** 31 - 1;

/** Domains a node may use without an opset import: ONNX Runtime resolves com.microsoft without one (deliberately tolerated, docs/safety.md). */
const DOMAINS_WITHOUT_IMPORT: ReadonlySet<string> = new Set(['com.microsoft']);

/** What a graph's check needs from the model and the graphs around it. */
interface ScopeContext {
  opsets: ReadonlyMap<string, number>;
  rules: NodeRules;
  /** The enclosing graphs' definitions, and the index of the node in each that holds the next one. */
  outer: ReadonlyArray<{ defined: Definitions; holder: number }>;
}

/** Names, producers and cycles of one graph scope, its nodes' domains and attributes, then its subgraphs. */
function checkGraph(graph: onnx.IGraphProto, path: string, context: ScopeContext): void {
  const where = printable(path);
  const nodes = graph.node ?? [];
  const plain = plainDefinitions(graph, nodes);
  const defined = plain?.defined ?? checkedDefinitions(graph, path, where, nodes);
  // ONNX's checker types only the main graph's inputs and outputs ("relax constraint for subgraph
  // input/output"): spox leaves If branch outputs with an empty type (Silero VAD v5/v6), and ONNX Runtime runs them.
  for (const info of context.outer.length ? [] : [...(graph.input ?? []), ...(graph.output ?? [])]) {
    const type = info.type;
    // A type with no kind set (tensor, sequence, map, optional, sparse tensor): ONNX's checker refuses it.
    if (type && !(type.tensor_type || type.sequence_type || type.map_type || type.optional_type || type.sparse_tensor_type || (type as { opaque_type?: unknown }).opaque_type)) {
      throw invalid(`${where}: graph input or output '${printable(info.name)}' has a type of no kind (not a tensor, sequence, map, optional or sparse tensor)`, info.name ?? '');
    }
    // A tensor type without its element type: the checker requires elem_type on graph inputs and outputs (not on value_info).
    const tensor = type?.tensor_type ?? type?.sparse_tensor_type;
    if (tensor && !tensor.elem_type) throw invalid(`${where}: graph input or output '${printable(info.name)}' is a tensor with no element type`, info.name ?? '');
  }
  for (const output of graph.output ?? []) {
    if (!output.name) throw invalid(`${where}: a graph output has an empty name`, path);
    if (defined.get(output.name) === undefined) throw invalid(`${where}: graph output '${printable(output.name)}' is not an input, initializer or node output of its graph`, output.name);
  }
  if (!plain?.sorted) checkAcyclic(graph, defined, where);
  if (context.outer.length) checkNoShadowing(graph, where, context.outer);
  for (const sparse of graph.sparse_initializer ?? []) checkSparseIndices(sparse, where);
  checkNodes(nodes, where, context);
  for (const [node, attribute, index] of plain ? plain.subgraphs : subgraphAttributes(nodes)) {
    const base = `${path}/${node.name || node.op_type}.${attribute.name}`;
    // A generation driver's graph runs as a session of its own: it sees no enclosing graph, and may reuse its names.
    const inner: ScopeContext = runsAsOwnSession(node.domain, node.op_type, attribute.name) ? { ...context, outer: [] } : { ...context, outer: [...context.outer, { defined, holder: index }] };
    if (attribute.g) checkGraph(attribute.g, base, inner);
    (attribute.graphs ?? []).forEach((g, i) => checkGraph(g, `${base}[${i}]`, inner));
  }
}

/** Each node's domain is imported, and its attributes and empty names keep its schema's rules. */
function checkNodes(nodes: readonly onnx.INodeProto[], where: string, context: ScopeContext): void {
  for (const node of nodes) {
    const domain = node.domain;
    if (domain && domain !== 'ai.onnx' && !context.opsets.has(domain) && !DOMAINS_WITHOUT_IMPORT.has(domain)) {
      throw invalid(`${where}: ${printable(node.op_type)} node '${printable(node.name || node.output?.[0] || '?')}' is in domain '${printable(domain)}', which the model does not import (no opset_import for it)`, node.name ?? '');
    }
    if (!domain && !context.opsets.has('')) {
      throw invalid(`${where}: ${printable(node.op_type)} node '${printable(node.name || node.output?.[0] || '?')}' is in the default domain (ai.onnx), which the model does not import`, node.name ?? '');
    }
    context.rules.check(node, where);
  }
}

/**
 * A subgraph's inputs, initializers and node outputs do not reuse a name its enclosing graphs
 * have defined by the node holding it (IR.md: "variable shadowing is not allowed"), as ONNX's
 * checker reads scopes: in order, so a name an outer graph defines only after that node is not one.
 */
function checkNoShadowing(graph: onnx.IGraphProto, where: string, outer: ScopeContext['outer']): void {
  const shadows = (name: string | null | undefined): boolean =>
    !!name &&
    outer.some(({ defined, holder }) => {
      const what = defined.get(name);
      return what !== undefined && (typeof what === 'string' || what < holder);
    });
  const report = (name: string, what: string): never => {
    throw invalid(`${where}: ${what} '${printable(name)}' shadows a value of an enclosing graph of the same name; ONNX forbids shadowing (rename one)`, name);
  };
  for (const input of graph.input ?? []) if (shadows(input.name)) report(input.name as string, 'subgraph input');
  for (const tensor of graph.initializer ?? []) if (shadows(tensor.name)) report(tensor.name as string, 'initializer');
  for (const node of graph.node ?? []) for (const output of node.output ?? []) if (shadows(output)) report(output, `the output of ${printable(node.op_type)} node '${printable(node.name)}',`);
}

/** A tensor's int64 values, from int64_data or raw_data (little-endian). */
function int64Values(tensor: onnx.ITensorProto): bigint[] {
  if (tensor.int64_data?.length) return tensor.int64_data.map((v) => dimToBigInt(v as Long | string));
  const raw = tensor.raw_data;
  if (!raw?.length) return [];
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  return Array.from({ length: Math.floor(raw.byteLength / 8) }, (_, i) => view.getBigInt64(i * 8, true));
}

/**
 * A sparse initializer's indices address elements of its dense shape, in order, as ONNX's checker
 * requires: [NNZ] linear indices ascending below the element count, or [NNZ, rank] coordinates
 * each below its dimension. Values past the shape would be written outside the tensor.
 */
function checkSparseIndices(sparse: onnx.ISparseTensorProto, where: string): void {
  const name = sparse.values?.name ?? '';
  const fail = (problem: string): AmpError => invalid(`${where}: sparse initializer '${printable(name)}': ${problem}`, name);
  const dims = (sparse.dims ?? []).map((d) => dimToBigInt(d as Long | string));
  const nnz = dimToBigInt((sparse.values?.dims?.[0] ?? 0) as Long | string);
  const indices = sparse.indices;
  if (!indices) {
    if (nnz !== 0n) throw fail(`${nnz} values and no indices`);
    return;
  }
  const indexDims = (indices.dims ?? []).map((d) => dimToBigInt(d as Long | string));
  const values = int64Values(indices);
  const count = dims.reduce((a, b) => a * b, 1n);
  if (indexDims.length === 1) {
    if (indexDims[0] !== nnz || BigInt(values.length) !== nnz) throw fail(`${nnz} values but ${values.length} indices`);
    values.forEach((index, i) => {
      if (index < 0n || index >= count) throw fail(`index ${index} (entry ${i}) is outside its ${count} elements`);
      if (i > 0 && index <= (values[i - 1] as bigint)) throw fail(`indices are not in ascending order at entry ${i}`);
    });
    return;
  }
  if (indexDims.length === 2 && indexDims[0] === nnz && indexDims[1] === BigInt(dims.length) && BigInt(values.length) === nnz * BigInt(dims.length)) {
    values.forEach((index, i) => {
      const dim = dims[i % dims.length] as bigint;
      if (index < 0n || index >= dim) throw fail(`coordinate ${index} (entry ${Math.floor(i / dims.length)}) is outside dimension ${i % dims.length} of size ${dim}`);
    });
    return;
  }
  throw fail(`indices of shape [${indexDims.join(',')}] fit neither [${nnz}] nor [${nnz},${dims.length}]`);
}

type SubgraphAttribute = readonly [onnx.INodeProto, onnx.IAttributeProto, number];

/** The attributes of `nodes` that hold a graph, in node and attribute order, with their node's index. */
function subgraphAttributes(nodes: readonly onnx.INodeProto[]): SubgraphAttribute[] {
  const found: SubgraphAttribute[] = [];
  nodes.forEach((node, index) => {
    for (const attribute of node.attribute ?? []) if (holdsGraph(attribute)) found.push([node, attribute, index]);
  });
  return found;
}

/** What defined each name: a node's index, an initializer's ~index, a graph input's description. */
interface Definitions {
  get(name: string): string | number | undefined;
}

/**
 * Definitions by value id in a ValueIndex (one insertion per name, its id telling a repeat): a
 * Map of a big graph's names grew by rehashing itself, the larger part of checking its structure.
 */
class DefinitionTable implements Definitions {
  private readonly index: ValueIndex;
  private readonly what: Array<string | number> = [];

  constructor(expected: number) {
    this.index = new ValueIndex(expected);
  }

  get(name: string): string | number | undefined {
    const id = this.index.idOf(name);
    return id < 0 ? undefined : this.what[id];
  }

  /** Records what defined `name`; false (and nothing recorded) when the name was defined already. */
  define(name: string, what: string | number): boolean {
    const size = this.index.size;
    const id = this.index.intern(name);
    if (id < size) return false;
    this.what.push(what);
    return true;
  }
}

interface PlainDefinitions {
  defined: Definitions;
  /** Every node reads only outputs of nodes before it (then there is no cycle). */
  sorted: boolean;
  /** The attributes that hold a graph, in node and attribute order. */
  subgraphs: SubgraphAttribute[];
}

/**
 * What defined each name, for a graph with nothing to report (the usual case): one insertion per
 * name, a repeat told by the id it gets (an old one), where checkedDefinitions() looks each name
 * up first and keeps a second set of the initializers' names. Undefined at the first thing that
 * checkedDefinitions() might report (or a sparse initializer), which then runs from the start and
 * reports it as it always did.
 *
 * The same pass over the nodes tells whether they are sorted and finds the subgraphs: a big
 * graph's passes over its nodes are memory-bound, so one pass instead of three. A node's inputs
 * are looked up before its outputs are added, so a name not yet defined then is either read
 * from a later node (unsorted: the cycle check runs), from the node itself, or from no node at
 * all; those few are looked up again once every name is in.
 */
function plainDefinitions(graph: onnx.IGraphProto, nodes: readonly onnx.INodeProto[]): PlainDefinitions | undefined {
  if (graph.sparse_initializer?.length) return undefined;
  const initializers = graph.initializer ?? [];
  // About two names a node (outputs, weights), and the graph's inputs and initializers.
  const defined = new DefinitionTable(nodes.length * 2 + initializers.length + (graph.input?.length ?? 0));
  const graphInputs = new Set<string>();
  for (const input of graph.input ?? []) {
    const name = input.name;
    if (!name || graphInputs.has(name)) return undefined;
    graphInputs.add(name);
    defined.define(name, `graph input '${printable(name)}'`);
  }
  /** Graph inputs an initializer already gave a default value: a second one is a repeat. */
  const withDefault = new Set<string>();
  for (let index = 0; index < initializers.length; index++) {
    const name = (initializers[index] as onnx.ITensorProto).name;
    if (!name) return undefined;
    if (defined.define(name, ~index)) continue;
    if (!graphInputs.has(name) || withDefault.has(name)) return undefined;
    // A graph input's default: the input stays its definition (the cycle check reads only nodes').
    withDefault.add(name);
  }
  /** Inputs not defined when their node was reached, and that node's index. */
  const unresolved: Array<string | number> = [];
  const subgraphs: SubgraphAttribute[] = [];
  for (let index = 0; index < nodes.length; index++) {
    const node = nodes[index] as onnx.INodeProto;
    if (!node.op_type) return undefined;
    const inputs = node.input;
    if (inputs) {
      for (let k = 0; k < inputs.length; k++) {
        const input = inputs[k];
        if (input && defined.get(input) === undefined) unresolved.push(input, index);
      }
    }
    const outputs = node.output;
    if (outputs) {
      for (let k = 0; k < outputs.length; k++) {
        const output = outputs[k];
        if (!output) continue; // an omitted optional output
        if (!defined.define(output, index)) return undefined;
      }
    }
    const attributes = node.attribute;
    if (attributes && attributes.length) for (let a = 0; a < attributes.length; a++) if (holdsGraph(attributes[a] as onnx.IAttributeProto)) subgraphs.push([node, attributes[a] as onnx.IAttributeProto, index]);
  }
  let sorted = true;
  for (let u = 0; u < unresolved.length && sorted; u += 2) {
    const what = defined.get(unresolved[u] as string);
    if (typeof what === 'number' && what >= (unresolved[u + 1] as number)) sorted = false;
  }
  return { defined, sorted, subgraphs };
}

/** Names and producers of one graph scope, each definition looked up first: reports the first problem. */
function checkedDefinitions(graph: onnx.IGraphProto, path: string, where: string, nodes: readonly onnx.INodeProto[]): Map<string, string | number> {
  // What defined each name: a description, or the index of the producing node (described only
  // for a message, so a large graph pays no string building).
  const defined = new Map<string, string | number>();
  const describe = (what: string | number): string => {
    if (typeof what === 'string') return what;
    if (what < 0) return `initializer '${printable(graph.initializer?.[~what]?.name)}'`;
    const node = nodes[what] as onnx.INodeProto;
    return `${printable(node.op_type || '?')} node '${printable(node.name || node.output?.[0] || String(what))}'`;
  };
  const define = (name: string | null | undefined, what: string | number, allowRedefinition = false): void => {
    if (!name) throw invalid(`${where}: ${describe(what)} has an empty name`, path);
    const before = defined.get(name);
    if (before !== undefined && !allowRedefinition) {
      throw invalid(`${where}: '${printable(name)}' is defined twice (${describe(before)} and ${describe(what)}); each value must have one producer`, name);
    }
    defined.set(name, what);
  };
  const graphInputs = new Set<string>();
  for (const input of graph.input ?? []) {
    define(input.name, input.name ? `graph input '${printable(input.name)}'` : 'a graph input');
    graphInputs.add(input.name ?? '');
  }
  const initializers = new Set<string>();
  (graph.initializer ?? []).forEach((tensor, index) => {
    const name = tensor.name ?? '';
    if (initializers.has(name)) throw invalid(`${where}: initializer '${printable(name)}' appears twice`, name);
    initializers.add(name);
    // An initializer may also be listed as a graph input (its default value).
    define(name, name ? ~index : 'an initializer', graphInputs.has(name));
  });
  for (const sparse of graph.sparse_initializer ?? []) define(sparse.values?.name, `sparse initializer '${printable(sparse.values?.name)}'`);
  for (let index = 0; index < nodes.length; index++) {
    const node = nodes[index] as onnx.INodeProto;
    if (!node.op_type) throw invalid(`${where}: node ${index} ('${printable(node.name)}') has no op_type`, node.name ?? '');
    for (const output of node.output ?? []) {
      if (!output) continue; // an omitted optional output
      define(output, index);
    }
  }
  return defined;
}

/**
 * Kahn's algorithm over direct inputs: any node left over sits on a cycle (a node reading its own
 * output included). `defined` maps a node's output to the node's index (a non-negative number;
 * inputs and initializers map to other values): no second map of every output.
 */
function checkAcyclic(graph: onnx.IGraphProto, defined: Definitions, where: string): void {
  const nodes = graph.node ?? [];
  const n = nodes.length;
  if (readsOnlyEarlierNodes(nodes, defined)) return;
  const waiting = new Int32Array(n);
  const lastReader = new Int32Array(n).fill(-1);
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const input of (nodes[i] as onnx.INodeProto).input ?? []) {
      const what = input ? defined.get(input) : undefined;
      if (typeof what !== 'number' || what < 0) continue;
      const at = what;
      if (lastReader[at] === i) continue;
      lastReader[at] = i;
      from.push(at);
      to.push(i);
      waiting[i] = (waiting[i] as number) + 1;
    }
  }
  // Edges grouped by producer (compressed rows), so the walk allocates no array per node.
  const first = new Int32Array(n + 1);
  for (const f of from) first[f + 1] = (first[f + 1] as number) + 1;
  for (let i = 0; i < n; i++) first[i + 1] = (first[i + 1] as number) + (first[i] as number);
  const cursor = first.slice(0, n);
  const readers = new Int32Array(from.length);
  from.forEach((f, e) => {
    readers[cursor[f] as number] = to[e] as number;
    cursor[f] = (cursor[f] as number) + 1;
  });
  const ready: number[] = [];
  for (let i = 0; i < n; i++) if (waiting[i] === 0) ready.push(i);
  let placed = 0;
  while (ready.length) {
    const i = ready.pop() as number;
    placed++;
    for (let e = first[i] as number; e < (first[i + 1] as number); e++) {
      const next = readers[e] as number;
      waiting[next] = (waiting[next] as number) - 1;
      if (waiting[next] === 0) ready.push(next);
    }
  }
  if (placed === n) return;
  const stuck = nodes.find((_, i) => (waiting[i] as number) > 0) as onnx.INodeProto;
  throw invalid(
    `${where}: the nodes form a cycle (${printable(stuck.op_type)} node '${printable(stuck.name || stuck.output?.[0])}' depends on its own output)`,
    stuck.name ?? '',
  );
}

/**
 * Whether every node reads only outputs of nodes before it in the list (the common case, a sorted
 * model): then there is no cycle, and one lookup per read tells it, where Kahn's algorithm also
 * built an edge list and its compressed rows. A node reading its own output or a later one's
 * sends the caller to the full walk, which finds any cycle.
 */
function readsOnlyEarlierNodes(nodes: readonly onnx.INodeProto[], defined: Definitions): boolean {
  for (let i = 0; i < nodes.length; i++) {
    const inputs = (nodes[i] as onnx.INodeProto).input;
    if (!inputs) continue;
    for (let k = 0; k < inputs.length; k++) {
      const input = inputs[k];
      const what = input ? defined.get(input) : undefined;
      if (typeof what === 'number' && what >= i) return false;
    }
  }
  return true;
}

/** The typed field a data type's values live in, and how many entries n elements take there. */
function typedField(dataType: number, count: bigint): { field: keyof onnx.ITensorProto; entries: bigint } | undefined {
  switch (dataType) {
    case DataType.FLOAT: return { field: 'float_data', entries: count };
    case DataType.COMPLEX64: return { field: 'float_data', entries: 2n * count };
    case DataType.DOUBLE: return { field: 'double_data', entries: count };
    case DataType.COMPLEX128: return { field: 'double_data', entries: 2n * count };
    case DataType.INT64: return { field: 'int64_data', entries: count };
    case DataType.UINT32: case DataType.UINT64: return { field: 'uint64_data', entries: count };
    case DataType.STRING: return { field: 'string_data', entries: count };
    case DataType.UINT4: case DataType.INT4: case DataType.FLOAT4E2M1: return { field: 'int32_data', entries: (count + 1n) / 2n };
    case DataType.UINT2: case DataType.INT2: return { field: 'int32_data', entries: (count + 3n) / 4n };
    default: return bytesPerElement(dataType) === undefined ? undefined : { field: 'int32_data', entries: count };
  }
}

const TYPED_FIELDS = ['float_data', 'int32_data', 'string_data', 'int64_data', 'double_data', 'uint64_data'] as const;
type TypedField = (typeof TYPED_FIELDS)[number];

function rawBytesFor(dataType: number, count: bigint): bigint | undefined {
  const per = bytesPerElement(dataType);
  if (per === undefined) return undefined;
  if (per >= 1) return count * BigInt(per);
  const perByte = BigInt(Math.round(1 / per));
  return (count + perByte - 1n) / perByte;
}

/**
 * A 64-bit dim as a BigInt: straight from its double when it fits in one (every real dim), where
 * the decimal string Long builds (a division per digit group) was most of checking a tensor.
 */
function dimToBigInt(dim: Long | string): bigint {
  const long = Long.fromValue(dim);
  const high = long.high;
  if (long.unsigned ? high >= 0 && high < 0x200000 : high >= -0x200000 && high < 0x200000) return BigInt(long.toNumber());
  return BigInt(long.toString());
}

const NO_FIELDS: readonly (typeof TYPED_FIELDS)[number][] = [];

/** The typed fields holding values, in TYPED_FIELDS order (no array made for the usual none). */
function storedFields(tensor: onnx.ITensorProto): readonly (typeof TYPED_FIELDS)[number][] {
  let stored: (typeof TYPED_FIELDS)[number][] | undefined;
  for (const f of TYPED_FIELDS) {
    if (((tensor[f] as unknown[] | null | undefined) ?? []).length > 0) (stored ??= []).push(f);
  }
  return stored ?? NO_FIELDS;
}

/**
 * Whether the usual stored tensor (dims below 2^31, a whole number of bytes per element, its
 * values in raw_data, or none for an empty one) passes checkTensor's checks, told with number
 * arithmetic, exact far past the byte limit. A big graph has a hundred thousand tensors, and
 * checkTensor's BigInts allocate at each step. Anything else, and anything to report, is left to
 * checkTensor's exact path, which reports as it always did.
 */
function passesPlainly(tensor: onnx.ITensorProto): boolean {
  const per = bytesPerElement(tensor.data_type ?? 0);
  if (per === undefined || per < 1) return false;
  let count = 1;
  const dims = tensor.dims;
  if (dims) {
    for (let i = 0; i < dims.length; i++) {
      const dim = dims[i] as number | Long | string;
      let value: number;
      if (typeof dim === 'number') value = dim;
      else if (typeof dim === 'object' && dim !== null && dim.high === 0 && dim.low >= 0) value = dim.low;
      else return false;
      if (!(value >= 0) || !Number.isInteger(value)) return false;
      // Exact while below 2^53; past it the product never comes back below (only to 0 for a 0
      // dim, exactly, or NaN), so it cannot equal a buffer's length nor 0 by rounding.
      count *= value;
    }
  }
  if (isExternal(tensor) || pendingConversionOf(tensor)) return false;
  for (let i = 0; i < TYPED_FIELDS.length; i++) if (((tensor[TYPED_FIELDS[i] as TypedField] as unknown[] | null | undefined) ?? NO_FIELDS).length > 0) return false;
  const rawData = tensor.raw_data;
  if (rawData != null && Object.hasOwn(tensor, 'raw_data')) return rawData.length === count * per;
  return count === 0;
}

/** The checks every stored tensor gets, for one tensor (an input file's TensorProto, say). */
export function checkTensorData(tensor: onnx.ITensorProto, where: string): void {
  checkTensor(tensor, where);
}

function checkTensor(tensor: onnx.ITensorProto, where: string): void {
  if (passesPlainly(tensor)) return;
  const name = tensor.name ?? '';
  const dataType = tensor.data_type ?? 0;
  // Messages are built only on failure: a large model has hundreds of thousands of tensors.
  const fail = (problem: (label: string, typed: string) => string): AmpError => {
    const dims = `[${(tensor.dims ?? []).map((d) => Long.fromValue(d).toString()).join(',')}]`;
    return invalid(problem(`tensor '${printable(name)}' (${printable(where)})`, `${dataTypeName(dataType)} ${dims}`), name);
  };
  let count = 1n;
  for (const dim of tensor.dims ?? []) {
    const value = typeof dim === 'number' ? BigInt(dim) : dimToBigInt(dim);
    if (value < 0n) throw fail((label) => `${label}: dimension ${value} is negative`);
    count *= value;
  }
  const raw = rawBytesFor(dataType, count);
  const field = typedField(dataType, count);
  if (!field) throw fail((label) => `${label}: data type ${dataType} is not a tensor element type`);
  // External data, and a float16 copy still to be made from it, is never held whole by the rewrite:
  // scanned, converted and copied in chunks (tensor-chunks.ts), and refused with MODEL_TOO_LARGE
  // where something would read it into one buffer (external-data.ts). So a weight over one buffer
  // (4 GiB on Node 20) is no reason to refuse the model.
  if (isExternal(tensor)) {
    const ref = externalRefOf(tensor);
    if (ref && raw !== undefined && BigInt(ref.length) !== raw) {
      throw fail((label, typed) => `${label}: ${typed} needs ${raw} bytes, its external data holds ${ref.length}`);
    }
    return;
  }
  const pending = pendingConversionOf(tensor);
  if (pending) {
    // A float16 copy still to be made from external data: its length is known without making it.
    if (raw !== undefined && BigInt(pending.byteLength) !== raw) throw fail((label, typed) => `${label}: ${typed} needs ${raw} bytes of raw_data, it has ${pending.byteLength}`);
    return;
  }
  if (raw !== undefined && raw > MAX_TENSOR_BIGINT) {
    const tooLarge = fail((label, typed) => `${label}: ${typed} is ${raw} bytes, over the ${MAX_TENSOR_BYTES} bytes one tensor may hold in this tool`);
    throw new AmpError('MODEL_TOO_LARGE', tooLarge.message, { subject: name });
  }
  const stored = storedFields(tensor);
  const hasRaw = tensor.raw_data != null && Object.hasOwn(tensor, 'raw_data') && (tensor.raw_data.length > 0 || stored.length === 0);
  if (hasRaw) {
    if (dataType === DataType.STRING) throw fail((label) => `${label}: a string tensor cannot store its values in raw_data`);
    if (stored.length) throw fail((label) => `${label}: values in both raw_data and ${stored[0]}`);
    const length = BigInt((tensor.raw_data as Uint8Array).length);
    if (raw !== undefined && length !== raw) throw fail((label, typed) => `${label}: ${typed} needs ${raw} bytes of raw_data, it has ${length}`);
    return;
  }
  if (stored.length > 1) throw fail((label) => `${label}: values in both ${stored[0]} and ${stored[1]}`);
  const used = stored[0];
  if (used === undefined) {
    if (count !== 0n) throw fail((label, typed) => `${label}: ${typed} has ${count} elements but no values`);
    return;
  }
  if (used !== field.field) throw fail((label) => `${label}: a ${dataTypeName(dataType)} tensor stores its values in ${field.field}, not ${used}`);
  const entries = BigInt((tensor[used] as unknown[]).length);
  if (entries !== field.entries) throw fail((label, typed) => `${label}: ${typed} needs ${field.entries} entries in ${used}, it has ${entries}`);
}
