/**
 * Element-type inference for every tensor value of a model. Types flow from graph inputs and
 * initializers through the operator schemas (an output bound to the same type variable as an
 * input has its type; a concrete output type is that type), through the attribute-typed ops of
 * rules/dtype-attributes.json, and out of If/Loop/Scan bodies. Declared types (value_info,
 * graph outputs) fill in what the rules cannot tell; each result records where it came from.
 */
import { dtypeAttribute, findAttribute } from './attributes.js';
import { DataType, dataTypeCode } from './data-types.js';
import type { onnx } from './generated/onnx.js';
import { slotCountOf, type GraphScope, type ModelGraph } from './graph.js';
import { normalizeDomain, type OpsetMap } from './opsets.js';
import { elemTypeOfTypeString } from './type-strings.js';
import { nodeTypesWithinSchema } from './type-constraints.js';
import { effectiveOpsetVersion, schemaFor, typeVariableOfInput, typeVariableOfOutput, typesOf, type OpSchema } from './schema.js';
import { ruleFile } from '../rules/rule-files.js';

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
    const table = ruleFile<{ ops: Record<string, DtypeRule> }>('dtype-attributes.json');
    dtypeRules = new Map(Object.entries(table.ops));
  }
  return dtypeRules;
}

export { elemTypeOfTypeString };

/** Body output that carries each control-flow output: Loop's body output 0 is the condition. */
const SUBGRAPH_OUTPUT_OFFSET: Readonly<Record<string, number>> = { If: 0, Loop: 1, Scan: 0 };

/**
 * One shared object per (element type, source): a big graph's inference made two objects per
 * value (one per inference), all of which outlived the young generation. Read-only by contract.
 * A plain array indexed by elemType * 8 + source: the lookup is done for every value.
 */
const internedTypes: Array<InferredType | undefined> = [];
/** Keys below this are shared (and stored by ElemTypes as key + 1 in 16 bits). */
const INTERNED_KEYS = 4096;

/** The source's code in an interned type's key; 7 for a string that is no TypeSource (an API user's). */
function sourceCode(source: TypeSource): number {
  switch (source) {
    case 'declared':
      return 0;
    case 'initializer':
      return 1;
    case 'attribute':
      return 2;
    case 'schema':
      return 3;
    case 'subgraph':
      return 4;
    default:
      return 7;
  }
}

function internedType(elemType: number, source: TypeSource): InferredType {
  const key = elemType * 8 + sourceCode(source);
  const known = internedTypes[key];
  if (known !== undefined && known.source === source && known.elemType === elemType) return known;
  const shared = { elemType, source };
  // Element types are small codes; anything else (a corrupt file's value) is shared no further.
  if (key >= 0 && key < INTERNED_KEYS && Number.isInteger(key)) internedTypes[key] = shared;
  return shared;
}

/** A code of 0 in a scope's table: no type known. */
const NO_TYPE = 0;
/** A type that is not shared (see internedType): kept in the scope's `unshared` map. */
const UNSHARED_TYPE = 0xffff;

/**
 * The types of one scope's values: a 16-bit code per value id of the scope's index (the interned
 * type's key + 1), and the ids in the order they were first typed (entries() answers in it). Two
 * bytes per value (plus four for the order) where a Map entry took 28 and its table grew by doubling.
 */
class ScopeTypes {
  codes = new Uint16Array(64);
  order = new Int32Array(64);
  count = 0;
  unshared: Map<number, InferredType> | undefined;
}

export class ElemTypes {
  private readonly byScope = new Map<GraphScope, ScopeTypes>();
  /** The table of the scope read last: nearly every read is in the scope of the read before. */
  private lastScope: GraphScope | undefined;
  private lastTable: ScopeTypes | undefined;

  private tableOf(scope: GraphScope): ScopeTypes | undefined {
    if (scope !== this.lastScope) {
      this.lastScope = scope;
      this.lastTable = this.byScope.get(scope);
    }
    return this.lastTable;
  }

