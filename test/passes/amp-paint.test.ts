/**
 * One tiny graph per painting step of design/algorithm.md section 2, asserting colors by rule
 * code (not by prose), plus the typed-graph rules of section 3.
 */
import { describe, expect, it } from 'vitest';
import { attr, GraphBuilder, valueInfo } from '../../src/builder/graph-builder.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { AmpError } from '../../src/onnx/errors.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { ampRewrite, type AmpOptions } from '../../src/passes/amp.js';
import { renderGraphText } from '../../src/report/graph-text.js';
import { errorOf } from '../support/errors.js';

const F = DataType.FLOAT;
const weight = (b: GraphBuilder, name: string, rows = 4, cols = 4) => b.initializer(name, [rows, cols], new Float32Array(rows * cols).fill(0.5));

function paint(model: onnx.ModelProto, options: AmpOptions = {}) {
  const result = ampRewrite(model, options);
  const byName = new Map(result.report.nodes.map((n) => [n.node, n]));
  const rule = (name: string) => {
    const node = byName.get(name);
    if (!node) throw new Error(`no node '${name}'`);
    return `${node.color}:${node.rule}`;
  };
  return { ...result, rule, text: renderGraphText(result.model) };
}

function castCount(model: onnx.IModelProto): number {
  return (model.graph?.node ?? []).filter((n) => n.op_type === 'Cast').length;
}

describe('step 1, allow', () => {
  it('paints allow-list ops ALLOW', () => {
    const b = new GraphBuilder('g');
    b.op('MatMul', [b.input('x', F, [4, 4]), weight(b, 'w')], {}, { name: 'mm', outputs: ['y'] });
    b.output('y', F, [4, 4]);
    expect(paint(b.model()).rule('mm')).toBe('ALLOW:allow-list');
  });

  it('reports "nothing to convert" and returns the model unchanged when no allow-list op is present', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [4]);
    b.op('Relu', [b.op('Add', [x, x], {}, { name: 'add' })], {}, { name: 'relu', outputs: ['y'] });
    b.output('y', F, [4]);
    const model = b.model();
    const before = Buffer.from(encodeModel(model));
    const result = paint(model);
    expect(result.modified).toBe(false);
    expect(result.report.summary.nothingToConvert).toBe(true);
    expect(result.rule('add')).toBe('NONE:no-allow-ops');
    expect(Buffer.from(encodeModel(result.model)).equals(before)).toBe(true);
  });
});

describe('step 2, deny forward through clear and infer', () => {
  it("paints the design note's example: deny -> infer -> clear -> infer -> clear -> allow -> infer", () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [4, 4]);
    const s = b.op('Softmax', [x], {}, { name: 'deny' });
    const a = b.op('Add', [s, b.scalar('c', 1)], {}, { name: 'infer1' });
    const r = b.op('Reshape', [a, b.ints('shape', [4, 4])], {}, { name: 'clear1' });
    const m = b.op('Mul', [r, b.scalar('k', 2)], {}, { name: 'infer2' });
    const t = b.op('Transpose', [m], {}, { name: 'clear2' });
    const mm = b.op('MatMul', [t, weight(b, 'w')], {}, { name: 'allow' });
    b.op('Add', [mm, weight(b, 'bias')], {}, { name: 'infer3', outputs: ['y'] });
    b.output('y', F, [4, 4]);
    const { rule } = paint(b.model());
    expect(rule('deny')).toBe('DENY:deny-list');
    expect(rule('infer1')).toBe('DENY:deny-upstream');
    expect(rule('clear1')).toBe('DENY:deny-upstream');
    expect(rule('infer2')).toBe('DENY:deny-upstream');
    // Not reachable to a deny/infer node through clear only: left for step 5, which floods it from the MatMul.
    expect(rule('clear2')).toBe('ALLOW:clear-flood');
    expect(rule('allow')).toBe('ALLOW:allow-list');
    expect(rule('infer3')).toBe('NONE:not-between-allow');
  });

  it('names the deny op and the node it came through', () => {
    const b = new GraphBuilder('g');
    const e = b.op('Exp', [b.input('x', F, [4, 4])], {}, { name: 'exp' });
    const a = b.op('Add', [e, e], {}, { name: 'res' });
    const t = b.op('Tanh', [a], {}, { name: 'tanh' });
    b.op('MatMul', [t, weight(b, 'w')], {}, { name: 'mm', outputs: ['y'] });
    b.output('y', F, [4, 4]);
    const result = paint(b.model());
    expect(result.rule('tanh')).toBe('DENY:deny-upstream');
    expect(result.report.nodes.find((n) => n.node === 'tanh')?.reason).toBe("downstream of Exp 'exp' through Add 'res'");
  });
});

