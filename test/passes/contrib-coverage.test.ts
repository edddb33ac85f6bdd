/**
 * Every com.microsoft op that ONNX Runtime's CPU or CUDA provider registers (its
 * docs/OperatorKernels.md, copied to ../shared/reference) and every op of our contrib schema
 * table is on one of the four lists or, deliberately, in rules/unlisted.json with a reason.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { attr, GraphBuilder } from '../../src/builder/graph-builder.js';
import { DataType } from '../../src/onnx/data-types.js';
import { knownOpTypes, schemaFor } from '../../src/onnx/schema.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { buildOpLists, readUnlistedOps } from '../../src/passes/amp/op-lists.js';
import { kernelsFile, registeredKernels } from '../support/operator-kernels.js';

const registeredOps = (markdown: string): Map<string, Set<string>> =>
  new Map([...registeredKernels(markdown)].map(([section, ops]) => [section, new Set(ops.keys())]));

const lists = buildOpLists();
const covered = (domain: string, op: string): boolean => lists.lookup(domain, op) !== undefined || lists.unlistedReason(domain, op) !== undefined;

describe('contrib op coverage', () => {
  it('every op of the com.microsoft schema table is on a list or deliberately unlisted', () => {
    const missing = knownOpTypes('com.microsoft').filter((op) => !covered('com.microsoft', op));
    expect(missing).toEqual([]);
    expect(knownOpTypes('com.microsoft').length).toBeGreaterThanOrEqual(128);
  });

  it('rules/unlisted.json gives every entry a reason, names real ops, and puts none on a list too', () => {
    for (const entry of readUnlistedOps()) {
      expect(entry.reason.length, entry.op).toBeGreaterThan(20);
      expect(knownOpTypes(entry.domain ?? '').includes(entry.op), entry.op).toBe(true);
      expect(lists.lookup(entry.domain, entry.op), entry.op).toBeUndefined();
    }
  });

  it.skipIf(!existsSync(kernelsFile))('every com.microsoft op the CPU and CUDA providers register is covered (../shared/reference/OperatorKernels.md)', () => {
    const sections = registeredOps(readFileSync(kernelsFile, 'utf8'));
    const contrib = [...(sections.get('CPUExecutionProvider com.microsoft') ?? []), ...(sections.get('CUDAExecutionProvider com.microsoft') ?? [])];
    expect(contrib.length).toBeGreaterThan(60);
    expect(contrib.filter((op) => !covered('com.microsoft', op))).toEqual([]);
  });

  it.skipIf(!existsSync(kernelsFile))('every default-domain op the CPU and CUDA providers register has a schema and a list (memory copies aside)', () => {
    const sections = registeredOps(readFileSync(kernelsFile, 'utf8'));
    const registered = [...(sections.get('CPUExecutionProvider ai.onnx') ?? []), ...(sections.get('CUDAExecutionProvider ai.onnx') ?? [])];
    // ONNX's own ops come from its changelog; ONNX Runtime's additions need our hand-written schemas.
    expect(registered.filter((op) => !/^Memcpy/.test(op) && !knownOpTypes('').includes(op))).toEqual([]);
    for (const op of ['Affine', 'Crop', 'DynamicSlice', 'ImageScaler', 'ParametricSoftplus', 'Scale', 'ScaledTanh', 'SimplifiedLayerNormalization']) {
      expect(schemaFor('', op, 1), op).toBeDefined();
      expect(covered('', op), op).toBe(true);
    }
  });

  it.skipIf(!existsSync(kernelsFile))("ONNX Runtime's default-domain registrations used by its fusions have a schema and a list", () => {
    const sections = registeredOps(readFileSync(kernelsFile, 'utf8'));
    expect(sections.get('CPUExecutionProvider ai.onnx')?.has('SimplifiedLayerNormalization')).toBe(true);
    expect(schemaFor('', 'SimplifiedLayerNormalization', 17)).toBeDefined();
    expect(lists.lookup('', 'SimplifiedLayerNormalization')?.list).toBe('deny');
  });

  it('fused ops follow the rule of what they fuse: normalisation deny, activations infer, attention allow', () => {
    for (const op of ['SkipLayerNormalization', 'SkipSimplifiedLayerNormalization', 'EmbedLayerNormalization', 'GroupNorm', 'SkipGroupNorm']) {
      expect(lists.lookup('com.microsoft', op)?.list, op).toBe(lists.lookup('', 'LayerNormalization')?.list);
    }
    for (const op of ['FastGelu', 'BiasGelu', 'QuickGelu', 'BiasSplitGelu', 'BiasAdd', 'Gelu']) {
      expect(lists.lookup('com.microsoft', op)?.list, op).toBe(lists.lookup('', 'Gelu')?.list);
    }
    for (const op of ['Attention', 'MultiHeadAttention', 'GroupQueryAttention', 'PackedAttention', 'DecoderMaskedMultiHeadAttention', 'RotaryEmbedding', 'GemmFastGelu']) {
      expect(lists.lookup('com.microsoft', op)?.list, op).toBe('allow');
    }
  });

  it("the audit shows a deliberately unlisted op's reason", () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', DataType.FLOAT, [4, 4]);
    const w = b.initializer('w', [4, 4], new Float32Array(16).fill(0.25));
    const y = b.op('MatMul', [x, w], {}, { name: 'mm' });
    b.op('Unique', [y], { sorted: attr.int(1) }, { name: 'uniq', domain: 'com.microsoft', outputs: ['u'] });
    b.output('u', DataType.FLOAT);
    const { report } = ampRewrite(b.model({ '': 17, 'com.microsoft': 1 }));
    const node = report.nodes.find((n) => n.node === 'uniq');
    expect(node?.rule).toBe('unlisted');
    expect(node?.reason).toMatch(/deliberately on no list.*merge distinct/);
  });
});
