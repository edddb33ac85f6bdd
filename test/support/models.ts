/** Small models built in code for unit tests. */
import { onnx } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';

export function valueInfo(name: string, elemType: number = DataType.FLOAT, dims: Array<number | string> = []): onnx.ValueInfoProto {
  return onnx.ValueInfoProto.create({
    name,
    type: onnx.TypeProto.create({
      tensor_type: onnx.TypeProto.Tensor.create({
        elem_type: elemType,
        shape: onnx.TensorShapeProto.create({
          dim: dims.map((d) => onnx.TensorShapeProto.Dimension.create(typeof d === 'number' ? { dim_value: d } : { dim_param: d })),
        }),
      }),
    }),
  });
}

export function node(opType: string, inputs: string[], outputs: string[], name = outputs[0] ?? opType, extra: Partial<onnx.INodeProto> = {}): onnx.NodeProto {
  return onnx.NodeProto.create({ op_type: opType, input: inputs, output: outputs, name, ...extra });
}

export function floatTensor(name: string, dims: number[], values: number[]): onnx.TensorProto {
  return onnx.TensorProto.create({
    name,
    dims,
    data_type: DataType.FLOAT,
    raw_data: new Uint8Array(new Float32Array(values).buffer),
  });
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