describe('step 3, clear and infer between allow', () => {
  it('converts infer and clear ops on a path from one allow op to another', () => {
    const b = new GraphBuilder('g');
    const m1 = b.op('MatMul', [b.input('x', F, [4, 4]), weight(b, 'w1')], {}, { name: 'mm1' });
    const bias = b.op('Add', [m1, weight(b, 'b1')], {}, { name: 'bias' });
    const act = b.op('Tanh', [bias], {}, { name: 'tanh' });
    b.op('MatMul', [act, weight(b, 'w2')], {}, { name: 'mm2', outputs: ['y'] });
    b.output('y', F, [4, 4]);
    const result = paint(b.model());
    expect(result.rule('bias')).toBe('ALLOW:between-allow');
    expect(result.rule('tanh')).toBe('ALLOW:between-allow');
    // x and the three weights cast down, y cast back up: nothing between the MatMuls.
    expect(castCount(result.model)).toBe(1 + 3 + 1);
  });

  it('keeps an fp32 stream that only passes allow ops in fp32 (amended rule: the residual stream)', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [4, 4]);
    const m1 = b.op('MatMul', [x, weight(b, 'w1')], {}, { name: 'mm1' });
    const residual = b.op('Add', [x, m1], {}, { name: 'residual' });
    b.op('MatMul', [residual, weight(b, 'w2')], {}, { name: 'mm2', outputs: ['y'] });
    b.output('y', F, [4, 4]);
    const result = paint(b.model());
    expect(result.rule('residual')).toBe('NONE:fp32-stream');
    expect(result.text).toContain('node residual = Add(x:float, ');
  });
});

describe('step 4, infer after allow (bf16 only)', () => {
  const build = () => {
    const b = new GraphBuilder('g');
    const m = b.op('MatMul', [b.input('x', F, [4, 4]), weight(b, 'w')], {}, { name: 'mm' });
    b.op('Sigmoid', [m], {}, { name: 'sigmoid', outputs: ['y'] });
    b.output('y', F, [4, 4]);
    return b.model();
  };
  it('leaves the trailing infer op fp32 in fp16 mode', () => {
    expect(paint(build()).rule('sigmoid')).toBe('NONE:not-between-allow');
  });
  it('lets it follow the allow op in bf16 mode', () => {
    const result = paint(build(), { mode: 'bf16' });
    expect(result.rule('sigmoid')).toBe('ALLOW:infer-after-allow');
    expect(result.report.summary.mode).toBe('mixed_bfloat16');
  });
});

describe('step 5, allow through clear', () => {
  it('floods clear ops next to allow ops in both directions; the graph output keeps its type', () => {
    const b = new GraphBuilder('g');
    const t = b.op('Transpose', [b.input('x', F, [4, 4])], {}, { name: 'before' });
    const m = b.op('MatMul', [t, weight(b, 'w')], {}, { name: 'mm' });
    b.op('Reshape', [m, b.ints('shape', [16])], {}, { name: 'after', outputs: ['y'] });
    b.output('y', F, [16]);
    const result = paint(b.model());
    expect(result.rule('before')).toBe('ALLOW:clear-flood');
    expect(result.rule('after')).toBe('ALLOW:clear-flood');
    expect(result.text).toContain('node after = Reshape(matmul_1:float16, shape:int64) -> y/fp16:float16');
    expect(result.text).toContain('node y/to_fp32 = Cast to=float(y/fp16:float16) -> y:float');
    expect(result.text).toContain('output y:float');
  });
});

