/**
 * The strict decode refuses what protobuf's reference parser refuses (field 0, a known field with
 * the wrong wire type, a length that runs past its message, invalid UTF-8 in a string field) and
 * still keeps unknown fields byte for byte.
 */
import { describe, expect, it } from 'vitest';
import { decodeModel, encodeModel, onnx } from '../../src/onnx/codec.js';
import { AmpError } from '../../src/onnx/errors.js';
import { model, node, valueInfo } from '../support/models.js';
import { errorOf } from '../support/errors.js';


const relu = model({ node: [node('Relu', ['x'], ['y'], 'r')], input: [valueInfo('x', 1, [2])], output: [valueInfo('y', 1, [2])] });
const base = Buffer.from(encodeModel(relu));

/** A length-delimited field: tag, length, body. */
const field = (tag: number, body: Uint8Array | number[]): Buffer => Buffer.concat([Buffer.from([tag, body.length]), Buffer.from(body)]);

describe('strict decode', () => {
  it('accepts what the encoder writes', () => {
    expect(decodeModel(base).graph?.node?.[0]?.op_type).toBe('Relu');
  });

  it('field number 0', () => {
    const e = errorOf(() => decodeModel(Buffer.concat([base, Buffer.from([0x00, 0x01])]), { source: 'zero.onnx' }));
    expect(e.code).toBe('NOT_ONNX');
    expect(e.message).toBe(`zero.onnx: not an ONNX ModelProto (field number 0 in onnx.ModelProto at byte ${base.length})`);
  });

  it('a known field with the wrong wire type', () => {
    // ModelProto.producer_name (field 2, a string) written as a varint.
    const e = errorOf(() => decodeModel(Buffer.concat([base, Buffer.from([0x10, 0x05])])));
    expect(e.message).toContain('field 2 of onnx.ModelProto has wire type varint, expected length-delimited');
    // ModelProto.graph (field 7, a message) written as fixed32.
    expect(errorOf(() => decodeModel(Buffer.concat([base, Buffer.from([0x3d, 1, 2, 3, 4])]))).message).toContain('field 7 of onnx.ModelProto has wire type fixed32');
  });

  it('a length-delimited tag with no length after it, inside a message and at the end of the file', () => {
    // A graph (field 7) of one byte, before the model's fields: the tag of a node (field 1) whose length is missing.
    const inside = errorOf(() => decodeModel(Buffer.concat([field(0x3a, [0x0a]), base])));
    expect(inside.message).toBe('input: not an ONNX ModelProto (a varint runs past the end at byte 3)');
    // ModelProto.producer_name's tag as the file's last byte: the file ends early.
    expect(errorOf(() => decodeModel(Buffer.concat([base, Buffer.from([0x12])]))).code).toBe('TRUNCATED');
  });

  it('a sub-message whose length runs past its parent', () => {
    // A graph (field 7) holding a node (field 1) that claims 50 bytes inside a 3-byte graph.
    const graph = field(0x3a, [0x0a, 50, 0x00]);
    const e = errorOf(() => decodeModel(Buffer.concat([Buffer.from([0x08, 0x09]), graph, Buffer.alloc(60)])));
    expect(e.code).toBe('NOT_ONNX');
    expect(e.message).toContain('field 1 of onnx.GraphProto (50 bytes) runs past the end of its message');
  });

  it('a length past the end of the file is TRUNCATED', () => {
    const cut = base.subarray(0, base.length - 3);
    expect(errorOf(() => decodeModel(cut)).code).toBe('TRUNCATED');
  });

  it('invalid UTF-8 in a string field, at any depth', () => {
    const badName = field(0x12, [0x66, 0xff, 0xfe]); // producer_name = "f\xff\xfe"
    const e = errorOf(() => decodeModel(Buffer.concat([base, badName])));
    expect(e.message).toContain('field 2 of onnx.ModelProto is a string with invalid UTF-8');
    const m = onnx.ModelProto.decode(base);
    m.graph!.node![0]!.op_type = 'PLACEHOLDER';
    const bytes = Buffer.from(encodeModel(m));
    const at = bytes.indexOf('PLACEHOLDER');
    bytes[at] = 0xc3; // a lead byte followed by ASCII: invalid
    expect(errorOf(() => decodeModel(bytes)).message).toContain('field 4 of onnx.NodeProto is a string with invalid UTF-8');
  });

  it('accepts valid non-ASCII UTF-8 (two-, three- and four-byte sequences) after an ASCII prefix', () => {
    const m = onnx.ModelProto.decode(base);
    m.producer_name = 'tool é ✓ 😀';
    m.graph!.node![0]!.name = 'relu_ünïcode';
    const decoded = decodeModel(Buffer.from(encodeModel(m)));
    expect([decoded.producer_name, decoded.graph!.node![0]!.name]).toEqual(['tool é ✓ 😀', 'relu_ünïcode']);
  });

  it('packed repeated numbers must hold whole values', () => {
    // A second graph field (merged into the first) with an initializer whose packed float_data
    // (TensorProto field 4) holds `size` bytes.
    const withPacked = (size: number): Buffer => {
      const tensor = field(0x22, new Array(size).fill(0));
      return Buffer.concat([base, field(0x3a, field(0x2a, tensor))]);
    };
    expect(decodeModel(withPacked(8)).graph?.initializer?.[0]?.float_data).toEqual([0, 0]);
    expect(errorOf(() => decodeModel(withPacked(7))).message).toContain('packed field 4 of onnx.TensorProto has 7 bytes, not a whole number of values');
  });

  it('unknown fields, including groups, are still kept byte for byte', () => {
    const extra = Buffer.concat([base, Buffer.from([0x98, 0x06, 0x07]), Buffer.from([0xa3, 0x06, 0x08, 0x01, 0xa4, 0x06])]);
    expect(Buffer.from(encodeModel(decodeModel(extra))).equals(extra)).toBe(true);
  });

  it('nesting deeper than protobuf allows is refused, not a stack overflow', () => {
    // TypeProto.sequence_type (field 4) -> Sequence.elem_type (field 1) -> TypeProto ... 200 levels.
    let type: Buffer = Buffer.alloc(0);
    for (let i = 0; i < 200; i++) type = Buffer.concat([Buffer.from([i % 2 === 0 ? 0x0a : 0x22]), encodeLength(type.length), type]);
    const valueInfoBytes = Buffer.concat([Buffer.from([0x0a, 0x01, 0x78, 0x12]), encodeLength(type.length), type]);
    const graph = Buffer.concat([Buffer.from([0x5a]), encodeLength(valueInfoBytes.length), valueInfoBytes]);
    const bytes = Buffer.concat([Buffer.from([0x08, 0x09, 0x3a]), encodeLength(graph.length), graph]);
    expect(errorOf(() => decodeModel(bytes)).message).toContain('nesting deeper than 100');
  });
});

function encodeLength(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}
