/** The report page's stylesheet, inlined by render-html.ts. */
export const PAGE_STYLE = `
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.4 system-ui, sans-serif; color: #222; display: grid; height: 100vh;
  grid-template-columns: 320px 1fr 340px; grid-template-rows: auto 1fr; }
header { grid-column: 1 / 4; display: flex; flex-wrap: wrap; gap: 10px; align-items: center; padding: 6px 10px;
  border-bottom: 1px solid #ccc; background: #f6f6f6; }
header h1 { font-size: 15px; margin: 0 10px 0 0; }
#legend { display: flex; flex-wrap: wrap; gap: 4px 10px; }
.legend-item { display: inline-flex; align-items: center; gap: 3px; cursor: pointer; white-space: nowrap; }
.swatch { display: inline-block; width: 12px; height: 12px; border: 1px solid #555; border-radius: 2px; margin-right: 3px; }
aside { overflow: auto; padding: 8px 10px; border-right: 1px solid #ddd; }
#details { border-left: 1px solid #ddd; border-right: 0; }
main { display: flex; flex-direction: column; min-width: 0; min-height: 0; position: relative; }
#toolbar { display: flex; gap: 10px; align-items: center; padding: 4px 8px; border-bottom: 1px solid #eee; }
#crumbs a { color: #0645ad; }
.hint { color: #777; font-size: 11px; margin-left: auto; }
#graph { flex: 1; width: 100%; min-height: 0; background: #fff; cursor: grab; }
.edge { fill: none; stroke: #888; stroke-width: 1.2; }
.node { cursor: pointer; }
.node-box { stroke: #333; stroke-width: 1; }
.node.has-subgraph .node-box { stroke-width: 2.5; stroke-dasharray: 5 2; }
.node.selected .node-box { stroke: #0645ad; stroke-width: 3.5; }
.node.dimmed { opacity: 0.15; }
.node-op { font-weight: 600; font-size: 12px; text-anchor: middle; pointer-events: none; }
.node-type { font: 9.5px ui-monospace, monospace; text-anchor: middle; fill: #222; pointer-events: none; }
.node.type-changed .node-type { font-weight: 700; }
#regions { display: flex; flex-wrap: wrap; gap: 4px 10px; border-left: 1px solid #ccc; padding-left: 10px; }
#regions[hidden] { display: none; }
.region-band { stroke: none; pointer-events: none; }
.node-region { font-size: 8.5px; fill: #fff; font-weight: 700; pointer-events: none; }
.node-name { font-size: 10px; text-anchor: middle; fill: #333; pointer-events: none; }
.cast-box { fill: #fff; stroke: #0645ad; stroke-width: 1.5; }
.extra-box { fill: #f4f4f4; stroke: #999; stroke-dasharray: 3 2; }
.extra-input .extra-box, .extra-output .extra-box { fill: #e8eefc; stroke: #4a67b5; stroke-dasharray: none; }
.extra-elsewhere { cursor: pointer; }
.extra-text { font-size: 10px; text-anchor: middle; fill: #444; pointer-events: none; }
.edge-shape { font: 9px ui-monospace, monospace; fill: #777; pointer-events: none; }
#summary-text { font: 11px/1.35 ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; background: #f8f8f8; padding: 6px; }
table { border-collapse: collapse; width: 100%; font-size: 11px; }
th, td { border: 1px solid #ddd; padding: 2px 4px; text-align: left; vertical-align: top; overflow-wrap: break-word; }
td.changed { background: #dff3e3; font-weight: 600; }
.edge-note { color: #666; }
#results { list-style: none; padding: 0; margin: 4px 0; max-height: 30vh; overflow: auto; }
#results li { cursor: pointer; padding: 1px 2px; }
#results li:hover { background: #eef; }
dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 8px; }
dt { font-weight: 600; }
dd { margin: 0; }
h2 { font-size: 14px; overflow-wrap: anywhere; }
dd { overflow-wrap: anywhere; }
h3 { font-size: 12px; margin: 10px 0 3px; }
button.open-subgraph { margin: 6px 4px 0 0; }
#overview { align-self: flex-end; flex: none; margin: 4px 8px; border: 1px solid #999; background: #fff; cursor: pointer; }
.extra-shape { cursor: pointer; }
.extra-shape .extra-box { fill: #fafafa; stroke: #aaa; }
g.extra-cast { cursor: pointer; }
g.extra-cast.selected rect { stroke: #000; stroke-width: 2.5; }
`;
