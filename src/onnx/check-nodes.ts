/**
 * The checker's node-level rules, from the operator schemas this tool holds (rules/schemas*.json):
 * an attribute given twice, an attribute whose type is not its schema's (`Transpose.perm` as
 * FLOATS, `If.then_branch` as INT), a required attribute missing (`Cast` without `to`), an
 * attribute the schema does not have, and an empty name for an input or output the schema
 * marks single (an empty name is how ONNX leaves out an *optional* one, which stays allowed).
 *
 * Checked only where the schema is ONNX's own (ai.onnx, ai.onnx.ml and the preview domains): the
 * com.microsoft tables are read from ONNX Runtime's documentation, which is not exact about
 * attributes, and ONNX Runtime's own default-domain registrations (SimplifiedLayerNormalization,
 * the old ImageScaler) are not ONNX's. An op version the tables do not have is not checked here.
 */
import { AmpError } from './errors.js';
import type { onnx } from './generated/onnx.js';
import { printable } from './printable.js';
import { effectiveOpsetVersion, schemaFor, type OpSchema } from './schema.js';
import { ruleFile } from '../rules/rule-files.js';

/** AttributeProto.AttributeType by the schema tables' type names. */
const ATTRIBUTE_TYPES: Readonly<Record<string, number>> = {
  float: 1,
  int: 2,
  string: 3,
  tensor: 4,
  graph: 5,
  'list of floats': 6,
  'list of ints': 7,
  'list of strings': 8,
  'list of tensors': 9,
  'list of graphs': 10,
  sparse_tensor: 11,
  'list of sparse_tensors': 12,
  type_proto: 13,
  'list of type_protos': 14,
};

const TYPE_NAMES = ['UNDEFINED', 'FLOAT', 'INT', 'STRING', 'TENSOR', 'GRAPH', 'FLOATS', 'INTS', 'STRINGS', 'TENSORS', 'GRAPHS', 'SPARSE_TENSOR', 'SPARSE_TENSORS', 'TYPE_PROTO', 'TYPE_PROTOS'];

/** Attribute types that hold one value (FLOAT, INT, STRING, TENSOR, GRAPH, SPARSE_TENSOR, TYPE_PROTO), not a list. */
const SINGLE_VALUE_TYPES: ReadonlySet<number> = new Set([1, 2, 3, 4, 5, 11, 13]);

/** The field each type keeps its value in (a scalar counts when the file set it: an own property once decoded). */
const VALUE_FIELDS: ReadonlyArray<readonly [type: number, field: keyof onnx.IAttributeProto]> = [
  [1, 'f'],
  [2, 'i'],
  [3, 's'],
  [4, 't'],
  [5, 'g'],
  [6, 'floats'],
  [7, 'ints'],
  [8, 'strings'],
  [9, 'tensors'],
  [10, 'graphs'],
  [11, 'sparse_tensor'],
  [12, 'sparse_tensors'],
  [13, 'tp'],
  [14, 'type_protos'],
];

const CHECKED_DOMAINS: ReadonlySet<string> = new Set(['', 'ai.onnx.ml', 'ai.onnx.preview', 'ai.onnx.preview.training']);

let ortDefaultDomainOps: ReadonlyMap<string, readonly OpSchema[]> | undefined;
/** ONNX Runtime's registrations in the default domain (LayerNormalization below opset 17...), by op: their schemas are ORT's. */
function ortOwnOps(): ReadonlyMap<string, readonly OpSchema[]> {
  ortDefaultDomainOps ??= new Map(
    Object.entries(ruleFile<{ domains: Record<string, Record<string, OpSchema[]>> }>('schemas-ort-default-domain.json').domains['ai.onnx'] ?? {}),
  );
  return ortDefaultDomainOps;
}

/**
 * The schema a default-domain node is checked against: ONNX's at the model's opset, else, for an op
 * ONNX Runtime registers there itself (its LayerNormalization before ONNX's of opset 17), ONNX
 * Runtime's: a LayerNormalization with one input is refused at every opset, as both refuse it.
 */
