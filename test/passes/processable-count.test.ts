/**
 * "Total processable nodes" counts the nodes that compute in float32 whatever keeps them there: pinning
 * nodes (--force-fp32, a weight beyond float16's range) moves them to "stayed FP32", never out of the total.
 */
import { describe, expect, it } from 'vitest';
import { FIXTURE_CASES } from '../../src/builder/fixtures.js';
import { ampRewrite } from '../../src/passes/amp.js';

const fixture = (name: string) => (FIXTURE_CASES.find((c) => c.name === name) as (typeof FIXTURE_CASES)[number]).build();

describe('Total processable nodes', () => {
  it('does not drop when --force-fp32 pins nodes of the transformer block', () => {
    const model = fixture('transformer-block');
    const plain = ampRewrite(model).report.summary;
    const pinned = ampRewrite(model, { forceFp32: ['/^l0\\/(q|k|v|out)_proj$/'] }).report.summary;
    expect(pinned.fp32Reasons.find((r) => r.rule === 'force-fp32')?.count).toBe(4);
    expect(plain.processable).toBe(37);
    expect(pinned.processable).toBe(plain.processable);
    expect(pinned.converted).toBeLessThan(plain.converted);
  });

  it('counts the nodes a weight beyond float16 pins', () => {
    const { report } = ampRewrite(fixture('out-of-range-weight'));
    const pinned = report.nodes.filter((n) => n.rule === 'weight-out-of-range').length;
    expect(pinned).toBeGreaterThan(0);
    const computing = report.nodes.filter((n) => n.precision !== '-' && !['constant-source', 'already-low-precision', 'no-float-compute'].includes(n.rule)).length;
    expect(report.summary.processable).toBeGreaterThanOrEqual(pinned);
    expect(report.summary.processable).toBeLessThanOrEqual(computing);
  });
});
