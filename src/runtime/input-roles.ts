/**
 * What a model does with each integer input, and random inputs that respect it: an input that
 * ends up as the indices of a Gather (or an embedding op) over a table is drawn over the whole table,
 * a mask is 0 or 1, a token type stays within its table. The rules are data (rules/input-roles.json);
 * run, compare, bench, --calibrate and tune all draw their random inputs here.
 */
import type { Tensor } from 'onnxruntime-node';
import { seededRandom, valueInfo } from '../builder/graph-builder.js';
import { intAttribute } from '../onnx/attributes.js';
import { DataType } from '../onnx/data-types.js';
import { longToNumber } from '../onnx/external-data.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph, type GraphScope } from '../onnx/graph.js';
import { inferShapes, type Shape } from '../onnx/shape-inference.js';
import { randomInputs, requiredInputs, type DimDefaults, type Feeds } from './random-inputs.js';
import type { Ort } from './ort.js';
import { newTensor } from './float16-bits.js';
import { ruleFile } from '../rules/rule-files.js';

interface IndexOpRule {
  op: string;
  domain?: string;
  indices: number;
  table: number;
  axisAttribute?: string;
  /** Each index along the indices' last axis is one coordinate: component j within axis batch_dims + j. */
  tuples?: boolean;
  batchDimsAttribute?: string;
  reason: string;
}

/** A generation driver's inputs: the prompt's token ids, and settings by input position. */
interface DriverInputRule {
  op: string;
  domain?: string;
  tokens?: number;
  settings: Record<string, { value: number } | { sequencePlus: number }>;
}

interface InputRoleRules {
  valuePreserving: { ops: string[]; reason: string };
  indexOps: IndexOpRule[];
  maskOps: Array<{ op: string; domain?: string; input: number; reason: string }>;
  names: Array<{ pattern: string; values: [number, number]; role: string; reason: string }>;
  driverInputs: { reason: string; ops: DriverInputRule[] };
  sequenceLengthOps: Array<{ op: string; domain?: string; newFrom: number[]; past: number; seqlensK: number; totalSequenceLength: number; reason: string }>;
}

let rules: InputRoleRules | undefined;
function roleRules(): InputRoleRules {
  rules ??= ruleFile<InputRoleRules>('input-roles.json');
  return rules;
}

/** An integer input's values are drawn from [low, high): why, in words. */
export interface InputRole {
  low: number;
  high: number;
  role: string;
  reason: string;
  /** Index tuples: the element at flat position i is drawn from [low, components[i % components.length]). */
  components?: number[];
}

const INTEGER_TYPES = new Set<number>([DataType.INT64, DataType.INT32, DataType.INT16, DataType.INT8, DataType.UINT8, DataType.UINT16, DataType.UINT32, DataType.UINT64]);
const opKey = (op: string, domain?: string | null) => `${domain && domain !== 'ai.onnx' ? domain : ''}:${op}`;

/** The graph input whose values reach `name` unchanged, through value-preserving ops, if any. */
function sourceInput(scope: GraphScope, name: string, preserving: ReadonlySet<string>): string | undefined {
  for (let producer = scope.producerOf(name); producer; producer = scope.producerOf(name)) {
    if (producer.node.domain || !preserving.has(producer.node.op_type ?? '')) return undefined;
    name = producer.node.input?.[0] ?? '';
  }
  return scope.inputs.has(name) && !scope.initializers.has(name) ? name : undefined;
}

/** The initializer a table comes from, through value-preserving ops (a Cast of an fp16 table). */
function sourceTable(scope: GraphScope, name: string, preserving: ReadonlySet<string>): onnx.ITensorProto | undefined {
  for (let producer = scope.producerOf(name); producer; producer = scope.producerOf(name)) {
    if (producer.node.domain || !preserving.has(producer.node.op_type ?? '')) return undefined;
    name = producer.node.input?.[0] ?? '';
  }
  return scope.initializers.get(name);
}

function indexRulesByOp(): Map<string, IndexOpRule[]> {
  const byOp = new Map<string, IndexOpRule[]>();
  for (const rule of roleRules().indexOps) byOp.set(opKey(rule.op, rule.domain), [...(byOp.get(opKey(rule.op, rule.domain)) ?? []), rule]);
  return byOp;
}

/** A table's static dims: its initializer's (through value-preserving ops), else its inferred shape. */
function tableDims(scope: GraphScope, name: string, preserving: ReadonlySet<string>, shapes: ReadonlyMap<string, Shape> | undefined): { dims: readonly number[]; label: string } | undefined {
  const table = sourceTable(scope, name, preserving);
  if (table?.dims?.length) return { dims: table.dims.map((d) => longToNumber(d)), label: `table '${table.name ?? ''}'` };
  const shape = shapes?.get(name);
  return shape?.length && shape.every((d) => d > 0) ? { dims: shape, label: `value '${name}'` } : undefined;
}