function defaultDomainSchema(opType: string, version: number): OpSchema | undefined {
  const onnxSchema = schemaFor('', opType, version);
  if (onnxSchema) return onnxSchema;
  const own = ortOwnOps().get(opType);
  if (!own) return undefined;
  for (let i = own.length - 1; i >= 0; i--) if ((own[i] as OpSchema).since <= version) return own[i];
  return undefined;
}

function fieldSet(attribute: onnx.IAttributeProto, field: keyof onnx.IAttributeProto): boolean {
  const value = attribute[field];
  if (value == null) return false;
  return Array.isArray(value) ? value.length > 0 : Object.hasOwn(attribute, field);
}

/**
 * An attribute's own consistency, as ONNX's checker reads it whatever the op: a type (IR 2 and
 * later), at most one value field, and that field the type's.
 */
function attributeProblem(attribute: onnx.IAttributeProto, irVersion: number): string | undefined {
  // ONNX's checker: "Field 'name' of 'attr' is required to be non-empty".
  if (!attribute.name) return 'an attribute has an empty name';
  if (attribute.ref_attr_name) return undefined;
  const type = Number(attribute.type ?? 0);
  if (!type && irVersion >= 2) return `attribute '${printable(attribute.name)}' has no type`;
  // A loop, no array: a big graph has hundreds of thousands of attributes.
  let held: (typeof VALUE_FIELDS)[number] | undefined;
  for (const entry of VALUE_FIELDS) {
    if (!fieldSet(attribute, entry[1])) continue;
    if (held) return `attribute '${printable(attribute.name)}' holds values in '${held[1]}' and '${entry[1]}'; an attribute has one`;
    held = entry;
  }
  if (held && type && held[0] !== type) return `attribute '${printable(attribute.name)}' is ${TYPE_NAMES[type] ?? `type ${type}`} but holds a value in '${held[1]}'`;
  // A single value must be there (ONNX's checker: "Attribute 'value' is expected to have field 't'"); a list may be empty.
  if (!held && SINGLE_VALUE_TYPES.has(type)) return `attribute '${printable(attribute.name)}' is ${TYPE_NAMES[type]} and holds no value (its field '${VALUE_FIELDS.find(([t]) => t === type)?.[1]}' is not set)`;
  return undefined;
}

/** The schemas of one model's nodes, looked up once per op: a big graph has few op types. */
export class NodeRules {
  private readonly schemas = new Map<string, OpSchema | null>();

  constructor(
    private readonly opsets: ReadonlyMap<string, number>,
    private readonly irVersion: number,
  ) {}

  private schemaOf(domain: string, opType: string): OpSchema | undefined {
    const key = `${domain}\u0000${opType}`;
    let schema = this.schemas.get(key);
    if (schema === undefined) {
      const version = this.opsets.get(domain);
      const checked = CHECKED_DOMAINS.has(domain) && version !== undefined;
      schema = (checked ? (domain === '' ? defaultDomainSchema(opType, version) : schemaFor(domain, opType, version)) : undefined) ?? null;
      this.schemas.set(key, schema);
    }
    return schema ?? undefined;
  }

  /**
   * ONNX Runtime's contrib ops (com.microsoft): their input and output counts, from ONNX Runtime's
   * own schemas (rules/schemas-com.microsoft.json), as ONNX Runtime checks them when it loads the
   * model. Their attributes are left to ONNX Runtime: its schemas mark some as optional that
   * exporters omit, and an unknown one is ignored there.
   */
  private checkContribArity(node: onnx.INodeProto, fail: (problem: string) => AmpError): void {
    const version = effectiveOpsetVersion(this.opsets, 'com.microsoft');
    const schema = version === undefined ? undefined : schemaFor('com.microsoft', node.op_type ?? '', version);
    if (!schema) return;
    const inputs = node.input?.length ?? 0;
    const outputs = node.output?.length ?? 0;
    if (inputs < schema.minInputs || inputs > schema.maxInputs) throw fail(`${inputs} inputs, and com.microsoft ${printable(node.op_type)}-${schema.since} takes ${range(schema.minInputs, schema.maxInputs)}`);
    if (outputs < schema.minOutputs || outputs > schema.maxOutputs) throw fail(`${outputs} outputs, and com.microsoft ${printable(node.op_type)}-${schema.since} has ${range(schema.minOutputs, schema.maxOutputs)}`);
  }

