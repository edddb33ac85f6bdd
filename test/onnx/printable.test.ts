/** The one escaping helper for model-supplied names. */
import { describe, expect, it } from 'vitest';
import { printable, printableText } from '../../src/onnx/printable.js';

describe('printable', () => {
  it('escapes C0/C1 controls, DEL and bidi overrides, keeps ordinary Unicode', () => {
    expect(printable('a\u001b[31mb\nc\u0000\u007f\u009b\u202eé中')).toBe('a\\x1b[31mb\\nc\\x00\\x7f\\x9b\\u202eé中');
  });
  it('cuts long names with an ellipsis and the original length', () => {
    const cut = printable('x'.repeat(100_000));
    expect(cut).toBe(`${'x'.repeat(120)}…(100000 chars)`);
  });
  it('printableText keeps newlines and tabs, and keeps JSON valid', () => {
    expect(printableText('line\u001b[2J\n\tnext')).toBe('line\\u001b[2J\n\tnext');
    const json = JSON.stringify({ name: 'a\u009b\u202eb' });
    expect(JSON.parse(printableText(json))).toEqual({ name: 'a\u009b\u202eb' });
  });
});
