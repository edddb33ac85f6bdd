/**
 * Structural and type checks run after a rewrite: one producer per value, every value defined
 * before it is read, every node's inputs within its schema's type constraints and consistent
 * across each type variable, and value_info agreeing with the inferred types.
 */
import { tensorTypeString } from './data-types.js';
import type { onnx } from './generated/onnx.js';
import { ModelGraph, type GraphScope } from './graph.js';
import { opsetsOf, type OpsetMap } from './opsets.js';
import { typesOf, type OpSchema } from './schema.js';
import { checkNodeTypeConstraints, type TypeConstraintViolation } from './type-constraints.js';
import { inferElemTypes, schemaOf, type ElemTypes } from './type-inference.js';
import { describeNode } from './printable.js';

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
  // A scope's reads of outer values are only as sound as its enclosing scopes' order.
  const proved = new Map<GraphScope, boolean>();
  for (const scope of graph.scopes) {
    const orderProved = orderIsValid(scope);
    proved.set(scope, orderProved && (!scope.parent || proved.get(scope.parent) === true));
    if (!orderProved) checkProducersAndOrder(scope, problems);
    checkTypes(scope, types, opsets, problems, proved.get(scope) === true);
  }
  // The validation is a pass's last walk over its graph model (which the pass returns with the
  // model): the hints that sped up the walks are of no more use.
  graph.releaseValueIdHints();
  return problems;
}

/**
 * Whether checkProducersAndOrder() would find nothing, told from the topological order the type
 * inference has just computed on the same node list (every read after its producer, one
 * definition per name) plus a check of each read that no node produces (by id, see
 * GraphScope.unproducedReadsVisible()). On a big graph that is a
 * few percent of the full check, which hashed every value name; the pass rewires most nodes, so
 * checking only what it edited would save less. Any doubt, and every failure, goes to the full
 * check, which reports the problems in file order.
 */
function orderIsValid(scope: GraphScope): boolean {
  return scope.orderedReads() !== undefined && scope.unproducedReadsVisible() === true;
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

function checkTypes(scope: GraphScope, types: ElemTypes, opsets: OpsetMap, problems: ValidationProblem[], orderProved: boolean): void {
  // The inference checked every node as it typed it: when it did so on this very node list (the
  // order it went through is the one that proved the list in order), no node can fail here, and
  // looking every value's type up again was most of the validation.
  const checked = orderProved && types.nodeTypesCheckedOn(scope, opsets);
  if (!checked || checked !== scope.lastOrder()) checkNodeTypes(scope, types, opsets, problems);
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

function checkNodeTypes(scope: GraphScope, types: ElemTypes, opsets: OpsetMap, problems: ValidationProblem[]): void {
  const inputTypes: Array<number | undefined> = [];
  const outputTypes: Array<number | undefined> = [];
  for (const node of scope.graph.node ?? []) {
    const schema = schemaOf(node, opsets);
    if (!schema) continue;
    typesOfValues(scope, types, node.input, inputTypes);
    typesOfValues(scope, types, node.output, outputTypes);
    checkNodeTypeConstraints(node, schema, inputTypes, outputTypes, (violation) => problems.push({ node: node.name ?? '', message: describeViolation(node, schema, violation) }));
  }
}

/** Fills `into` from index 0 (entries past `names` are left as they are: nobody reads them). */
function typesOfValues(scope: GraphScope, types: ElemTypes, names: string[] | null | undefined, into: Array<number | undefined>): void {
  const count = names?.length ?? 0;
  for (let i = 0; i < count; i++) {
    const name = (names as string[])[i];
    into[i] = name ? types.get(scope, name) : undefined;
  }
}

function describeViolation(node: onnx.INodeProto, schema: OpSchema, violation: TypeConstraintViolation): string {
  if (violation.kind === 'not-allowed') {
    return `${describeNode(node)}: ${violation.role} '${violation.name}' is ${tensorTypeString(violation.type)}, not one of ${typesOf(schema, violation.formal).join(', ')}`;
  }
  const { bound } = violation;
  return `${describeNode(node)}: '${bound.name}' is ${tensorTypeString(bound.type)} but '${violation.name}' is ${tensorTypeString(violation.type)}, both bound to ${violation.typeStr}`;
}
