import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeModel, encodeModel, onnx } from '../../src/onnx/codec.js';
import { corpusAvailable, corpusDir, corpusModels } from '../support/corpus.js';

describe('lossless codec over the whole corpus', () => {
  const models = corpusModels();

  it.skipIf(!corpusAvailable)('finds the corpus models', () => {
    expect(models.length).toBeGreaterThan(900);
  });

  it.skipIf(!corpusAvailable)('decodes and re-encodes every corpus model byte for byte', () => {
    const mismatched: string[] = [];
    for (const relative of models) {
      const bytes = readFileSync(path.join(corpusDir, relative));
      const again = encodeModel(decodeModel(bytes, { source: relative }));
      if (Buffer.compare(Buffer.from(again), bytes) !== 0) mismatched.push(relative);
    }
    console.log(`[codec] round-tripped ${models.length} corpus models, ${mismatched.length} differ`);
    expect(mismatched).toEqual([]);
  });
});

describe('decoded in-memory form', () => {
  it('with sharedEmptyFields, gives per-node messages no own array for an empty repeated field, and a writable own array once decoded with values', () => {
    const bytes = onnx.ModelProto.encode({
      ir_version: 10,
      graph: { node: [{ op_type: 'Relu', input: ['x'], output: ['y'] }, { op_type: 'Cast', input: ['y'], output: ['z'], attribute: [{ name: 'to', i: 10, type: 2 }] }] },
    }).finish();
    const [relu, cast] = decodeModel(bytes, { sharedEmptyFields: true }).graph!.node as onnx.NodeProto[];
    // The shared empty array saves 32 bytes per empty field per message (7 per AttributeProto, 8 per TensorProto).
    expect(Object.hasOwn(relu!, 'attribute')).toBe(false);
    expect(relu!.attribute).toEqual([]);
    expect(Object.hasOwn(cast!.attribute[0]!, 'floats')).toBe(false);
    expect(Object.isFrozen(relu!.attribute)).toBe(true);
    expect(Object.isFrozen(cast!.attribute)).toBe(false);
    expect(Object.isFrozen(cast!.input)).toBe(false);
  });
});

describe('names shared while decoding', () => {
  it('reads every name as protobufjs does, across table growth, long and non-ASCII names and near-identical bytes', () => {
    const long = 'n'.repeat(300);
    const node = [];
    for (let i = 0; i < 6000; i++) {
      // Neighbouring names differ in one byte; every name is produced once and consumed twice.
      node.push({ op_type: i % 2 ? 'Relu' : 'Tanh', input: [`v${i}`, i > 1 ? `v${i - 1}` : long], output: [`v${i + 1}`] });
    }
    node.push({ op_type: 'Identity', domain: 'com.ëxample', input: [long, 'ünïcode ✓', ''], output: ['ünïcode ✓ 2'] });
    const bytes = onnx.ModelProto.encode({ ir_version: 10, graph: { node, initializer: [{ name: 'v0', dims: [1], data_type: 1, float_data: [1] }], output: [{ name: 'v6000' }] } }).finish();
    const shared = decodeModel(bytes).graph!;
    const plain = onnx.ModelProto.decode(bytes).graph!;
    expect(shared.node!.map((n) => [n.op_type, n.domain, ...n.input!, ...n.output!])).toEqual(plain.node!.map((n) => [n.op_type, n.domain, ...n.input!, ...n.output!]));
    expect([shared.initializer![0]!.name, shared.output![0]!.name]).toEqual(['v0', 'v6000']);
    expect(Buffer.from(encodeModel(decodeModel(bytes)))).toEqual(Buffer.from(bytes));
  });
});
