/** The summary's lines about --target: what the provider's kernels changed, and what it runs slowly. */
import type { AmpSummary } from '../passes/amp.js';
import { readKernelRules } from '../passes/amp/target-policy.js';

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
  for (const [key, { count, example }] of groups) lines.push(`  ${count} ${key} (e.g. ${example})`);
  return lines;
}
