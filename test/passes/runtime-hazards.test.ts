/**
 * rules/runtime-hazards.json: a Transpose whose perm moves the batch axis into the matrix axes, read by
 * a MatMul, stays float32 (rule runtime-hazard) with the Cast after it; every other perm, and the same
 * perm read by anything but a MatMul, converts as before.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../../src/builder/graph-builder.js';
import { DataType } from '../../src/onnx/data-types.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { repoRoot } from '../support/corpus.js';

const hazards = (JSON.parse(readFileSync(path.join(repoRoot, 'rules/runtime-hazards.json'), 'utf8')) as { hazards: Array<{ id: string; perms: number[][]; readBy: string[] }> }).hazards;

/** x -> Transpose(perm) -> MatMul(., w) (or Relu with `reader`), then a MatMul so the region is float16 on both sides. */
export function transposeInto(perm: number[], reader: 'MatMul' | 'Relu' = 'MatMul') {
  const b = new GraphBuilder('g');
  const rank = perm.length;
  const x = b.input('x', DataType.FLOAT, Array.from({ length: rank }, () => 4));
  const w0 = b.initializer('w0', [4, 4], Float32Array.from({ length: 16 }, (_, i) => (i % 5) / 10));
  const before = b.op('MatMul', [x, w0], {}, { name: 'before' });
  const moved = b.op('Transpose', [before], { perm: { kind: 'ints', value: perm } }, { name: 'transpose' });
  const w = b.initializer('w', [4, 4], Float32Array.from({ length: 16 }, (_, i) => (i % 3) / 10));
  const after = reader === 'MatMul' ? b.op('MatMul', [moved, w], {}, { name: 'reader' }) : b.op('MatMul', [b.op('Relu', [moved], {}, { name: 'reader' }), w], {}, { name: 'mm' });
  b.op('Identity', [after], {}, { name: 'out', outputs: ['y'] });
  b.output('y', DataType.FLOAT);
  return b.model({ '': 18 });
}

const decision = (report: ReturnType<typeof ampRewrite>['report'], name: string) => report.nodes.find((n) => n.node === name);

describe('runtime hazards (rules/runtime-hazards.json)', () => {
  const listed = hazards.find((h) => h.id === 'fused-matmul-trans-batch');
  it('lists the batch-into-matrix perms of ranks 3 to 6 for a Transpose read by MatMul', () => {
    expect(listed?.readBy).toEqual(['MatMul']);
    expect(listed?.perms).toContainEqual([1, 0, 2]);
    expect(listed?.perms).toContainEqual([1, 2, 3, 0]);
  });

  it.each(listed?.perms ?? [])('keeps a Transpose with perm %j before a MatMul float32, the MatMuls float16', (...perm) => {
    const { report, model } = ampRewrite(transposeInto(perm));
    const transpose = decision(report, 'transpose');
    expect(transpose?.rule).toBe('runtime-hazard');
    expect(transpose?.reason).toMatch(/read by MatMul 'reader'.*onnxruntime 1\.30 crashes/);
    expect(decision(report, 'reader')?.color).toBe('ALLOW');
    expect(decision(report, 'before')?.color).toBe('ALLOW');
    // The float16 MatMul reads the Transpose through a Cast to float16.
    const readerInput = model.graph?.node?.find((n) => n.name === 'reader')?.input?.[0];
    const cast = model.graph?.node?.find((n) => n.output?.[0] === readerInput);
    expect(cast?.op_type).toBe('Cast');
    expect(cast?.input?.[0]).toBe(model.graph?.node?.find((n) => n.name === 'transpose')?.output?.[0]);
  });

  it.each([[0, 2, 1], [2, 0, 1], [0, 2, 1, 3], [1, 0, 2, 3], [0, 1, 3, 2]])('converts a Transpose with perm %j as any clear op', (...perm) => {
    const { report } = ampRewrite(transposeInto(perm));
    expect(decision(report, 'transpose')?.color).toBe('ALLOW');
  });

  it('converts a listed perm when no MatMul reads it', () => {
    const { report } = ampRewrite(transposeInto([1, 0, 2], 'Relu'));
    expect(decision(report, 'transpose')?.rule).not.toBe('runtime-hazard');
  });

  it('--force-fp16 on the node wins, as for the other pins', () => {
    const { report } = ampRewrite(transposeInto([1, 0, 2]), { forceFp16: ['transpose'] });
    expect(decision(report, 'transpose')?.color).toBe('ALLOW');
  });
});
