/**
 * The decoder reads value names through a NameTable sized from the input's length. Whether the
 * table was sized right or has to grow while decoding, every name must decode to what protobufjs
 * alone reads from the same bytes.
 */
import { describe, expect, it } from 'vitest';
import { decodeModel, encodeModel, onnx } from '../../src/onnx/codec.js';
import { model, node } from '../support/models.js';

function chain(count: number, nameOf: (index: number) => string): Uint8Array {
  const nodes = Array.from({ length: count }, (_, i) => node('Relu', [i === 0 ? 'x' : nameOf(i - 1)], [nameOf(i)], `n${i}`));
  return encodeModel(model({ node: nodes }));
}

const namesOf = (m: onnx.IModelProto): string[] => (m.graph?.node ?? []).flatMap((n) => [...(n.input ?? []), ...(n.output ?? []), n.name ?? '', n.op_type ?? '']);

describe('NameTable', () => {
  it('decodes the names protobufjs decodes, when the table must grow past its size from the input length', () => {
    // Names of 1 to 255 bytes, non-ASCII ones among them, and many more of them than the table starts with.
    const bytes = chain(20000, (i) => `${i % 7 === 0 ? 'é' : 'v'}${String(i).repeat(1 + (i % 40))}`.slice(0, 255));
    const reference = onnx.ModelProto.decode(bytes);
    expect(namesOf(decodeModel(bytes))).toEqual(namesOf(reference));
    expect(new Set(namesOf(reference)).size).toBeGreaterThan(20000);
  });

  it('decodes names longer than it shares, and the empty name', () => {
    const bytes = chain(10, (i) => (i === 3 ? '' : `long-${i}-${'x'.repeat(300 + i)}`));
    expect(namesOf(decodeModel(bytes))).toEqual(namesOf(onnx.ModelProto.decode(bytes)));
  });
});
