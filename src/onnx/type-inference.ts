/**
 * Element-type inference for every tensor value of a model. Types flow from graph inputs and
 * initializers through the operator schemas (an output bound to the same type variable as an
 * input has its type; a concrete output type is that type), through the attribute-typed ops of
 * rules/dtype-attributes.json, and out of If/Loop/Scan bodies. Declared types (value_info,
 * graph outputs) fill in what the rules cannot tell; each result records where it came from.
 */
import { readFileSync } from 'node:fs';
import { dtypeAttribute, findAttribute } from './attributes.js';
import { DataType, dataTypeCode } from './data-types.js';
import type { onnx } from './generated/onnx.js';
import type { GraphScope, ModelGraph } from './graph.js';
import { normalizeDomain, type OpsetMap } from './opsets.js';
import { schemaFor, typeVariableOfInput, typeVariableOfOutput, typesOf, type OpSchema } from './schema.js';

export type TypeSource = 'declared' | 'initializer' | 'attribute' | 'schema' | 'subgraph';

export interface InferredType {
  elemType: number;
  source: TypeSource;
}

interface DtypeRule {
  /** Outputs the rule types; output 0 when absent. */
  outputs?: number[];
  attribute?: string;
  tensorAttribute?: string;
  otherwise?: { input: number } | { type: string };
  reason: string;
}

let dtypeRules: Map<string, DtypeRule> | undefined;

export function attributeTypedOps(): ReadonlyMap<string, DtypeRule> {
  if (!dtypeRules) {
    const table = JSON.parse(readFileSync(new URL('../../rules/dtype-attributes.json', import.meta.url), 'utf8')) as {
      ops: Record<string, DtypeRule>;
    };
    dtypeRules = new Map(Object.entries(table.ops));
  }
  return dtypeRules;
}

/** A type string such as `tensor(float16)` to its element type; undefined for non-tensors. */
export function elemTypeOfTypeString(typeString: string): number | undefined {
  const match = /^tensor\((\w+)\)$/.exec(typeString);
  return match ? dataTypeCode(match[1] as string) : undefined;
}

/** Body output that carries each control-flow output: Loop's body output 0 is the condition. */
const SUBGRAPH_OUTPUT_OFFSET: Readonly<Record<string, number>> = { If: 0, Loop: 1, Scan: 0 };

/**
 * One shared object per (element type, source): a big graph's inference made two objects per
 * value (one per inference), all of which outlived the young generation. Read-only by contract.
 */
const internedTypes = new Map<number, InferredType>();
const SOURCE_CODES: Readonly<Record<TypeSource, number>> = { declared: 0, initializer: 1, attribute: 2, schema: 3, subgraph: 4 };

function interned(type: InferredType): InferredType {
  const key = type.elemType * 8 + (SOURCE_CODES[type.source] ?? 7);
  const known = internedTypes.get(key);
  if (known && known.source === type.source) return known;
  const shared = { elemType: type.elemType, source: type.source };
  internedTypes.set(key, shared);
  return shared;
}

export class ElemTypes {
  private readonly byScope = new Map<GraphScope, Map<string, InferredType>>();
  /** The map of the scope read last: nearly every read is in the scope of the read before. */
  private lastScope: GraphScope | undefined;
  private lastMap: Map<string, InferredType> | undefined;

  private mapOf(scope: GraphScope): Map<string, InferredType> | undefined {
    if (scope !== this.lastScope) {
      this.lastScope = scope;
      this.lastMap = this.byScope.get(scope);
    }
    return this.lastMap;
  }

  /** The type of a value as seen from `scope` (resolved to the scope that defines it). */
  info(scope: GraphScope, name: string): InferredType | undefined {
    // The scope that defines a name owns its type; most reads are local, so look there first.
    for (let s: GraphScope | undefined = scope; s; s = s.parent) {
      const found = this.mapOf(s)?.get(name);
      if (found) return found;
      if (!s.parent || s.definesLocally(name)) return undefined;
    }
    return undefined;
  }

