/**
 * The visual audit's data as the page carries it: columns of indexes into one table of strings,
 * not an object per node and edge. A 53k-node transformer's audit is 35 MiB as objects (every
 * key and every repeated rule, reason, type and op spelled out per node) and the browser spent
 * most of its first second reading and parsing that; packed it is a fraction of it.
 *
 * `packPageData` runs in Node when the report is written; `unpackPageData` runs in the page
 * (render-html.ts inlines its source text), so it uses nothing from outside its own body. The
 * two are each other's inverse over the fields the page shows (page-data.test.ts).
 */
import type { PageData, PageEdge, PageNode, PageScope } from './page-script.js';

/** What render-html.ts embeds. Every `number[]` named as an index points into `strings`; -1 stands for null or absent. */
export interface PackedPageData {
  /** Format version: the page refuses what it does not know rather than drawing it wrong. */
  format: 1;
  /** Every distinct string, the most used first (so the common ones are the shortest indexes). */
  strings: string[];
  title: string;
  summaryText: string;
  cap: number;
  categories: PageData['categories'];
  shapeReaders: string[];
  summary: PageData['report']['summary'];
  lists: PageData['report']['lists'];
  regions?: PageData['regions'];
  nodes: {
    node: number[];
    id: number[];
    op: number[];
    domain: number[];
    scope: number[];
    list: number[];
    color: number[];
    rule: number[];
    reason: number[];
    /** Per node, how many of the flat lists below are its. */
    inputCount: number[];
    outputCount: number[];
    castsAddedCount: number[];
    subgraphsCount: number[];
    castsAdded: number[];
    subgraphs: number[];
  };
  /** Every node's inputs then outputs, node after node. */
  edges: {
    /** The value's name. */
    name: number[];
    type: number[];
    typeAfter: number[];
    cast: number[];
    source: number[];
    /** [edge index, range, edge index, range, …] for the few edges a calibration saw. */
    ranges: number[];
  };
  scopes: Array<{
    /** [path, parent, owner] */
    names: number[];
    /** [value, type, value, type, …] */
    inputs: number[];
    outputs: number[];
    weightValue: number[];
    weightType: number[];
    weightRank: number[];
    weightDims: number[];
  }>;
  facts?: {
    /** Per node with attributes: [scope, node id] (the two halves of model-facts.ts's key), how many, then [name, value, …] of all of them. */
    attributeNodes: number[];
    attributeCount: number[];
    attributes: number[];
    /** [value, shape, value, shape, …] */
    shapes: number[];
    /** [value, preview, …] */
    previews: number[];
  };
}

/** Interns strings; `finish` orders the table by use (ties by first use) and renumbers every column. */
class StringTable {
  private readonly index = new Map<string, number>();
  private readonly uses: number[] = [];
  private readonly order: string[] = [];
  /** Columns written with provisional indexes, renumbered by finish(). */
  private readonly columns: number[][] = [];

  ref(text: string | null | undefined): number {
    if (text === null || text === undefined) return -1;
    let at = this.index.get(text);
    if (at === undefined) {
      at = this.order.length;
      this.index.set(text, at);
      this.order.push(text);
      this.uses.push(0);
    }
    this.uses[at]!++;
    return at;
  }

  column(values: number[]): number[] {
    this.columns.push(values);
    return values;
  }

  finish(): string[] {
    const ranked = this.order.map((_, i) => i).sort((a, b) => this.uses[b]! - this.uses[a]! || a - b);
    const renumber = new Int32Array(ranked.length);
    ranked.forEach((old, rank) => (renumber[old] = rank));
    for (const column of this.columns) for (let i = 0; i < column.length; i++) if (column[i]! >= 0) column[i] = renumber[column[i]!]!;
    return ranked.map((old) => this.order[old]!);
  }
}

const SOURCES = ['node', 'input', 'weight', 'outer'] as const;

