/**
 * What a model does with each integer input, and random inputs that respect it: an input that
 * ends up as the indices of a Gather (or an embedding op) over a table is drawn over the whole table,
 * a mask is 0 or 1, a token type stays within its table. The rules are data (rules/input-roles.json);
 * run, compare, bench, --calibrate and tune all draw their random inputs here.
 */
import { readFileSync } from 'node:fs';
import type { Tensor } from 'onnxruntime-node';
import { seededRandom } from '../builder/graph-builder.js';
import { intAttribute } from '../onnx/attributes.js';
import { DataType } from '../onnx/data-types.js';
import { longToNumber } from '../onnx/external-data.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph, type GraphScope } from '../onnx/graph.js';
import { randomInputs, requiredInputs, type DimDefaults, type Feeds } from './inputs.js';
import type { Ort } from './ort.js';
import { newTensor } from './float16-bits.js';

interface IndexOpRule {
  op: string;
  domain?: string;
  indices: number;
  table: number;
  axisAttribute?: string;
  reason: string;
}

interface InputRoleRules {
  valuePreserving: { ops: string[]; reason: string };
  indexOps: IndexOpRule[];
  maskOps: Array<{ op: string; domain?: string; input: number; reason: string }>;
  names: Array<{ pattern: string; values: [number, number]; role: string; reason: string }>;
}

let rules: InputRoleRules | undefined;
function roleRules(): InputRoleRules {
  rules ??= JSON.parse(readFileSync(new URL('../../rules/input-roles.json', import.meta.url), 'utf8')) as InputRoleRules;
  return rules;
}

/** An integer input's values are drawn from [low, high): why, in words. */
export interface InputRole {
  low: number;
  high: number;
  role: string;
  reason: string;
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

/**
 * The roles of the model's integer inputs (main graph): table indices bounded by the smallest table,
 * masks {0, 1}; then, for inputs no op bounded, the name rules (a mask or token-type name).
 */
export function inputRoles(model: onnx.IModelProto): Map<string, InputRole> {
  const rules = roleRules();
  const preserving = new Set(rules.valuePreserving.ops);
  const scope = new ModelGraph(model).main;
  const indexRules = new Map<string, IndexOpRule[]>();
  for (const rule of rules.indexOps) indexRules.set(opKey(rule.op, rule.domain), [...(indexRules.get(opKey(rule.op, rule.domain)) ?? []), rule]);
  const maskRules = new Map(rules.maskOps.map((r) => [opKey(r.op, r.domain), r]));
  const roles = new Map<string, InputRole>();
  const bound = (input: string, role: InputRole) => {
    const seen = roles.get(input);
    if (!seen || role.high < seen.high) roles.set(input, role);
  };
  for (const node of scope.currentNodes()) {
    const key = opKey(node.op_type ?? '', node.domain);
    for (const rule of indexRules.get(key) ?? []) {
      const input = sourceInput(scope, node.input?.[rule.indices] ?? '', preserving);
      const table = sourceTable(scope, node.input?.[rule.table] ?? '', preserving);
      if (!input || !table?.dims?.length) continue;
      const rank = table.dims.length;
      const axis = rule.axisAttribute ? (((intAttribute(node, rule.axisAttribute) ?? 0) % rank) + rank) % rank : 0;
      const rows = longToNumber(table.dims[axis] as number);
      bound(input, { low: 0, high: rows, role: 'index', reason: `indexes ${node.op_type} '${node.name ?? ''}' table '${table.name ?? ''}' of ${rows} rows: ${rule.reason}` });
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
  const roles = inputRoles(model);
  for (const info of requiredInputs(model)) {
    const name = info.name ?? '';
    const tensor = feeds[name] as Tensor;
    const elemType = info.type?.tensor_type?.elem_type ?? 0;
    const role = roles.get(name);
    if (role && (INTEGER_TYPES.has(elemType) || elemType === DataType.FLOAT || elemType === DataType.BOOL)) {
      const draw = () => role.low + Math.floor(random() * (role.high - role.low));
      const values = Array.from({ length: tensor.size }, draw);
      feeds[name] = newTensor(ort, tensor.type, typedLike(tensor.type, values), tensor.dims);
      const notice = `input '${name}' drawn from [${role.low}, ${role.high}): ${role.reason}`;
      if (!options.notices?.includes(notice)) options.notices?.push(notice);
    } else if (elemType === DataType.FLOAT && (scale !== 1 || options.distribution === 'normal')) {
      feeds[name] = new ort.Tensor('float32', Float32Array.from({ length: tensor.size }, () => drawFloat(random, options.distribution ?? 'uniform') * scale), tensor.dims);
    }
  }
  return feeds;
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
