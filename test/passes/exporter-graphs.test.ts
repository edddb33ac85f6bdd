/**
 * Graphs in the shapes real exporters produce (issue 11): unsorted node lists, ONNX Runtime's
 * fused transformer ops, local functions, decoders with a key-value cache.
 */
import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../../src/builder/graph-builder.js';
import { buildDynamoFunctions, buildKvDecoder, buildUnsorted } from '../../src/builder/recipes/exporter-graphs.js';
import { DataType } from '../../src/onnx/data-types.js';
import { AmpError } from '../../src/onnx/errors.js';
import { encodeModel } from '../../src/onnx/codec.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { validateModel } from '../../src/onnx/validate.js';
import { buildControlFlow } from '../../src/builder/recipes/small-models.js';
import { renderAuditMarkdown } from '../../src/report/audit.js';
import { renderSummary } from '../../src/report/summary.js';

const F = DataType.FLOAT;

function expectAmpError(run: () => unknown, code: string, pattern: RegExp): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AmpError);
    expect((error as AmpError).code).toBe(code);
    expect((error as AmpError).exitCode).toBe(2);
    expect((error as AmpError).message).toMatch(pattern);
    return;
  }
  throw new Error('expected an AmpError');
}

describe('node order', () => {
  it('rewrites a graph whose nodes are not in topological order, emitting a sorted, valid model', () => {
    const model = buildUnsorted();
    expect(validateModel(model).length).toBeGreaterThan(0); // the input itself is out of order
    const { model: out, report } = ampRewrite(model);
    expect(validateModel(out)).toEqual([]);
    const order = (out.graph?.node ?? []).map((n) => n.name);
    expect(order.indexOf('mm1')).toBeLessThan(order.indexOf('mm2'));
    expect(order.indexOf('mm2')).toBeLessThan(order.indexOf('softmax'));
    expect(report.nodes.find((n) => n.node === 'mm1')?.color).toBe('ALLOW');
    expect(report.nodes.find((n) => n.node === 'softmax')?.color).toBe('DENY');
  });

  it('keeps the file order where it is free (stable sort)', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [4, 4]);
    // Two independent chains, written interleaved; only 'late' is out of place.
    b.op('Relu', ['a'], {}, { name: 'late', outputs: ['b'] });
    b.op('MatMul', [x, x], {}, { name: 'first', outputs: ['a'] });
    b.op('Abs', [x], {}, { name: 'free', outputs: ['c'] });
    b.output('b', F, [4, 4]);
    b.output('c', F, [4, 4]);
    const { model } = ampRewrite(b.model());
    expect((model.graph?.node ?? []).filter((n) => n.op_type !== 'Cast').map((n) => n.name)).toEqual(['first', 'late', 'free']);
  });

  it('leaves an already sorted model in its order (the sort changes nothing)', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [4, 4]);
    b.op('Relu', [b.op('Abs', [x], {}, { name: 'abs' })], {}, { name: 'relu', outputs: ['y'] });
    b.output('y', F, [4, 4]);
    const model = b.model();
    const before = Buffer.from(encodeModel(model));
    ampRewrite(model);
    expect(Buffer.from(encodeModel(model)).equals(before)).toBe(true);
  });

  it("reports a real cycle as the input's problem (BAD_GRAPH, exit 2), naming a node", () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [4, 4]);
    b.op('MatMul', [x, 'q'], {}, { name: 'p', outputs: ['p_out'] });
    b.op('Relu', ['p_out'], {}, { name: 'q_node', outputs: ['q'] });
    b.output('q', F, [4, 4]);
    expectAmpError(() => ampRewrite(b.model()), 'BAD_GRAPH', /cycle: MatMul 'p'/);
  });

  it("reports a read of an undefined value as the input's problem", () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [4, 4]);
    b.op('MatMul', [x, 'nowhere'], {}, { name: 'mm', outputs: ['y'] });
    b.output('y', F, [4, 4]);
    expectAmpError(() => ampRewrite(b.model()), 'BAD_GRAPH', /MatMul 'mm' reads 'nowhere'/);
  });
});