/** The role an index op's rule gives its indices, or undefined where the sizes are not known. */
function indexRole(node: onnx.INodeProto, rule: IndexOpRule, table: { dims: readonly number[]; label: string }, indicesShape: Shape | undefined): InputRole | undefined {
  const rank = table.dims.length;
  const where = `${node.op_type} '${node.name ?? ''}' ${table.label}`;
  if (rule.tuples) {
    const width = indicesShape?.[indicesShape.length - 1];
    const batchDims = rule.batchDimsAttribute ? (intAttribute(node, rule.batchDimsAttribute) ?? 0) : 0;
    if (!width || batchDims + width > rank) return undefined;
    const components = table.dims.slice(batchDims, batchDims + width);
    return { low: 0, high: Math.min(...components), components, role: 'index', reason: `indexes ${where} of shape [${table.dims.join(', ')}], tuples of ${width} within [${components.join(', ')}]: ${rule.reason}` };
  }
  const axis = rule.axisAttribute ? (((intAttribute(node, rule.axisAttribute) ?? 0) % rank) + rank) % rank : 0;
  const rows = table.dims[axis] as number;
  return { low: 0, high: rows, role: 'index', reason: `indexes ${where} of ${rows} rows: ${rule.reason}` };
}

/**
 * The roles of the model's integer inputs (main graph): table indices bounded by the smallest table,
 * masks {0, 1}; then, for inputs no op bounded, the name rules (a mask or token-type name). `shapes`
 * (static shapes at the inputs' sizes) bound indices into computed tables and give index tuples their width.
 */
export function inputRoles(model: onnx.IModelProto, shapes?: ReadonlyMap<string, Shape>): Map<string, InputRole> {
  const rules = roleRules();
  const preserving = new Set(rules.valuePreserving.ops);
  const scope = new ModelGraph(model).main;
  const indexRules = indexRulesByOp();
  const maskRules = new Map(rules.maskOps.map((r) => [opKey(r.op, r.domain), r]));
  const roles = new Map<string, InputRole>();
  const bound = (input: string, role: InputRole) => {
    const seen = roles.get(input);
    if (!seen || role.high < seen.high) roles.set(input, role);
  };
  const declaredShape = (name: string): Shape | undefined => {
    const dims = requiredInputs(model).find((info) => info.name === name)?.type?.tensor_type?.shape?.dim;
    return dims?.every((d) => d.dim_value) ? dims.map((d) => longToNumber(d.dim_value)) : undefined;
  };
  for (const node of scope.currentNodes()) {
    const key = opKey(node.op_type ?? '', node.domain);
    for (const rule of indexRules.get(key) ?? []) {
      const indices = node.input?.[rule.indices] ?? '';
      const input = sourceInput(scope, indices, preserving);
      const table = input ? tableDims(scope, node.input?.[rule.table] ?? '', preserving, shapes) : undefined;
      const role = input && table ? indexRole(node, rule, table, shapes?.get(indices) ?? declaredShape(indices)) : undefined;
      if (input && role) bound(input, role);
    }
    const mask = maskRules.get(key);
    const maskInput = mask ? sourceInput(scope, node.input?.[mask.input] ?? '', preserving) : undefined;
    if (mask && maskInput) bound(maskInput, { low: 0, high: 2, role: 'mask', reason: `${node.op_type} '${node.name ?? ''}' reads it as a mask: ${mask.reason}` });
  }
  for (const info of requiredInputs(model)) {
    const name = info.name ?? '';
    const elemType = info.type?.tensor_type?.elem_type ?? 0;
    // Names decide only for integer and bool inputs: a float 'segmentation' image is no token type.
    if (roles.has(name) || !(INTEGER_TYPES.has(elemType) || elemType === DataType.BOOL)) continue;
    const named = rules.names.find((r) => new RegExp(r.pattern, 'i').test(name));
    if (named) roles.set(name, { low: named.values[0], high: named.values[1] + 1, role: named.role, reason: `its name says ${named.role}: ${named.reason}` });
  }
  return roles;
}

/** Integer inputs that index a table, with the table's size: the bound of the 'index' role. */
export function gatherIndexInputs(model: onnx.IModelProto): Map<string, number> {
  return new Map([...inputRoles(model)].filter(([, role]) => role.role === 'index').map(([name, role]) => [name, role.high]));
}

