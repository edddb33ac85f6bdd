/**
 * Quantized node units (rules/quantized-units.json): the nodes of a quantized model that the pass
 * leaves exactly as they are, each with its reason. A unit is
 *   1. a DequantizeLinear or QuantizeLinear (and ONNX Runtime's contrib variants): the unit's edges;
 *   2. an op that computes on quantized data (QLinearConv, MatMulInteger, DynamicQuantizeMatMul...);
 *   3. a float op whose every float32 input is a DequantizeLinear's output: the op ONNX Runtime's
 *      QDQ transformers fuse with the DequantizeLinear before it (and the QuantizeLinear after it)
 *      into an int8 kernel. This is done so no Cast lands between them: DQ -> Cast -> Conv -> Q is
 *      no longer the pattern, and the Conv runs as float between two roundings.
 * Example:  DQ(x) , DQ(w) -> Conv -> Q   stays as it is; a MatMul reading a graph input converts.
 */
import { DataType } from '../../onnx/data-types.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import type { GraphScope } from '../../onnx/graph.js';
import { normalizeDomain } from '../../onnx/opsets.js';
import { printable } from '../../onnx/printable.js';
import type { ElemTypes } from '../../onnx/type-inference.js';
import { ruleFile } from '../../rules/rule-files.js';

type Role = 'dequantize' | 'quantize' | 'quantizedOps';
const ROLES: readonly Role[] = ['dequantize', 'quantize', 'quantizedOps'];

interface RuleEntry {
  op: string;
  domain?: string;
  reason: string;
}

export type QuantizedUnitsFile = { meaning: string } & Record<Role, RuleEntry[]>;

interface UnitRule {
  role: Role;
  reason: string;
}

export function readQuantizedUnitsFile(): QuantizedUnitsFile {
  return ruleFile<QuantizedUnitsFile>('quantized-units.json');
}

let rulesByKey: Map<string, UnitRule> | undefined;
/** Op types named by any rule, whatever the domain: a node of another type is never looked up by key. */
let ruleOpTypes: Set<string> | undefined;

function rules(): Map<string, UnitRule> {
  if (rulesByKey) return rulesByKey;
  const file = readQuantizedUnitsFile();
  const byKey = new Map<string, UnitRule>();
  const opTypes = new Set<string>();
  for (const role of ROLES) {
    for (const entry of file[role]) {
      byKey.set(`${normalizeDomain(entry.domain)}:${entry.op}`, { role, reason: entry.reason });
      opTypes.add(entry.op);
    }
  }
  ruleOpTypes = opTypes;
  return (rulesByKey = byKey);
}

function ruleOf(node: onnx.INodeProto): UnitRule | undefined {
  const byKey = rules();
  const op = node.op_type ?? '';
  if (!(ruleOpTypes as Set<string>).has(op)) return undefined;
  return byKey.get(`${normalizeDomain(node.domain)}:${op}`);
}

/**
 * The nodes of a scope that belong to a quantized unit, with the reason the audit shows. Empty
 * (and one pass over the op types) for a scope without a quantization op: a float model pays
 * no type lookups here.
 */
export function quantizedUnitMembers(scope: GraphScope, nodes: readonly onnx.INodeProto[], types: ElemTypes): Map<onnx.INodeProto, string> {
  const members = new Map<onnx.INodeProto, string>();
  const dequantizers = new Set<onnx.INodeProto>();
  for (const node of nodes) {
    const rule = ruleOf(node);
    if (!rule) continue;
    members.set(node, `${node.op_type} is part of a quantized unit (rules/quantized-units.json): ${rule.reason}`);
    if (rule.role === 'dequantize') dequantizers.add(node);
  }
  if (!dequantizers.size) return members;
  for (const node of nodes) {
    if (members.has(node)) continue;
    const entry = dequantizedEntry(node, scope, types, dequantizers);
    if (entry) {
      members.set(
        node,
        `in the quantized unit after ${printable(entry.op_type)} '${printable(entry.name || entry.output?.[0] || '?')}': every float input is dequantized; ONNX Runtime fuses the unit into an int8 kernel, which a Cast would stop`,
      );
    }
  }
  return members;
}

/** The first DequantizeLinear feeding a node whose every float32 input is dequantized; undefined otherwise. */
function dequantizedEntry(node: onnx.INodeProto, scope: GraphScope, types: ElemTypes, dequantizers: ReadonlySet<onnx.INodeProto>): onnx.INodeProto | undefined {
  let first: onnx.INodeProto | undefined;
  for (const name of node.input ?? []) {
    if (!name || types.get(scope, name) !== DataType.FLOAT) continue;
    const producer = scope.producerNodeOf(name);
    if (!producer || !dequantizers.has(producer)) return undefined;
    first ??= producer;
  }
  return first;
}
