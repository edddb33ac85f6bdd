import Long from 'long';
import { describe, expect, it } from 'vitest';
import { encodeModel, onnx } from '../../src/onnx/codec.js';
import { encodeMessage } from '../../src/onnx/generated/onnx-encode.js';

/** The reference: protobufjs's own static encoder, which the generated two-pass encoder must match byte for byte. */
function protobufjsBytes(model: onnx.IModelProto): Buffer {
  return Buffer.from(onnx.ModelProto.encode(model).finish());
}

const longName = 'a/very/long/value/name/with/more/than/forty/characters_output_0';

/** Built by hand (not decoded), so it holds the forms a pass may create: plain numbers for int64, negative values, non-ASCII. */
function handBuiltModel(): onnx.IModelProto {
  return {
    ir_version: 10,
    producer_name: 'tëst ✓ 😀',
    opset_import: [{ domain: '', version: Long.fromNumber(21) }, { domain: 'com.microsoft', version: 1 }],
    metadata_props: [{ key: 'k', value: '' }],
    graph: {
      name: longName + 'é'.repeat(70),
      node: [
        {
          input: ['x', longName, ''],
          output: ['y'],
          op_type: 'Cast',
          attribute: [
            { name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: 10 },
            { name: 'neg', type: onnx.AttributeProto.AttributeType.INT, i: -3 },
            { name: 'negLong', type: onnx.AttributeProto.AttributeType.INT, i: Long.fromNumber(-(2 ** 40)) },
            { name: 'big', type: onnx.AttributeProto.AttributeType.INT, i: 2 ** 53 - 1 },
            { name: 'f', type: onnx.AttributeProto.AttributeType.FLOAT, f: Number.NaN },
            { name: 'fs', type: onnx.AttributeProto.AttributeType.FLOATS, floats: [1.5, -0, Infinity, 3.4e39] },
            { name: 'is', type: onnx.AttributeProto.AttributeType.INTS, ints: [0, -1, 127, 128, 16384, Long.fromString('-9223372036854775808')] },
            { name: 's', type: onnx.AttributeProto.AttributeType.STRING, s: 'aGVsbG8=' as unknown as Uint8Array },
            { name: 'lone', type: onnx.AttributeProto.AttributeType.STRING, strings: [Buffer.from([0xff, 0])] },
          ],
        },
        { op_type: 'Relu', input: ['\ud800lone surrogate'], output: ['\ud800' + 'x'.repeat(50)], domain: '' },
      ],
      initializer: [
        {
          name: 'w',
          dims: [2, Long.fromNumber(3)],
          data_type: 1,
          float_data: [1, 2, Number.NaN, -0, 1e-45, 65504],
          int32_data: [-1, 0, 300, -(2 ** 31)],
          int64_data: [-1, Long.fromNumber(2 ** 40), 0],
          uint64_data: [Long.fromString('18446744073709551615', true), 5],
          double_data: [Math.PI, -0],
          raw_data: new Uint8Array(300).map((_, i) => i & 0xff),
          string_data: [new Uint8Array(0), new Uint8Array([1, 2, 3])],
          external_data: [{ key: 'location', value: 'w.bin' }],
        },
        { name: 'empty', raw_data: new Uint8Array(0), dims: [] },
      ],
      value_info: [{ name: 'y', type: { tensor_type: { elem_type: 10, shape: { dim: [{ dim_value: 2 }, { dim_param: 'N' }, {}] } } } }],
      output: [{ name: 'y', type: { sequence_type: { elem_type: { map_type: { key_type: 7, value_type: { optional_type: {} } } } } } }],
    },
  };
}

describe('generated two-pass encoder', () => {
  it('writes the same bytes as protobufjs for hand-built values (int64 as numbers and Longs, negatives, NaN, long and non-ASCII strings, base64 bytes)', () => {
    const model = handBuiltModel();
    expect(encodeModel(model)).toEqual(protobufjsBytes(model));
  });

  it('keeps unknown fields and skips null optionals and inherited defaults as protobufjs does', () => {
    const decoded: onnx.IModelProto = onnx.ModelProto.decode(protobufjsBytes(handBuiltModel()));
    // An unknown varint field 99 on the model and an unknown length-delimited field 50 on a node.
    decoded.$unknownFields = [Uint8Array.from([0x98, 0x06, 0x07])];
    decoded.graph!.node![0]!.$unknownFields = [Uint8Array.from([0x92, 0x03, 0x02, 0x61, 0x62])];
    (decoded.graph as onnx.IGraphProto).doc_string = null;
    const bytes = encodeModel(decoded);
    expect(bytes).toEqual(protobufjsBytes(decoded));
    expect((onnx.ModelProto.decode(bytes) as onnx.IModelProto).$unknownFields?.map((u) => [...u])).toEqual([[0x98, 0x06, 0x07]]);
  });

  it('encodes the other message types too', () => {
    const tensor = handBuiltModel().graph!.initializer![0]!;
    expect(encodeMessage('onnx.TensorProto', tensor)).toEqual(Buffer.from(onnx.TensorProto.encode(tensor).finish()));
  });

  it('refuses nesting deeper than protobufjs does, with its error', () => {
    let graph: onnx.IGraphProto = { name: 'leaf' };
    for (let depth = 0; depth < 60; depth++) {
      graph = { node: [{ op_type: 'If', attribute: [{ name: 'then_branch', type: 5, g: graph }] }] };
    }
    const model = { ir_version: 10, graph };
    expect(() => protobufjsBytes(model)).toThrow('max depth exceeded');
    expect(() => encodeModel(model)).toThrow('max depth exceeded');
  });
});