describe('step 6, drop what the schema forbids', () => {
  it('keeps Conv fp32 in bf16 mode at opset 17 (Conv has no bfloat16 before opset 22)', () => {
    const b = new GraphBuilder('g');
    b.op('Conv', [b.input('x', F, [1, 1, 4, 4]), b.initializer('w', [1, 1, 1, 1], Float32Array.of(1))], {}, { name: 'conv', outputs: ['y'] });
    b.op('MatMul', [b.input('a', F, [2, 2]), weight(b, 'w2', 2, 2)], {}, { name: 'mm', outputs: ['z'] });
    b.output('y', F, [1, 1, 4, 4]);
    b.output('z', F, [2, 2]);
    const result = paint(b.model({ '': 17 }), { mode: 'bf16' });
    expect(result.rule('conv')).toBe('NONE:schema-forbids');
    expect(result.rule('mm')).toBe('ALLOW:allow-list');
  });

  it('refuses to convert anything where Cast cannot produce the target type (bf16 before opset 13)', () => {
    const b = new GraphBuilder('g');
    b.op('MatMul', [b.input('x', F, [2, 2]), weight(b, 'w', 2, 2)], {}, { name: 'mm', outputs: ['y'] });
    b.output('y', F, [2, 2]);
    const result = paint(b.model({ '': 12 }), { mode: 'bf16' });
    expect(result.rule('mm')).toBe('NONE:schema-forbids');
    expect(result.modified).toBe(false);
  });
});

describe('step 7, existing Casts', () => {
  it('retargets a Cast to float32 whose readers are all converted; never retargets a Cast from fp16 (folding makes it go instead)', () => {
    const b = new GraphBuilder('g');
    // int8: its integers fit float16 exactly (an int64 Cast stays float32: integer-valued.test.ts).
    const ints = b.op('Cast', [b.input('ids', DataType.INT8, [4, 4])], { to: attr.int(F) }, { name: 'int_to_float' });
    const halves = b.op('Cast', [b.input('h', DataType.FLOAT16, [4, 4])], { to: attr.int(F) }, { name: 'half_to_float' });
    b.op('MatMul', [ints, weight(b, 'w')], {}, { name: 'mm1', outputs: ['y1'] });
    b.op('MatMul', [halves, weight(b, 'w2')], {}, { name: 'mm2', outputs: ['y2'] });
    b.output('y1', F, [4, 4]);
    b.output('y2', F, [4, 4]);
    const result = paint(b.model());
    expect(result.rule('int_to_float')).toBe('ALLOW:cast-retarget');
    expect(result.text).toContain('node int_to_float = Cast to=float16(ids:int8)');
    expect(result.rule('half_to_float')).not.toBe('ALLOW:cast-retarget');
    // fp16 -> fp32 (the model's) -> fp16 (inserted for mm2) is exact: cast-fold.ts lets mm2 read h and drops both.
    expect(result.rule('half_to_float')).toBe('NONE:cast-folded');
    expect(result.text).not.toContain('node half_to_float');
    expect(result.text).toMatch(/node mm2 = MatMul\(h:float16, /);
  });
});

describe('typed graph', () => {
  it('keeps inputs bound to other type variables in their type (Resize scales, Dropout ratio)', () => {
    const b = new GraphBuilder('g');
    const m1 = b.op('MatMul', [b.input('x', F, [1, 1, 2, 2]), weight(b, 'w1', 2, 2)], {}, { name: 'mm1' });
    const up = b.op('Resize', [m1, '', b.initializer('scales', [4], Float32Array.of(1, 1, 2, 2))], {}, { name: 'resize' });
    const dropped = b.op('Dropout', [up, b.scalar('ratio', 0.1)], {}, { name: 'dropout' });
    b.op('MatMul', [dropped, weight(b, 'w2', 4, 4)], {}, { name: 'mm2', outputs: ['y'] });
    b.output('y', F, [1, 1, 4, 4]);
    const result = paint(b.model());
    expect(result.rule('resize')).toBe('ALLOW:between-allow');
    expect(result.rule('dropout')).toBe('ALLOW:between-allow');
    expect(result.text).toContain('node resize = Resize(matmul_0:float16, <none>, scales:float)');
    expect(result.text).toContain('node dropout = Dropout(resize_1:float16, ratio:float)');
  });

  it('shares one Cast per value and type among all readers', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [4, 4]);
    b.op('MatMul', [x, weight(b, 'w1')], {}, { name: 'mm1', outputs: ['y1'] });
    b.op('MatMul', [x, weight(b, 'w2')], {}, { name: 'mm2', outputs: ['y2'] });
    b.output('y1', F, [4, 4]);
    b.output('y2', F, [4, 4]);
    const result = paint(b.model());
    expect(result.model.graph!.node!.filter((n) => n.op_type === 'Cast' && n.input?.[0] === 'x')).toHaveLength(1);
    expect(result.report.nodes.find((n) => n.node === 'mm2')?.castsAdded).toContain('x/to_fp16');
  });

  it('adds no Cast between two fp32 nodes', () => {
    const b = new GraphBuilder('g');
    const s = b.op('Softmax', [b.input('x', F, [4, 4])], {}, { name: 'softmax' });
    b.op('Log', [s], {}, { name: 'log', outputs: ['y'] });
    b.op('MatMul', [b.input('a', F, [4, 4]), weight(b, 'w')], {}, { name: 'mm', outputs: ['z'] });
    b.output('y', F, [4, 4]);
    b.output('z', F, [4, 4]);
    const result = paint(b.model());
    expect(result.text).toContain('node log = Log(softmax_0:float)');
  });
});

