/**
 * Ops whose low-precision form a runtime can refuse although their schema allows it: their ONNX
 * function body adds float32 constants to the main type (rules/float32-function-bodies.json).
 */
import { opRuleTable } from './op-rules.js';

/** Why the op cannot run in a low-precision type although its schema says it can; undefined when it can. */
export const float32BodyReason = opRuleTable('float32-function-bodies.json', (entry: { op: string; domain?: string; reason: string }) => entry.reason);
