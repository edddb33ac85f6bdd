/** Small models built in code for unit tests. */
import { onnx } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { tensor, valueInfo as builderValueInfo } from '../../src/builder/graph-builder.js';

/** A tensor value_info; dims default to a scalar. The builder's, with test-friendly defaults. */
export function valueInfo(name: string, elemType: number = DataType.FLOAT, dims: Array<number | string> = []): onnx.ValueInfoProto {
  return builderValueInfo(name, elemType, dims);
}

export function node(opType: string, inputs: string[], outputs: string[], name = outputs[0] ?? opType, extra: Partial<onnx.INodeProto> = {}): onnx.NodeProto {
  return onnx.NodeProto.create({ op_type: opType, input: inputs, output: outputs, name, ...extra });
}

export function floatTensor(name: string, dims: number[], values: number[]): onnx.TensorProto {
  return tensor(name, dims, Float32Array.from(values));
}

export function model(graph: Partial<onnx.IGraphProto>, opset = 17): onnx.ModelProto {
  return onnx.ModelProto.create({
    ir_version: 9,
    producer_name: 'amp-rewrite-tests',
    opset_import: [onnx.OperatorSetIdProto.create({ domain: '', version: opset })],
    graph: onnx.GraphProto.create({ name: 'test', ...graph }),
  });
}

/** The main graph of a model, with its repeated fields typed as present (decoded models always have them). */
export function mainGraph(m: onnx.IModelProto): onnx.GraphProto {
  return m.graph as onnx.GraphProto;
}
