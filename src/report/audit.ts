/** The per-node audit: JSON for machines, Markdown for people. Both render the pass's report. */
import type { AmpReport } from '../passes/amp.js';
import type { LossScalingReport } from '../passes/loss-scaling.js';
import { markdownCodeBlock, markdownText } from './markdown-text.js';
import { renderSummary } from './summary.js';
import { renderTensorCoreSection } from './target-summary.js';

export function renderAuditJson(report: AmpReport, training?: LossScalingReport): string {
  return `${JSON.stringify(training ? { ...report, training } : report, null, 2)}\n`;
}

/** What the columns of the node table mean. */
const LEGEND = [
  '- **node**: the node\'s name; an unnamed node is `Op#index`, its position in its graph (stable for the same model).',
  '- **precision**: what the node computes in after the rewrite: `fp16` or `bf16` converted, `fp32` kept in float32, `-` no float data.',
  '- **types in → out**: element types of its inputs and outputs after the rewrite: `f32` float32, `f16` float16, `bf16` bfloat16, `f64` float64, `i64`/`i32`/`i8` integers, `bool`; `·` an omitted optional input.',
  '- **list**: the op list the op type is on (allow: converted where possible; deny: kept fp32; infer and clear: follow their neighbours).',
  '- **rule**: the rule that decided, with its **reason**; **casts added**: the Casts inserted on the node\'s inputs.',
];

/** A table cell of model-supplied text (markdownText() escapes pipes and newlines with the rest). */
const cell = (text: string): string => markdownText(text);

export function renderAuditMarkdown(report: AmpReport, training?: LossScalingReport): string {
  const out: string[] = ['# amp-rewrite audit', '', ...markdownCodeBlock(renderSummary(report.summary).trimEnd()), ''];
  if (training) {
    out.push('## Training graph', '', `- loss: ${markdownText(training.contract.loss)}, seed: ${markdownText(training.contract.lossGrad)}`);
    out.push(`- gradients unscaled in fp32: ${training.contract.params.map((p) => markdownText(p.grad)).join(', ')}`);
    out.push(`- state outputs guarded: ${training.contract.state.map((s) => markdownText(s.output)).join(', ')}`, `- loss scale: ${training.lossScale.kind}`, '');
  }
  out.push('## Nodes', '', ...LEGEND, '');
  out.push('| scope | node | op | precision | types in → out | list | rule | reason | casts added |', '|---|---|---|---|---|---|---|---|---|');
  for (const n of report.nodes) {
    const types = `${n.inputTypes.map((t) => t || '·').join(', ')} → ${n.outputTypes.map((t) => t || '·').join(', ')}`;
    out.push(
      `| ${cell(n.scope)} | ${cell(n.id)} | ${cell(n.domain ? `${n.domain}:${n.op}` : n.op)} | ${n.precision} | ${cell(types)} | ${n.list ?? ''} | ${n.rule} | ${markdownText(n.reason, 1000)} | ${cell([...n.castsAdded, ...(n.castsOnOutputs ?? []).map((c) => `after output: ${c}`)].join(', '))} |`,
    );
  }
  out.push(...renderTensorCoreSection(report));
  out.push('', '## Effective lists', '');
  for (const [list, entries] of Object.entries(report.lists)) {
    out.push(`### ${list}`, '');
    for (const e of entries) out.push(`- ${markdownText(e.domain ? `${e.domain}:${e.op}` : e.op)}: ${markdownText(e.reason, 1000)}${e.origin === 'default' ? '' : ` (${markdownText(e.origin)})`}`);
    out.push('');
  }
  return `${out.join('\n')}\n`;
}
