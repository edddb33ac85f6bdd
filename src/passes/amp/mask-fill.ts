/**
 * Mask fills beyond float16's range (rules/mask-fill.json): a value computed from a float32
 * constant below float16's lowest finite value (Hugging Face's finfo(float32).min masks) is
 * clamped to that lowest value where it enters float16, so a fully masked attention row stays a
 * uniform softmax instead of turning into NaN.
 *
 * Two steps, this is done so the clamp costs a node only where a mask meets float16:
 *   1. before the Casts (carriedFills): the values of each scope that carry a fill, found forward
 *      from the sources through the carriers' data inputs.
 *      Example: Where(pad, min, causal) -> Add(scores, .) -> Softmax: Where's and Add's outputs carry.
 *   2. after the Casts and their folding (clampFills): each Cast to float16 that the pass inserted
 *      or retargeted and that reads a carried float32 value reads Max(value, -65504) instead.
 *      Example: Add -> Cast 'add/to_fp16' -> Softmax becomes Add -> Max 'add/clamp_fp16' -> Cast -> Softmax.
 */
import { dtypeAttribute, findAttribute } from '../../onnx/attributes.js';
import { DataType } from '../../onnx/data-types.js';
import { onnx } from '../../onnx/generated/onnx.js';
import type { GraphScope, ModelGraph, ValueUse } from '../../onnx/graph.js';
import { readSmallFloat32 } from '../../onnx/tensor-data.js';
import { castNode } from './cast-node.js';
import type { NodeDecision } from './decisions.js';
import { ruleFile } from '../../rules/rule-files.js';

interface Carrier {
  op: string;
  /** Data inputs the fill passes through (absent: every input). */
  inputs?: number[];
  reason: string;
}

/** A reader whose result the exporter guards against the NaN a fully masked row gives (rules/mask-fill.json). */
interface GuardedReader {
  op: string;
  /** The op that tests the reader's output for NaN, and the op that then selects another value where it is. */
  test: string;
  select: string;
  reason: string;
}

interface MaskFillRules {
  lowest: { float16: number };
  sourceMaxElements: number;
  carriers: Carrier[];
  guardedReaders: GuardedReader[];
}

let cached: MaskFillRules | undefined;
export function readMaskFillRules(): MaskFillRules {
  cached ??= ruleFile<MaskFillRules>('mask-fill.json');
  return cached;
}

/** The values of each scope that carry a fill, and the constant each started from. */
export type CarriedFills = Map<GraphScope, Map<string, string>>;

/** A clamp the pass inserted, for the summary and the audit. */
export interface MaskClamp {
  /** The Max node. */
  clamp: string;
  /** The value clamped, and the fill constant it carries. */
  value: string;
  fill: string;
  /** The Cast to float16 that now reads the clamped value. */
  cast: string;
}

/** A fill left as it is because it reaches only guarded readers, for the summary and the audit. */
export interface MaskGuarded {
  /** The value that enters float16 unclamped, and the fill constant it carries. */
  value: string;
  fill: string;
  /** The guarded readers it reaches (Softmax nodes). */
  readers: string[];
}

/** The smallest value of a small float32 tensor, or undefined when it is not one (or too big to scan). */
function smallestValue(tensor: onnx.ITensorProto, maxElements: number): number | undefined {
  const values = readSmallFloat32(tensor, maxElements);
  if (!values) return undefined;
  let smallest = Infinity;
  for (let i = 0; i < values.length; i++) if ((values[i] as number) < smallest) smallest = values[i] as number;
  return smallest;
}

/** The float data behind `name`: an initializer (not an input's default), or a Constant's or ConstantOfShape's value. */
function constantTensor(scope: GraphScope, name: string): onnx.ITensorProto | undefined {
  const initializer = scope.initializers.get(name);
  if (initializer && !scope.inputs.has(name)) return initializer;
  const producer = scope.producerOf(name)?.node;
  if (!producer || producer.domain || (producer.op_type !== 'Constant' && producer.op_type !== 'ConstantOfShape')) return undefined;
  return findAttribute(producer, 'value')?.t ?? undefined;
}

