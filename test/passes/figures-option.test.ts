/**
 * `figures: false`: the pass runs no static shape inference and reports the matrix FLOPs share and
 * the Tensor Core lint as null, and everything else (the model's bytes, the rest of the summary,
 * the audit) is what the default run gives. The default computes both.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FIXTURE_CASES } from '../../src/builder/fixtures.js';
import { GraphBuilder } from '../../src/builder/graph-builder.js';
import { DataType } from '../../src/onnx/data-types.js';
import { decodeModel, encodeModel } from '../../src/onnx/codec.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { renderSummary } from '../../src/report/summary.js';

const seen = vi.hoisted(() => ({ shapeInferences: 0 }));

vi.mock('../../src/onnx/shape-inference.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/onnx/shape-inference.js')>();
  return {
    ...original,
    inferShapes: (...args: Parameters<typeof original.inferShapes>) => {
      seen.shapeInferences++;
      return original.inferShapes(...args);
    },
  };
});

const cases = FIXTURE_CASES.filter((c) => ['transformer-block', 'conv-block', 'control-flow', 'exporter-decoder-kv', 'mlp-training-adam'].includes(c.name));

describe('the figures option', () => {
  beforeEach(() => {
    seen.shapeInferences = 0;
  });

  it('finds its fixtures', () => {
    expect(cases.map((c) => c.name).sort()).toEqual(['control-flow', 'conv-block', 'exporter-decoder-kv', 'mlp-training-adam', 'transformer-block']);
  });

  it.each(cases)('$name: without figures, no shape inference, null figures, and the same model, summary and audit', ({ build, options }) => {
    const bytes = encodeModel(build());
    const full = ampRewrite(decodeModel(bytes), options);
    // A second inference only where symbolic dimensions left FLOPs unknown (taken at 1 for the share).
    expect(seen.shapeInferences).toBe(full.report.summary.matrixFlops?.assumedOne ? 2 : 1);
    seen.shapeInferences = 0;
    const bare = ampRewrite(decodeModel(bytes), { ...options, figures: false });
    expect(seen.shapeInferences).toBe(0);

    expect(Buffer.from(encodeModel(bare.model)).equals(Buffer.from(encodeModel(full.model)))).toBe(true);
    const { matrixFlops, tensorCoreLint, ...rest } = bare.report.summary;
    expect(matrixFlops).toBeNull();
    expect(tensorCoreLint).toBeNull();
    const { matrixFlops: fullFlops, tensorCoreLint: _fullLint, ...fullRest } = full.report.summary;
    expect(rest).toEqual(fullRest);
    expect(fullFlops).not.toBeNull();
    expect(bare.report.nodes).toEqual(full.report.nodes);
  });

  it('the default computes both figures; the summary prints a FLOPs line and the lint only when they were computed', () => {
    // K and N off the multiple of 8: the lint has a finding to print.
    const b = new GraphBuilder('g');
    b.op('MatMul', [b.input('x', DataType.FLOAT, [16, 30]), b.initializer('w', [30, 10], new Float32Array(300).fill(0.1))], {}, { name: 'mm', outputs: ['y'] });
    b.output('y', DataType.FLOAT, [16, 10]);
    const model = b.model();
    const full = ampRewrite(model);
    expect(full.report.summary.matrixFlops).toEqual({ lowPrecision: 2 * 16 * 30 * 10, total: 2 * 16 * 30 * 10, unknownNodes: 0, nodes: 1 });
    expect(full.report.summary.tensorCoreLint?.findings.length).toBe(1);
    expect(renderSummary(full.report.summary)).toMatch(/^Matrix FLOPs in FP16 \(MatMul, Gemm, Conv, Einsum\): 100\.0% of 9\.60 kFLOP$/m);
    expect(renderSummary(full.report.summary)).toContain("Tensor Core lint: 1 of 1 converted matrix ops have dimensions that are not multiples of 8:\n  MatMul 'mm'");

    const bare = renderSummary(ampRewrite(model, { figures: false }).report.summary);
    expect(bare).not.toContain('Matrix FLOPs');
    expect(bare).not.toContain('Tensor Core lint');
    // Everything else is printed as before.
    const others = (text: string) => text.split('\n').filter((line) => !line.startsWith('Matrix FLOPs') && !line.startsWith('Tensor Core lint') && !line.startsWith('  MatMul'));
    expect(others(bare)).toEqual(others(renderSummary(full.report.summary)));
  });

  it('figures must be a boolean', () => {
    expect(() => ampRewrite(cases[0]!.build(), { figures: 'no' as unknown as boolean })).toThrow(/option figures: expected true or false/);
  });
});
