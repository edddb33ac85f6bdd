/// <reference lib="dom" />
/**
 * The report page's script. It runs in the browser: render-html.ts inlines `reportPage`'s source
 * text into the page, so everything it uses lives inside it (no imports, no closures over this
 * module). It draws one window of one scope at a time (at most `cap` nodes, laid out by dagre),
 * which keeps a 50,000-node graph as quick to open as a small one; search, filters and the
 * summary work on the whole data set.
 */

/** What render-html.ts embeds; kept structural so the page needs no imports. */
export interface PageData {
  title: string;
  summaryText: string;
  cap: number;
  categories: Array<{ id: string; label: string; color: string; meaning: string; rules: string[] }>;
  /** rules/shape-readers.json's ops as `domain:op` (default domain ''): ops that read only a shape. */
  shapeReaders: string[];
  /** Read from the model (model-facts.ts): attributes by scope and node id, declared shapes, weight previews. */
  /** A training graph's regions (training-regions.ts): per node, an index into `names` or -1. */
  regions?: { names: string[]; of: number[] };
  facts?: { attributes: Map<string, Array<[string, string]>>; shapes: Map<string, string>; previews: Map<string, string> };
  report: {
    summary: { mode: string; matrixFlops: { lowPrecision: number; total: number; unknownNodes: number; nodes: number; assumedOne?: string[] } | null };
    nodes: PageNode[];
    lists: Record<string, Array<{ op: string; domain: string; reason: string; origin: string }>>;
    scopes: PageScope[];
  };
}

export interface PageEdge {
  value: string;
  type: string | null;
  typeAfter: string | null;
  cast?: string;
  source?: string;
  range?: number;
}

export interface PageNode {
  node: string;
  id?: string;
  op: string;
  domain: string;
  scope: string;
  list: string | null;
  color: string;
  rule: string;
  reason: string;
  castsAdded: string[];
  inputs: PageEdge[];
  outputs: PageEdge[];
  subgraphs: string[];
}

