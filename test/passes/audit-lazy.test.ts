/**
 * The per-node audit (report.nodes, report.scopes) is built on first read, not by the pass: the
 * CLI without --report never pays for it. Read, it holds what the pass decided, whether it is read
 * at once or after the model is encoded, and it is built once. The op list dump (report.lists)
 * is likewise sorted only when read: the sort made the ICU collator on every run.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FIXTURE_CASES } from '../../src/builder/fixtures.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { LIST_NAMES, OpLists } from '../../src/passes/amp/op-lists.js';
import { patternWarnings, type RewriteArgs } from '../../src/cli/rewrite-command.js';

const auditBuilds = vi.hoisted(() => ({ count: 0 }));

vi.mock('../../src/passes/amp/audit-graph.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/passes/amp/audit-graph.js')>();
  return {
    ...original,
    auditGraph: (...args: Parameters<typeof original.auditGraph>) => {
      auditBuilds.count++;
      return original.auditGraph(...args);
    },
  };
});

const cases = FIXTURE_CASES.filter((c) => ['transformer-block', 'control-flow', 'exporter-decoder-kv', 'exporter-unsorted'].includes(c.name));

describe('lazy audit', () => {
  beforeEach(() => {
    auditBuilds.count = 0;
  });

  it('has cases to run', () => {
    expect(cases.length).toBe(4);
  });

  it.each(cases)('$name: the pass builds no audit until report.nodes or report.scopes is read', ({ build, options }) => {
    const result = ampRewrite(build(), options);
    expect(result.report.summary.totalNodes).toBeGreaterThan(0);
    JSON.stringify(result.report.summary);
    expect(auditBuilds.count).toBe(0);
    const nodes = result.report.nodes;
    expect(auditBuilds.count).toBe(1);
    expect(nodes).toHaveLength(result.report.summary.totalNodes);
    // Built once: both fields come from the same build, and a second read is the same array.
    expect(result.report.scopes.length).toBeGreaterThan(0);
    expect(result.report.nodes).toBe(nodes);
    expect(auditBuilds.count).toBe(1);
  });

  it.each(cases)('$name: read after the model is encoded, the audit equals one read at once', ({ build, options }) => {
    const atOnce = ampRewrite(build(), options);
    const atOnceJson = JSON.stringify(atOnce.report);
    const later = ampRewrite(build(), options);
    encodeModel(later.model);
    expect(JSON.stringify(later.report)).toBe(atOnceJson);
    // The JSON keeps the report's key order with the audit in it.
    expect(Object.keys(JSON.parse(atOnceJson))).toEqual(['pass', 'summary', 'nodes', 'lists', 'scopes']);
    expect({ ...later.report }.nodes).toBe(later.report.nodes);
  });

  it('an assigned audit replaces the built one', () => {
    const { report } = ampRewrite(cases[0]!.build(), cases[0]!.options);
    const scopes = report.scopes;
    report.nodes = [];
    expect(report.nodes).toEqual([]);
    expect(report.scopes).toBe(scopes);
  });

  it('the CLI reads no audit when no --force-fp32/--force-fp16 pattern is given', () => {
    const { report } = ampRewrite(cases[0]!.build(), cases[0]!.options);
    expect(patternWarnings({ forceFp32: [], forceFp16: [] } as unknown as RewriteArgs, report)).toEqual([]);
    expect(auditBuilds.count).toBe(0);
    expect(patternWarnings({ forceFp32: ['no-such-node'], forceFp16: [] } as unknown as RewriteArgs, report)).toEqual([
      '--force-fp32 no-such-node matches no node of the model',
    ]);
    expect(auditBuilds.count).toBe(1);
  });

  it.each(cases)('$name: the op lists are dumped only when report.lists is read, once', ({ build, options }) => {
    const entries = vi.spyOn(OpLists.prototype, 'entries');
    try {
      const { report } = ampRewrite(build(), options);
      JSON.stringify(report.summary);
      expect(entries).not.toHaveBeenCalled();
      const lists = report.lists;
      expect(Object.keys(lists)).toEqual([...LIST_NAMES]);
      expect(lists.allow.length).toBeGreaterThan(0);
      expect(entries).toHaveBeenCalledTimes(LIST_NAMES.length);
      expect(report.lists).toBe(lists);
      expect(entries).toHaveBeenCalledTimes(LIST_NAMES.length);
    } finally {
      entries.mockRestore();
    }
  });
});