describe('one fp32-stream rule in fp16 and bf16', () => {
  const residualBlock = () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [4, 4]);
    const w = b.initializer('w', [4, 4], new Float32Array(16).fill(0.25));
    const h = b.op('MatMul', [x, w], {}, { name: 'proj' });
    const biased = b.op('Add', [h, b.initializer('bias', [4], new Float32Array(4).fill(0.1))], {}, { name: 'bias_add' });
    const r = b.op('Add', [x, biased], {}, { name: 'residual' });
    const joined = b.op('Concat', [h, x], { axis: { kind: 'int', value: -1 } }, { name: 'concat' });
    b.op('Relu', [r], {}, { name: 'relu', outputs: ['y'] });
    b.op('Identity', [joined], {}, { name: 'id', outputs: ['z'] });
    b.output('y', F, [4, 4]);
    b.output('z', F, [4, 8]);
    return b.model();
  };

  for (const mode of ['fp16', 'bf16'] as const) {
    it(`${mode}: the residual Add(x, attention) stays fp32 with the fp32-stream reason naming x`, () => {
      const { report } = ampRewrite(residualBlock(), { mode });
      const residual = report.nodes.find((n) => n.node === 'residual');
      expect(residual?.color).toBe('NONE');
      expect(residual?.rule).toBe('fp32-stream');
      expect(residual?.reason).toMatch(/'x'/);
    });

    it(`${mode}: a clear op joining an allow output with an fp32 stream is not flooded`, () => {
      const { report } = ampRewrite(residualBlock(), { mode });
      expect(report.nodes.find((n) => n.node === 'concat')?.color).toBe('NONE');
    });
  }

  it('bf16 still lets an infer op fed only by an allow op and weights follow it', () => {
    const { report } = ampRewrite(residualBlock(), { mode: 'bf16' });
    expect(report.nodes.find((n) => n.node === 'bias_add')?.rule).toBe('infer-after-allow');
  });
});

describe('a truthful audit', () => {
  const mlp = () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [4, 4]);
    const w = b.initializer('w', [4, 4], new Float32Array(16).fill(0.25));
    const h = b.op('MatMul', [x, w], {}, { name: 'mm1' });
    b.op('MatMul', [b.op('Relu', [h], {}, { name: 'relu' }), w], {}, { name: 'mm2', outputs: ['y'] });
    b.output('y', F, [4, 4]);
    return b.model();
  };

  it('control-flow nodes say their bodies are painted in their own scope, not that no float flows through them', () => {
    const { report } = ampRewrite(buildControlFlow());
    const flow = report.nodes.filter((n) => ['If', 'Loop', 'Scan'].includes(n.op));
    expect(flow.length).toBeGreaterThan(0);
    for (const node of flow) {
      expect(node.rule).toBe('control-flow');
      expect(node.reason).toMatch(/painted in their own scope/);
      expect(node.reason).not.toMatch(/no float32 data/);
    }
  });

  it('the Cast that keeps a graph output fp32 is attributed to the node that writes the output', () => {
    const { model, report } = ampRewrite(mlp());
    const mm2 = report.nodes.find((n) => n.node === 'mm2');
    expect(mm2?.castsOnOutputs).toHaveLength(1);
    const cast = (model.graph?.node ?? []).find((n) => n.name === mm2?.castsOnOutputs[0]);
    expect(cast?.op_type).toBe('Cast');
    expect(cast?.output).toEqual(['y']);
    expect(renderAuditMarkdown(report)).toMatch(/after output: /);
  });

  it('an already converted model is summarised as already mixed precision, its MatMuls counted', () => {
    const once = ampRewrite(mlp()).model;
    const { report } = ampRewrite(once);
    expect(report.summary.nothingToConvert).toBe(true);
    expect(report.summary.alreadyLowPrecision).toEqual([{ op: 'MatMul', type: 'float16', count: 2 }]);
    expect(report.nodes.find((n) => n.node === 'mm1')?.rule).toBe('already-low-precision');
    expect(renderSummary(report.summary)).toMatch(/Already mixed precision: 2 MatMul in float16/);
  });
});