  /** The type a scope itself holds for a value (no enclosing scope looked at). */
  private localInfo(scope: GraphScope, name: string): InferredType | undefined {
    return this.localInfoById(scope, scope.valueIdOf(name));
  }

  private localInfoById(scope: GraphScope, id: number): InferredType | undefined {
    const table = this.tableOf(scope);
    if (table === undefined) return undefined;
    if (id < 0 || id >= table.codes.length) return undefined;
    const code = table.codes[id] as number;
    if (code === NO_TYPE) return undefined;
    return code === UNSHARED_TYPE ? table.unshared?.get(id) : internedTypes[code - 1];
  }

  /** The type of a value as seen from `scope` (resolved to the scope that defines it). */
  info(scope: GraphScope, name: string): InferredType | undefined {
    // The scope that defines a name owns its type; most reads are local (and most scopes are the
    // main graph, which has no parent), so one lookup answers nearly every call.
    const found = this.localInfo(scope, name);
    if (found !== undefined || scope.parent === undefined) return found;
    return this.outerInfo(scope, name);
  }

  /**
   * info(scope, name) for a caller that has the name's id in the scope's index already
   * (GraphScope.hintedValueId()), saving the lookup of the name where the scope types it.
   */
  infoById(scope: GraphScope, id: number, name: string): InferredType | undefined {
    const found = this.localInfoById(scope, id);
    if (found !== undefined || scope.parent === undefined) return found;
    return this.outerInfo(scope, name);
  }

  /** info() for a name that `scope` itself has no type for. */
  private outerInfo(scope: GraphScope, name: string): InferredType | undefined {
    for (let s: GraphScope | undefined = scope; s; s = s.parent) {
      if (s !== scope) {
        const outer = this.localInfo(s, name);
        if (outer) return outer;
      }
      if (!s.parent || s.definesLocally(name)) return undefined;
    }
    return undefined;
  }

  get(scope: GraphScope, name: string): number | undefined {
    return this.info(scope, name)?.elemType;
  }

  set(scope: GraphScope, name: string, type: InferredType): void {
    this.setById(scope, scope.internValueId(name), type);
  }

  /** set() for a caller that has the value's id in the scope's index (GraphScope.hintedInternValueId()). */
  setById(scope: GraphScope, id: number, type: InferredType): void {
    let table = this.tableOf(scope);
    if (!table) {
      this.byScope.set(scope, (table = new ScopeTypes()));
      this.lastTable = table;
    }
    let codes = table.codes;
    if (id >= codes.length) {
      codes = new Uint16Array(Math.max(codes.length * 2, id + 1));
      codes.set(table.codes);
      table.codes = codes;
    }
    const { elemType, source } = type;
    const key = elemType * 8 + sourceCode(source);
    const known = internedTypes[key];
    let code: number;
    if (known !== undefined && known.elemType === elemType && known.source === source) code = key + 1;
    else {
      const shared = internedType(elemType, source);
      code = internedTypes[key] === shared ? key + 1 : UNSHARED_TYPE;
      if (code === UNSHARED_TYPE) (table.unshared ??= new Map()).set(id, shared);
    }
    if (codes[id] === NO_TYPE) {
      let order = table.order;
      if (table.count >= order.length) {
        order = new Int32Array(order.length * 2);
        order.set(table.order);
        table.order = order;
      }
      order[table.count++] = id;
    }
    codes[id] = code;
  }

  /** Every value with a known type in one scope, in the order they were first typed. */
  *entries(scope: GraphScope): IterableIterator<[string, InferredType]> {
    const table = this.byScope.get(scope);
    if (!table) return;
    const names: string[] = [];
    for (const [name, id] of scope.valueIds()) names[id] = name;
    for (let i = 0; i < table.count; i++) {
      const id = table.order[i] as number;
      const code = table.codes[id] as number;
      const type = code === UNSHARED_TYPE ? table.unshared?.get(id) : internedTypes[code - 1];
      yield [names[id] as string, type as InferredType];
    }
  }

