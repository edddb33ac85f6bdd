/**
 * User patterns run on a linear-time engine (issue #26): catastrophic backtracking cannot hang a
 * rewrite, a 1 MB pattern is BAD_OPTION (exit 2), and what cannot run in linear time is refused
 * with why. Timings here are guards against a hang (seconds), not benchmarks.
 */
import { describe, expect, it } from 'vitest';
import { boundedRegex, foldAsciiCase, MAX_PATTERN_CHARS } from '../../src/passes/amp/bounded-regex.js';
import { nodeMatcher } from '../../src/passes/amp.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { DataType } from '../../src/onnx/data-types.js';
import { floatTensor, model, node, valueInfo } from '../support/models.js';
import { errorOf } from '../support/errors.js';

/** A MatMul named by `name`, which --force-fp32 patterns are matched against. */
function named(name: string) {
  return model({
    node: [node('MatMul', ['x', 'w'], ['y'], name)],
    input: [valueInfo('x', DataType.FLOAT, [1, 2])],
    output: [valueInfo('y', DataType.FLOAT, [1, 2])],
    initializer: [floatTensor('w', [2, 2], [1, 2, 3, 4])],
  });
}

describe('bounded regular expressions', () => {
  it("--force-fp32 '/(a+)+$/' against a 35-character name ending in '!' returns at once (backtracking: hours)", () => {
    const name = `${'a'.repeat(35)}!`;
    const started = performance.now();
    const { report } = rewriteModel(named(name), { forceFp32: ['/(a+)+$/'], audit: true });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(report.amp.nodes.find((n) => n.node === name)?.precision).not.toBe('fp32');
    // And the same pattern still matches what it should, 100k characters long included.
    const long = 'a'.repeat(100_000);
    expect(nodeMatcher(['/(a+)+$/'])({ name: long })).toBe(true);
  });

  it('a pattern over the size limit (1 MB) is BAD_OPTION, not exit 3', () => {
    const e = errorOf(() => rewriteModel(named('mm'), { forceFp32: [`/${'a'.repeat(2 ** 20)}/`] }));
    expect(e.code).toBe('BAD_OPTION');
    expect(e.message).toContain(`at most ${MAX_PATTERN_CHARS} characters`);
    expect(e.message.length).toBeLessThan(400);
  });

  it('a --rules forceFp32 pattern is bounded too, and its error names the rules file', () => {
    const e = errorOf(() => rewriteModel(named('mm'), { listChanges: [{ origin: 'my-rules.json', changes: {}, forceFp32: ['/(a)\\1/'] }] }));
    expect(e.code).toBe('BAD_OPTION');
    expect(e.message).toMatch(/^my-rules\.json: forceFp32 \/\(a\)\\1\/: this pattern cannot be matched in linear time/);
  });

  it('backreferences and lookaround are refused with why; invalid syntax says so', () => {
    expect(errorOf(() => boundedRegex('(a)\\1', '', '--force-fp32')).message).toContain('cannot be matched in linear time');
    expect(errorOf(() => boundedRegex('a(?=b)', '', '--force-fp32')).message).toContain('cannot be matched in linear time');
    expect(errorOf(() => boundedRegex('(a', '', '--force-fp32')).message).toMatch(/^--force-fp32 \/\(a\/ is not a valid regular expression: Unterminated group/);
    expect(errorOf(() => boundedRegex('a', 'x', '--force-fp32')).message).toContain("flag 'x' is not supported");
  });

  it('the i flag matches case-insensitively (folded into classes where the engine lacks it); g is dropped so matching is stateless', () => {
    const re = boundedRegex('^attn\\.[q-v]_proj\\d$', 'i', '--force-fp32');
    expect(['ATTN.Q_PROJ1', 'attn.v_proj2', 'Attn.s_Proj3'].every((s) => re.test(s))).toBe(true);
    expect(['attn.a_proj1', 'attnxq_proj1', 'attn.q_projX'].some((s) => re.test(s))).toBe(false);
    expect(foldAsciiCase('a[b-d]\\w\\x41(?<nm>c)\\k<nm>')).toBe('[aA][b-dB-D]\\w\\x41(?<nm>[cC])\\k<nm>');
    const global = boundedRegex('mm', 'g', '--force-fp32');
    expect([global.test('mm'), global.test('mm'), global.test('mm')]).toEqual([true, true, true]);
  });
});
