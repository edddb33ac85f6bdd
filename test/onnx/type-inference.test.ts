import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataType } from '../../src/onnx/data-types.js';
import { ModelGraph } from '../../src/onnx/graph.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { opsetsOf } from '../../src/onnx/opsets.js';
import { ElemTypes, inferElemTypes } from '../../src/onnx/type-inference.js';
import { corpusAvailable, corpusDir, corpusModels } from '../support/corpus.js';
import { model, node, valueInfo } from '../support/models.js';
import { onnx } from '../../src/onnx/codec.js';

describe('element-type inference', () => {
  it.skipIf(!corpusAvailable)('agrees with every element type recorded in the node tests (graph outputs and value_info)', () => {
    let compared = 0;
    let declaredOnly = 0;
    const disagreements: string[] = [];
    for (const relative of corpusModels('onnx-node-tests')) {
      const m = loadModel(path.join(corpusDir, relative), { externalData: 'ignore' });
      const graph = new ModelGraph(m);
      const types = inferElemTypes(graph, opsetsOf(m));
      for (const scope of graph.scopes) {
        for (const info of [...(scope.graph.output ?? []), ...(scope.graph.value_info ?? [])]) {
          const declared = info.type?.tensor_type?.elem_type;
          const name = info.name ?? '';
          if (!declared || !scope.producerOf(name)) continue;
          const inferred = types.info(scope, name);
          if (!inferred || inferred.source === 'declared') {
            declaredOnly++;
            if (process.env.AMP_DEBUG_TYPES) console.log(`declared only: ${relative} ${scope.producerOf(name)?.node.op_type} ${name}`);
            continue;
          }
          compared++;
          if (inferred.elemType !== declared) {
            disagreements.push(`${relative} ${scope.path} '${name}': inferred ${inferred.elemType} (${inferred.source}), declared ${declared}`);
          }
        }
      }
    }
    console.log(`[types] ${compared} declared types checked against inference, ${declaredOnly} known only from their declaration`);
    expect(disagreements).toEqual([]);
    // Inference, not the declarations, must type nearly everything.
    expect(compared).toBeGreaterThan(1000);
    expect(declaredOnly / (compared + declaredOnly)).toBeLessThan(0.03);
  });

  it('types outputs from attributes, schema bindings and concrete schema types without value_info', () => {
    const m = model({
      node: [
        node('Shape', ['x'], ['shape']),
        node('ConstantOfShape', ['shape'], ['zeros']),
        node('Cast', ['zeros'], ['half'], 'cast', {
          attribute: [onnx.AttributeProto.create({ name: 'to', type: 2, i: DataType.FLOAT16 })],
        }),
        node('Add', ['x', 'x'], ['sum']),
        node('Resize', ['x', '', 'scales'], ['big']),
      ],
      input: [valueInfo('x', DataType.DOUBLE), valueInfo('scales', DataType.FLOAT)],
    });
    const graph = new ModelGraph(m);
    const types = inferElemTypes(graph, opsetsOf(m));
    expect(types.get(graph.main, 'shape')).toBe(DataType.INT64);
    expect(types.get(graph.main, 'zeros')).toBe(DataType.FLOAT);
    expect(types.get(graph.main, 'half')).toBe(DataType.FLOAT16);
    expect(types.get(graph.main, 'sum')).toBe(DataType.DOUBLE);
    expect(types.get(graph.main, 'big')).toBe(DataType.DOUBLE);
  });

  it('keeps each value its own source when types are shared, and sees a scope typed after a read of it', () => {
    const m = model({
      node: [node('If', ['c'], ['y'], 'branch', {
        attribute: [
          onnx.AttributeProto.create({ name: 'then_branch', type: 5, g: onnx.GraphProto.create({ name: 't', node: [node('Identity', ['x'], ['t_out'])], output: [valueInfo('t_out', DataType.FLOAT)] }) }),
          onnx.AttributeProto.create({ name: 'else_branch', type: 5, g: onnx.GraphProto.create({ name: 'e', node: [node('Identity', ['x'], ['e_out'])], output: [valueInfo('e_out', DataType.FLOAT)] }) }),
        ],
      })],
      input: [valueInfo('c', DataType.BOOL), valueInfo('x', DataType.FLOAT)],
    });
    const graph = new ModelGraph(m);
    const body = graph.scopes[1]!;
    const types = new ElemTypes();
    // Read both scopes before anything is typed in them: a remembered "no map" must not hide later types.
    expect(types.get(graph.main, 'x')).toBeUndefined();
    expect(types.get(body, 't_out')).toBeUndefined();
    types.set(body, 't_out', { elemType: DataType.FLOAT, source: 'schema' });
    types.set(graph.main, 'x', { elemType: DataType.FLOAT, source: 'declared' });
    types.set(graph.main, 'y', { elemType: DataType.FLOAT, source: 'subgraph' });
    expect(types.info(body, 't_out')).toEqual({ elemType: DataType.FLOAT, source: 'schema' });
    // Read from the body, 'x' resolves to the main graph's type.
    expect(types.info(body, 'x')).toEqual({ elemType: DataType.FLOAT, source: 'declared' });
    expect(types.info(graph.main, 'y')).toEqual({ elemType: DataType.FLOAT, source: 'subgraph' });
    expect(types.get(graph.main, 't_out')).toBeUndefined();
  });
});

describe('element-type inference, op rules looked up once per op', () => {
  it('types each Constant by its own value, and an op of another domain by its own (absent) schema, not by the default domain\'s op of that name', () => {
    const int = (name: string, value: number) => onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.INT, i: value });
    const halfValue = onnx.AttributeProto.create({ name: 'value', type: onnx.AttributeProto.AttributeType.TENSOR, t: onnx.TensorProto.create({ data_type: DataType.FLOAT16, dims: [1], raw_data: new Uint8Array(2) }) });
    const m = model({
      input: [valueInfo('x')],
      node: [
        node('Constant', [], ['c_half'], 'c_half', { attribute: [halfValue] }),
        node('Constant', [], ['c_int'], 'c_int', { attribute: [int('value_int', 3)] }),
        node('Cast', ['x'], ['x_int'], 'cast', { attribute: [int('to', DataType.INT32)] }),
        node('Cast', ['x'], ['x_bool'], 'cast2', { attribute: [int('to', DataType.BOOL)] }),
        node('Relu', ['x'], ['r'], 'relu'),
        node('Relu', ['x'], ['r_custom'], 'relu_custom', { domain: 'com.example' }),
        node('Cast', ['x'], ['cast_custom'], 'cast_custom', { domain: 'com.example', attribute: [int('to', DataType.INT8)] }),
      ],
      output: [valueInfo('r')],
    });
    const graph = new ModelGraph(m);
    const types = inferElemTypes(graph, opsetsOf(m));
    expect(types.info(graph.main, 'c_half')).toEqual({ elemType: DataType.FLOAT16, source: 'attribute' });
    expect(types.info(graph.main, 'c_int')).toEqual({ elemType: DataType.INT64, source: 'attribute' });
    expect(types.info(graph.main, 'x_int')).toEqual({ elemType: DataType.INT32, source: 'attribute' });
    expect(types.info(graph.main, 'x_bool')).toEqual({ elemType: DataType.BOOL, source: 'attribute' });
    expect(types.info(graph.main, 'r')).toEqual({ elemType: DataType.FLOAT, source: 'schema' });
    expect(types.info(graph.main, 'r_custom')).toBeUndefined();
    expect(types.info(graph.main, 'cast_custom')).toBeUndefined();
  });
});