  /**
   * Per scope, the node order the inference went through when it found every node within its
   * schema's type constraints (checkNodeTypeConstraints) as it typed it; null when some node was
   * not. Each node had its inputs' final types when it was
   * checked only if its scope and the enclosing ones were in order with one definition per name:
   * the validator trusts this only then (GraphScope.orderedReads()).
   */
  private readonly checkedOrders = new Map<GraphScope, readonly onnx.INodeProto[] | null>();
  private checkedOpsets: OpsetMap | undefined;

  /** For the validator: see checkedOrders. Undefined when not known for this scope and these opsets. */
  nodeTypesCheckedOn(scope: GraphScope, opsets: OpsetMap): readonly onnx.INodeProto[] | null | undefined {
    if (!sameOpsets(this.checkedOpsets, opsets)) return undefined;
    return this.checkedOrders.get(scope);
  }

  /** @internal Called by the inference. */
  noteNodeTypesChecked(scope: GraphScope, order: readonly onnx.INodeProto[] | null, opsets: OpsetMap): void {
    this.checkedOrders.set(scope, order);
    this.checkedOpsets = opsets;
  }
}

function sameOpsets(a: OpsetMap | undefined, b: OpsetMap): boolean {
  if (a === b) return true;
  if (!a || a.size !== b.size) return false;
  for (const [domain, version] of a) if (b.get(domain) !== version) return false;
  return true;
}

export function schemaOf(node: onnx.INodeProto, opsets: OpsetMap): OpSchema | undefined {
  const domain = normalizeDomain(node.domain);
  const version = effectiveOpsetVersion(opsets, domain);
  return version === undefined ? undefined : schemaFor(domain, node.op_type ?? '', version);
}

export function inferElemTypes(graph: ModelGraph, opsets: OpsetMap): ElemTypes {
  const types = new ElemTypes();
  inferScope(graph.main, types, new Schemas(opsets));
  return types;
}

/** What typing a node's outputs reads of its op: its schema and its rule of dtype-attributes.json. */
interface OpRules {
  schema: OpSchema | undefined;
  /** The dtype rule; 'constant' for Constant (typed by its value), undefined for none. */
  rule: DtypeRule | 'constant' | undefined;
}

/**
 * An op's rules for one inference, by op type (and domain): one lookup per node where schemaOf()
 * made four (domain, opset, table, op) and the dtype rule two more per output, twice per pass for
 * every node.
 */
class Schemas {
  private readonly byOp = new Map<string, OpRules>();
  /** Other domains' ops (the dtype rules are the default domain's only). */
  private readonly byDomain = new Map<string, Map<string, OpRules>>();

  constructor(readonly opsets: OpsetMap) {}

  of(node: onnx.INodeProto): OpRules {
    const op = node.op_type ?? '';
    const domain = normalizeDomain(node.domain);
    let byOp = this.byOp;
    if (domain !== '') {
      let other = this.byDomain.get(domain);
      if (!other) this.byDomain.set(domain, (other = new Map()));
      byOp = other;
    }
    let rules = byOp.get(op);
    if (rules === undefined) {
      const rule = domain !== '' ? undefined : op === 'Constant' ? 'constant' : attributeTypedOps().get(op);
      byOp.set(op, (rules = { schema: schemaOf(node, this.opsets), rule }));
    }
    return rules;
  }
}

function declaredType(info: onnx.IValueInfoProto | undefined): number | undefined {
  const elemType = info?.type?.tensor_type?.elem_type;
  return elemType ? elemType : undefined;
}

