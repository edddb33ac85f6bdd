/**
 * The pass's Cast nodes are built by a constructor of their own (fields kept inside the object),
 * yet are onnx.NodeProto messages indistinguishable from the ones create() makes: same prototype,
 * same own properties in the same order, same JSON, same bytes. Made for a model decoded with
 * shared empty fields, their empty repeated fields are that same shared frozen array.
 */
import { describe, expect, it } from 'vitest';
import { decodeModel, encodeModel } from '../../src/onnx/codec.js';
import { onnx } from '../../src/onnx/generated/onnx.js';
import { castNode, sharesEmptyFields } from '../../src/passes/amp/cast-node.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { FIXTURE_CASES } from '../../src/builder/fixtures.js';

const created = (to: number) =>
  onnx.NodeProto.create({
    input: ['x'],
    output: ['x/to_fp16'],
    name: 'x/to_fp16',
    op_type: 'Cast',
    attribute: [onnx.AttributeProto.create({ name: 'to', i: to, type: onnx.AttributeProto.AttributeType.INT })],
  });

const encodeNode = (node: onnx.INodeProto) => Buffer.from(onnx.NodeProto.encode(node).finish());

describe('Cast nodes', () => {
  it.each([false, true])('shared empty fields %s: an onnx.NodeProto with create()\'s own properties, in its order, and its bytes', (shared) => {
    const cast = castNode('x', 'x/to_fp16', 10, 'x/to_fp16', shared);
    const reference = created(10);
    expect(Object.getPrototypeOf(cast)).toBe(onnx.NodeProto.prototype);
    expect(cast).toBeInstanceOf(onnx.NodeProto);
    expect(cast.constructor).toBe(onnx.NodeProto);
    expect(Object.keys(cast)).toEqual(Object.keys(reference));
    expect(JSON.stringify(cast)).toBe(JSON.stringify(reference));
    const attribute = cast.attribute[0]!;
    expect(Object.getPrototypeOf(attribute)).toBe(onnx.AttributeProto.prototype);
    expect(Object.keys(attribute)).toEqual(Object.keys(reference.attribute[0]!));
    expect(encodeNode(cast).equals(encodeNode(reference))).toBe(true);
    expect(onnx.NodeProto.decode(encodeNode(cast)).attribute[0]!.i!.toString()).toBe('10');
  });

  it('own empty arrays by default (they can be pushed into); the frozen shared one when asked', () => {
    const own = castNode('x', 'y', 1, 'y');
    own.metadata_props.push(onnx.StringStringEntryProto.create({ key: 'k', value: 'v' }));
    expect(castNode('x', 'y', 1, 'y').metadata_props).toEqual([]);
    const shared = castNode('x', 'y', 1, 'y', true);
    expect(shared.metadata_props).toBe(onnx.NodeProto.prototype.metadata_props);
    expect(shared.attribute[0]!.floats).toBe(onnx.NodeProto.prototype.metadata_props);
    expect(Object.isFrozen(shared.device_configurations)).toBe(true);
    // Each Cast has its own wiring: the graph model edits input and output in place.
    expect(shared.input).not.toBe(castNode('x', 'y', 1, 'y', true).input);
  });

  it("the pass makes its Casts like the model's own nodes", () => {
    const { build, options } = FIXTURE_CASES.find((c) => c.name === 'transformer-block')!;
    const bytes = encodeModel(build());
    for (const sharedEmptyFields of [false, true]) {
      const model = decodeModel(bytes, { sharedEmptyFields });
      expect(sharesEmptyFields(model.graph!.node![0])).toBe(sharedEmptyFields);
      const { model: rewritten } = ampRewrite(model, { ...options, inPlace: true });
      const casts = rewritten.graph!.node!.filter((n) => n.op_type === 'Cast');
      expect(casts.length).toBeGreaterThan(0);
      for (const cast of casts) expect(sharesEmptyFields(cast)).toBe(sharedEmptyFields);
    }
  });
});
