/**
 * The input check: models the ONNX checker rejects are bad input (INVALID_MODEL, exit 2, naming
 * the node or tensor), never a crash and never passed through as "nothing to convert".
 */
import Long from 'long';
import { describe, expect, it } from 'vitest';
import { decodeModel, encodeModel, onnx } from '../../src/onnx/codec.js';
import { checkModel, MAX_TENSOR_BYTES } from '../../src/onnx/check-model.js';
import { DataType } from '../../src/onnx/data-types.js';
import { AmpError } from '../../src/onnx/errors.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { floatTensor, mainGraph, model, node, valueInfo } from '../support/models.js';
import { errorOf } from '../support/errors.js';


/** y = MatMul(x, w): a model the pass converts. */
function matmul(): onnx.ModelProto {
  return model({
    node: [node('MatMul', ['x', 'w'], ['y'], 'mm')],
    input: [valueInfo('x', DataType.FLOAT, [1, 2])],
    output: [valueInfo('y', DataType.FLOAT, [1, 2])],
    initializer: [floatTensor('w', [2, 2], [1, 2, 3, 4])],
  });
}

const copy = (m: onnx.IModelProto): onnx.ModelProto => decodeModel(encodeModel(m));

describe('checkModel', () => {
  it('accepts a valid model', () => {
    expect(() => checkModel(matmul())).not.toThrow();
  });

  it('a model with no graph (a 2-byte file: ir_version 7 and nothing else)', () => {
    const m = decodeModel(Uint8Array.from([0x08, 0x07]));
    const e = errorOf(() => checkModel(m, { source: 'two-bytes.onnx' }));
    expect(e.code).toBe('INVALID_MODEL');
    expect(e.message).toBe('two-bytes.onnx: the model has no graph');
    expect(errorOf(() => rewriteModel(m)).code).toBe('INVALID_MODEL');
  });

  it.each([0, -1])('ir_version %i', (ir) => {
    const m = copy(matmul());
    m.ir_version = ir as never;
    expect(errorOf(() => checkModel(m)).message).toContain(`ir_version ${ir} is not a valid IR version`);
  });

  it('a missing opset import', () => {
    const m = copy(matmul());
    m.opset_import = [];
    expect(errorOf(() => checkModel(m)).message).toContain('imports no opset');
  });

  it('a float weight whose raw byte length is not a multiple of 4', () => {
    const m = copy(matmul());
    const w = mainGraph(m).initializer[0]!;
    w.raw_data = (w.raw_data as Uint8Array).subarray(0, 15);
    const e = errorOf(() => rewriteModel(m));
    expect(e.code).toBe('INVALID_MODEL');
    expect(e.subject).toBe('w');
    expect(e.message).toBe("tensor 'w' (graph): float [2,2] needs 16 bytes of raw_data, it has 15");
    expect(e.exitCode).toBe(2);
  });

  it('typed data with the wrong count or in the wrong field', () => {
    const m = copy(matmul());
    const w = mainGraph(m).initializer[0]!;
    delete (w as Partial<onnx.TensorProto>).raw_data;
    w.float_data = [1, 2, 3];
    expect(errorOf(() => checkModel(m)).message).toContain('needs 4 entries in float_data, it has 3');
    w.float_data = [];
    w.int64_data = [1, 2, 3, 4] as never;
    expect(errorOf(() => checkModel(m)).message).toContain('stores its values in float_data, not int64_data');
    w.int64_data = [];
    expect(errorOf(() => checkModel(m)).message).toContain('has 4 elements but no values');
  });

  it('a tensor bigger than one buffer is MODEL_TOO_LARGE, not a crash', () => {
    const m = copy(matmul());
    const w = mainGraph(m).initializer[0]!;
    w.dims = [MAX_TENSOR_BYTES / 4 + 1] as never;
    const e = errorOf(() => checkModel(m));
    expect(e.code).toBe('MODEL_TOO_LARGE');
    expect(e.message).toContain("tensor 'w'");
  });

  it('duplicate initializer names', () => {
    const m = copy(matmul());
    mainGraph(m).initializer.push(floatTensor('w', [2, 2], [5, 6, 7, 8]));
    expect(errorOf(() => checkModel(m)).message).toBe("graph: initializer 'w' appears twice");
  });

  it('an initializer listed as a graph input (its default value) is accepted once, not twice', () => {
    const m = copy(matmul());
    mainGraph(m).input.push(valueInfo('w', DataType.FLOAT, [2, 2]));
    expect(() => checkModel(m)).not.toThrow();
    mainGraph(m).initializer.push(floatTensor('w', [2, 2], [5, 6, 7, 8]));
    expect(errorOf(() => checkModel(m)).message).toBe("graph: initializer 'w' appears twice");
  });

  it('negative dims are reported even where their product matches the data, as numbers and as Longs', () => {
    const withDims = (dims: Array<number | Long>, bytes: number): onnx.ModelProto => {
      const m = copy(matmul());
      mainGraph(m).initializer.push(onnx.TensorProto.create({ name: 'neg', dims, data_type: DataType.FLOAT, raw_data: new Uint8Array(bytes) }));
      return m;
    };
    for (const [dims, bytes] of [[[-2, -1], 8], [[-1, 0], 0], [[Long.fromNumber(-2), Long.fromNumber(-1)], 8]] as const) {
      expect(errorOf(() => checkModel(withDims([...dims], bytes), { types: false })).message).toMatch(/tensor 'neg' \(graph\): dimension -[12] is negative/);
    }
    // Long dims read in place, never cut to their low 32 bits (1 element, "4 bytes", which the data has):
    // 2^52 + 1 elements is past the byte limit of every Node.js (2^32 on Node 20, 2^53 - 1 from 22 on) ...
    expect(errorOf(() => checkModel(withDims([Long.fromString('4503599627370497')], 4), { types: false })).code).toBe('MODEL_TOO_LARGE');
    // ... and 2^32 + 1 is past Node 20's, or else far from the 4 bytes there are.
    const past32Bits = errorOf(() => checkModel(withDims([Long.fromString('4294967297')], 4), { types: false }));
    if (4 * 4294967297 > MAX_TENSOR_BYTES) expect(past32Bits.code).toBe('MODEL_TOO_LARGE');
    else expect([past32Bits.code, past32Bits.message]).toEqual(['INVALID_MODEL', expect.stringContaining('17179869188')]);
    expect(() => checkModel(withDims([Long.fromNumber(3), 2], 24), { types: false })).not.toThrow();
  });

  it('nodes listed out of order are no cycle; a dim past 2^53 is still checked exactly', () => {
    const m = copy(matmul());
    const graph = mainGraph(m);
    graph.node.unshift(node('Relu', ['y'], ['z'], 'late'));
    expect(() => checkModel(m, { types: false })).not.toThrow();
    const huge = floatTensor('big', [1], [1]);
    huge.dims = [Long.fromString('9007199254740993')];
    graph.initializer.push(huge);
    // 4 bytes per element of 2^53 + 1: a double would have rounded the count to 2^53.
    expect(errorOf(() => checkModel(m, { types: false })).message).toContain('is 36028797018963972 bytes');
  });

  it('two producers of one value', () => {
    const m = copy(matmul());
    mainGraph(m).node.push(node('Relu', ['x'], ['y'], 'again'));
    const e = errorOf(() => checkModel(m));
    expect(e.message).toContain("'y' is defined twice (MatMul node 'mm' and Relu node 'again')");
  });

  it('a node output that shadows a graph input', () => {
    const m = copy(matmul());
    mainGraph(m).node.push(node('Relu', ['y'], ['x'], 'shadow'));
    expect(errorOf(() => checkModel(m)).message).toContain("'x' is defined twice");
  });

  it('empty names', () => {
    const m = copy(matmul());
    mainGraph(m).input[0]!.name = '';
    expect(errorOf(() => checkModel(m)).message).toContain('has an empty name');
    const n = copy(matmul());
    mainGraph(n).initializer[0]!.name = '';
    expect(errorOf(() => checkModel(n)).message).toContain('has an empty name');
  });

  it('a cycle names a node on it', () => {
    const m = model({
      node: [node('Relu', ['b'], ['a'], 'first'), node('Relu', ['a'], ['b'], 'second')],
      input: [valueInfo('x', DataType.FLOAT, [1])],
      output: [valueInfo('a', DataType.FLOAT, [1])],
    });
    const e = errorOf(() => checkModel(m));
    expect(e.message).toMatch(/the nodes form a cycle \(Relu node '(first|second)'/);
    expect(errorOf(() => rewriteModel(m)).code).toBe('INVALID_MODEL');
  });

  it('a node reading its own output is a cycle; a read of a later node is none', () => {
    const self = copy(matmul());
    mainGraph(self).node.push(node('Add', ['y', 'self'], ['self'], 'loop'));
    expect(errorOf(() => checkModel(self, { types: false })).message).toContain("the nodes form a cycle (Add node 'loop' depends on its own output)");
    // Read before its producer in the list, and named by no node at all: sorted or not, no cycle.
    const later = copy(matmul());
    mainGraph(later).node.unshift(node('Add', ['y', 'outer'], ['z'], 'early'));
    expect(() => checkModel(later, { types: false })).not.toThrow();
  });

  it('a cycle inside a subgraph, under a graph that reads names of the outer scope', () => {
    const body = (nodes: onnx.NodeProto[]) =>
      onnx.GraphProto.create({ name: 'body', node: nodes, output: [valueInfo('t', DataType.FLOAT, [1])] });
    const withBody = (nodes: onnx.NodeProto[]) =>
      model({
        node: [
          node('Relu', ['x'], ['r'], 'relu'),
          node('If', ['c'], ['y'], 'if', { attribute: [onnx.AttributeProto.create({ name: 'then_branch', type: 5, g: body(nodes) }), onnx.AttributeProto.create({ name: 'else_branch', type: 5, g: body([node('Relu', ['r'], ['t'], 'e')]) })] }),
        ],
        input: [valueInfo('c', DataType.BOOL, []), valueInfo('x', DataType.FLOAT, [1])],
        output: [valueInfo('y', DataType.FLOAT, [1])],
      });
    expect(() => checkModel(withBody([node('Relu', ['r'], ['u'], 'outer-read'), node('Relu', ['u'], ['t'], 't')]), { types: false })).not.toThrow();
    const cyclic = withBody([node('Relu', ['t'], ['u'], 'b1'), node('Relu', ['u'], ['t'], 'b2')]);
    expect(errorOf(() => checkModel(cyclic, { types: false })).message).toMatch(/^graph\/if\.then_branch: the nodes form a cycle \(Relu node 'b[12]'/);
  });

  it('a string weight into MatMul is a bad input, not "rewritten model invalid"', () => {
    const m = copy(matmul());
    mainGraph(m).initializer[0] = onnx.TensorProto.create({ name: 'w', dims: [2, 2], data_type: DataType.STRING, string_data: ['a', 'b', 'c', 'd'].map((s) => Buffer.from(s)) });
    const e = errorOf(() => rewriteModel(m));
    expect(e.code).toBe('INVALID_MODEL');
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain("MatMul 'mm'");
  });

  it('subgraphs are checked too', () => {
    const body = onnx.GraphProto.create({
      name: 'then',
      node: [node('Relu', ['x'], ['t'], 'r1'), node('Relu', ['x'], ['t'], 'r2')],
      output: [valueInfo('t', DataType.FLOAT, [1])],
    });
    const m = model({
      node: [node('If', ['c'], ['y'], 'if', { attribute: [onnx.AttributeProto.create({ name: 'then_branch', type: 5, g: body }), onnx.AttributeProto.create({ name: 'else_branch', type: 5, g: body })] })],
      input: [valueInfo('c', DataType.BOOL, []), valueInfo('x', DataType.FLOAT, [1])],
      output: [valueInfo('y', DataType.FLOAT, [1])],
    });
    expect(errorOf(() => checkModel(m)).message).toContain("graph/if.then_branch: 't' is defined twice");
  });

  it('control characters in names are escaped in the message', () => {
    const m = copy(matmul());
    mainGraph(m).initializer.push(floatTensor('\u001b[31mred', [1], [1]), floatTensor('\u001b[31mred', [1], [1]));
    const e = errorOf(() => checkModel(m));
    expect(e.message).toContain("'\\x1b[31mred' appears twice");
    expect(e.message).not.toContain('\u001b');
  });
});

describe('checker parity: arity of contrib ops, attribute names and values, LayerNormalization', () => {
  const withNode = (n: onnx.NodeProto, opset = 17, extra: onnx.OperatorSetIdProto[] = []) => {
    const m = model({ node: [n], input: [valueInfo('x', DataType.FLOAT, [2, 4, 8]), valueInfo('w', DataType.FLOAT, [8, 24]), valueInfo('b', DataType.FLOAT, [24])], output: [valueInfo('y', DataType.FLOAT, [2, 4, 8])] }, opset);
    m.opset_import.push(...extra);
    return m;
  };
  const microsoft = [onnx.OperatorSetIdProto.create({ domain: 'com.microsoft', version: 1 })];
  it("a com.microsoft op with too few inputs is refused by ONNX Runtime's schema of it", () => {
    const attention = (inputs: string[]) => node('Attention', inputs, ['y'], 'attn', { domain: 'com.microsoft', attribute: [onnx.AttributeProto.create({ name: 'num_heads', type: 2, i: 2 })] });
    expect(() => checkModel(withNode(attention(['x', 'w', 'b']), 17, microsoft))).not.toThrow();
    expect(errorOf(() => checkModel(withNode(attention(['x']), 17, microsoft))).message).toMatch(/Attention node 'attn': 1 inputs, and com\.microsoft Attention-1 takes \d+ to \d+/);
  });
  it('LayerNormalization with one input is refused at opset 17 (ONNX) and below it (ONNX Runtime\'s own)', () => {
    for (const opset of [13, 17]) {
      expect(errorOf(() => checkModel(withNode(node('LayerNormalization', ['x'], ['y'], 'ln'), opset))).message, `opset ${opset}`).toMatch(/LayerNormalization node 'ln': 1 inputs, and LayerNormalization-(1|17) takes 2 to 3/);
      expect(() => checkModel(withNode(node('LayerNormalization', ['x', 'b'], ['y'], 'ln'), opset)), `opset ${opset}`).not.toThrow();
    }
  });
  it('an empty attribute name and a TENSOR attribute with no value are refused with the checker\'s reasons', () => {
    const relu = node('Relu', ['x'], ['y'], 'relu', { attribute: [onnx.AttributeProto.create({ name: '', type: 2, i: 1 })] });
    expect(errorOf(() => checkModel(withNode(relu))).message).toMatch(/Relu node 'relu': an attribute has an empty name/);
    const constant = node('Constant', [], ['y'], 'c', { attribute: [onnx.AttributeProto.create({ name: 'value', type: 4 })] });
    expect(errorOf(() => checkModel(withNode(constant))).message).toMatch(/attribute 'value' is TENSOR and holds no value \(its field 't' is not set\)/);
  });
});

describe("the explicit domain 'ai.onnx'", () => {
  it('is the default domain, as ONNX Runtime reads it (ONNX 1.23\'s checker refuses it: "No opset import for domain \'ai.onnx\'")', () => {
    for (const imported of ['', 'ai.onnx']) {
      const m = model({ node: [node('Relu', ['x'], ['y'], 'relu', { domain: 'ai.onnx' })], input: [valueInfo('x', DataType.FLOAT, [2])], output: [valueInfo('y', DataType.FLOAT, [2])] });
      m.opset_import = [onnx.OperatorSetIdProto.create({ domain: imported, version: 17 })];
      expect(() => checkModel(m), `imported '${imported}'`).not.toThrow();
      expect(rewriteModel(m).report.amp.nodes.find((n) => n.node === 'relu')?.list, `imported '${imported}'`).toBe('clear');
    }
  });
});