/** Step 1: the values that carry a fill below `lowest`, per scope (empty when the model has none). */
export function carriedFills(graph: ModelGraph, lowest: number): CarriedFills {
  const rules = readMaskFillRules();
  const carriers = new Map(rules.carriers.map((c) => [c.op, c]));
  // Values just below -65504 still round to it: float16 overflows from 65520 on.
  const limit = lowest - 16;
  const carried: CarriedFills = new Map();
  for (const scope of graph.scopes) {
    const nodes = scope.currentNodes();
    const values = new Map<string, string>();
    const isSource = new Map<string, boolean>();
    /** Whether `name` is a float32 constant holding a fill (asked only for carriers' data inputs). */
    const source = (name: string): boolean => {
      const known = isSource.get(name);
      if (known !== undefined) return known;
      const constant = constantTensor(scope, name);
      const smallest = constant ? smallestValue(constant, rules.sourceMaxElements) : undefined;
      const found = smallest !== undefined && smallest < limit;
      isSource.set(name, found);
      return found;
    };
    // In order: a value's producer comes before its readers (the graph is sorted).
    for (const node of nodes) {
      const carrier = node.domain ? undefined : carriers.get(node.op_type ?? '');
      if (!carrier) continue;
      if (node.op_type === 'Cast') {
        const to = dtypeAttribute(node, 'to');
        if (to !== DataType.FLOAT && to !== DataType.DOUBLE) continue;
      }
      const inputs = node.input ?? [];
      let fill: string | undefined;
      for (let index = 0; index < inputs.length && fill === undefined; index++) {
        const name = inputs[index];
        if (!name || (carrier.inputs && !carrier.inputs.includes(index))) continue;
        fill = values.get(name) ?? (source(name) ? name : undefined);
      }
      if (fill === undefined) continue;
      for (const output of node.output ?? []) if (output) values.set(output, fill);
    }
    // A fill constant read straight into float16 (a weight Cast) is clamped too.
    for (const [name, found] of isSource) if (found && !values.has(name)) values.set(name, name);
    if (values.size) carried.set(scope, values);
  }
  return carried;
}

export interface ClampContext {
  graph: ModelGraph;
  carried: CarriedFills;
  lowest: number;
  /** Each original node's decision (inserted Casts have none). */
  decisionOf: (scope: GraphScope, node: onnx.INodeProto) => NodeDecision | undefined;
  /** The element type of a value once the Casts are planned. */
  typeOf: (scope: GraphScope, name: string) => number | undefined;
  /** The default domain's opset (Max broadcasts from opset 8). */
  opset: number;
}

/**
 * The guarded readers `start` reaches through the carriers, or undefined when some path reaches
 * anything else (another op, a graph output): then a fully masked row's NaN would escape, and the
 * fill must be clamped. A reader is guarded when every use of its output (looked at through Casts)
 * is the NaN test or the select that the test's result drives: Where(IsNaN(p), 0, p).
 */
export function guardedReadersOf(scope: GraphScope, start: string): string[] | undefined {
  const rules = readMaskFillRules();
  const carriers = new Map(rules.carriers.map((c) => [c.op, c]));
  const guards = new Map((rules.guardedReaders ?? []).map((g) => [g.op, g]));
  const readers = new Set<string>();
  const seen = new Set<string>();
  const pending = [start];
  while (pending.length) {
    const value = pending.pop() as string;
    if (seen.has(value)) continue;
    seen.add(value);
    const uses = scope.consumersOf(value);
    if (!uses.length || scope.outputs.has(value)) return undefined;
    for (const { node, index } of uses) {
      const op = node.domain ? undefined : (node.op_type ?? '');
      const guard = op === undefined ? undefined : guards.get(op);
      if (guard && index === 0 && isGuarded(scope, node.output?.[0] ?? '', guard)) {
        readers.add(node.name || (node.output?.[0] ?? ''));
        continue;
      }
      const carrier = op === undefined ? undefined : carriers.get(op);
      if (!carrier || index < 0 || (carrier.inputs && !carrier.inputs.includes(index))) return undefined;
      for (const output of node.output ?? []) if (output) pending.push(output);
    }
  }
  return readers.size ? [...readers] : undefined;
}

