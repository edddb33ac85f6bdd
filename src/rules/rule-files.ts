/**
 * The rule tables (rules/*.json) as the pass reads them: parsed once, on first use, from the texts
 * scripts/gen-embedded.mjs embeds at build time. No file system: the core runs in a browser too.
 */
import { RULE_TEXTS } from './rule-texts.generated.js';

const parsed = new Map<string, unknown>();

/** rules/`file` parsed (the same object on every call: callers must not change it). */
export function ruleFile<T>(file: string): T {
  let value = parsed.get(file);
  if (value === undefined) {
    const text = RULE_TEXTS[file];
    if (text === undefined) throw new Error(`rules/${file} is not among the embedded rule files (run node scripts/gen-embedded.mjs)`);
    value = JSON.parse(text) as unknown;
    parsed.set(file, value);
  }
  return value as T;
}

/** The names of the embedded rule files. */
export function ruleFileNames(): string[] {
  return Object.keys(RULE_TEXTS);
}

/** rules/`file`'s text, for a caller that needs a fresh parse of its own. */
export function ruleText(file: string): string {
  const text = RULE_TEXTS[file];
  if (text === undefined) throw new Error(`rules/${file} is not among the embedded rule files (run node scripts/gen-embedded.mjs)`);
  return text;
}