  get(scope: GraphScope, name: string): number | undefined {
    return this.info(scope, name)?.elemType;
  }

  set(scope: GraphScope, name: string, type: InferredType): void {
    let map = this.byScope.get(scope);
    if (!map) {
      this.byScope.set(scope, (map = new Map()));
      if (scope === this.lastScope) this.lastMap = map;
    }
    map.set(name, interned(type));
  }

  /** Every value with a known type in one scope. */
  entries(scope: GraphScope): IterableIterator<[string, InferredType]> {
    return (this.byScope.get(scope) ?? new Map<string, InferredType>()).entries();
  }
}

export function schemaOf(node: onnx.INodeProto, opsets: OpsetMap): OpSchema | undefined {
  const domain = normalizeDomain(node.domain);
  const version = opsets.get(domain);
  return version === undefined ? undefined : schemaFor(domain, node.op_type ?? '', version);
}

export function inferElemTypes(graph: ModelGraph, opsets: OpsetMap): ElemTypes {
  const types = new ElemTypes();
  inferScope(graph.main, types, opsets);
  return types;
}

function declaredType(info: onnx.IValueInfoProto | undefined): number | undefined {
  const elemType = info?.type?.tensor_type?.elem_type;
  return elemType ? elemType : undefined;
}

function inferScope(scope: GraphScope, types: ElemTypes, opsets: OpsetMap, bodyInputTypes: Array<number | undefined> = []): void {
  [...scope.inputs.values()].forEach((info, index) => {
    const declared = declaredType(info);
    const fromOwner = bodyInputTypes[index];
    if (declared !== undefined) types.set(scope, info.name ?? '', { elemType: declared, source: 'declared' });
    else if (fromOwner !== undefined) types.set(scope, info.name ?? '', { elemType: fromOwner, source: 'subgraph' });
  });
  for (const [name, tensor] of scope.initializers) {
    if (!scope.inputs.has(name) && tensor.data_type) types.set(scope, name, { elemType: tensor.data_type, source: 'initializer' });
  }
  const { order, blocked } = scope.topologicalOrder();
  for (const node of [...order, ...blocked]) {
    const inputTypes = (node.input ?? []).map((name) => (name ? types.get(scope, name) : undefined));
    const subgraphs = scope.subgraphsOf(node);
    for (const child of subgraphs) inferScope(child, types, opsets, bodyInputs(node, child, inputTypes));
    const schema = schemaOf(node, opsets);
    (node.output ?? []).forEach((name, index) => {
      if (!name) return;
      const found = inferOutputType(node, index, inputTypes, schema) ?? typeFromSubgraphs(node, index, subgraphs, types);
      if (found) types.set(scope, name, found);
      else {
        const declared = scope.declaredElemType(name);
        if (declared !== undefined) types.set(scope, name, { elemType: declared, source: 'declared' });
      }
    });
  }
}

/**
 * The element type of output `index` of a node whose inputs have `inputTypes`, from its
 * attributes or its schema. The AMP pass asks this with the types a conversion would give the
 * inputs, so it predicts exactly what validation will later infer.
 */
export function inferOutputType(
  node: onnx.INodeProto,
  index: number,
  inputTypes: Array<number | undefined>,
  schema: OpSchema | undefined,
): InferredType | undefined {
  return typeFromAttributes(node, index, inputTypes) ?? typeFromSchema(schema, index, inputTypes);
}

/** Types of a body's inputs as the owning node feeds them (Loop: trip count, condition, carried values). */
function bodyInputs(node: onnx.INodeProto, child: GraphScope, inputTypes: Array<number | undefined>): Array<number | undefined> {
  if (child.owner?.op_type === 'Loop') return [DataType.INT64, DataType.BOOL, ...inputTypes.slice(2)];
  if (child.owner?.op_type === 'Scan') return inputTypes;
  void node;
  return [];
}