  /** Throws INVALID_MODEL naming the node and attribute for the first rule `node` breaks. */
  check(node: onnx.INodeProto, where: string): void {
    const attributes = node.attribute ?? [];
    const domain = !node.domain || node.domain === 'ai.onnx' ? '' : node.domain;
    const label = (): string => `${where}: ${printable(node.op_type)} node '${printable(node.name || node.output?.[0] || '?')}'`;
    const fail = (problem: string): AmpError => new AmpError('INVALID_MODEL', `${label()}: ${problem}`, { subject: node.name ?? '' });
    for (let a = 1; a < attributes.length; a++) {
      const name = (attributes[a] as onnx.IAttributeProto).name;
      for (let b = 0; b < a; b++) if ((attributes[b] as onnx.IAttributeProto).name === name) throw fail(`attribute '${printable(name)}' is given twice`);
    }
    for (const attribute of attributes) {
      const problem = attributeProblem(attribute, this.irVersion);
      if (problem) throw fail(problem);
    }
    const schema = this.schemaOf(domain, node.op_type ?? '');
    if (!schema) {
      if (domain === 'com.microsoft') this.checkContribArity(node, fail);
      return;
    }
    for (const attribute of attributes) {
      if (attribute.ref_attr_name) continue;
      const spec = schema.attributes.find((s) => s.name === attribute.name);
      if (!spec) throw fail(`attribute '${printable(attribute.name)}' is not an attribute of ${printable(node.op_type)}-${schema.since} (it has ${schema.attributes.map((s) => s.name).join(', ') || 'none'})`);
      const expected = ATTRIBUTE_TYPES[spec.type];
      const type = Number(attribute.type ?? 0);
      if (expected !== undefined && type !== 0 && type !== expected) {
        throw fail(`attribute '${printable(attribute.name)}' is ${TYPE_NAMES[type] ?? `type ${type}`}, and ${printable(node.op_type)} takes ${spec.type} (${TYPE_NAMES[expected]})`);
      }
    }
    for (const spec of schema.attributes) {
      if (spec.required && !attributes.some((a) => a.name === spec.name)) throw fail(`required attribute '${spec.name}' is missing`);
    }
    const inputs = node.input?.length ?? 0;
    const outputs = node.output?.length ?? 0;
    if (inputs < schema.minInputs || inputs > schema.maxInputs) throw fail(`${inputs} inputs, and ${printable(node.op_type)}-${schema.since} takes ${range(schema.minInputs, schema.maxInputs)}`);
    if (outputs < schema.minOutputs || outputs > schema.maxOutputs) throw fail(`${outputs} outputs, and ${printable(node.op_type)}-${schema.since} has ${range(schema.minOutputs, schema.maxOutputs)}`);
    checkEmptyNames(node.input ?? [], schema.inputs, 'input', fail);
    checkEmptyNames(node.output ?? [], schema.outputs, 'output', fail);
  }
}

function range(min: number, max: number): string {
  return max === Infinity ? `${min} or more` : min === max ? `${min}` : `${min} to ${max}`;
}

/** An empty name leaves out an optional input or output; a single one must be named. */
function checkEmptyNames(names: readonly string[], formals: OpSchema['inputs'], kind: string, fail: (problem: string) => AmpError): void {
  for (let i = 0; i < names.length && i < formals.length; i++) {
    const formal = formals[i] as OpSchema['inputs'][number];
    if (!names[i] && formal.option === 'single') throw fail(`${kind} ${i} ('${formal.name}') is required, and its name is empty`);
  }
}
