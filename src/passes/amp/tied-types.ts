/** Type variables converted together with an op's main one (rules/tied-type-variables.json). */
import { opRuleTable } from './op-rules.js';

const tiedOf = opRuleTable('tied-type-variables.json', (entry: { op: string; domain?: string; tied: string[]; reason: string }) => entry.tied as readonly string[]);

export function tiedTypeVariables(domain: string | null | undefined, op: string | null | undefined): readonly string[] {
  return tiedOf(domain, op) ?? [];
}