export interface PageScope {
  path: string;
  parent: string | null;
  owner: string | null;
  inputs: Array<{ value: string; type: string | null }>;
  outputs: Array<{ value: string; type: string | null }>;
  weights: Array<{ value: string; type: string | null; dims: number[] }>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function reportPage(data: PageData, dagre: any): void {
  const { report, categories } = data;
  const nodes = report.nodes;
  const $ = (id: string): HTMLElement => document.getElementById(id) as HTMLElement;
  const el = <K extends keyof HTMLElementTagNameMap>(tag: K, props: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  /**
   * A table cell whose text wraps between words and after the separators of a tensor name (/ . _ :
   * ,), never inside a word: a name is not one unbreakable word, and "before" is not "befo/re".
   */
  const breakable = <K extends keyof HTMLElementTagNameMap>(tag: K, text: string, props: Record<string, string> = {}): HTMLElementTagNameMap[K] => {
    const e = el(tag, props);
    // Also between a lower-case letter and a capital: LayerNormalization_output_0 is no word.
    for (const part of text.split(/(?<=[/._:,])|(?<=[a-z])(?=[A-Z])/)) e.append(part, document.createElement('wbr'));
    return e;
  };
  const cell = (text: string, props: Record<string, string> = {}): HTMLTableCellElement => breakable('td', text, props);
  const SVG = 'http://www.w3.org/2000/svg';
  const svgEl = (tag: string, attrs: Record<string, string | number>): SVGElement => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  };

  // ---- indexes over the whole data set (linear, once) ----
  const categoryOfRule = new Map<string, number>();
  categories.forEach((c, i) => c.rules.forEach((r) => categoryOfRule.set(r, i)));
  const unprocessed = categories.length - 1;
  const categoryIndex = nodes.map((n) => categoryOfRule.get(n.rule) ?? unprocessed);
  const scopeByPath = new Map(report.scopes.map((s) => [s.path, s]));
  const nodesOfScope = new Map<string, number[]>();
  const producers = new Map<string, Map<string, number>>();
  nodes.forEach((n, i) => {
    let list = nodesOfScope.get(n.scope);
    if (!list) nodesOfScope.set(n.scope, (list = []));
    let produced = producers.get(n.scope);
    if (!produced) producers.set(n.scope, (produced = new Map()));
    list.push(i);
    for (const o of n.outputs) if (o.value) produced.set(o.value, i);
  });
  const isWeightNode = (i: number): boolean => nodes[i]!.rule === 'constant-source';
  /** Types that carry values, not indexes, shapes or flags. */
  const isValueType = (type: string | null): boolean => type === null || type === 'string' || type === 'double' || type.includes('float') || type.startsWith('complex');
  const shapeReaders = new Set(data.shapeReaders);
  /**
   * Shape arithmetic: nodes that compute integers or flags from shapes and constants only (the
   * int64 Shape/Gather/Concat/Unsqueeze/Constant chains exporters write for every Reshape). They
   * are folded away as weight producers are, until "show shape arithmetic" is ticked: a
   * TorchScript encoder's first window was a web of them. A node that reads a graph input's
   * values (an attention mask, token ids) is data, never folded.
   */
  const shapeArithmetic = new Uint8Array(nodes.length);
  nodes.forEach((n, i) => {
    if (n.subgraphs.length || isWeightNode(i)) return;
    const outputs = n.outputs.filter((o) => o.value);
    if (!outputs.length || outputs.some((o) => isValueType(o.type))) return;
    if (shapeReaders.has(`${n.domain === 'ai.onnx' ? '' : n.domain}:${n.op}`)) {
      shapeArithmetic[i] = 1;
      return;
    }
    const produced = producers.get(n.scope)!;
    const fromShapes = n.inputs.every((e) => {
      if (!e.value) return true;
      const p = produced.get(e.value);
      if (p !== undefined) return shapeArithmetic[p] === 1 || (isWeightNode(p) && !isValueType(e.type));
      return e.source === 'weight' && !isValueType(e.type);
    });
    if (fromShapes) shapeArithmetic[i] = 1;
  });
  // What a scope returns (a Loop body's condition, a model's output) and what steers control
  // flow (a Loop's trip count, an If's condition) is drawn, however it was computed.
  const returned = new Set(report.scopes.flatMap((scope) => scope.outputs.map((o) => `${scope.path}\u0000${o.value}`)));
  nodes.forEach((n, i) => {
    if (shapeArithmetic[i] && n.outputs.some((o) => returned.has(`${n.scope}\u0000${o.value}`))) shapeArithmetic[i] = 0;
    if (!n.subgraphs.length) return;
    const produced = producers.get(n.scope)!;
    for (const e of n.inputs) {
      const p = e.value ? produced.get(e.value) : undefined;
      if (p !== undefined) shapeArithmetic[p] = 0;
    }
  });
  const isShapeNode = (i: number): boolean => shapeArithmetic[i] === 1;
  const label = (i: number): string => nodes[i]!.node || `${nodes[i]!.op} #${i}`;
  const SHORT_TYPES: Record<string, string> = { float: 'fp32', float16: 'fp16', bfloat16: 'bf16', double: 'fp64' };
  const shortType = (type: string | null): string => (type === null ? '?' : (SHORT_TYPES[type] ?? type));
  /** What a node's box says of its outputs' types: as the original model had them, or as the rewrite left them. */
  const typeLine = (i: number, before: boolean): string => {
    const outputs = nodes[i]!.outputs.filter((o) => o.value);
    const types = [...new Set(outputs.map((o) => shortType(before ? o.type : o.typeAfter)))];
    return types.join(', ');
  };

  // ---- state ----
  const state = {
    scope: report.scopes[0]?.path ?? (nodes[0]?.scope || 'graph'),
    window: 0,
    selected: -1,
    hidden: new Set<number>(),
    showWeights: false,
    showShapes: false,
    /** Show the original model: its types on the boxes and no Casts (the rewrite added them). */
    showBefore: false,
    /** Training regions whose nodes are dimmed. */
    hiddenRegions: new Set<number>(),
    view: { x: 0, y: 0, k: 1 },
  };

  // ---- summary panel ----
  const formatFlops = (value: number): string => {
    for (const [scale, unit] of [[1e12, 'TFLOP'], [1e9, 'GFLOP'], [1e6, 'MFLOP'], [1e3, 'kFLOP']] as const) if (value >= scale) return `${(value / scale).toFixed(2)} ${unit}`;
    return `${value} FLOP`;
  };
  $('summary-text').textContent = data.summaryText;
  const flops = report.summary.matrixFlops;
  $('flops-share').textContent = !flops
    ? 'matrix FLOPs: not computed (the rewrite was asked for no figures)'
    : flops.total > 0
      ? `${((100 * flops.lowPrecision) / flops.total).toFixed(1)}% of ${formatFlops(flops.total)} of matrix FLOPs run in ${report.summary.mode === 'mixed_bfloat16' ? 'bf16' : 'fp16'}` +
        (flops.unknownNodes ? ` (shapes unknown for ${flops.unknownNodes} of ${flops.nodes} nodes)` : '') +
        (flops.assumedOne?.length ? ` at ${flops.assumedOne.map((name) => `${name}=1`).join(', ')} (give --dim name=size)` : '')
      : 'matrix FLOPs: n/a (no MatMul/Gemm/Conv/Einsum with known shapes)';
  const perOp = new Map<string, { converted: number; kept: number; why: Map<string, number> }>();
  nodes.forEach((n) => {
    const key = n.domain ? `${n.domain}:${n.op}` : n.op;
    let row = perOp.get(key);
    if (!row) perOp.set(key, (row = { converted: 0, kept: 0, why: new Map() }));
    if (n.color === 'ALLOW' && n.rule !== 'shape-only') row.converted++;
    else {
      row.kept++;
      row.why.set(n.rule, (row.why.get(n.rule) ?? 0) + 1);
    }
  });
  const opBody = $('op-table').querySelector('tbody') as HTMLElement;
  for (const [op, row] of [...perOp.entries()].sort((a, b) => b[1].converted + b[1].kept - (a[1].converted + a[1].kept) || a[0].localeCompare(b[0]))) {
    const tr = el('tr');
    tr.append(el('td', {}, op), el('td', {}, String(row.converted)), el('td', {}, String(row.kept)));
    tr.append(el('td', {}, [...row.why.entries()].map(([rule, count]) => `${rule} ${count}`).join(', ')));
    opBody.append(tr);
  }
  const lists = $('lists');
  for (const [list, entries] of Object.entries(report.lists)) {
    const details = el('details');
    details.append(el('summary', {}, `${list} (${entries.length})`));
    const ul = el('ul');
    for (const e of entries) ul.append(el('li', {}, `${e.domain ? `${e.domain}:` : ''}${e.op}: ${e.reason}${e.origin === 'default' ? '' : ` (${e.origin})`}`));
    details.append(ul);
    lists.append(details);
  }

  // ---- every scope by name: bodies whose owner is not drawn (function bodies) stay one click away ----
  const scopeSelect = $('scope-select') as HTMLSelectElement;
  const scopePaths = [...new Set([...report.scopes.map((s) => s.path), ...nodesOfScope.keys()])];
  for (const path of scopePaths) scopeSelect.append(el('option', { value: path }, `${path} (${nodesOfScope.get(path)?.length ?? 0} nodes)`));
  scopeSelect.addEventListener('change', () => openScope(scopeSelect.value));

  // ---- legend and filters ----
  /** A filter checkbox with its swatch: unticked, the nodes it stands for are dimmed (and left out of search hits by decision). */
  const filterItem = (title: string, attributes: Record<string, string>, color: string, text: string, hidden: Set<number>, index: number): HTMLElement => {
    const item = el('label', { class: 'legend-item', title, ...attributes });
    const box = el('input', { type: 'checkbox', ...attributes });
    box.checked = true;
    box.addEventListener('change', () => {
      if (box.checked) hidden.delete(index);
      else hidden.add(index);
      applyFilter();
      runSearch();
      drawOverview();
    });
    const swatch = el('span', { class: 'swatch' });
    swatch.style.background = color;
    item.append(box, swatch, el('span', {}, text));
    return item;
  };
  const counts = categories.map(() => 0);
  for (const c of categoryIndex) counts[c]!++;
  const legend = $('legend');
  categories.forEach((c, i) => legend.append(filterItem(c.meaning, { 'data-category': c.id }, c.color, `${c.label} (${counts[i]})`, state.hidden, i)));
  const beforeBox = $('show-before') as HTMLInputElement;
  beforeBox.addEventListener('change', () => {
    state.showBefore = beforeBox.checked;
    document.body.setAttribute('data-view', state.showBefore ? 'before' : 'after');
    draw();
  });
  document.body.setAttribute('data-view', 'after');
  // ---- training regions: a band of color on each node, a filter per region ----
  const REGION_COLORS = ['#3b6fd6', '#8e44ad', '#e07b00', '#168a74'];
  const regionOf = (i: number): number => data.regions?.of[i] ?? -1;
  const regionColor = (r: number): string => REGION_COLORS[r % REGION_COLORS.length]!;
  if (data.regions) {
    const box = $('regions');
    box.hidden = false;
    box.append(el('span', {}, 'training:'));
    const regionCounts = data.regions.names.map(() => 0);
    for (const r of data.regions.of) if (r >= 0) regionCounts[r]!++;
    data.regions.names.forEach((name, r) =>
      box.append(filterItem(`nodes of the ${name} region (from the training contract the rewrite detected)`, { 'data-region': name }, regionColor(r), `${name} (${regionCounts[r]})`, state.hiddenRegions, r)),
    );
  }
  const isDimmed = (i: number): boolean => state.hidden.has(categoryIndex[i]!) || state.hiddenRegions.has(regionOf(i));

  const weightsBox = $('show-weights') as HTMLInputElement;
  weightsBox.addEventListener('change', () => {
    state.showWeights = weightsBox.checked;
    draw();
  });
  const shapesBox = $('show-shapes') as HTMLInputElement;
  shapesBox.addEventListener('change', () => {
    state.showShapes = shapesBox.checked;
    draw();
  });
  const isFolded = (i: number): boolean => (isWeightNode(i) && !state.showWeights) || (isShapeNode(i) && !state.showShapes);

  // ---- the graph ----
  const svg = $('graph') as unknown as SVGSVGElement;
  const viewport = svgEl('g', { id: 'viewport' });
  svg.append(viewport);
  const applyView = (): void => viewport.setAttribute('transform', `translate(${state.view.x},${state.view.y}) scale(${state.view.k})`);
  const positions = new Map<number, { x: number; y: number }>();

  /**
   * A scope's nodes in the order windows are cut from: each node right after what it reads, by a
   * depth-first walk from the scope's sinks (nodes nothing in the scope reads, in file order)
   * through their inputs in order. Whatever order the exporter wrote, a window then holds connected
   * nodes: tf2onnx sorts by Kahn's algorithm, so every node that reads only weights comes first,
   * and a BERT's first window was a row of unconnected boxes. A PyTorch export keeps its order.
   */
  const windowOrders = new Map<string, number[]>();
  function windowOrder(scope: string): number[] {
    const cached = windowOrders.get(scope);
    if (cached) return cached;
    const members = nodesOfScope.get(scope) ?? [];
    const produced = producers.get(scope) ?? new Map<string, number>();
    const read = new Set<number>();
    for (const i of members) for (const e of nodes[i]!.inputs) {
      const p = e.value ? produced.get(e.value) : undefined;
      if (p !== undefined && p !== i) read.add(p);
    }
    // 0: not reached, 1: on the walk's stack, 2: placed.
    const mark = new Map<number, number>();
    const order: number[] = [];
    const walkFrom = (root: number): void => {
      const stack: Array<[number, number]> = [[root, 0]];
      mark.set(root, 1);
      while (stack.length) {
        const top = stack[stack.length - 1]!;
        const inputs = nodes[top[0]]!.inputs;
        let next: number | undefined;
        while (top[1] < inputs.length && next === undefined) {
          const e = inputs[top[1]++]!;
          const p = e.value ? produced.get(e.value) : undefined;
          if (p !== undefined && !mark.get(p)) next = p;
        }
        if (next !== undefined) {
          mark.set(next, 1);
          stack.push([next, 0]);
        } else {
          mark.set(top[0], 2);
          order.push(top[0]);
          stack.pop();
        }
      }
    };
    for (const i of members) if (!read.has(i)) walkFrom(i);
    // A node left over sits on a cycle (a graph the rewrite refuses): drawn in file order.
    for (const i of members) if (!mark.get(i)) walkFrom(i);
    windowOrders.set(scope, order);
    return order;
  }

  /**
   * The nodes a scope's windows are cut from: what the user asked to see. Weight producers and
   * shape arithmetic are left out until "show weights" or "show shape arithmetic" is ticked, so
   * they never make a window (the first one above all) empty or a web of int64 plumbing.
   */
  function shownOf(scope: string): number[] {
    const all = windowOrder(scope);
    return state.showWeights && state.showShapes ? all : all.filter((i) => !isFolded(i));
  }

  function windowOf(i: number): number {
    return Math.max(0, Math.floor(shownOf(nodes[i]!.scope).indexOf(i) / data.cap));
  }

  function draw(): void {
    const started = performance.now();
    viewport.replaceChildren();
    positions.clear();
    const all = shownOf(state.scope);
    const windows = Math.max(1, Math.ceil(all.length / data.cap));
    state.window = Math.min(state.window, windows - 1);
    const members = all.slice(state.window * data.cap, (state.window + 1) * data.cap);
    const inView = new Set(members);
    firstDrawn = members[0];
    const scope = scopeByPath.get(state.scope);
    const produced = producers.get(state.scope) ?? new Map<string, number>();
    const graphOutputs = new Set((scope?.outputs ?? []).map((o) => o.value));
    const g = new dagre.graphlib.Graph({ multigraph: false });
    g.setGraph({ rankdir: 'TB', nodesep: 18, ranksep: 28, marginx: 20, marginy: 20 });
    g.setDefaultEdgeLabel(() => ({}));
    const extra = new Map<string, { kind: string; text: string; target?: number; value?: string }>();
    const addExtra = (id: string, kind: string, text: string, target?: number, value?: string): string => {
      if (!extra.has(id)) {
        extra.set(id, { kind, text, ...(target === undefined ? {} : { target }), ...(value === undefined ? {} : { value }) });
        const small = kind === 'cast';
        g.setNode(id, { width: small ? 14 : Math.min(160, 16 + 6.5 * text.length), height: small ? 14 : 20 });
      }
      return id;
    };
    for (const i of members) g.setNode(`n${i}`, { width: Math.min(190, Math.max(70, 7 * Math.max(nodes[i]!.op.length, Math.min(label(i).length, 24)) + 16)), height: 44 });
    for (const i of members) {
      const n = nodes[i]!;
      for (const e of n.inputs) {
        if (!e.value) continue;
        const p = produced.get(e.value);
        let from: string | undefined;
        if (p !== undefined && inView.has(p)) from = `n${p}`;
        else if (p !== undefined && isWeightNode(p) && !state.showWeights) from = undefined;
        else if (p !== undefined && isFolded(p)) from = addExtra(`s:${e.value}>n${i}`, 'shape', '⋯ shape', p, e.value);
        else if (p !== undefined) from = addExtra(`x:${e.value}`, 'elsewhere', e.value, p);
        else if (e.source === 'weight') from = state.showWeights ? addExtra(`w:${e.value}`, 'weight', e.value) : undefined;
        else if (e.source === 'input') from = addExtra(`in:${e.value}`, 'input', e.value);
        else from = addExtra(`x:${e.value}`, 'outer', e.value);
        if (e.cast && !state.showBefore) {
          // A Cast whose source is drawn here is shared by its readers, as in the model. One of a
          // weight, an input or a value from another window is drawn at each reader, as Netron
          // draws initializers: shared, it would pull edges across the whole window (a GELU
          // constant's Cast read by every layer made dagre's layout 2.5x slower).
          const sharedSource = p !== undefined && inView.has(p);
          const cast = addExtra(sharedSource ? `c:${e.cast}` : `c:${e.cast}>n${i}`, 'cast', e.cast);
          if (from) g.setEdge(from, cast);
          g.setEdge(cast, `n${i}`, { value: e.value });
        } else if (from) g.setEdge(from, `n${i}`, { value: e.value });
      }
      for (const o of n.outputs) {
        if (!o.value) continue;
        let from = `n${i}`;
        if (o.cast && !state.showBefore) {
          const cast = addExtra(`c:${o.cast}`, 'cast', o.cast);
          g.setEdge(from, cast, { value: o.value });
          from = cast;
        }
        if (graphOutputs.has(o.value)) g.setEdge(from, addExtra(`out:${o.value}`, 'output', o.value), from.startsWith('c:') ? {} : { value: o.value });
      }
    }
    dagre.layout(g);
    const edgeLayer = svgEl('g', { class: 'edges' });
    const nodeLayer = svgEl('g', { class: 'nodes' });
    viewport.append(edgeLayer, nodeLayer);
    const taken: Box[] = g.nodes().map((id: string) => {
      const box = g.node(id) as { x: number; y: number; width: number; height: number };
      return { left: box.x - box.width / 2, top: box.y - box.height / 2, right: box.x + box.width / 2, bottom: box.y + box.height / 2 };
    });
    for (const edge of g.edges()) {
      const { points, value } = g.edge(edge) as { points: Array<{ x: number; y: number }>; value?: string };
      edgeLayer.append(svgEl('polyline', { points: points.map((p) => `${p.x},${p.y}`).join(' '), class: 'edge', 'marker-end': 'url(#arrow)' }));
      // The tensor's shape beside its edge, as Netron writes it: declared by the model or inferred.
      const shape = value ? data.facts?.shapes.get(value) : undefined;
      if (shape) {
        const text = shape.length > 28 ? `${shape.slice(0, 27)}…` : shape;
        const at = labelPlace(points, text.length, taken);
        if (!at) continue;
        const label = svgEl('text', { x: at.left, y: at.bottom - 2, class: 'edge-shape', 'data-value': value! });
        label.textContent = text;
        edgeLayer.append(label);
      }
    }
    for (const id of g.nodes()) {
      const box = g.node(id) as { x: number; y: number; width: number; height: number };
      const group = svgEl('g', { transform: `translate(${box.x - box.width / 2},${box.y - box.height / 2})` });
      if (id.startsWith('n')) {
        const i = Number(id.slice(1));
        positions.set(i, { x: box.x, y: box.y });
        const category = categories[categoryIndex[i]!]!;
        group.setAttribute('class', `node${nodes[i]!.subgraphs.length ? ' has-subgraph' : ''}`);
        group.setAttribute('data-index', String(i));
        group.setAttribute('data-name', nodes[i]!.node);
        group.setAttribute('data-category', category.id);
        if (i === firstDrawn) group.setAttribute('data-window-first', '');
        const rect = svgEl('rect', { width: box.width, height: box.height, rx: 5, fill: category.color, class: 'node-box' });
        const op = svgEl('text', { x: box.width / 2, y: 14, class: 'node-op' });
        op.textContent = nodes[i]!.op + (nodes[i]!.subgraphs.length ? ' ⊞' : '');
        const name = svgEl('text', { x: box.width / 2, y: 27, class: 'node-name' });
        const text = label(i);
        name.textContent = text.length > 26 ? `…${text.slice(-25)}` : text;
        const types = svgEl('text', { x: box.width / 2, y: 39, class: 'node-type' });
        const before = typeLine(i, true);
        const after = typeLine(i, false);
        // The rewritten view names a change as "fp32 → fp16"; the original view shows only what the model had.
        types.textContent = state.showBefore || before === after ? (state.showBefore ? before : after) : `${before} → ${after}`;
        if (before !== after) group.classList.add('type-changed');
        const title = svgEl('title', {});
        title.textContent = `${nodes[i]!.op} '${label(i)}': ${category.label} (${nodes[i]!.rule})${nodes[i]!.reason ? `: ${nodes[i]!.reason}` : ''}`;
        group.append(title, rect, op, name, types);
        const region = regionOf(i);
        if (region >= 0) {
          // A band down the left edge in the region's color, with its initial: forward, loss, backward, optimizer.
          const regionName = data.regions!.names[region]!;
          group.setAttribute('data-region', regionName);
          title.textContent += ` · ${regionName}`;
          const band = svgEl('rect', { width: 9, height: box.height, rx: 3, fill: regionColor(region), class: 'region-band' });
          const initial = svgEl('text', { x: 2, y: box.height / 2 + 3, class: 'node-region' });
          initial.textContent = regionName.charAt(0).toUpperCase();
          group.append(band, initial);
        }
        group.addEventListener('click', () => select(i));
        group.addEventListener('dblclick', () => {
          if (nodes[i]!.subgraphs[0]) openScope(nodes[i]!.subgraphs[0]);
        });
      } else {
        const info = extra.get(id)!;
        group.setAttribute('class', `extra extra-${info.kind}`);
        group.setAttribute('data-value', info.value ?? info.text);
        const title = svgEl('title', {});
        title.textContent =
          info.kind === 'cast'
            ? `Cast '${info.text}' added by the rewrite`
            : info.kind === 'shape'
              ? `'${info.value ?? ''}': computed by folded shape arithmetic (click to show it)`
              : `${info.kind}: ${info.text}`;
        if (info.kind === 'cast') {
          group.append(title, svgEl('rect', { width: box.width, height: box.height, rx: 2, class: 'cast-box', transform: `rotate(45 ${box.width / 2} ${box.height / 2})` }));
          group.addEventListener('click', (event) => {
            event.stopPropagation();
            selectCast(info.text);
          });
        } else {
          const text = svgEl('text', { x: box.width / 2, y: 14, class: 'extra-text' });
          text.textContent = info.text.length > 22 ? `…${info.text.slice(-21)}` : info.text;
          group.append(title, svgEl('rect', { width: box.width, height: box.height, rx: 10, class: 'extra-box' }), text);
          if (info.target !== undefined) group.addEventListener('click', () => reveal(info.target!));
        }
      }
      nodeLayer.append(group);
    }
    const laidOut = g.graph() as { width?: number; height?: number };
    // An empty window (a graph without nodes) has no finite size.
    layoutSize = { width: Number.isFinite(laidOut.width) ? Math.max(1, laidOut.width!) : 1, height: Number.isFinite(laidOut.height) ? Math.max(1, laidOut.height!) : 1 };
    fit(false);
    renderCrumbs(all.length, windows);
    applyFilter();
    if (state.selected >= 0 && positions.has(state.selected)) highlight(state.selected);
    drawOverview();
    // For the bench: how long the last window took to lay out and draw.
    document.body.setAttribute('data-draw-ms', String(Math.round(performance.now() - started)));
  }

  interface Box {
    left: number;
    top: number;
    right: number;
    bottom: number;
  }
  /** An edge label's size: 9 px monospace (.edge-shape), 0.6 em a character. */
  const LABEL_CHAR_WIDTH = 5.6;
  const LABEL_HEIGHT = 11;
  const overlaps = (a: Box, b: Box): boolean => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  /**
   * Where an edge's label goes: beside the edge half way along it, else on its other side or a
   * third of the way from either end; nowhere (the label is left out, its shape is in the
   * details) when each of those would print over a box or another label. Claims the place.
   */
  function labelPlace(points: Array<{ x: number; y: number }>, characters: number, taken: Box[]): Box | undefined {
    const width = characters * LABEL_CHAR_WIDTH;
    for (const fraction of [0.5, 0.3, 0.7]) {
      const at = along(points, fraction);
      for (const left of [at.x + 4, at.x - 4 - width]) {
        const box = { left, top: at.y - LABEL_HEIGHT / 2, right: left + width, bottom: at.y + LABEL_HEIGHT / 2 };
        if (taken.some((other) => overlaps(box, other))) continue;
        taken.push(box);
        return box;
      }
    }
    return undefined;
  }

  /** The point at `fraction` of a polyline's length. */
  function along(points: Array<{ x: number; y: number }>, fraction: number): { x: number; y: number } {
    const lengths = points.slice(1).map((p, k) => Math.hypot(p.x - points[k]!.x, p.y - points[k]!.y));
    let left = lengths.reduce((a, b) => a + b, 0) * fraction;
    for (let k = 0; k < lengths.length; k++) {
      if (left <= lengths[k]! && lengths[k]! > 0) {
        const t = left / lengths[k]!;
        return { x: points[k]!.x + t * (points[k + 1]!.x - points[k]!.x), y: points[k]!.y + t * (points[k + 1]!.y - points[k]!.y) };
      }
      left -= lengths[k]!;
    }
    return points[0] ?? { x: 0, y: 0 };
  }

  let layoutSize = { width: 1, height: 1 };
  /** The window's first node in window order: where a window too wide for the frame opens. */
  let firstDrawn: number | undefined;
  /** Zoom stays within these: below 0.1 a node is a dot, above 3 one node fills the frame. */
  const MIN_ZOOM = 0.1;
  const MAX_ZOOM = 3;
  /**
   * The first view of a window never shrinks boxes below this: a wide window pans instead. It
   * keeps an op's name (12 px, .node-op) at 10 px on screen at least.
   */
  const LEGIBLE_ZOOM = 10 / 12;
  const clampZoom = (k: number): number => Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, k));
  /**
   * Fits the window's width (or, with `whole`, all of it) into the frame; a tall or very wide graph
   * pans. A window wider than the frame at a legible scale opens on its first node (in file order),
   * not on its middle: centred, a wide window of a real model (PP-OCRv4's recognizer) opened on an
   * empty stretch between its branches.
   */
  function fit(whole: boolean): void {
    const frame = svg.getBoundingClientRect();
    const wanted = Math.min(1, frame.width / Math.max(1, layoutSize.width), whole ? frame.height / Math.max(1, layoutSize.height) : 1);
    const k = clampZoom(whole ? wanted : Math.max(LEGIBLE_ZOOM, wanted));
    let x = (frame.width - layoutSize.width * k) / 2;
    let y = 4;
    const first = whole || firstDrawn === undefined ? undefined : positions.get(firstDrawn);
    if (first && layoutSize.width * k > frame.width) x = Math.min(0, Math.max(frame.width - layoutSize.width * k, frame.width / 2 - first.x * k));
    if (first && first.y * k + y > frame.height - 60) y = frame.height / 3 - first.y * k;
    state.view = { x, y, k };
    applyView();
  }
  $('fit').addEventListener('click', () => fit(true));

  function applyFilter(): void {
    for (const group of Array.from(viewport.querySelectorAll<SVGGElement>('g.node'))) {
      const i = Number(group.getAttribute('data-index'));
      group.classList.toggle('dimmed', isDimmed(i));
    }
  }

  function renderCrumbs(total: number, windows: number): void {
    const crumbs = $('crumbs');
    crumbs.replaceChildren();
    const chain: string[] = [];
    for (let s: PageScope | undefined = scopeByPath.get(state.scope); s; s = s.parent ? scopeByPath.get(s.parent) : undefined) chain.unshift(s.path);
    if (!chain.length) chain.push(state.scope);
    chain.forEach((path, index) => {
      if (index) crumbs.append(' › ');
      const link = el('a', { href: '#', 'data-scope': path }, path.split('/').pop() ?? path);
      link.addEventListener('click', (event) => {
        event.preventDefault();
        openScope(path);
      });
      crumbs.append(link);
    });
    scopeSelect.value = state.scope;
    const pager = $('pager');
    pager.replaceChildren();
    const from = state.window * data.cap + 1;
    const scopeNodes = nodesOfScope.get(state.scope) ?? [];
    const weights = state.showWeights ? 0 : scopeNodes.filter(isWeightNode).length;
    const shapes = state.showShapes ? 0 : scopeNodes.filter(isShapeNode).length;
    const folded = [
      ...(weights > 0 ? [`${weights} weight producers, shown with "show weights"`] : []),
      ...(shapes > 0 ? [`${shapes} nodes of shape arithmetic, shown with "show shape arithmetic"`] : []),
    ];
    pager.append(el('span', { id: 'window-info' }, `nodes ${Math.min(from, total)}–${Math.min(total, from + data.cap - 1)} of ${total} in this scope${folded.length ? ` (and ${folded.join('; ')})` : ''}`));
    if (windows > 1) {
      const prev = el('button', { id: 'prev-window' }, '◀');
      const next = el('button', { id: 'next-window' }, '▶');
      (prev as HTMLButtonElement).disabled = state.window === 0;
      (next as HTMLButtonElement).disabled = state.window === windows - 1;
      prev.addEventListener('click', () => {
        state.window--;
        draw();
      });
      next.addEventListener('click', () => {
        state.window++;
        draw();
      });
      pager.append(prev, next);
    }
  }

  function openScope(path: string): void {
    state.scope = path;
    state.window = 0;
    draw();
  }

  /** Shows a node wherever it lives: its scope, its window, selected and centred. */
  function reveal(i: number): void {
    const n = nodes[i]!;
    const win = windowOf(i);
    if (n.scope !== state.scope || win !== state.window || isFolded(i)) {
      if (isWeightNode(i)) {
        state.showWeights = true;
        weightsBox.checked = true;
      }
      if (isShapeNode(i)) {
        state.showShapes = true;
        shapesBox.checked = true;
      }
      state.scope = n.scope;
      state.window = windowOf(i);
      draw();
    }
    const at = positions.get(i);
    if (at) {
      const frame = svg.getBoundingClientRect();
      state.view = { k: 1, x: frame.width / 2 - at.x, y: frame.height / 2 - at.y };
      applyView();
    }
    select(i);
  }

  function highlight(i: number): void {
    for (const g of Array.from(viewport.querySelectorAll('g.node.selected'))) g.classList.remove('selected');
    viewport.querySelector(`g.node[data-index="${i}"]`)?.classList.add('selected');
  }

  function select(i: number): void {
    state.selected = i;
    highlight(i);
    const n = nodes[i]!;
    const category = categories[categoryIndex[i]!]!;
    const panel = $('details');
    panel.replaceChildren();
    panel.append(el('h2', { id: 'detail-title' }, `${n.domain ? `${n.domain}:` : ''}${n.op} '${label(i)}'`));
    const facts = el('dl');
    const fact = (term: string, value: string, id?: string): void => {
      facts.append(el('dt', {}, term), el('dd', id ? { id } : {}, value));
    };
    const outcome = n.rule === 'shape-only' ? 'reads the shape only' : n.color === 'ALLOW' ? 'converted' : categoryIndex[i] === unprocessed ? 'not painted' : 'kept fp32';
    fact('decision', `${category.label} (${outcome})`, 'detail-decision');
    fact('rule', n.rule, 'detail-rule');
    fact('reason', n.reason || '—', 'detail-reason');
    fact('list', n.list ?? 'none');
    if (regionOf(i) >= 0) fact('region', data.regions!.names[regionOf(i)]!, 'detail-region');
    fact('scope', n.scope);
    panel.append(facts);
    const table = (title: string, edges: PageEdge[], id: string): void => {
      panel.append(el('h3', {}, title));
      const t = el('table', { id });
      // Three columns fit the panel's 340 px: the Cast added on the edge and the range a
      // calibration saw go under the value's name, the type change in one column.
      const head = el('tr');
      head.append(el('th', {}, 'value'), el('th', {}, 'type'), el('th', {}, 'shape'));
      t.append(head);
      for (const e of edges) {
        const tr = el('tr');
        const value = el('td');
        value.append(breakable('span', e.value || '(absent)', { class: 'edge-value' }));
        if (e.cast) value.append(el('br'), el('span', { class: 'edge-note' }, 'Cast added: '), breakable('span', e.cast, { class: 'edge-cast' }));
        if (e.range !== undefined) value.append(el('br'), el('span', { class: 'edge-note' }, 'range seen: '), el('span', { class: 'edge-range' }, `|x| ≤ ${e.range.toPrecision(4)}`));
        const before = e.type ?? '?';
        const after = e.typeAfter ?? '?';
        tr.append(value, cell(before === after ? after : `${before} → ${after}`, { class: before !== after ? 'changed' : '' }), cell((e.value && data.facts?.shapes.get(e.value)) || ''));
        t.append(tr);
      }
      panel.append(t);
    };
    const attributes = data.facts?.attributes.get(`${n.scope}\u0000${n.id ?? n.node}`) ?? [];
    if (attributes.length) {
      panel.append(el('h3', {}, 'attributes'));
      const t = el('table', { id: 'detail-attributes' });
      for (const [name, value] of attributes) {
        const tr = el('tr');
        tr.append(el('th', {}, name), cell(value));
        t.append(tr);
      }
      panel.append(t);
    }
    table('inputs', n.inputs, 'detail-inputs');
    table('outputs', n.outputs, 'detail-outputs');
    const weights = n.inputs.filter((e) => e.source === 'weight' && e.value);
    if (weights.length && data.facts) {
      panel.append(el('h3', {}, 'weights'));
      const t = el('table', { id: 'detail-weights' });
      const head = el('tr');
      head.append(el('th', {}, 'weight'), el('th', {}, 'shape'), el('th', {}, 'first values'));
      t.append(head);
      for (const e of weights) {
        const tr = el('tr');
        tr.append(cell(e.value), cell(data.facts.shapes.get(e.value) ?? '?'), cell(data.facts.previews.get(e.value) ?? '(not stored in the file)'));
        t.append(tr);
      }
      panel.append(t);
    }
    if (n.castsAdded.length) panel.append(el('p', { id: 'detail-casts' }, `Casts added on its input edges: ${n.castsAdded.join(', ')}`));
    for (const path of n.subgraphs) {
      const button = el('button', { class: 'open-subgraph', 'data-scope': path }, `open ${path.split('/').pop()}`);
      button.addEventListener('click', () => openScope(path));
      panel.append(button);
    }
  }

  /** Every Cast the rewrite added, by name: the node it serves, on which edge, and the types it converts between. */
  const castIndex = new Map<string, { node: number; edge: PageEdge; side: 'input' | 'output' }>();
  nodes.forEach((n, i) => {
    for (const e of n.inputs) if (e.cast && !castIndex.has(e.cast)) castIndex.set(e.cast, { node: i, edge: e, side: 'input' });
    for (const e of n.outputs) if (e.cast && !castIndex.has(e.cast)) castIndex.set(e.cast, { node: i, edge: e, side: 'output' });
  });

  /** A Cast's own details: why it exists, which node it serves, from and to which type. */
  function selectCast(name: string): void {
    for (const g of Array.from(viewport.querySelectorAll('g.selected'))) g.classList.remove('selected');
    for (const g of Array.from(viewport.querySelectorAll(`g.extra-cast[data-value="${CSS.escape(name)}"]`))) g.classList.add('selected');
    const found = castIndex.get(name);
    const panel = $('details');
    panel.replaceChildren(el('h2', { id: 'detail-title' }, `Cast '${name}' (added by the rewrite)`));
    if (!found) return;
    const n = nodes[found.node]!;
    const facts = el('dl');
    const fact = (term: string, value: string, id?: string): void => {
      facts.append(el('dt', {}, term), el('dd', id ? { id } : {}, value));
    };
    const [from, to] = found.side === 'input' ? [found.edge.type, found.edge.typeAfter] : [found.edge.typeAfter, found.edge.type];
    fact('converts', `${from ?? '?'} → ${to ?? '?'}`, 'detail-cast-types');
    fact('value', found.edge.value);
    fact('serves', `${n.op} '${label(found.node)}' (${found.side === 'input' ? 'reads it' : 'writes it'})`, 'detail-cast-serves');
    fact(
      'why',
      found.side === 'input'
        ? `${n.op} '${label(found.node)}' computes in ${found.edge.typeAfter ?? '?'} (${n.rule}: ${n.reason || categories[categoryIndex[found.node]!]!.label}) and its input arrives in ${found.edge.type ?? '?'}`
        : `${n.op} '${label(found.node)}' writes ${found.edge.typeAfter ?? '?'} and what reads '${found.edge.value}' (a graph output or a node kept in ${found.edge.type ?? '?'}) needs ${found.edge.type ?? '?'}`,
      'detail-cast-why',
    );
    fact('shape', (found.edge.value && data.facts?.shapes.get(found.edge.value)) || '?');
    panel.append(facts);
    const back = el('button', { id: 'detail-cast-node' }, `show ${n.op} '${label(found.node)}'`);
    back.addEventListener('click', () => reveal(found.node));
    panel.append(back);
  }

  // ---- overview: every node of the scope as one cell, colored by decision; a click opens its window ----
  const overview = $('overview') as HTMLCanvasElement;
  function drawOverview(): void {
    const shown = shownOf(state.scope);
    const context = overview.getContext('2d');
    if (!context) return;
    const width = overview.width;
    const height = overview.height;
    // The largest square cell with which every node fits; a scope of more nodes than pixels shares them.
    let cell = Math.max(1, Math.floor(Math.sqrt((width * height) / Math.max(1, shown.length))));
    while (cell > 1 && Math.ceil(shown.length / Math.floor(width / cell)) * cell > height) cell--;
    const columns = Math.max(1, Math.floor(width / cell));
    const slots = columns * Math.max(1, Math.floor(height / cell));
    // Nodes per cell: 1, or more once the scope has more nodes than the canvas has pixels.
    const perSlot = Math.max(1, shown.length / slots);
    const slotOf = (at: number): number => Math.floor(at / perSlot);
    context.clearRect(0, 0, width, height);
    const size = Math.max(1, cell - (cell > 3 ? 1 : 0));
    shown.forEach((i, at) => {
      const slot = slotOf(at);
      context.fillStyle = isDimmed(i) ? '#e5e5e5' : categories[categoryIndex[i]!]!.color;
      context.fillRect((slot % columns) * cell, Math.floor(slot / columns) * cell, size, size);
    });
    // The window on screen, outlined.
    const first = slotOf(state.window * data.cap);
    const last = slotOf(Math.max(0, Math.min(shown.length, (state.window + 1) * data.cap) - 1));
    context.strokeStyle = '#000';
    context.lineWidth = 1;
    for (let row = Math.floor(first / columns); row <= Math.floor(Math.max(first, last) / columns); row++) {
      const start = row === Math.floor(first / columns) ? first % columns : 0;
      const end = row === Math.floor(last / columns) ? last % columns : columns - 1;
      context.strokeRect(start * cell + 0.5, row * cell + 0.5, (end - start + 1) * cell - 1, cell - 1);
    }
    overview.setAttribute('data-cell', String(cell));
    overview.setAttribute('data-columns', String(columns));
    overview.setAttribute('data-per-cell', String(perSlot));
    overview.setAttribute('data-window', String(state.window));
  }
  overview.addEventListener('click', (event) => {
    const frame = overview.getBoundingClientRect();
    const cell = Number(overview.getAttribute('data-cell'));
    const columns = Number(overview.getAttribute('data-columns'));
    const perSlot = Number(overview.getAttribute('data-per-cell'));
    const x = ((event.clientX - frame.left) * overview.width) / frame.width;
    const y = ((event.clientY - frame.top) * overview.height) / frame.height;
    const slot = Math.floor(y / cell) * columns + Math.min(columns - 1, Math.floor(x / cell));
    const shown = shownOf(state.scope);
    // The last node drawn in the cell clicked (a cell shares nodes in a scope larger than the canvas).
    const i = shown[Math.min(shown.length - 1, Math.max(0, Math.ceil((slot + 1) * perSlot) - 1))];
    if (i !== undefined) reveal(i);
  });

  // ---- search ----
  const searchBox = $('search') as HTMLInputElement;
  function runSearch(): void {
    const query = searchBox.value.trim().toLowerCase();
    const results = $('results');
    results.replaceChildren();
    if (!query) return;
    let shown = 0;
    let matched = 0;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      if (state.hidden.has(categoryIndex[i]!)) continue;
      if (!n.node.toLowerCase().includes(query) && !n.op.toLowerCase().includes(query)) continue;
      matched++;
      if (shown >= 100) continue;
      shown++;
      const item = el('li', { 'data-index': String(i) });
      const swatch = el('span', { class: 'swatch' });
      swatch.style.background = categories[categoryIndex[i]!]!.color;
      item.append(swatch, el('span', {}, `${n.op} '${label(i)}'`));
      item.addEventListener('click', () => reveal(i));
      results.append(item);
    }
    $('result-count').textContent = `${matched} match${matched === 1 ? '' : 'es'}${matched > shown ? ` (first ${shown} shown)` : ''}`;
  }
  searchBox.addEventListener('input', runSearch);

  // ---- pan and zoom ----
  let drag: { x: number; y: number } | undefined;
  svg.addEventListener('mousedown', (event) => {
    drag = { x: event.clientX - state.view.x, y: event.clientY - state.view.y };
  });
  window.addEventListener('mouseup', () => (drag = undefined));
  svg.addEventListener('mousemove', (event) => {
    if (!drag) return;
    state.view.x = event.clientX - drag.x;
    state.view.y = event.clientY - drag.y;
    applyView();
  });
  svg.addEventListener(
    'wheel',
    (event) => {
      event.preventDefault();
      if (!event.ctrlKey) {
        // Plain wheel pans (a tall window reads top to bottom); ctrl+wheel or a pinch zooms.
        state.view.x -= event.deltaX;
        state.view.y -= event.deltaY;
        applyView();
        return;
      }
      const frame = svg.getBoundingClientRect();
      const factor = Math.exp(-event.deltaY / 500);
      const mx = event.clientX - frame.left;
      const my = event.clientY - frame.top;
      const k = clampZoom(state.view.k * factor);
      const applied = k / state.view.k;
      state.view.x = mx - (mx - state.view.x) * applied;
      state.view.y = my - (my - state.view.y) * applied;
      state.view.k = k;
      applyView();
    },
    { passive: false },
  );

  draw();
  document.body.setAttribute('data-ready-ms', String(Math.round(performance.now())));
  document.body.setAttribute('data-ready', '1');
}
