/**
 * Structural and type checks run after a rewrite: one producer per value, every value defined
 * before it is read, every node's inputs within its schema's type constraints and consistent
 * across each type variable, and value_info agreeing with the inferred types.
 */
import { tensorTypeString } from '../onnx/data-types.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph, type GraphScope } from '../onnx/graph.js';
import { opsetsOf } from '../onnx/opsets.js';
import { typeVariableOfInput, typeVariableOfOutput, typesOf, type FormalParameter, type OpSchema } from '../onnx/schema.js';
import { elemTypeOfTypeString, inferElemTypes, schemaOf, type ElemTypes } from '../onnx/type-inference.js';
import { describeNode } from './amp/decisions.js';

export interface ValidationProblem {
  node: string;
  message: string;
}

/**
 * `graph`: the graph model of `model` a pass kept up to date through its edits (committed), to
 * save building it again; test/passes/graph-reuse.test.ts checks that it matches a fresh one.
 * `inferred`: the element types already inferred on that graph model, to save inferring them again.
 */
export function validateModel(model: onnx.IModelProto, graph: ModelGraph = new ModelGraph(model), inferred?: ElemTypes): ValidationProblem[] {
  const opsets = opsetsOf(model);
  const types = inferred ?? inferElemTypes(graph, opsets);
  const problems: ValidationProblem[] = [];
  for (const scope of graph.scopes) {
    if (!orderIsValid(scope)) checkProducersAndOrder(scope, problems);
    checkTypes(scope, types, opsets, problems);
  }
  return problems;
}

/**
 * Whether checkProducersAndOrder() would find nothing, told from the topological order the type
 * inference has just computed on the same node list (every read after its producer, one
 * definition per name) plus a lookup per read that no node produces. On a big graph that is a
 * few percent of the full check, which hashed every value name; the pass rewires most nodes, so
 * checking only what it edited would save less. Any doubt, and every failure, goes to the full
 * check, which reports the problems in file order.
 */
function orderIsValid(scope: GraphScope): boolean {
  const unproduced = scope.orderedReads();
  if (!unproduced) return false;
  for (const name of unproduced) {
    if (!scope.inputs.has(name) && !scope.initializers.has(name) && !scope.parent?.isVisible(name)) return false;
  }
  return true;
}

function checkProducersAndOrder(scope: GraphScope, problems: ValidationProblem[]): void {
  const defined = new Set<string>(scope.inputs.keys());
  for (const name of scope.initializers.keys()) defined.add(name);
  for (const node of scope.graph.node ?? []) {
    const inputs = node.input;
    if (inputs) {
      for (let i = 0; i < inputs.length; i++) {
        const name = inputs[i];
        if (name && !defined.has(name) && !scope.parent?.isVisible(name)) {
          problems.push({ node: node.name ?? '', message: `${describeNode(node)} reads '${name}' before anything in ${scope.path} defines it` });
        }
      }
    }
    const outputs = node.output;
    if (!outputs) continue;
    for (let i = 0; i < outputs.length; i++) {
      const name = outputs[i];
      if (!name) continue;
      if (defined.has(name)) problems.push({ node: node.name ?? '', message: `${describeNode(node)} writes '${name}', which already has a producer in ${scope.path}` });
      defined.add(name);
    }
  }
}

/**
 * The element types a formal parameter allows as tensors, or null when it allows no tensor type
 * (sequences, optionals: not checked here). Cached per formal: a big graph asks the same few
 * thousand times, and comparing type strings per input was a good part of validation's time.
 */
const allowedCache = new WeakMap<FormalParameter, ReadonlySet<number> | null>();

function allowedTensorTypes(schema: OpSchema, formal: FormalParameter): ReadonlySet<number> | null {
  let allowed = allowedCache.get(formal);
  if (allowed === undefined) {
    const tensorTypes = typesOf(schema, formal).filter((t) => t.startsWith('tensor('));
    allowed = tensorTypes.length ? new Set(tensorTypes.map((t) => elemTypeOfTypeString(t) ?? -1)) : null;
    allowedCache.set(formal, allowed);
  }
  return allowed;
}

/** Type variables bound so far on one node: reused from node to node, no Map per node. */
class Bindings {
  readonly variables: string[] = [];
  readonly types: number[] = [];
  readonly values: string[] = [];
  clear(): void {
    this.variables.length = 0;
    this.types.length = 0;
    this.values.length = 0;
  }
  find(variable: string): number {
    return this.variables.indexOf(variable);
  }
}

function checkTypes(scope: GraphScope, types: ElemTypes, opsets: ReturnType<typeof opsetsOf>, problems: ValidationProblem[]): void {
  const bound = new Bindings();
  for (const node of scope.graph.node ?? []) {
    const schema = schemaOf(node, opsets);
    if (!schema) continue;
    bound.clear();
    const inputs = node.input;
    if (inputs) for (let i = 0; i < inputs.length; i++) checkValue(scope, types, node, schema, typeVariableOfInput(schema, i), inputs[i], 'input', bound, problems);
    const outputs = node.output;
    if (outputs) for (let i = 0; i < outputs.length; i++) checkValue(scope, types, node, schema, typeVariableOfOutput(schema, i), outputs[i], 'output', bound, problems);
  }
  for (const list of [scope.graph.value_info ?? [], scope.graph.output ?? []]) {
    for (const info of list) {
      const declared = info.type?.tensor_type?.elem_type;
      const inferred = types.info(scope, info.name ?? '');
      if (declared && inferred && inferred.source !== 'declared' && inferred.elemType !== declared) {
        problems.push({
          node: scope.producerOf(info.name ?? '')?.node.name ?? '',
          message: `'${info.name}' is declared ${tensorTypeString(declared)} but computed as ${tensorTypeString(inferred.elemType)} in ${scope.path}`,
        });
      }
    }
  }
}

/** One actual input or output of a node against its formal parameter and the node's other bindings. */
function checkValue(
  scope: GraphScope,
  types: ElemTypes,
  node: onnx.INodeProto,
  schema: OpSchema,
  formal: FormalParameter | undefined,
  name: string | null | undefined,
  role: string,
  bound: Bindings,
  problems: ValidationProblem[],
): void {
  if (!formal || !name || formal.heterogeneous) return;
  const type = types.get(scope, name);
  if (type === undefined) return;
  const allowed = allowedTensorTypes(schema, formal);
  if (allowed && !allowed.has(type)) {
    problems.push({
      node: node.name ?? '',
      message: `${describeNode(node)}: ${role} '${name}' is ${tensorTypeString(type)}, not one of ${typesOf(schema, formal).join(', ')}`,
    });
    return;
  }
  if (!(formal.typeStr in schema.typeConstraints)) return;
  const at = bound.find(formal.typeStr);
  if (at >= 0 && bound.types[at] !== type) {
    problems.push({
      node: node.name ?? '',
      message: `${describeNode(node)}: '${bound.values[at]}' is ${tensorTypeString(bound.types[at] as number)} but '${name}' is ${tensorTypeString(type)}, both bound to ${formal.typeStr}`,
    });
  } else if (at < 0) {
    bound.variables.push(formal.typeStr);
    bound.types.push(type);
    bound.values.push(name);
  }
}
