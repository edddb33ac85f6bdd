/**
 * The frame of the chart reports (training and bench): one self-contained HTML file with its
 * styles inlined and no script at all, under a Content-Security-Policy that allows none, so the
 * page works from file:// with no network and nothing in it can run.
 */
import { escapeXml } from './charts/svg.js';

export const escapeHtml = escapeXml;

const STYLE = `
body { font-family: system-ui, sans-serif; margin: 16px 24px; color: #222; max-width: 1100px; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 22px 0 6px; border-bottom: 1px solid #ddd; padding-bottom: 3px; }
.meta { color: #555; font-size: 13px; margin: 2px 0; }
.warning { background: #fff4e5; border-left: 4px solid #f0a020; padding: 6px 10px; font-size: 13px; margin: 8px 0; }
.failure { color: #b00; font-size: 13px; margin: 3px 0; }
table { border-collapse: collapse; font-size: 13px; margin: 6px 0; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f5f5f5; }
td.fail { color: #b00; }
svg.chart { display: block; margin: 6px 0 14px; max-width: 100%; height: auto; }
`;

export function reportPage(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>
`;
}

/** A table of text cells (escaped here); a cell given as { text, fail } is marked as a failure. */
export function htmlTable(head: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | { text: string; fail: boolean }>>, id: string): string {
  const cell = (c: string | { text: string; fail: boolean }): string => (typeof c === 'string' ? `<td>${escapeHtml(c)}</td>` : `<td${c.fail ? ' class="fail"' : ''}>${escapeHtml(c.text)}</td>`);
  return `<table id="${escapeHtml(id)}"><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map(cell).join('')}</tr>`).join('')}</tbody></table>`;
}
