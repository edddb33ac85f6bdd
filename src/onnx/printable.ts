/**
 * Model-supplied text (node, tensor, op and file names) printed to a terminal. A model is data
 * from anyone: a name may hold ANSI escapes that repaint the screen, bidi overrides that reorder
 * it, or be 100k characters long. Every name in an error or a summary goes through `printable`.
 */
import type { onnx } from './generated/onnx.js';

/**
 * C0 and C1 controls, DEL, line/paragraph separators and bidi embedding/override/isolate marks:
 * the characters that change how the rest of a line is shown.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The same set without newline and tab: for multi-line text (a summary) that embeds names. */
const UNSAFE_IN_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export const MAX_NAME_CHARS = 120;

function escapeChar(char: string): string {
  const code = char.charCodeAt(0);
  if (char === '\n') return '\\n';
  if (char === '\r') return '\\r';
  if (char === '\t') return '\\t';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** A name safe to print on one line: controls escaped (\x1b, \n, \u202e), cut with an ellipsis past `max` characters. */
export function printable(name: string | null | undefined, max = MAX_NAME_CHARS): string {
  const text = name ?? '';
  const cut = text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
  return cut.replace(UNSAFE, escapeChar);
}

/**
 * Escapes the controls of text that may span lines (newlines and tabs are kept), as \uXXXX so
 * that JSON text stays valid JSON.
 */
export function printableText(text: string): string {
  return text.replace(UNSAFE_IN_TEXT, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One line for an error message: every control escaped, and the whole line capped. */
export function printableLine(text: string, max = 2000): string {
  return printable(text, max);
}

/** How messages name a node: its op and its name (its first output when it has none). */
export function describeNode(node: onnx.INodeProto): string {
  return `${node.op_type} '${node.name || (node.output ?? [])[0] || '?'}'`;
}