function inferScope(scope: GraphScope, types: ElemTypes, schemas: Schemas, bodyInputTypes: Array<number | undefined> = []): void {
  let inputIndex = 0;
  for (const info of scope.inputs.values()) {
    const declared = declaredType(info);
    const fromOwner = bodyInputTypes[inputIndex++];
    if (declared !== undefined) types.set(scope, info.name ?? '', internedType(declared, 'declared'));
    else if (fromOwner !== undefined) types.set(scope, info.name ?? '', internedType(fromOwner, 'subgraph'));
  }
  // The ids of the initializers' names, as hints (see GraphScope.valueIdHints()): noted when the
  // graph model was built, or by the first inference here for the next.
  const initializerIds = scope.initializerIdHints();
  const recording = initializerIds ? undefined : new Int32Array(scope.initializers.size);
  let position = 0;
  // forEach and indexed loops over the per-node lists of this and other walks: run before V8 has
  // optimized them (most of a command on a model of some thousand nodes), for...of allocates an
  // iterator result for every element, a quarter of everything a 12k-node rewrite allocated.
  scope.initializers.forEach((tensor, name) => {
    if (!scope.inputs.has(name) && tensor.data_type) {
      const id = scope.hintedInternValueId(initializerIds?.[position], name);
      types.setById(scope, id, internedType(tensor.data_type, 'initializer'));
      if (recording) recording[position] = id;
    }
    position++;
  });
  if (recording) scope.noteInitializerIds(recording);
  const { order, blocked } = scope.topologicalOrder();
  let allWithinSchema = true;
  const hints = scope.valueIdHints(order);
  let at = 0;
  for (let i = 0; i < order.length; i++) {
    const node = order[i] as onnx.INodeProto;
    if (!inferNode(scope, node, types, schemas, hints, at)) allWithinSchema = false;
    at += slotCountOf(node);
  }
  for (let i = 0; i < blocked.length; i++) inferNode(scope, blocked[i] as onnx.INodeProto, types, schemas, undefined, 0);
  // Nodes that could not be placed are typed but not counted: a list with any is never proved in
  // order, so the validator checks it in full anyway.
  types.noteNodeTypesChecked(scope, allWithinSchema ? order : null, schemas.opsets);
}

/** Output types of the node being typed, for its constraint check (reused: one node at a time). */
const outputTypesScratch: Array<number | undefined> = [];

/**
 * Types the outputs of one node (and first the scopes of its subgraphs) from its inputs' types.
 * Returns whether the node's types keep its schema's constraints: checked here, where its types
 * are at hand, so that the validation need not look them all up again.
 */
function inferNode(scope: GraphScope, node: onnx.INodeProto, types: ElemTypes, schemas: Schemas, hints: Int32Array | undefined, at: number): boolean {
  const inputs = node.input ?? [];
  const outputs = node.output ?? [];
  const inputsAt = at + outputs.length;
  const inputTypes = new Array<number | undefined>(inputs.length);
  for (let i = 0; i < inputs.length; i++) {
    const name = inputs[i];
    inputTypes[i] = name ? types.infoById(scope, scope.hintedValueId(hints?.[inputsAt + i], name), name)?.elemType : undefined;
  }
  const subgraphs = scope.subgraphsOf(node);
  for (let i = 0; i < subgraphs.length; i++) {
    const child = subgraphs[i] as GraphScope;
    inferScope(child, types, schemas, bodyInputs(node, child, inputTypes));
  }
  const rules = schemas.of(node);
  const schema = rules.schema;
  const outputTypes = outputTypesScratch;
  for (let index = 0; index < outputs.length; index++) {
    const name = outputs[index];
    outputTypes[index] = undefined;
    if (!name) continue;
    // inferOutputType(), with the op's rules looked up once.
    const found =
      (rules.rule === 'constant' ? (index === 0 ? constantType(node) : undefined) : typeFromRule(node, index, inputTypes, rules.rule)) ??
      typeFromSchema(schema, index, inputTypes) ??
      typeFromSubgraphs(node, index, subgraphs, types);
    if (found) {
      types.setById(scope, scope.hintedInternValueId(hints?.[at + index], name), found);
      outputTypes[index] = found.elemType;
    } else {
      const declared = scope.declaredElemType(name);
      if (declared !== undefined) {
        types.setById(scope, scope.hintedInternValueId(hints?.[at + index], name), internedType(declared, 'declared'));
        outputTypes[index] = declared;
      }
    }
  }
  return schema === undefined || nodeTypesWithinSchema(node, schema, inputTypes, outputTypes);
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
  return typeFromRule(node, outputIndex, inputTypes, attributeTypedOps().get(node.op_type ?? ''));
}