describe('overrides', () => {
  const build = () => {
    const b = new GraphBuilder('g');
    const m = b.op('MatMul', [b.input('x', F, [4, 4]), weight(b, 'w')], {}, { name: 'attn/mm' });
    b.op('MatMul', [m, weight(b, 'w2')], {}, { name: 'mlp/mm', outputs: ['y'] });
    b.output('y', F, [4, 4]);
    return b.model();
  };
  it('--force-fp32 by name and by /regex/', () => {
    expect(paint(build(), { forceFp32: ['attn/mm'] }).rule('attn/mm')).toBe('NONE:force-fp32');
    const byRegex = paint(build(), { forceFp32: ['/^mlp\\//'] });
    expect(byRegex.rule('mlp/mm')).toBe('NONE:force-fp32');
    expect(byRegex.rule('attn/mm')).toBe('ALLOW:allow-list');
  });
  it('--force-fp16 converts an op on no list', () => {
    const b = new GraphBuilder('g');
    b.op('Sin', [b.input('x', F, [4])], {}, { name: 'sin', outputs: ['y'] });
    b.output('y', F, [4]);
    expect(paint(b.model(), { forceFp16: ['sin'] }).rule('sin')).toBe('ALLOW:force-fp16');
  });
  it('--force-fp16 converts a deny-list op: the pin wins over the list, and no deny spreads from it', () => {
    const b = new GraphBuilder('g');
    const scores = b.op('MatMul', [b.input('x', F, [4, 4]), weight(b, 'w')], {}, { name: 'scores' });
    const probs = b.op('Softmax', [scores], {}, { name: 'softmax' });
    const scaled = b.op('Mul', [probs, probs], {}, { name: 'square' });
    b.op('MatMul', [scaled, weight(b, 'w2')], {}, { name: 'context', outputs: ['y'] });
    b.output('y', F, [4, 4]);
    expect(paint(b.model()).rule('softmax')).toBe('DENY:deny-list');
    expect(paint(b.model()).rule('square')).toBe('DENY:deny-upstream');
    const forced = paint(b.model(), { forceFp16: ['softmax'] });
    expect(forced.rule('softmax')).toBe('ALLOW:force-fp16');
    expect(forced.rule('square')).toBe('ALLOW:between-allow');
  });
  it('--force-fp16 leaves a deny-list op whose function body cannot run in float16 in float32, saying why (rules/float32-function-bodies.json)', () => {
    const b = new GraphBuilder('g');
    b.op('MeanVarianceNormalization', [b.input('x', F, [2, 3, 4, 4])], {}, { name: 'mvn', outputs: ['y'] });
    b.output('y', F, [2, 3, 4, 4]);
    const forced = paint(b.model(), { forceFp16: ['mvn'] });
    expect(forced.rule('mvn')).toBe('DENY:deny-list');
    expect(forced.report.nodes[0]!.reason).toMatch(
      /^MeanVarianceNormalization is on the deny list: [^;]+; --force-fp16 not applied: MeanVarianceNormalization cannot run in tensor\(float16\): its function body adds a float32 epsilon/,
    );
    expect(forced.modified).toBe(false);
  });
  it('list changes from flags, and from AMP_REWRITE_* environment variables', () => {
    const fromFlags = paint(build(), { listChanges: [{ origin: 'flag', changes: { allow: { remove: ['MatMul'] }, deny: { add: ['MatMul'] } } }] });
    expect(fromFlags.rule('attn/mm')).toBe('DENY:deny-list');
    const fromEnv = paint(build(), { env: { AMP_REWRITE_ALLOWLIST_REMOVE: 'MatMul' } });
    expect(fromEnv.rule('attn/mm')).toBe('NONE:no-allow-ops');
  });
  it('an op left on two lists is an error naming both', () => {
    try {
      ampRewrite(build(), { listChanges: [{ origin: '--deny-add', changes: { deny: { add: ['MatMul'] } } }] });
      expect.unreachable();
    } catch (error) {
      expect((error as AmpError).code).toBe('BAD_OPTION');
      expect((error as AmpError).message).toMatch(/MatMul is on two lists: allow \(default\) and deny \(--deny-add\)/);
    }
  });
});

