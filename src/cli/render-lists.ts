/** The effective op lists, one line each: Grappler's "paintbuckets" dump. */
import type { AmpReport } from '../passes/amp.js';

export function renderLists(lists: AmpReport['lists']): string {
  const lines: string[] = [];
  for (const [list, entries] of Object.entries(lists)) {
    lines.push(`${list} list (${entries.length} ops):`);
    for (const e of entries) lines.push(`  ${e.domain ? `${e.domain}:` : ''}${e.op}${e.origin === 'default' ? '' : ` [${e.origin}]`}: ${e.reason}`);
  }
  return `${lines.join('\n')}\n`;
}
