/**
 * Floats that must stay exact (rules/integer-valued.json), found before painting and painted as
 * pins (paint.ts keeps a pinned node float32 with the pin's rule and reason):
 *   - integer-valued: a float that holds integers (a Cast of position_ids, a float Range, a CumSum
 *     of a mask) whose magnitude is not known to fit the low type's exact integers (2048 for
 *     float16, 256 for bfloat16). Its producer and every node reading it stay float32, so the
 *     Cast is not retargeted and an allow op reading it (the rotary inv_freq x positions MatMul)
 *     does not convert it. Example: Cast(position_ids, to=float) -> MatMul(inv_freq, .) both pinned.
 *   - angle-input: Cos and Sin, and the angle carriers back from them up to a product, so the
 *     angle keeps float32's absolute precision. Example: MatMul -> Transpose -> Concat -> Cos, Sin
 *     all pinned; Cos's output (in [-1, 1]) may enter float16 after.
 */
import { dtypeAttribute, findAttribute } from '../../onnx/attributes.js';
import { DataType, dataTypeName } from '../../onnx/data-types.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import type { GraphScope, ModelGraph } from '../../onnx/graph.js';
import { readSmallFloat32 } from '../../onnx/tensor-data.js';
import type { ElemTypes } from '../../onnx/type-inference.js';
import { describeNode } from './decisions.js';
import { opRuleTable } from './op-rules.js';
import type { PinnedNode } from './weight-range.js';
import { ruleFile } from '../../rules/rule-files.js';

type Bound = 'same' | 'max' | 'sum' | 'product' | 'unbounded';

interface IntegerCarrier {
  op: string;
  domain?: string;
  /** Data inputs the integers pass through (absent: every input); all must hold integers. */
  inputs?: number[];
  bound: Bound;
  reason: string;
}

interface IntegerSource {
  op: string;
  domain?: string;
  kind: 'cast' | 'range';
  reason: string;
}

interface AngleCarrier {
  op: string;
  domain?: string;
  /** A product: the angle starts here, its factors are walked no further. */
  last?: boolean;
  reason: string;
}

interface IntegerValuedRules {
  exactIntegersUpTo: Record<'float16' | 'bfloat16', number>;
  integerTypeMagnitude: Record<string, number>;
  constantMaxElements: number;
}

let cachedRules: IntegerValuedRules | undefined;
function readRules(): IntegerValuedRules {
  cachedRules ??= ruleFile<IntegerValuedRules>('integer-valued.json');
  return cachedRules;
}

/** The op-keyed tables of the same file, through the shared loader. */
const tableOf = <E extends { op: string; domain?: string }>(key: string) => opRuleTable<E, E>('integer-valued.json', (entry) => entry, key);
const sourceOf = tableOf<IntegerSource>('sources');
const integerCarrierOf = tableOf<IntegerCarrier>('carriers');
const angleReaderOf = tableOf<{ op: string; domain?: string; reason: string }>('angleReaders');
const angleCarrierOf = tableOf<AngleCarrier>('angleCarriers');

const INTEGER_TYPE_NAME = /^(u?int\d+|bool)$/;

/** An integer-valued float32 value: the largest magnitude it can hold (Infinity: unknown) and where its integers come from. */
interface IntegerValue {
  magnitude: number;
  origin: string;
}

/** The largest magnitude of a small float32 constant holding integers only; undefined for anything else. */
function integerConstantMagnitude(scope: GraphScope, name: string, maxElements: number): number | undefined {
  if (scope.inputs.has(name)) return undefined;
  const producer = scope.producerNodeOf(name);
  const constant = producer && !producer.domain && producer.op_type === 'Constant' ? findAttribute(producer, 'value')?.t : undefined;
  const tensor = scope.initializers.get(name) ?? constant;
  const values = tensor ? readSmallFloat32(tensor, maxElements) : undefined;
  if (!values) return undefined;
  let largest = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[i] as number;
    if (!Number.isInteger(value)) return undefined;
    largest = Math.max(largest, Math.abs(value));
  }
  return largest;
}

function combine(bound: Bound, magnitudes: number[]): number {
  switch (bound) {
    case 'same':
    case 'max':
      return Math.max(...magnitudes);
    case 'sum':
      return magnitudes.reduce((sum, m) => sum + m, 0);
    case 'product':
      return magnitudes.reduce((product, m) => product * m, 1);
    case 'unbounded':
      return Infinity;
  }
}

function magnitudeText(magnitude: number): string {
  return Number.isFinite(magnitude) ? `up to ${magnitude}` : 'of unknown range';
}

/**
 * The nodes to keep float32 for exactness in one rewrite to `mode`, by node: the integer-valued
 * values' producers and readers, then the angle readers and their angle carriers.
 */
