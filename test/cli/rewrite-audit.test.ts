/**
 * The rewrite command asks the pass for the per-node audit only when it reads it: for --report
 * files and for the warnings about --force-fp32/--force-fp16 patterns. Everything it writes and
 * prints is the same with and without the audit.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { plainRewriteArgs } from '../../src/cli/plain-rewrite.js';
import { auditRead, runRewrite, type RewriteArgs } from '../../src/cli/rewrite-command.js';
import { fixturesDir } from '../support/corpus.js';

const asked = vi.hoisted(() => ({ audit: [] as Array<boolean | undefined> }));

vi.mock('../../src/passes/pipeline.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/passes/pipeline.js')>();
  return {
    ...original,
    // The rewrite command's one call into the pass (rewriteModel, its input's faults told apart).
    rewriteDecodedModel: (...args: Parameters<typeof original.rewriteDecodedModel>) => {
      asked.audit.push(args[2]?.audit);
      return original.rewriteDecodedModel(...args);
    },
  };
});

const work = mkdtempSync(path.join(tmpdir(), 'amp-rewrite-audit-'));
const transformer = path.join(fixturesDir, 'transformer-block/model.onnx');
const kvDecoder = path.join(fixturesDir, 'exporter-decoder-kv/model.onnx');

async function rewrite(tokens: string[]): Promise<{ printed: string; model: Buffer }> {
  const output = path.join(work, `out-${asked.audit.length}.onnx`);
  const args = plainRewriteArgs([...tokens, '-o', output]) as RewriteArgs;
  expect(args).toBeDefined();
  let printed = '';
  expect(await runRewrite(args, (text) => (printed += text))).toBe(0);
  return { printed, model: readFileSync(output) };
}

describe('the rewrite command gathers the audit only when it reads it', () => {
  beforeEach(() => {
    asked.audit.length = 0;
  });

  it('auditRead: --report and force patterns read it; the summary, --json and --verbose do not', () => {
    const none = { report: [], forceFp32: [], forceFp16: [] };
    expect(auditRead(none)).toBe(false);
    expect(auditRead({ ...none, report: ['audit.json'] })).toBe(true);
    expect(auditRead({ ...none, forceFp32: ['/Softmax/'] })).toBe(true);
    expect(auditRead({ ...none, forceFp16: ['node'] })).toBe(true);
  });

  it.each([
    ['plain', [], false],
    ['--json --verbose', ['--json', '--verbose'], false],
    ['--report audit.json', ['--report', 'REPORT.json'], true],
    ['--force-fp32 pattern', ['--force-fp32', '/q_proj/'], true],
  ])('%s: the pass is asked for the audit only when it is read', async (_label, extra, wanted) => {
    const tokens = (extra as string[]).map((t) => (t === 'REPORT.json' ? path.join(work, `audit-${Date.now()}.json`) : t));
    await rewrite([transformer, ...tokens]);
    expect(asked.audit).toEqual([wanted]);
  });

  it.each([
    ['transformer-block', transformer, []],
    ['transformer-block --json --verbose', transformer, ['--json', '--verbose']],
    ['exporter-decoder-kv --kv-cache fp16 --weights fp16', kvDecoder, ['--kv-cache', 'fp16', '--weights', 'fp16', '--json']],
  ])('%s: the same model bytes and output with and without the audit', async (_label, model, extra) => {
    const without = await rewrite([model as string, ...(extra as string[])]);
    const report = path.join(work, `audit-${asked.audit.length}.json`);
    const withAudit = await rewrite([model as string, ...(extra as string[]), '--report', report]);
    expect(asked.audit).toEqual([false, true]);
    expect(without.model.equals(withAudit.model)).toBe(true);
    expect(without.printed).toBe(withAudit.printed);
    expect(without.printed.length).toBeGreaterThan(0);
    const audit = JSON.parse(readFileSync(report, 'utf8'));
    expect(audit.nodes.length).toBeGreaterThan(0);
    expect(audit.scopes.length).toBeGreaterThan(0);
  });
});
