/**
 * `audit: false`: the pass gathers nothing for the per-node audit (no wiring snapshot, no copy of
 * the node order, no Casts listed on the decisions, no element types after the rewrite when
 * nothing validates), returns the same model, summary and op lists as with the audit, and a read
 * of report.nodes or report.scopes is a typed error, not an empty or wrong audit. With the audit
 * (the default) the wiring before the Casts is gathered and the audit names the original edges.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FIXTURE_CASES } from '../../src/builder/fixtures.js';
import { decodeModel, encodeModel } from '../../src/onnx/codec.js';
import { AmpError } from '../../src/onnx/errors.js';
import { ampRewrite, type AmpOptions } from '../../src/passes/amp.js';
import type { CastOptions } from '../../src/passes/amp/cast-plan.js';
import type { NodeDecision } from '../../src/passes/amp/decisions.js';
import type { ScopePaint } from '../../src/passes/amp/paint.js';
import type { GraphScope } from '../../src/onnx/graph.js';

/** What each planCasts call was given, and each decision's Casts once it returned. */
const seen = vi.hoisted(() => ({
  calls: [] as Array<{ options: CastOptions; decisions: NodeDecision[] }>,
  inferences: 0,
}));

vi.mock('../../src/passes/amp/cast-plan.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/passes/amp/cast-plan.js')>();
  return {
    ...original,
    planCasts: (...args: Parameters<typeof original.planCasts>) => {
      const stats = original.planCasts(...args);
      const paints = args[1] as Map<GraphScope, ScopePaint>;
      seen.calls.push({ options: args[3], decisions: [...paints.values()].flatMap((paint) => paint.decisions) });
      return stats;
    },
  };
});

vi.mock('../../src/onnx/type-inference.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/onnx/type-inference.js')>();
  return {
    ...original,
    inferElemTypes: (...args: Parameters<typeof original.inferElemTypes>) => {
      seen.inferences++;
      return original.inferElemTypes(...args);
    },
  };
});

const cases = FIXTURE_CASES.filter((c) => ['transformer-block', 'transformer-block-weights-fp16', 'control-flow', 'exporter-decoder-kv', 'exporter-unsorted'].includes(c.name));
const kvCase = FIXTURE_CASES.find((c) => c.name === 'exporter-decoder-kv')!;

