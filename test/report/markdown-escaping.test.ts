/**
 * audit.md escapes everything model-supplied (issue #26): node, op and value names holding HTML,
 * javascript: links, pipes, newlines and triple backticks are rendered as text. Checked on the
 * Markdown text itself and, where markdown-it (the CommonMark renderer VS Code's preview uses) is
 * installed, on the HTML it renders. The terminal summary's Tensor Core lint escapes too.
 */
import { describe, expect, it } from 'vitest';
import { DataType } from '../../src/onnx/data-types.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { renderAuditMarkdown } from '../../src/report/audit.js';
import { markdownText } from '../../src/report/markdown-text.js';
import { renderSummary } from '../../src/report/summary.js';
import { floatTensor, model, node, valueInfo } from '../support/models.js';

const PAYLOADS = [
  'line\n```\n<b>out of the fence</b>\n```',
  `\u001b[31mred${'x'.repeat(100_000)}`,
  '<img src=x onerror=alert(1)>',
  '<script>alert(1)</script>',
  '[click](javascript:alert(1))',
  '<javascript:alert(1)>',
  'a|b|c',
  '`code` and **bold** and ~~strike~~ and _em_ and &amp;',
];

/** MatMuls named by the payloads, 30 wide (off the Tensor Core multiple, so the lint names them too). */
function hostile(): ReturnType<typeof model> {
  return model({
    node: PAYLOADS.map((name, i) => node('MatMul', [i ? `v${i - 1}` : 'x', 'w'], [i === PAYLOADS.length - 1 ? 'y' : `v${i}`], name)),
    input: [valueInfo('x', DataType.FLOAT, [30, 30])],
    output: [valueInfo('y', DataType.FLOAT, [30, 30])],
    initializer: [floatTensor('w', [30, 30], new Array(900).fill(0.01))],
  });
}

async function markdownIt(): Promise<((text: string) => string) | undefined> {
  try {
    const module = (await import('markdown-it' as string)) as { default: new (options?: object) => { render(text: string): string } };
    const renderer = new module.default({ html: true, linkify: true });
    return (text) => renderer.render(text);
  } catch {
    console.warn('[markdown] markdown-it is not installed: checked the Markdown text only');
    return undefined;
  }
}

describe('Markdown audit', () => {
  const { report } = ampRewrite(hostile(), { audit: true });
  const text = renderAuditMarkdown(report);

  it('no name reaches the Markdown raw: no tag, no link, no fence, one table row per node, long names cut', () => {
    expect(report.summary.tensorCoreLint?.findings.length).toBe(PAYLOADS.length);
    // The summary's code block shows names as code (no HTML there); below it, nothing is raw.
    const [summaryPart, rest] = text.split('\n## Nodes') as [string, string];
    expect(rest).not.toMatch(/(?<!\\)<(img|script|b|javascript)/);
    expect(rest).toContain("\\<img src=x onerror=alert(1)\\>");
    expect(rest).not.toMatch(/(?<!\\)\]\(javascript/);
    expect(text).not.toContain('```\n');
    expect(text).not.toContain('\u001b');
    expect(text.length).toBeLessThan(40_000);
    const rows = text.split('\n').filter((line) => / MatMul \| fp16 \|/.test(line));
    expect(rows).toHaveLength(PAYLOADS.length);
    // Each row has its 9 cells: escaped pipes do not split one.
    for (const row of rows) expect(row.split(/(?<!\\)\|/).length - 2).toBe(9);
    expect(text).toContain('a\\|b\\|c');
    expect(text).toContain('line\\\\n\\`\\`\\`\\\\n\\<b\\>out of the fence\\</b\\>');
    // The summary is an indented code block: no line of it starts unindented.
    const summary = summaryPart.split('\n').slice(2).filter(Boolean);
    expect(summary.length).toBeGreaterThan(5);
    for (const line of summary) expect(line.startsWith('    ')).toBe(true);
  });

  it('rendered by markdown-it (html on, as VS Code does), no payload is HTML, a link or outside its cell', async () => {
    const render = await markdownIt();
    if (!render) return;
    const html = render(text);
    expect(html).not.toMatch(/<(img|script|b)[\s>]/);
    expect(html).not.toMatch(/href="javascript/i);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('a|b|c');
    expect((html.match(/<pre>/g) ?? []).length).toBe(1);
    const lintRows = (report.summary.tensorCoreLint?.findings ?? []).reduce((sum, finding) => sum + finding.dims.length, 0);
    expect((html.match(/<tr>/g) ?? []).length).toBe(1 + PAYLOADS.length + 1 + lintRows);
  });

  it('the terminal summary escapes the Tensor Core lint lines the same way as every other name (\\x1b, \\n), and cuts them', () => {
    const summary = renderSummary(report.summary);
    const lint = summary.split('\n').filter((line) => line.startsWith('  MatMul'));
    expect(lint).toHaveLength(5);
    expect(summary).not.toContain('\u001b');
    expect(summary).not.toContain('\\u001b');
    expect(summary).toContain("MatMul 'line\\n```\\n<b>out of the fence</b>\\n```'");
    for (const line of summary.split('\n')) expect(line.length).toBeLessThan(700);
    expect(markdownText('\u001b')).toBe('\\\\x1b');
    expect(markdownText('l0/q_proj _em_ a__b')).toBe('l0/q_proj \\_em\\_ a\\_\\_b');
  });
});