function typeFromAttributes(node: onnx.INodeProto, outputIndex: number, inputTypes: Array<number | undefined>): InferredType | undefined {
  if (normalizeDomain(node.domain) !== '') return undefined;
  if (node.op_type === 'Constant') return outputIndex === 0 ? constantType(node) : undefined;
  const rule = attributeTypedOps().get(node.op_type ?? '');
  if (!rule || !(rule.outputs ?? [0]).includes(outputIndex)) return undefined;
  if (rule.attribute) {
    const elemType = dtypeAttribute(node, rule.attribute);
    if (elemType !== undefined) return { elemType, source: 'attribute' };
  }
  if (rule.tensorAttribute) {
    const tensor = findAttribute(node, rule.tensorAttribute)?.t;
    if (tensor?.data_type) return { elemType: tensor.data_type, source: 'attribute' };
  }
  const otherwise = rule.otherwise;
  if (!otherwise) return undefined;
  if ('input' in otherwise) {
    const elemType = inputTypes[otherwise.input];
    return elemType === undefined ? undefined : { elemType, source: 'schema' };
  }
  const elemType = dataTypeCode(otherwise.type);
  return elemType === undefined ? undefined : { elemType, source: 'attribute' };
}

/** Constant's value attribute: a tensor, a sparse tensor, or a float/int/string scalar or list. */
function constantType(node: onnx.INodeProto): InferredType | undefined {
  const byAttribute: Record<string, number> = {
    value_float: DataType.FLOAT,
    value_floats: DataType.FLOAT,
    value_int: DataType.INT64,
    value_ints: DataType.INT64,
    value_string: DataType.STRING,
    value_strings: DataType.STRING,
  };
  for (const attribute of node.attribute ?? []) {
    const name = attribute.name ?? '';
    if (name === 'value' && attribute.t?.data_type) return { elemType: attribute.t.data_type, source: 'attribute' };
    if (name === 'sparse_value' && attribute.sparse_tensor?.values?.data_type) {
      return { elemType: attribute.sparse_tensor.values.data_type, source: 'attribute' };
    }
    const elemType = byAttribute[name];
    if (elemType !== undefined) return { elemType, source: 'attribute' };
  }
  return undefined;
}

function typeFromSchema(schema: OpSchema | undefined, outputIndex: number, inputTypes: Array<number | undefined>): InferredType | undefined {
  if (!schema) return undefined;
  const formal = typeVariableOfOutput(schema, outputIndex);
  if (!formal || formal.heterogeneous) return undefined;
  if (!(formal.typeStr in schema.typeConstraints)) {
    const elemType = elemTypeOfTypeString(formal.typeStr);
    return elemType === undefined ? undefined : { elemType, source: 'schema' };
  }
  for (let i = 0; i < inputTypes.length; i++) {
    const input = typeVariableOfInput(schema, i);
    const elemType = inputTypes[i];
    if (input && !input.heterogeneous && input.typeStr === formal.typeStr && elemType !== undefined) return { elemType, source: 'schema' };
  }
  const allowed = typesOf(schema, formal);
  if (allowed.length === 1) {
    const elemType = elemTypeOfTypeString(allowed[0] as string);
    if (elemType !== undefined) return { elemType, source: 'schema' };
  }
  return undefined;
}

function typeFromSubgraphs(node: onnx.INodeProto, outputIndex: number, subgraphs: readonly GraphScope[], types: ElemTypes): InferredType | undefined {
  const offset = SUBGRAPH_OUTPUT_OFFSET[node.op_type ?? ''];
  if (offset === undefined) return undefined;
  for (const child of subgraphs) {
    const output = child.graph.output?.[outputIndex + offset];
    const elemType = output?.name ? types.get(child, output.name) ?? declaredType(output) : undefined;
    if (elemType !== undefined) return { elemType, source: 'subgraph' };
  }
  return undefined;
}
