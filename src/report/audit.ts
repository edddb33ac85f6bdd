/** The per-node audit: JSON for machines, Markdown for people. Both render the pass's report. */
import type { AmpReport } from '../passes/amp.js';
import { renderSummary } from './summary.js';

export function renderAuditJson(report: AmpReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderAuditMarkdown(report: AmpReport): string {
  const out: string[] = ['# amp-rewrite audit', '', '```', renderSummary(report.summary).trimEnd(), '```', '', '## Nodes', ''];
  out.push('| scope | node | op | list | color | rule | reason | casts added |', '|---|---|---|---|---|---|---|---|');
  for (const n of report.nodes) {
    out.push(
      `| ${cell(n.scope)} | ${cell(n.node)} | ${cell(n.domain ? `${n.domain}:${n.op}` : n.op)} | ${n.list ?? ''} | ${n.color} | ${n.rule} | ${cell(n.reason)} | ${cell(n.castsAdded.join(', '))} |`,
    );
  }
  out.push('', '## Effective lists', '');
  for (const [list, entries] of Object.entries(report.lists)) {
    out.push(`### ${list}`, '');
    for (const e of entries) out.push(`- ${e.domain ? `${e.domain}:` : ''}${e.op}: ${e.reason}${e.origin === 'default' ? '' : ` (${e.origin})`}`);
    out.push('');
  }
  return `${out.join('\n')}\n`;
}