describe('model-local functions (dynamo exporter)', () => {
  it('inlines every call, nested ones included, and paints each call site', () => {
    const { model, report } = ampRewrite(buildDynamoFunctions());
    expect(model.functions ?? []).toHaveLength(0);
    expect((model.graph?.node ?? []).some((n) => n.domain === 'pkg.torch.model')).toBe(false);
    expect(validateModel(model)).toEqual([]);
    const matmuls = report.nodes.filter((n) => n.op === 'MatMul');
    expect(matmuls.map((n) => n.node).sort()).toEqual(['block_1/fc1/matmul', 'block_1/fc2/matmul', 'head_1/matmul']);
    for (const node of matmuls) expect(node.color).toBe('ALLOW');
    expect(report.nodes.find((n) => n.node === 'residual')?.rule).toBe('fp32-stream');
  });

  it("substitutes the call's attribute for the body's ref_attr_name, and the function's default when the call has none", () => {
    const withCall = ampRewrite(buildDynamoFunctions()).model;
    const alpha = (m: typeof withCall) => (m.graph?.node ?? []).find((n) => n.op_type === 'LeakyRelu')?.attribute?.find((a) => a.name === 'alpha')?.f;
    expect(alpha(withCall)).toBeCloseTo(0.1);
    const bare = buildDynamoFunctions();
    bare.graph!.node!.find((n) => n.name === 'block_1')!.attribute = [];
    expect(alpha(ampRewrite(bare).model)).toBeCloseTo(0.01);
  });

  it('a function that cannot be inlined is left as it is with the reason in the audit, never silently', () => {
    const model = buildDynamoFunctions();
    model.functions![0]!.opset_import![0]!.version = 17; // Linear imports ai.onnx 17, the model 18
    const { report } = ampRewrite(model);
    const head = report.nodes.find((n) => n.node === 'head_1');
    expect(head?.rule).toBe('local-function');
    expect(head?.reason).toMatch(/imports ai.onnx opset 17 but the model imports 18/);
  });
});

describe('decoder with a key-value cache', () => {
  const io = (model: { graph?: { input?: Array<{ name?: string | null; type?: unknown }> | null; output?: unknown } | null }, name: string) =>
    [...((model.graph?.input ?? []) as onnx.IValueInfoProto[]), ...((model.graph?.output ?? []) as onnx.IValueInfoProto[])].find((v) => v.name === name)?.type?.tensor_type?.elem_type;
  const cacheNames = ['past_key_values.0.key', 'past_key_values.0.value', 'present.0.key', 'present.0.value'];

  it('keeps the cache in its declared type by default, converting GroupQueryAttention with its cache type variable', () => {
    const { model, report } = ampRewrite(buildKvDecoder());
    for (const name of cacheNames) expect(io(model, name), name).toBe(DataType.FLOAT);
    expect(report.nodes.find((n) => n.op === 'GroupQueryAttention')?.color).toBe('ALLOW');
    const gqa = (model.graph?.node ?? []).find((n) => n.op_type === 'GroupQueryAttention');
    expect(gqa?.input?.[3]).toBe('past_key_values.0.key/to_fp16'); // T_CACHE follows T (rules/tied-type-variables.json)
    expect(validateModel(model)).toEqual([]);
  });

  it('--kv-cache fp16 declares past and present float16 and drops the Casts at the boundary', () => {
    const { model, report } = ampRewrite(buildKvDecoder(), { kvCache: 'fp16' });
    for (const name of cacheNames) expect(io(model, name), name).toBe(DataType.FLOAT16);
    const nodes = model.graph?.node ?? [];
    const gqa = nodes.find((n) => n.op_type === 'GroupQueryAttention');
    expect(gqa?.input?.slice(3, 5)).toEqual(['past_key_values.0.key', 'past_key_values.0.value']);
    expect(gqa?.output?.slice(1)).toEqual(['present.0.key', 'present.0.value']);
    expect(nodes.filter((n) => n.op_type === 'Cast' && [...(n.input ?? []), ...(n.output ?? [])].some((v) => cacheNames.includes(v)))).toEqual([]);
    expect(validateModel(model)).toEqual([]);
    expect(report.summary.kvCacheFp16).toEqual({ inputs: cacheNames.slice(0, 2), outputs: cacheNames.slice(2) });
    const gqaAudit = report.nodes.find((n) => n.op === 'GroupQueryAttention');
    for (const cast of gqaAudit?.castsAdded ?? []) expect(nodes.some((n) => n.name === cast), cast).toBe(true);
    const plain = ampRewrite(buildKvDecoder()).report.summary;
    expect(report.summary.targetCasts).toBe(plain.targetCasts - 2);
    expect(report.summary.fp32Casts).toBe(plain.fp32Casts - 2);
  });

  it('--kv-cache fp16 on a model without a cache is a bad option naming what was looked for', () => {
    expectAmpError(() => ampRewrite(buildUnsorted(), { kvCache: 'fp16' }), 'BAD_OPTION', /no float32 key-value cache input or output/);
  });

  it('in bf16 the embedding Gather and the residual stay fp32, as in fp16', () => {
    for (const mode of ['fp16', 'bf16'] as const) {
      const { report } = ampRewrite(buildKvDecoder(), { mode });
      expect(report.nodes.find((n) => n.node === 'embed_tokens')?.color, mode).toBe('NONE');
      expect(report.nodes.find((n) => n.node === 'layers.0/residual_add')?.color, mode).not.toBe('ALLOW');
    }
  });
});