/** typeFromAttributes() past the domain and Constant, with the op's dtype rule. */
function typeFromRule(node: onnx.INodeProto, outputIndex: number, inputTypes: Array<number | undefined>, rule: DtypeRule | undefined): InferredType | undefined {
  if (!rule || !(rule.outputs ?? [0]).includes(outputIndex)) return undefined;
  if (rule.attribute) {
    const elemType = dtypeAttribute(node, rule.attribute);
    if (elemType !== undefined) return internedType(elemType, 'attribute');
  }
  if (rule.tensorAttribute) {
    const tensor = findAttribute(node, rule.tensorAttribute)?.t;
    if (tensor?.data_type) return internedType(tensor.data_type, 'attribute');
  }
  const otherwise = rule.otherwise;
  if (!otherwise) return undefined;
  if ('input' in otherwise) {
    const elemType = inputTypes[otherwise.input];
    return elemType === undefined ? undefined : internedType(elemType, 'schema');
  }
  const elemType = dataTypeCode(otherwise.type);
  return elemType === undefined ? undefined : internedType(elemType, 'attribute');
}

/** Constant's value attribute: a tensor, a sparse tensor, or a float/int/string scalar or list. */
const CONSTANT_SCALAR_TYPES: Record<string, number> = {
  value_float: DataType.FLOAT,
  value_floats: DataType.FLOAT,
  value_int: DataType.INT64,
  value_ints: DataType.INT64,
  value_string: DataType.STRING,
  value_strings: DataType.STRING,
};

function constantType(node: onnx.INodeProto): InferredType | undefined {
  const byAttribute = CONSTANT_SCALAR_TYPES;
  for (const attribute of node.attribute ?? []) {
    const name = attribute.name ?? '';
    if (name === 'value' && attribute.t?.data_type) return internedType(attribute.t.data_type, 'attribute');
    if (name === 'sparse_value' && attribute.sparse_tensor?.values?.data_type) {
      return internedType(attribute.sparse_tensor.values.data_type, 'attribute');
    }
    const elemType = byAttribute[name];
    if (elemType !== undefined) return internedType(elemType, 'attribute');
  }
  return undefined;
}

function typeFromSchema(schema: OpSchema | undefined, outputIndex: number, inputTypes: Array<number | undefined>): InferredType | undefined {
  if (!schema) return undefined;
  const formal = typeVariableOfOutput(schema, outputIndex);
  if (!formal || formal.heterogeneous) return undefined;
  if (!(formal.typeStr in schema.typeConstraints)) {
    const elemType = elemTypeOfTypeString(formal.typeStr);
    return elemType === undefined ? undefined : internedType(elemType, 'schema');
  }
  for (let i = 0; i < inputTypes.length; i++) {
    const input = typeVariableOfInput(schema, i);
    const elemType = inputTypes[i];
    if (input && !input.heterogeneous && input.typeStr === formal.typeStr && elemType !== undefined) return internedType(elemType, 'schema');
  }
  const allowed = typesOf(schema, formal);
  if (allowed.length === 1) {
    const elemType = elemTypeOfTypeString(allowed[0] as string);
    if (elemType !== undefined) return internedType(elemType, 'schema');
  }
  return undefined;
}

function typeFromSubgraphs(node: onnx.INodeProto, outputIndex: number, subgraphs: readonly GraphScope[], types: ElemTypes): InferredType | undefined {
  const offset = SUBGRAPH_OUTPUT_OFFSET[node.op_type ?? ''];
  if (offset === undefined) return undefined;
  for (const child of subgraphs) {
    const output = child.graph.output?.[outputIndex + offset];
    const elemType = output?.name ? types.get(child, output.name) ?? declaredType(output) : undefined;
    if (elemType !== undefined) return internedType(elemType, 'subgraph');
  }
  return undefined;
}
