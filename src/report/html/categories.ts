/**
 * The decision categories the HTML report colors nodes by, derived from the audit's rule codes
 * (passes/amp/decisions.ts). A table, not code: the page reads it as data, and the tests check
 * every rule code lands in exactly one category.
 */
import type { RuleCode } from '../../passes/amp/decisions.js';

export interface DecisionCategory {
  id: string;
  label: string;
  /** Fill color of the node in the graph (also the legend swatch). */
  color: string;
  /** What the category means, shown in the legend's tooltip. */
  meaning: string;
  rules: RuleCode[];
}

export const DECISION_CATEGORIES: readonly DecisionCategory[] = [
  { id: 'allow', label: 'allow', color: '#2e9d4f', meaning: 'on the allow list: runs in the low-precision type', rules: ['allow-list'] },
  {
    id: 'infer-promoted',
    label: 'infer-promoted',
    color: '#8fd19e',
    meaning: 'an infer-list op converted because it sits between or after allow ops',
    rules: ['between-allow', 'infer-after-allow'],
  },
  { id: 'clear', label: 'clear', color: '#b7e4f7', meaning: 'a clear-list op (or existing Cast) that follows its converted neighbours, or an existing Cast folded away', rules: ['clear-flood', 'cast-retarget', 'cast-folded'] },
  {
    id: 'target-kernel',
    label: 'target kernel',
    color: '#3aa6a0',
    meaning: 'a deny-list op run in the low type because the target provider\'s kernel accumulates in fp32 (--target, rules/kernels.json)',
    rules: ['target-kernel'],
  },
  { id: 'deny', label: 'deny', color: '#d64545', meaning: 'on the deny list: kept fp32', rules: ['deny-list'] },
  { id: 'deny-propagated', label: 'deny-propagated', color: '#f0a0a0', meaning: 'kept fp32 because it is downstream of a deny op', rules: ['deny-upstream'] },
  {
    id: 'fp32-stream',
    label: 'fp32-stream',
    color: '#f3d36b',
    meaning: 'kept fp32: reads an fp32 value from outside the low-precision region, or no rule converts it',
    rules: ['fp32-stream', 'not-between-allow', 'unlisted', 'no-allow-ops'],
  },
  { id: 'forced', label: 'pinned by you', color: '#9b6bd6', meaning: '--force-fp16 or --force-fp32 (or a --rules forceFp32 entry) named this node', rules: ['force-fp16', 'force-fp32'] },
  // Two pins, told apart by what happened: a weight's stored values (no run needed) or a value a --calibrate run saw.
  {
    id: 'pinned-weight',
    label: 'pinned by weight range',
    color: '#b5651d',
    meaning: 'kept fp32 because a weight it reads holds values beyond the target type\'s range (found in the file, no calibration run)',
    rules: ['weight-out-of-range'],
  },
  {
    id: 'pinned-exact',
    label: 'kept exact',
    color: '#2f4f6f',
    meaning: 'kept fp32 because it makes or reads floats that hold integers beyond the target type\'s exact integers (positions: 2048 for float16, 256 for bfloat16), or an angle Cos or Sin reads (rules/integer-valued.json)',
    rules: ['integer-valued', 'angle-input'],
  },
  {
    id: 'pinned',
    label: 'pinned by calibration',
    color: '#e8833a',
    meaning: 'kept fp32 because a --calibrate run saw an activation beyond the target type\'s range (or flushing to zero)',
    rules: ['activation-out-of-range'],
  },
  {
    id: 'unprocessed',
    label: 'unprocessed',
    color: '#c8c8c8',
    meaning: "not painted: no float32 compute (a Shape or Size that reads only the shape of a low-precision value, control flow, already in reduced precision), a constant, an uninlined function, unknown types, no schema, or part of a quantized unit (DequantizeLinear -> op -> QuantizeLinear); or kept fp32 because the model's opset has no Cast to the target type, or the op cannot take it (its schema at this opset, or a function body that adds float32 constants), or a released ONNX Runtime crashes on it in the low type (rules/runtime-hazards.json)",
    rules: ['shape-only', 'no-float-compute', 'control-flow', 'already-low-precision', 'local-function', 'constant-source', 'unknown-type', 'non-tensor-types', 'no-schema', 'quantized-unit', 'schema-forbids', 'runtime-hazard'],
  },
];

const byRule = new Map<string, DecisionCategory>(DECISION_CATEGORIES.flatMap((c) => c.rules.map((rule) => [rule, c] as const)));

/** The category of a rule code; unknown codes (from a newer audit) count as unprocessed. */
export function categoryOfRule(rule: string): DecisionCategory {
  return byRule.get(rule) ?? (DECISION_CATEGORIES[DECISION_CATEGORIES.length - 1] as DecisionCategory);
}