/** Whether every use of `output` (and of its Casts) is `guard.test` or the `guard.select` it drives with the output as the value kept otherwise. */
function isGuarded(scope: GraphScope, output: string, guard: GuardedReader): boolean {
  const names = new Set<string>();
  const collect = (name: string): void => {
    names.add(name);
    for (const { node } of scope.consumersOf(name)) if (node.op_type === 'Cast' && !node.domain && node.output?.[0]) collect(node.output[0]);
  };
  collect(output);
  const tests = new Set<string>();
  const uses: Array<ValueUse | undefined> = [...names].flatMap((name): Array<ValueUse | undefined> => (scope.outputs.has(name) ? [undefined] : [...scope.consumersOf(name)]));
  for (const use of uses) if (use && use.node.op_type === guard.test && !use.node.domain && use.node.output?.[0]) tests.add(use.node.output[0]);
  if (!tests.size) return false;
  return uses.every((use) => {
    if (!use) return false;
    if (use.node.op_type === 'Cast' && !use.node.domain) return true;
    if (use.node.op_type === guard.test && !use.node.domain) return true;
    // The select keeps the reader's output where the test is false: Where(isnan, fallback, p).
    const inputs = use.node.input ?? [];
    return use.node.op_type === guard.select && !use.node.domain && use.index === 2 && tests.has(inputs[0] ?? '');
  });
}

/**
 * Step 2: Max(value, lowest) before each Cast to float16 of a carried float32 value that the pass
 * made or retargeted, except where the value reaches only guarded readers (guardedReadersOf): those
 * fills enter float16 as they are, and `guarded` collects them.
 */
export function clampFills(context: ClampContext, guarded: MaskGuarded[] = []): MaskClamp[] {
  const clamps: MaskClamp[] = [];
  if (!context.carried.size || context.opset < 8) return clamps;
  for (const [scope, values] of context.carried) {
    let lowestName: string | undefined;
    const clamped = new Map<string, string>();
    for (const cast of scope.currentNodes()) {
      if (cast.op_type !== 'Cast' || cast.domain || dtypeAttribute(cast, 'to') !== DataType.FLOAT16) continue;
      const read = cast.input?.[0];
      const fill = read ? values.get(read) : undefined;
      if (!read || fill === undefined || context.typeOf(scope, read) !== DataType.FLOAT) continue;
      const decision = context.decisionOf(scope, cast);
      // The model's own Casts to float16 are the model's business; the pass's and the retargeted ones are ours.
      if (decision && decision.rule !== 'cast-retarget') continue;
      const readers = guardedReadersOf(scope, cast.output?.[0] ?? '');
      if (readers) {
        guarded.push({ value: read, fill, readers });
        continue;
      }
      let output = clamped.get(read);
      let max: onnx.INodeProto | undefined;
      if (!output) {
        if (!lowestName) {
          lowestName = context.graph.uniqueName('amp/float16_lowest');
          const value = onnx.TensorProto.create({ data_type: DataType.FLOAT, dims: [], raw_data: new Uint8Array(Float32Array.of(context.lowest).buffer) });
          const constant = onnx.NodeProto.create({
            name: lowestName,
            op_type: 'Constant',
            input: [],
            output: [lowestName],
            attribute: [onnx.AttributeProto.create({ name: 'value', type: onnx.AttributeProto.AttributeType.TENSOR, t: value })],
          });
          scope.insertNodeAfter(null, constant);
        }
        const name = context.graph.uniqueName(`${read}/clamp_fp16`);
        output = name;
        max = onnx.NodeProto.create({ name, op_type: 'Max', input: [read, lowestName], output: [name] });
        scope.insertNodeAfter(scope.producerOf(read)?.node ?? lowestNode(scope, lowestName), max);
        clamped.set(read, output);
      }
      if (decision) scope.setInput(cast, 0, output);
      else {
        // An inserted Cast sits right after the value's producer, before the Max: it is made again after the Max.
        scope.removeNode(cast);
        scope.insertNodeAfter(max ?? scope.producerOf(output)?.node ?? null, castNode(output, cast.output?.[0] ?? '', DataType.FLOAT16, cast.name ?? ''));
      }
      const clamp: MaskClamp = { clamp: output, value: read, fill, cast: cast.name || output };
      clamps.push(clamp);
      for (const use of scope.consumersOf(cast.output?.[0] ?? '')) {
        const reader = context.decisionOf(scope, use.node);
        if (reader) (reader.masksClamped ??= []).push(output);
      }
      if (decision) (decision.masksClamped ??= []).push(output);
    }
  }
  return clamps;
}

/** The Constant holding the lowest value (inserted first in the scope): a Max of a graph input or weight goes after it. */
function lowestNode(scope: GraphScope, name: string): onnx.INodeProto | null {
  return scope.producerOf(name)?.node ?? null;
}