function expectNotGathered(read: () => unknown, field: string): void {
  let thrown: unknown;
  try {
    read();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(AmpError);
  expect((thrown as AmpError).code).toBe('AUDIT_NOT_GATHERED');
  expect((thrown as AmpError).message).toContain(`report.${field}`);
  expect((thrown as AmpError).message).toContain('audit: false');
}

describe('audit: false', () => {
  beforeEach(() => {
    seen.calls.length = 0;
    seen.inferences = 0;
  });

  it('has cases to run', () => {
    expect(cases.length).toBe(5);
  });

  const variants: Array<[string, AmpOptions]> = [
    ['', {}],
    [' (kv-cache fp16)', { kvCache: 'fp16' }],
    [' (bf16, no validation)', { mode: 'bf16', validate: false }],
  ];
  for (const [label, extra] of variants) {
    it.each(cases.filter((c) => !extra.kvCache || c === kvCase))(`$name${label}: same model bytes, summary and op lists as with the audit`, ({ build, options }) => {
      const withAudit = ampRewrite(build(), { ...options, ...extra });
      const without = ampRewrite(build(), { ...options, ...extra, audit: false });
      expect(without.modified).toBe(withAudit.modified);
      expect(Buffer.from(encodeModel(without.model)).equals(Buffer.from(encodeModel(withAudit.model)))).toBe(true);
      expect(JSON.stringify(without.report.summary)).toBe(JSON.stringify(withAudit.report.summary));
      expect(JSON.stringify(without.report.lists)).toBe(JSON.stringify(withAudit.report.lists));
    });
  }

  it.each(cases)('$name: reading report.nodes or report.scopes throws AUDIT_NOT_GATHERED', ({ build, options }) => {
    const { report } = ampRewrite(build(), { ...options, audit: false });
    expectNotGathered(() => report.nodes, 'nodes');
    expectNotGathered(() => report.scopes, 'scopes');
    // Serializing the whole report reads them too: no silently empty audit in a JSON file.
    expectNotGathered(() => JSON.stringify(report), 'nodes');
    // Asked twice, the same answer (nothing was built in between).
    expectNotGathered(() => report.nodes, 'nodes');
    expect(report.summary.totalNodes).toBeGreaterThan(0);
  });

  it('an audit the caller assigns is read back', () => {
    const { report } = ampRewrite(cases[0]!.build(), { ...cases[0]!.options, audit: false });
    report.nodes = [];
    expect(report.nodes).toEqual([]);
    expectNotGathered(() => report.scopes, 'scopes');
    report.scopes = [];
    expect(report.scopes).toEqual([]);
  });

  it.each(cases)('$name: the pass keeps no wiring and lists no Casts on the decisions', ({ build, options }) => {
    ampRewrite(build(), { ...options, audit: false });
    expect(seen.calls.length).toBe(1);
    const [{ options: castOptions, decisions }] = seen.calls as [(typeof seen.calls)[0]];
    expect(castOptions.wiring).toBeUndefined();
    expect(castOptions.noteCasts).toBe(false);
    expect(decisions.every((d) => d.castsAdded.length === 0 && d.castsOnOutputs === undefined)).toBe(true);
  });

  it.each([undefined, true])('audit: %s gathers the wiring of every rewired node and the Casts on each decision', (audit) => {
    const { build, options } = cases[0]!;
    const { report, model } = ampRewrite(build(), { ...options, ...(audit === undefined ? {} : { audit }) });
    const [{ options: castOptions, decisions }] = seen.calls as [(typeof seen.calls)[0]];
    const rewired = decisions.filter((d) => d.castsAdded.length > 0);
    expect(rewired.length).toBeGreaterThan(0);
    expect(castOptions.noteCasts).toBe(true);
    expect(castOptions.wiring?.size).toBeGreaterThanOrEqual(rewired.length);
    for (const d of rewired) expect(castOptions.wiring?.has(d.node)).toBe(true);
    // The audit names each rewired input by its value before the Cast, and the Cast it now reads.
    const casts = new Map((model.graph?.node ?? []).filter((n) => n.op_type === 'Cast').map((n) => [n.output?.[0], n.input?.[0]]));
    const audited = report.nodes.filter((n) => n.castsAdded.length > 0);
    expect(audited.length).toBe(rewired.length);
    for (const node of audited) {
      for (const edge of node.inputs.filter((e) => e.cast)) {
        const castNode = (model.graph?.node ?? []).find((n) => n.name === edge.cast);
        expect(castNode?.op_type).toBe('Cast');
        expect(casts.get(castNode?.output?.[0])).toBe(edge.value);
      }
    }
  });

  it('without validation and without the audit, types are inferred once (no types after the rewrite)', () => {
    const { build, options } = cases[0]!;
    ampRewrite(build(), { ...options, validate: false, audit: false });
    expect(seen.inferences).toBe(1);
    seen.inferences = 0;
    ampRewrite(build(), { ...options, validate: false });
    expect(seen.inferences).toBe(2);
    seen.inferences = 0;
    ampRewrite(build(), { ...options, audit: false });
    expect(seen.inferences).toBe(2);
  });

  it('a model decoded with shared empty fields rewrites to the same bytes without the audit', () => {
    const bytes = encodeModel(cases[0]!.build());
    const own = ampRewrite(decodeModel(bytes), cases[0]!.options);
    const shared = ampRewrite(decodeModel(bytes, { sharedEmptyFields: true }), { ...cases[0]!.options, audit: false, inPlace: true });
    expect(Buffer.from(encodeModel(shared.model)).equals(Buffer.from(encodeModel(own.model)))).toBe(true);
  });

  it('audit must be a boolean', () => {
    expect(() => ampRewrite(cases[0]!.build(), { audit: 'no' as unknown as boolean })).toThrow(/option audit: expected true or false/);
  });
});