describe('weights read inside loop bodies', () => {
  it('casts an outer-scope weight once where it is defined, not inside the Loop body or the If branches', () => {
    const { model } = ampRewrite(buildControlFlow());
    const main = model.graph?.node ?? [];
    const weightCasts = main.filter((n) => n.op_type === 'Cast' && n.input?.[0] === 'w');
    expect(weightCasts).toHaveLength(1);
    const loop = main.find((n) => n.op_type === 'Loop');
    const body = loop?.attribute?.find((a) => a.name === 'body')?.g;
    expect((body?.node ?? []).filter((n) => n.op_type === 'Cast' && n.input?.[0] === 'w')).toEqual([]);
    expect((body?.node ?? []).find((n) => n.op_type === 'MatMul')?.input?.[1]).toBe(weightCasts[0]?.output?.[0]);
    expect(validateModel(model)).toEqual([]);
  });
});

describe('a decoder cache built from plain ops (Optimum-style Concat of past and new keys)', () => {
  const plainDecoder = () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [1, 2, 8]);
    const past = b.input('past_key_values.0.key', F, [1, 3, 8]);
    const k = b.op('MatMul', [x, b.initializer('wk', [8, 8], new Float32Array(64).fill(0.1))], {}, { name: 'k_proj' });
    const keys = b.op('Concat', [past, k], { axis: { kind: 'int', value: 1 } }, { name: 'concat_past', outputs: ['present.0.key'] });
    const scores = b.op('MatMul', [x, b.op('Transpose', [keys], { perm: { kind: 'ints', value: [0, 2, 1] } }, { name: 'keys_t' })], {}, { name: 'scores' });
    b.op('Softmax', [scores], { axis: { kind: 'int', value: -1 } }, { name: 'softmax', outputs: ['y'] });
    b.output('y', F, [1, 2, 5]);
    b.output('present.0.key', F, [1, 5, 8]);
    return b.model();
  };

  for (const mode of ['fp16', 'bf16'] as const) {
    it(`${mode}: found by name, retyped, and the result is valid with at most one Cast per cache edge`, () => {
      const { model, report } = ampRewrite(plainDecoder(), { mode, kvCache: 'fp16' });
      expect(validateModel(model)).toEqual([]);
      expect(report.summary.kvCacheFp16).toEqual({ inputs: ['past_key_values.0.key'], outputs: ['present.0.key'] });
      const nodes = model.graph?.node ?? [];
      const castOf = (name: string) => nodes.filter((n) => n.op_type === 'Cast' && n.input?.[0] === name);
      expect(castOf('past_key_values.0.key').length).toBeLessThanOrEqual(1);
      const writer = nodes.find((n) => n.output?.includes('present.0.key'));
      expect(writer).toBeDefined();
    });
  }
});
