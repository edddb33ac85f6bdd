/**
 * The node type check the inference runs as it types each node, remembered per signature, must
 * give exactly the verdict of the full check the validator words: compared here on every
 * signature of a set of operators, and on the corpus (the inference's verdict per scope against
 * the validator's full check of that scope).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataType } from '../../src/onnx/data-types.js';
import { ModelGraph } from '../../src/onnx/graph.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { opsetsOf } from '../../src/onnx/opsets.js';
import { schemaFor } from '../../src/onnx/schema.js';
import { checkNodeTypeConstraints, nodeTypesWithinSchema } from '../../src/onnx/type-constraints.js';
import { inferElemTypes, schemaOf } from '../../src/onnx/type-inference.js';
import { corpusAvailable, corpusDir, corpusModels } from '../support/corpus.js';

const TYPES = [undefined, DataType.FLOAT, DataType.FLOAT16, DataType.INT64, DataType.BOOL, DataType.UINT16];

function* signatures(inputs: number, outputs: number): Generator<{ input: string[]; output: string[]; inputTypes: Array<number | undefined>; outputTypes: Array<number | undefined> }> {
  const count = inputs + outputs;
  const total = (TYPES.length + 1) ** count;
  for (let n = 0; n < total; n++) {
    const names: string[] = [];
    const types: Array<number | undefined> = [];
    let rest = n;
    for (let i = 0; i < count; i++) {
      const pick = rest % (TYPES.length + 1);
      rest = Math.floor(rest / (TYPES.length + 1));
      // The last pick is an empty name (an omitted optional value) with a type that must be ignored.
      names.push(pick === TYPES.length ? '' : `v${i}`);
      types.push(pick === TYPES.length ? DataType.INT64 : TYPES[pick]);
    }
    yield { input: names.slice(0, inputs), output: names.slice(inputs), inputTypes: types.slice(0, inputs), outputTypes: types.slice(inputs) };
  }
}

describe('node type constraints', () => {
  it('the remembered verdict equals the full check on every signature (and the same signature twice)', () => {
    let compared = 0;
    let failing = 0;
    for (const [op, inputs, outputs] of [['Add', 2, 1], ['Relu', 1, 1], ['Where', 3, 1], ['Shape', 1, 1], ['MatMul', 2, 1], ['Cast', 1, 1], ['Clip', 3, 1], ['Dropout', 1, 2], ['LayerNormalization', 3, 1], ['Concat', 4, 1]] as const) {
      const schema = schemaFor('', op, 17)!;
      for (let round = 0; round < 2; round++) {
        for (const node of signatures(inputs, outputs)) {
          const full = checkNodeTypeConstraints(node, schema, node.inputTypes, node.outputTypes);
          expect(nodeTypesWithinSchema(node, schema, node.inputTypes, node.outputTypes), `${op} ${JSON.stringify(node)}`).toBe(full);
          compared++;
          if (!full) failing++;
        }
      }
    }
    expect(compared).toBeGreaterThan(10000);
    expect(failing).toBeGreaterThan(1000);
  });

  it.skipIf(!corpusAvailable)('the inference finds a scope within its schemas exactly when the full check finds no node type problem', () => {
    let scopes = 0;
    let rejected = 0;
    for (const relative of corpusModels()) {
      const model = loadModel(path.join(corpusDir, relative), { externalData: 'ignore' });
      const graph = new ModelGraph(model);
      const opsets = opsetsOf(model);
      const types = inferElemTypes(graph, opsets);
      for (const scope of graph.scopes) {
        const order = types.nodeTypesCheckedOn(scope, opsets);
        if (order === undefined) continue;
        // The full check, node by node, with every type looked up afterwards.
        const bad = (scope.graph.node ?? []).some((node) => {
          const schema = schemaOf(node, opsets);
          if (!schema) return false;
          const typeOf = (name: string) => (name ? types.get(scope, name) : undefined);
          return !checkNodeTypeConstraints(node, schema, (node.input ?? []).map(typeOf), (node.output ?? []).map(typeOf));
        });
        scopes++;
        if (bad) rejected++;
        expect(order === null, `${relative} ${scope.path}`).toBe(bad);
      }
    }
    expect(scopes).toBeGreaterThan(100);
    // The corpus is valid (rejected stays 0); test/onnx/validate-order-reuse.test.ts breaks a model on purpose.
    expect(rejected).toBe(0);
  });
});
