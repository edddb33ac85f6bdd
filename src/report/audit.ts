/** The per-node audit: JSON for machines, Markdown for people. Both render the pass's report. */
import type { AmpReport } from '../passes/amp.js';
import type { LossScalingReport } from '../passes/loss-scaling.js';
import { renderSummary } from './summary.js';

export function renderAuditJson(report: AmpReport, training?: LossScalingReport): string {
  return `${JSON.stringify(training ? { ...report, training } : report, null, 2)}\n`;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderAuditMarkdown(report: AmpReport, training?: LossScalingReport): string {
  const out: string[] = ['# amp-rewrite audit', '', '```', renderSummary(report.summary).trimEnd(), '```', ''];
  if (training) {
    out.push('## Training graph', '', `- loss: \`${training.contract.loss}\`, seed: \`${training.contract.lossGrad}\``);
    out.push(`- gradients unscaled in fp32: ${training.contract.params.map((p) => `\`${p.grad}\``).join(', ')}`);
    out.push(`- state outputs guarded: ${training.contract.state.map((s) => `\`${s.output}\``).join(', ')}`, `- loss scale: ${training.lossScale.kind}`, '');
  }
  out.push('## Nodes', '');
  out.push('| scope | node | op | list | color | rule | reason | casts added |', '|---|---|---|---|---|---|---|---|');
  for (const n of report.nodes) {
    out.push(
      `| ${cell(n.scope)} | ${cell(n.node)} | ${cell(n.domain ? `${n.domain}:${n.op}` : n.op)} | ${n.list ?? ''} | ${n.color} | ${n.rule} | ${cell(n.reason)} | ${cell([...n.castsAdded, ...(n.castsOnOutputs ?? []).map((c) => `after output: ${c}`)].join(', '))} |`,
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