export function exactnessPins(graph: ModelGraph, types: ElemTypes, mode: 'fp16' | 'bf16'): Map<onnx.INodeProto, PinnedNode> {
  const rules = readRules();
  const lowName = mode === 'bf16' ? 'bfloat16' : 'float16';
  const exactUpTo = rules.exactIntegersUpTo[lowName];
  const pins = new Map<onnx.INodeProto, PinnedNode>();
  for (const scope of graph.scopes) {
    const nodes = scope.currentNodes();
    const isFloat = (name: string): boolean => types.get(scope, name) === DataType.FLOAT;
    const integers = new Map<string, IntegerValue>();
    /** A tracked value, or a constant holding integers only (no origin: a constant alone starts nothing). */
    const integerInput = (name: string): IntegerValue | { magnitude: number; origin: undefined } | undefined => {
      const tracked = integers.get(name);
      if (tracked) return tracked;
      const magnitude = integerConstantMagnitude(scope, name, rules.constantMaxElements);
      return magnitude === undefined ? undefined : { magnitude, origin: undefined };
    };
    // In order: a value's producer comes before its readers (the graph is sorted).
    for (const node of nodes) {
      const output = node.output?.[0];
      if (!output || !isFloat(output)) continue;
      const inputs = node.input ?? [];
      const source = sourceOf(node.domain, node.op_type);
      if (source?.kind === 'cast') {
        const from = inputs[0] ? types.get(scope, inputs[0]) : undefined;
        const fromName = from === undefined ? '' : dataTypeName(from);
        if (INTEGER_TYPE_NAME.test(fromName)) {
          integers.set(output, { magnitude: rules.integerTypeMagnitude[fromName] ?? Infinity, origin: `${describeNode(node)} from ${fromName}` });
          continue;
        }
      } else if (source?.kind === 'range') {
        const ends = [inputs[0], inputs[1]].map((name) => (name ? integerInput(name)?.magnitude : undefined));
        integers.set(output, { magnitude: ends.every((m) => m !== undefined) ? Math.max(...(ends as number[])) : Infinity, origin: describeNode(node) });
        continue;
      }
      const carrier = integerCarrierOf(node.domain, node.op_type);
      if (!carrier) continue;
      const magnitudes: number[] = [];
      let origin: string | undefined;
      let allIntegers = true;
      for (let index = 0; index < inputs.length && allIntegers; index++) {
        const name = inputs[index];
        if (!name || (carrier.inputs && !carrier.inputs.includes(index))) continue;
        const found = integerInput(name);
        if (!found) allIntegers = false;
        else {
          magnitudes.push(found.magnitude);
          origin ??= found.origin;
        }
      }
      if (!allIntegers || origin === undefined || !magnitudes.length) continue;
      for (const name of node.output ?? []) if (name && isFloat(name)) integers.set(name, { magnitude: combine(carrier.bound, magnitudes), origin });
    }
    for (const [name, value] of integers) {
      if (value.magnitude <= exactUpTo) continue;
      const reason = `integer-valued: ${lowName} holds integers exactly only up to ${exactUpTo}, and '${name}' holds integers ${magnitudeText(value.magnitude)} (from ${value.origin})`;
      const producer = scope.producerNodeOf(name);
      if (producer && !pins.has(producer)) pins.set(producer, { rule: 'integer-valued', reason, inputIndex: -1 });
      for (const use of scope.consumersOf(name)) {
        if (use.index >= 0 && !pins.has(use.node)) pins.set(use.node, { rule: 'integer-valued', reason, inputIndex: use.index });
      }
    }
    pinAngles(scope, nodes, isFloat, pins);
  }
  return pins;
}

/** Each angle reader and the angle carriers back from it (through float32 inputs) up to a product. */
function pinAngles(scope: GraphScope, nodes: readonly onnx.INodeProto[], isFloat: (name: string) => boolean, pins: Map<onnx.INodeProto, PinnedNode>): void {
  for (const reader of nodes) {
    if (!angleReaderOf(reader.domain, reader.op_type)) continue;
    const angle = reader.input?.[0];
    if (!angle || !isFloat(angle)) continue;
    const reason = `angle-input: ${describeNode(reader)} reads the angle '${angle}', whose error is absolute: it stays float32 up to Cos and Sin`;
    if (!pins.has(reader)) pins.set(reader, { rule: 'angle-input', reason, inputIndex: -1 });
    const walk = [angle];
    const seen = new Set<string>();
    while (walk.length) {
      const name = walk.pop() as string;
      if (seen.has(name)) continue;
      seen.add(name);
      const producer = scope.producerNodeOf(name);
      const carrier = producer ? angleCarrierOf(producer.domain, producer.op_type) : undefined;
      if (!producer || !carrier) continue;
      if (producer.op_type === 'Cast' && dtypeAttribute(producer, 'to') !== DataType.FLOAT) continue;
      if (!pins.has(producer)) pins.set(producer, { rule: 'angle-input', reason, inputIndex: -1 });
      if (carrier.last) continue;
      for (const input of producer.input ?? []) if (input && isFloat(input)) walk.push(input);
    }
  }
}
