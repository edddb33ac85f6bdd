/**
 * The one order for names in everything the tool writes (summaries, reports, list dumps, data
 * file placement). String.prototype.localeCompare follows the process's locale, so the same
 * model and options gave different output under LANG=lt_LT than under LANG=en_US; this compares
 * as English always does. The collator is made on first use: creating it starts ICU (about
 * 6 ms), which a rewrite that sorts nothing should not pay at start-up.
 */
let collator: Intl.Collator | undefined;

export function compareText(a: string, b: string): number {
  collator ??= new Intl.Collator('en');
  return collator.compare(a, b);
}
