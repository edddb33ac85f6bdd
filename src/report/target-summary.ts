/** The summary's lines about --target: what the provider's kernels changed, and what it runs slowly. */
import { printable } from '../onnx/printable.js';
import type { AmpSummary } from '../passes/amp.js';
import { markdownText } from './markdown-text.js';
import { readKernelRules } from '../passes/amp/target-policy.js';

/** Printed only when some converted matrix op is off the multiple: a clean model's summary is unchanged. */
export function renderTensorCoreLines(summary: Pick<AmpSummary, 'tensorCoreLint'>): string[] {
  const lint = summary.tensorCoreLint;
  if (!lint?.findings.length) return [];
  const lines = [`Tensor Core lint: ${lint.findings.length} of ${lint.checked} converted matrix ops have dimensions that are not multiples of ${lint.multiple}:`];
  for (const finding of lint.findings.slice(0, 5)) lines.push(`  ${printable(finding.message, 300)}`);
  if (lint.findings.length > 5) lines.push(`  ... and ${lint.findings.length - 5} more (see the audit)`);
  if (lint.unknown) lines.push(`  ${lint.unknown} more not checked: shapes unknown (give --dim name=size)`);
  return lines;
}

export function renderTargetLines(summary: Pick<AmpSummary, 'mode' | 'target' | 'targetConverted' | 'targetWarnings'>): string[] {
  if (!summary.target || summary.target === 'any') return [];
  const low = summary.mode === 'mixed_bfloat16' ? 'BF16' : 'FP16';
  const provider = readKernelRules().targets[summary.target].provider;
  const lines = [`Target: ${summary.target} (${provider}); ${summary.targetConverted} nodes in ${low} because their kernel accumulates in FP32 (rule target-kernel)`];
  const warnings = summary.targetWarnings ?? [];
  if (!warnings.length) return lines;
  lines.push(`Warning: ${warnings.length} converted nodes have no fast ${low} kernel on ${provider}; expect them to be slower than FP32 there:`);
  const groups = new Map<string, { count: number; example: string }>();
  for (const warning of warnings) {
    const key = `${warning.kind} ${warning.op}`;
    const group = groups.get(key) ?? { count: 0, example: warning.message };
    group.count++;
    groups.set(key, group);
  }
  for (const [key, { count, example }] of groups) lines.push(`  ${count} ${printable(key, 200)} (e.g. ${printable(example, 300)})`);
  return lines;
}

/** The audit's full list of Tensor Core findings (the summary shows the first five). */
export function renderTensorCoreSection(report: { summary: Pick<AmpSummary, 'tensorCoreLint'> }): string[] {
  const lint = report.summary.tensorCoreLint;
  if (!lint?.findings.length) return [];
  const out = ['', '## Tensor Core lint', '', `Dimensions of converted matrix ops that are not multiples of ${lint.multiple}, with the padding that fixes each (${lint.source}).`, ''];
  out.push('| node | op | dimension | size | pad to |', '|---|---|---|---|---|');
  for (const finding of lint.findings) {
    for (const dim of finding.dims) out.push(`| ${markdownText(finding.node)} | ${markdownText(finding.op)} | ${dim.role} | ${dim.size} | ${dim.padTo} |`);
  }
  return out;
}
