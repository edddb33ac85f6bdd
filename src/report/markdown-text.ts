/**
 * Model-supplied text (node, op, value and file names, reasons that quote them) in Markdown. A
 * name is data from anyone, and audit.md is rendered by VS Code's preview and site generators:
 * raw HTML (`<img onerror>`, `<script>`) would run, `[x](javascript:...)` would be a link, a pipe
 * would split a table cell and a newline or backticks would end a table or a code block. So every
 * name the Markdown audit prints goes through markdownText(): controls escaped and long names cut
 * as on the terminal (printable(): a newline becomes the two characters `\n`), then every ASCII
 * character Markdown or HTML gives a meaning to backslash-escaped (CommonMark renders `\<` as `<`,
 * never as a tag). Names are never put in code spans or fences, which their backticks could close.
 */
import { printable } from '../onnx/printable.js';

/** A name in the Markdown audit may be longer than on the terminal (tables wrap), not unbounded. */
export const MAX_MARKDOWN_NAME_CHARS = 200;

/** `\`, backticks, emphasis, links and images, HTML tags and entities, table pipes, strikethrough (`#` and `!` mean something only at a line start or before `[`). */
const MARKDOWN_SPECIAL = /[\\`*_[\]<>&|~]/g;

export function markdownText(text: string | null | undefined, max = MAX_MARKDOWN_NAME_CHARS): string {
  return printable(text, max).replace(MARKDOWN_SPECIAL, (char, at: number, all: string) => (char === '_' && intraword(all, at) ? char : `\\${char}`));
}

/**
 * An underscore between two letters or digits (`q_proj`) can neither open nor close emphasis in
 * CommonMark: left as it is, so the usual names read as they are written.
 */
function intraword(text: string, at: number): boolean {
  return /[A-Za-z0-9]/.test(text[at - 1] ?? '') && /[A-Za-z0-9]/.test(text[at + 1] ?? '');
}

/**
 * Preformatted text (the summary) as an indented code block: every line indented four spaces, so
 * no line of it can end the block (a fence can be closed by a name holding ```). Its names went
 * through printable() already, so none holds a newline.
 */
export function markdownCodeBlock(text: string): string[] {
  return text.split('\n').map((line) => (line ? `    ${printable(line, 4000)}` : ''));
}