export interface RandomInputOptions extends DimDefaults {
  seed?: number;
  dims?: ReadonlyMap<string, number>;
  /** Floats are drawn from [-scale, scale) (uniform) or with standard deviation `scale` (normal). */
  scale?: number;
  distribution?: 'uniform' | 'normal';
}

/**
 * Random inputs that respect the model: integer inputs within their role's bounds (each noted in
 * `notices`), floats at the chosen scale; others as randomInputs makes them.
 */
export function modelAwareRandomInputs(ort: Ort, model: onnx.IModelProto, options: RandomInputOptions = {}): Feeds {
  const feeds = randomInputs(ort, model, options);
  const random = seededRandom(((options.seed ?? 0) * 7919 + 17) >>> 0);
  const scale = options.scale ?? 1;
  const roles = inputRoles(model, indexShapes(model, feeds));
  for (const info of requiredInputs(model)) {
    const name = info.name ?? '';
    const tensor = feeds[name] as Tensor;
    const elemType = info.type?.tensor_type?.elem_type ?? 0;
    const role = roles.get(name);
    if (role && (INTEGER_TYPES.has(elemType) || elemType === DataType.FLOAT || elemType === DataType.BOOL)) {
      const components = role.components;
      const draw = (_: unknown, i: number) => role.low + Math.floor(random() * ((components ? (components[i % components.length] as number) : role.high) - role.low));
      const values = Array.from({ length: tensor.size }, draw);
      feeds[name] = newTensor(ort, tensor.type, typedLike(tensor.type, values), tensor.dims);
      const notice = `input '${name}' drawn from [${role.low}, ${role.high}): ${role.reason}`;
      if (!options.notices?.includes(notice)) options.notices?.push(notice);
    } else if (elemType === DataType.FLOAT && (scale !== 1 || options.distribution === 'normal')) {
      feeds[name] = new ort.Tensor('float32', Float32Array.from({ length: tensor.size }, () => drawFloat(random, options.distribution ?? 'uniform') * scale), tensor.dims);
    }
  }
  setSequenceLengths(ort, model, feeds, options.notices);
  setDriverInputs(ort, model, feeds, random, options.notices);
  return feeds;
}

/** The vocabulary a generation driver's decoder predicts over: its vocab_size, else its decoder's logits width. */
function vocabularyOf(node: onnx.INodeProto): number | undefined {
  const declared = intAttribute(node, 'vocab_size');
  if (declared && declared > 0) return declared;
  const decoder = (node.attribute ?? []).find((a) => a.name === 'decoder')?.g;
  const last = decoder?.output?.[0]?.type?.tensor_type?.shape?.dim?.at(-1)?.dim_value;
  return last ? longToNumber(last) : undefined;
}

/** Generation drivers' inputs set as a caller sets them (rules/input-roles.json driverInputs). */
function setDriverInputs(ort: Ort, model: onnx.IModelProto, feeds: Feeds, random: () => number, notices: string[] | undefined): void {
  const { reason, ops } = roleRules().driverInputs;
  const byOp = new Map(ops.map((rule) => [opKey(rule.op, rule.domain), rule]));
  const note = (text: string) => {
    if (!notices?.includes(text)) notices?.push(text);
  };
  for (const node of model.graph?.node ?? []) {
    const rule = byOp.get(opKey(node.op_type ?? '', node.domain));
    if (!rule) continue;
    const where = `${node.op_type} '${node.name ?? ''}'`;
    const tokens = rule.tokens === undefined ? undefined : node.input?.[rule.tokens];
    const tokenFeed = tokens ? feeds[tokens] : undefined;
    const vocabulary = vocabularyOf(node);
    if (tokens && tokenFeed && vocabulary) {
      feeds[tokens] = newTensor(ort, tokenFeed.type, typedLike(tokenFeed.type, Array.from({ length: tokenFeed.size }, () => Math.floor(random() * vocabulary))), tokenFeed.dims);
      note(`input '${tokens}' drawn from [0, ${vocabulary}): the prompt of ${where}, over its vocabulary: ${reason}`);
    }
    const promptLength = tokenFeed?.dims[tokenFeed.dims.length - 1] ?? 0;
    for (const [position, setting] of Object.entries(rule.settings)) {
      const name = node.input?.[Number(position)];
      const feed = name ? feeds[name] : undefined;
      if (!name || !feed) continue;
      const value = 'value' in setting ? setting.value : promptLength + setting.sequencePlus;
      feeds[name] = newTensor(ort, feed.type, typedLike(feed.type, Array(feed.size).fill(value)), feed.dims);
      note(`input '${name}' set to ${value}: a setting of ${where}`);
    }
  }
}