export function packPageData(data: PageData): PackedPageData {
  const table = new StringTable();
  const col = (): number[] => table.column([]);
  const n = {
    node: col(), id: col(), op: col(), domain: col(), scope: col(), list: col(), color: col(), rule: col(), reason: col(),
    inputCount: [] as number[], outputCount: [] as number[], castsAddedCount: [] as number[], subgraphsCount: [] as number[],
    castsAdded: col(), subgraphs: col(),
  };
  const e = { name: col(), type: col(), typeAfter: col(), cast: col(), source: [] as number[], ranges: [] as number[] };
  const packEdge = (edge: PageEdge): void => {
    if (edge.range !== undefined) e.ranges.push(e.name.length, edge.range);
    e.name.push(table.ref(edge.value));
    e.type.push(table.ref(edge.type));
    e.typeAfter.push(table.ref(edge.typeAfter));
    e.cast.push(table.ref(edge.cast));
    e.source.push(edge.source === undefined ? -1 : (SOURCES as readonly string[]).indexOf(edge.source));
  };
  for (const node of data.report.nodes) {
    n.node.push(table.ref(node.node));
    n.id.push(table.ref(node.id));
    n.op.push(table.ref(node.op));
    n.domain.push(table.ref(node.domain));
    n.scope.push(table.ref(node.scope));
    n.list.push(table.ref(node.list));
    n.color.push(table.ref(node.color));
    n.rule.push(table.ref(node.rule));
    n.reason.push(table.ref(node.reason));
    n.inputCount.push(node.inputs.length);
    n.outputCount.push(node.outputs.length);
    n.castsAddedCount.push(node.castsAdded.length);
    n.subgraphsCount.push(node.subgraphs.length);
    for (const cast of node.castsAdded) n.castsAdded.push(table.ref(cast));
    for (const path of node.subgraphs) n.subgraphs.push(table.ref(path));
    node.inputs.forEach(packEdge);
    node.outputs.forEach(packEdge);
  }
  const pairs = (list: Array<{ value: string; type: string | null }>): number[] => table.column(list.flatMap((v) => [table.ref(v.value), table.ref(v.type)]));
  const scopes = data.report.scopes.map((s: PageScope) => ({
    names: table.column([table.ref(s.path), table.ref(s.parent), table.ref(s.owner)]),
    inputs: pairs(s.inputs),
    outputs: pairs(s.outputs),
    weightValue: table.column(s.weights.map((w) => table.ref(w.value))),
    weightType: table.column(s.weights.map((w) => table.ref(w.type))),
    weightRank: s.weights.map((w) => w.dims.length),
    weightDims: s.weights.flatMap((w) => w.dims),
  }));
  let facts: PackedPageData['facts'];
  if (data.facts) {
    // Attributes are keyed `${scope}\u0000${node id}` (model-facts.ts): stored as the two strings.
    const attributeNodes = col();
    const attributeCount: number[] = [];
    const attributes = col();
    for (const [key, list] of data.facts.attributes) {
      const cut = key.indexOf('\u0000');
      attributeNodes.push(table.ref(key.slice(0, cut)), table.ref(key.slice(cut + 1)));
      attributeCount.push(list.length);
      for (const [name, value] of list) attributes.push(table.ref(name), table.ref(value));
    }
    const entries = (map: Map<string, string>): number[] => table.column([...map].flatMap(([k, v]) => [table.ref(k), table.ref(v)]));
    facts = { attributeNodes, attributeCount, attributes, shapes: entries(data.facts.shapes), previews: entries(data.facts.previews) };
  }
  return assemble(table.finish());

  function assemble(strings: string[]): PackedPageData {
    return {
      format: 1,
      strings,
      title: data.title,
      summaryText: data.summaryText,
      cap: data.cap,
      categories: data.categories,
      shapeReaders: data.shapeReaders,
      // The page reads the mode and the FLOPs share; the rest of the summary is in summaryText.
      summary: { mode: data.report.summary.mode, matrixFlops: data.report.summary.matrixFlops },
      lists: data.report.lists,
      ...(data.regions ? { regions: data.regions } : {}),
      nodes: n,
      edges: e,
      scopes,
      ...(facts ? { facts } : {}),
    };
  }
}

/**
 * The page's data back as objects. Runs in the browser from its source text: no imports, no
 * helpers from outside this body, plain ES2020.
 */