describe('bad graphs', () => {
  it('an op the default domain does not define is an error naming the node', () => {
    const b = new GraphBuilder('g');
    b.op('NotAnOnnxOp', [b.input('x', F, [4])], {}, { name: 'mystery', outputs: ['y'] });
    b.output('y', F, [4]);
    expect(() => ampRewrite(b.model())).toThrowError(/node NotAnOnnxOp 'mystery': op NotAnOnnxOp is not defined in ai.onnx at opset 17/);
  });
  it('names a model wrote with controls in them (a newline, an escape sequence) stay on the error\'s one line', () => {
    // A fuzzed byte turned an op type into "Conv*\n pads@@@@": the message quoted it raw, on two lines.
    const b = new GraphBuilder('g');
    b.op('Conv\n\u001b[2J', [b.input('x', F, [4])], {}, { name: 'odd\nnode', outputs: ['y'] });
    b.output('y', F, [4]);
    const message = errorOf(() => ampRewrite(b.model())).message;
    expect(message).toBe("node Conv\\n\\x1b[2J 'odd\\nnode': op Conv\\n\\x1b[2J is not defined in ai.onnx at opset 17");
    // Any AmpError: a site that quotes a name raw still gives one line.
    expect(new AmpError('INVALID_MODEL', "tensor 'a\nb\u202e'").message).toBe("tensor 'a\\nb\\u202e'");
  });
  it('a custom op whose output type is unknown makes its readers unprocessable, with the reason', () => {
    const b = new GraphBuilder('g');
    const c = b.op('MyOp', [b.input('x', F, [4, 4])], {}, { name: 'custom', domain: 'org.example' });
    b.op('MatMul', [c, weight(b, 'w')], {}, { name: 'mm', outputs: ['y'] });
    b.output('y', F, [4, 4]);
    const result = paint(b.model({ '': 17, 'org.example': 1 }));
    expect(result.rule('mm')).toBe('NONE:unknown-type');
    expect(result.report.nodes.find((n) => n.node === 'mm')?.reason).toBe("element type of 'myop_0' is unknown");
  });

  it('a custom-domain op without a schema is left fp32 and does not stop the rest', () => {
    const b = new GraphBuilder('g');
    const c = b.op('MyOp', [b.input('x', F, [4, 4])], {}, { name: 'custom', domain: 'org.example' });
    b.valueInfos.push(valueInfo(c, F, [4, 4])); // nothing else could tell a custom op's output type
    b.op('MatMul', [c, weight(b, 'w')], {}, { name: 'mm', outputs: ['y'] });
    b.output('y', F, [4, 4]);
    const result = paint(b.model({ '': 17, 'org.example': 1 }));
    expect(result.rule('custom')).toBe('NONE:no-schema');
    expect(result.rule('mm')).toBe('ALLOW:allow-list');
  });
});

describe('node facts shared by nodes of one schema', () => {
  it('tells an integer Add from a float Add of the same schema, in either order', () => {
    for (const intFirst of [true, false]) {
      const b = new GraphBuilder('g');
      const x = b.input('x', F, [4, 4]);
      const n = b.input('n', DataType.INT64, [4]);
      const addInt = () => b.op('Add', [n, n], {}, { name: 'int_add', outputs: ['m'] });
      if (intFirst) addInt();
      const mm = b.op('MatMul', [x, weight(b, 'w')], {}, { name: 'mm' });
      b.op('MatMul', [b.op('Add', [mm, mm], {}, { name: 'float_add' }), weight(b, 'w2')], {}, { name: 'mm2', outputs: ['y'] });
      if (!intFirst) addInt();
      b.output('y', F, [4, 4]);
      b.output('m', DataType.INT64, [4]);
      const result = paint(b.model());
      expect(result.report.nodes.find((d) => d.node === 'int_add')?.precision).toBe('-');
      expect(result.rule('float_add')).toBe('ALLOW:between-allow');
      expect(result.rule('int_add')).toBe('NONE:no-float-compute');
      expect(result.report.nodes.find((d) => d.node === 'float_add')?.inputTypes).toEqual(['f16', 'f16']);
    }
  });
});
