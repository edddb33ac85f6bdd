/**
 * The visual audit: one self-contained HTML file (data, script, styles and the layout library
 * inlined; nothing fetched) that draws the rewritten graph colored by decision. The page's
 * behaviour is page-script.ts; this module only assembles the file.
 */
import type { AmpReport } from '../../passes/amp.js';
import { shapeReaderKeys } from '../../passes/amp/shape-readers.js';
import { renderSummary } from '../summary.js';
import { DECISION_CATEGORIES } from './categories.js';
import { reportPage, type PageData } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';
import { modelFacts } from './model-facts.js';
import { packPageData, unpackPageData } from './page-data.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import type { TrainingContract } from '../../passes/training/contract.js';
import { trainingRegions } from './training-regions.js';
import { DAGRE_LIBRARY } from './dagre-library.generated.js';

/** Nodes drawn at once: one window of a scope. dagre's layout grows faster than linearly (with the Casts a window of 150 nodes is about 300 graph nodes: ~0.3 s; 300 nodes take ~1 s). */
export const NODES_PER_WINDOW = 150;

/** JSON that is safe inside a <script> element: no `</script>` or `<!--` can appear. */
const scriptSafeJson = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

const escapeHtml = (text: string): string => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

export interface HtmlReportOptions {
  /** Shown in the page title, e.g. the model's file name. */
  title: string;
  /** Nodes drawn at once (default NODES_PER_WINDOW). */
  cap?: number;
  /** The model the audit is of: its attributes, declared shapes and weight previews go into the details. */
  model?: onnx.IModelProto;
  /** A training graph's contract (the rewrite's training report): the page marks forward, loss, backward and optimizer nodes. */
  training?: TrainingContract;
}

/** What the page shows, before packing: the audit, the model's facts, the training regions. */
export function auditPageData(report: AmpReport, options: HtmlReportOptions): PageData {
  return {
    title: options.title,
    summaryText: renderSummary(report.summary),
    cap: options.cap ?? NODES_PER_WINDOW,
    categories: DECISION_CATEGORIES.map((c) => ({ ...c, rules: [...c.rules] })),
    shapeReaders: shapeReaderKeys(),
    report: { summary: report.summary, nodes: report.nodes, lists: report.lists, scopes: report.scopes },
    ...(options.model ? { facts: modelFacts(options.model) } : {}),
    ...(options.training ? { regions: trainingRegions(report, options.training) } : {}),
  };
}

export function renderAuditHtml(report: AmpReport, options: HtmlReportOptions): string {
  const data = auditPageData(report, options);
  const title = escapeHtml(`amp-rewrite audit: ${options.title}`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${title}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header>
  <h1>${title}</h1>
  <input id="search" type="search" placeholder="search node name or op" size="28">
  <span id="result-count"></span>
  <div id="legend"></div>
  <div id="regions" hidden></div>
  <label><input id="show-weights" type="checkbox"> show weights</label>
  <label title="int64 nodes that compute shapes from shapes and constants (Shape, Gather, Concat, Unsqueeze chains)"><input id="show-shapes" type="checkbox"> show shape arithmetic</label>
  <label title="the original model: its types on the boxes, without the Casts the rewrite added"><input id="show-before" type="checkbox"> before the rewrite</label>
</header>
<aside id="summary">
  <h3>Summary</h3>
  <ul id="results"></ul>
  <pre id="summary-text"></pre>
  <p id="flops-share"></p>
  <h3>Per op type</h3>
  <table id="op-table"><thead><tr><th>op</th><th>converted</th><th>kept fp32</th><th>why kept</th></tr></thead><tbody></tbody></table>
  <h3>Effective lists</h3>
  <div id="lists"></div>
</aside>
<main>
  <div id="toolbar"><span id="crumbs"></span><select id="scope-select" title="every graph in the model"></select><span id="pager"></span><button id="fit" title="show the whole window">fit</button><span class="hint">drag to pan, wheel to scroll, ctrl+wheel to zoom</span></div>
  <svg id="graph" xmlns="http://www.w3.org/2000/svg"><defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#888"/></marker></defs></svg>
  <canvas id="overview" width="240" height="72" title="every node of this graph, colored by decision: click to go there"></canvas>
</main>
<aside id="details"><p>Click a node to see its decision. Double-click an If/Loop/Scan (dashed border) to open its body.</p></aside>
<script id="audit-data" type="application/json">${scriptSafeJson(packPageData(data))}</script>
<script>${DAGRE_LIBRARY.replace(/<\/script/gi, '<\\/script')}</script>
<script>
var __name = function (f) { return f; };
(${reportPage.toString()})((${unpackPageData.toString()})(JSON.parse(document.getElementById('audit-data').textContent)), dagre);
</script>
</body>
</html>
`;
}
