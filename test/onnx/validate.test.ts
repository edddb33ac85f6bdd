/** Validation after the rewrite catches what would make a model invalid, naming the node. */
import { describe, expect, it } from 'vitest';
import { attr, GraphBuilder } from '../../src/builder/graph-builder.js';
import { DataType } from '../../src/onnx/data-types.js';
import { validateModel } from '../../src/onnx/validate.js';

const F = DataType.FLOAT;

describe('validateModel', () => {
  it('accepts a well-formed mixed-precision graph', () => {
    const b = new GraphBuilder('g');
    const x = b.op('Cast', [b.input('x', F, [2, 2])], { to: attr.int(DataType.FLOAT16) }, { name: 'cast' });
    const w = b.initializer('w', [2, 2], new Uint8Array(8), DataType.FLOAT16);
    b.op('MatMul', [x, w], {}, { name: 'mm', outputs: ['y'] });
    b.output('y', DataType.FLOAT16, [2, 2]);
    expect(validateModel(b.model())).toEqual([]);
  });

  it('reports mixed types on one type variable, a type the schema forbids, a read before definition, two producers, and a wrong value_info', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [2, 2]);
    const half = b.initializer('h', [2, 2], new Uint8Array(8), DataType.FLOAT16);
    b.op('MatMul', [x, half], {}, { name: 'mixed', outputs: ['m'] });
    b.op('Relu', [b.input('ints', DataType.UINT16, [2])], {}, { name: 'forbidden', outputs: ['r'] });
    b.op('Relu', ['later'], {}, { name: 'early', outputs: ['e'] });
    b.op('Relu', [x], {}, { name: 'late', outputs: ['later'] });
    b.op('Relu', [x], {}, { name: 'twice', outputs: ['later'] });
    b.op('Abs', [x], {}, { name: 'abs', outputs: ['a'] });
    b.output('a', DataType.FLOAT16, [2, 2]);
    const messages = validateModel(b.model()).map((p) => `${p.node}: ${p.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^mixed: MatMul 'mixed': 'x' is tensor\(float\) but 'h' is tensor\(float16\), both bound to T/),
        expect.stringMatching(/^forbidden: Relu 'forbidden': input 'ints' is tensor\(uint16\), not one of/),
        expect.stringMatching(/^early: Relu 'early' reads 'later' before anything in graph defines it/),
        expect.stringMatching(/^twice: Relu 'twice' writes 'later', which already has a producer/),
        expect.stringMatching(/'a' is declared tensor\(float16\) but computed as tensor\(float\)/),
      ]),
    );
  });
});