/**
 * Static shapes at the feeds' sizes, for the index ops whose table is computed or whose indices are
 * tuples; undefined (nothing inferred) for the many models that have none.
 */
function indexShapes(model: onnx.IModelProto, feeds: Feeds): ReadonlyMap<string, Shape> | undefined {
  const indexRules = indexRulesByOp();
  const preserving = new Set(roleRules().valuePreserving.ops);
  const graph = new ModelGraph(model);
  const scope = graph.main;
  const needsShapes = scope.currentNodes().some((node) =>
    (indexRules.get(opKey(node.op_type ?? '', node.domain)) ?? []).some((rule) => rule.tuples || !sourceTable(scope, node.input?.[rule.table] ?? '', preserving)?.dims?.length),
  );
  if (!needsShapes) return undefined;
  return inferShapes(graph, { inputs: feedShapes(model, feeds) });
}

function feedShapes(model: onnx.IModelProto, feeds: Feeds): Map<string, onnx.ValueInfoProto> {
  return new Map(
    requiredInputs(model).flatMap((info) => {
      const feed = feeds[info.name ?? ''];
      return feed ? [[info.name ?? '', valueInfo(info.name ?? '', info.type?.tensor_type?.elem_type ?? 0, [...feed.dims])] as const] : [];
    }),
  );
}

/**
 * Inputs that must agree with the shapes of others (rules/input-roles.json sequenceLengthOps):
 * GroupQueryAttention's total length is the cache length plus the new tokens, whose count static
 * shape inference reads off the query/key/value at the sizes the feeds were made with.
 */
function setSequenceLengths(ort: Ort, model: onnx.IModelProto, feeds: Feeds, notices: string[] | undefined): void {
  const rules = roleRules();
  const keys = new Set(rules.sequenceLengthOps.map((r) => opKey(r.op, r.domain)));
  // Most models have no such op: no graph model is built for them.
  if (!(model.graph?.node ?? []).some((n) => keys.has(opKey(n.op_type ?? '', n.domain)))) return;
  const preserving = new Set(rules.valuePreserving.ops);
  const graph = new ModelGraph(model);
  const scope = graph.main;
  let shapes: ReadonlyMap<string, readonly number[]> | undefined;
  for (const node of scope.currentNodes()) {
    const rule = rules.sequenceLengthOps.find((r) => opKey(r.op, r.domain) === opKey(node.op_type ?? '', node.domain));
    if (!rule) continue;
    const seqlens = sourceInput(scope, node.input?.[rule.seqlensK] ?? '', preserving);
    const total = sourceInput(scope, node.input?.[rule.totalSequenceLength] ?? '', preserving);
    if (!(seqlens && feeds[seqlens]) && !(total && feeds[total])) continue;
    const pastInput = sourceInput(scope, node.input?.[rule.past] ?? '', preserving);
    const past = pastInput ? (feeds[pastInput]?.dims[2] ?? 0) : 0;
    shapes ??= inferShapes(graph, { inputs: feedShapes(model, feeds) });
    const fresh = rule.newFrom.map((i) => shapes?.get(node.input?.[i] ?? '')?.[1]).find((n) => n !== undefined);
    if (fresh === undefined) continue;
    const length = past + fresh;
    for (const [name, value] of [[seqlens, length - 1], [total, length]] as const) {
      const feed = name ? feeds[name] : undefined;
      if (!name || !feed) continue;
      feeds[name] = newTensor(ort, feed.type, typedLike(feed.type, Array(feed.size).fill(value)), feed.dims);
      const notice = `input '${name}' set to ${value} (cache length ${past} + ${fresh} new): ${rule.reason}`;
      if (!notices?.includes(notice)) notices?.push(notice);
    }
  }
}

function typedLike(type: Tensor.Type, values: number[]): ArrayBufferView {
  switch (type) {
    case 'int64': return BigInt64Array.from(values, (v) => BigInt(v));
    case 'uint64': return BigUint64Array.from(values, (v) => BigInt(v));
    case 'int32': return Int32Array.from(values);
    case 'uint32': return Uint32Array.from(values);
    case 'int16': return Int16Array.from(values);
    case 'uint16': return Uint16Array.from(values);
    case 'int8': return Int8Array.from(values);
    case 'float32': return Float32Array.from(values);
    default: return Uint8Array.from(values);
  }
}

function drawFloat(random: () => number, distribution: 'uniform' | 'normal'): number {
  if (distribution === 'uniform') return random() * 2 - 1;
  return Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random());
}