export function unpackPageData(packed: PackedPageData): PageData {
  if (packed.format !== 1) throw new Error(`this report's data is in format ${String(packed.format)}; this page reads format 1`);
  const s = packed.strings;
  const str = (i: number): string => s[i]!;
  const strOrNull = (i: number): string | null => (i < 0 ? null : s[i]!);
  // SOURCES again: this function runs from its own source text in the page and can read nothing outside it.
  const SOURCE_NAMES = ['node', 'input', 'weight', 'outer'] as const;
  const n = packed.nodes;
  const e = packed.edges;
  const ranges = new Map<number, number>();
  for (let k = 0; k < e.ranges.length; k += 2) ranges.set(e.ranges[k]!, e.ranges[k + 1]!);
  const edgeAt = (k: number): PageEdge => {
    const edge: PageEdge = { value: str(e.name[k]!), type: strOrNull(e.type[k]!), typeAfter: strOrNull(e.typeAfter[k]!) };
    if (e.cast[k]! >= 0) edge.cast = str(e.cast[k]!);
    if (e.source[k]! >= 0) edge.source = SOURCE_NAMES[e.source[k]!];
    const range = ranges.get(k);
    if (range !== undefined) edge.range = range;
    return edge;
  };
  const nodes: PageNode[] = new Array(n.node.length);
  let edge = 0;
  let cast = 0;
  let subgraph = 0;
  for (let i = 0; i < n.node.length; i++) {
    const inputs: PageEdge[] = new Array(n.inputCount[i]!);
    for (let k = 0; k < inputs.length; k++) inputs[k] = edgeAt(edge++);
    const outputs: PageEdge[] = new Array(n.outputCount[i]!);
    for (let k = 0; k < outputs.length; k++) outputs[k] = edgeAt(edge++);
    const castsAdded: string[] = new Array(n.castsAddedCount[i]!);
    for (let k = 0; k < castsAdded.length; k++) castsAdded[k] = str(n.castsAdded[cast++]!);
    const subgraphs: string[] = new Array(n.subgraphsCount[i]!);
    for (let k = 0; k < subgraphs.length; k++) subgraphs[k] = str(n.subgraphs[subgraph++]!);
    const node: PageNode = {
      node: str(n.node[i]!),
      op: str(n.op[i]!),
      domain: str(n.domain[i]!),
      scope: str(n.scope[i]!),
      list: strOrNull(n.list[i]!),
      color: str(n.color[i]!),
      rule: str(n.rule[i]!),
      reason: str(n.reason[i]!),
      castsAdded,
      inputs,
      outputs,
      subgraphs,
    };
    if (n.id[i]! >= 0) node.id = str(n.id[i]!);
    nodes[i] = node;
  }
  const pairs = (flat: number[]): Array<{ value: string; type: string | null }> => {
    const out: Array<{ value: string; type: string | null }> = [];
    for (let k = 0; k < flat.length; k += 2) out.push({ value: str(flat[k]!), type: strOrNull(flat[k + 1]!) });
    return out;
  };
  const scopes: PageScope[] = packed.scopes.map((scope) => {
    let dim = 0;
    return {
      path: str(scope.names[0]!),
      parent: strOrNull(scope.names[1]!),
      owner: strOrNull(scope.names[2]!),
      inputs: pairs(scope.inputs),
      outputs: pairs(scope.outputs),
      weights: scope.weightValue.map((value, k) => ({ value: str(value), type: strOrNull(scope.weightType[k]!), dims: scope.weightDims.slice(dim, (dim += scope.weightRank[k]!)) })),
    };
  });
  const data: PageData = {
    title: packed.title,
    summaryText: packed.summaryText,
    cap: packed.cap,
    categories: packed.categories,
    shapeReaders: packed.shapeReaders,
    report: { summary: packed.summary, nodes, lists: packed.lists, scopes },
  };
  if (packed.regions) data.regions = packed.regions;
  if (packed.facts) {
    // Maps, not objects: filled faster (a 53k-node model has ~110k of these), and a value named
    // "constructor" or "__proto__" is just a key.
    const facts: NonNullable<PageData['facts']> = { attributes: new Map(), shapes: new Map(), previews: new Map() };
    const { attributeNodes, attributeCount, attributes } = packed.facts;
    for (let node = 0, k = 0; node < attributeCount.length; node++) {
      const list: Array<[string, string]> = [];
      for (let j = 0; j < attributeCount[node]!; j++, k += 2) list.push([str(attributes[k]!), str(attributes[k + 1]!)]);
      facts.attributes.set(`${str(attributeNodes[2 * node]!)}\u0000${str(attributeNodes[2 * node + 1]!)}`, list);
    }
    const into = (flat: number[], map: Map<string, string>): void => {
      for (let k = 0; k < flat.length; k += 2) map.set(str(flat[k]!), str(flat[k + 1]!));
    };
    into(packed.facts.shapes, facts.shapes);
    into(packed.facts.previews, facts.previews);
    data.facts = facts;
  }
  return data;
}
