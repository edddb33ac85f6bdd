/** The Tensor Core lint: converted matrix ops whose dimensions are not multiples of 8, with the padding. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { attr, GraphBuilder } from '../../src/builder/graph-builder.js';
import { DataType } from '../../src/onnx/data-types.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { renderAuditMarkdown } from '../../src/report/audit.js';
import { renderSummary } from '../../src/report/summary.js';
import { fixturesDir } from '../support/corpus.js';

const F = DataType.FLOAT;
const filled = (n: number) => new Float32Array(n).fill(0.1);

function matmul(rows: number | string, k: number, n: number) {
  const b = new GraphBuilder('g');
  const x = b.input('x', F, [rows, k]);
  b.op('MatMul', [x, b.initializer('w', [k, n], filled(k * n))], {}, { name: 'mm', outputs: ['y'] });
  b.output('y', F, [rows, n]);
  return b.model();
}

describe('Tensor Core lint', () => {
  it('passes a MatMul whose M, K and N are multiples of 8', () => {
    const lint = ampRewrite(matmul(16, 64, 32)).report.summary.tensorCoreLint;
    expect(lint).toMatchObject({ checked: 1, unknown: 0, findings: [] });
  });

  it('flags K and N off the multiple with the padding that fixes them', () => {
    const result = ampRewrite(matmul(16, 30, 10));
    expect(result.report.summary.tensorCoreLint?.findings).toEqual([
      {
        node: 'mm',
        op: 'MatMul',
        dims: [
          { role: 'K (inner)', size: 30, padTo: 32 },
          { role: 'N (output features)', size: 10, padTo: 16 },
        ],
        message: "MatMul 'mm': K (inner) 30 -> pad to 32, N (output features) 10 -> pad to 16",
      },
    ]);
    const text = renderSummary(result.report.summary);
    expect(text).toContain('Tensor Core lint: 1 of 1 converted matrix ops have dimensions that are not multiples of 8:');
    expect(renderAuditMarkdown(result.report)).toContain('| mm | MatMul | K (inner) | 30 | 32 |');
  });

  it('a symbolic batch is unknown until --dim gives it; then a batch of 12 is flagged', () => {
    const model = matmul('batch', 64, 32);
    expect(ampRewrite(model).report.summary.tensorCoreLint).toMatchObject({ checked: 0, unknown: 1 });
    const sized = ampRewrite(model, { dims: new Map([['batch', 12]]) }).report.summary.tensorCoreLint;
    expect(sized?.findings[0]?.dims).toEqual([{ role: 'M (rows: batch x sequence)', size: 12, padTo: 16 }]);
    expect(ampRewrite(model, { dims: new Map([['batch', 64]]) }).report.summary.tensorCoreLint).toMatchObject({ checked: 1, findings: [] });
    expect(() => ampRewrite(model, { dims: new Map([['batchh', 64]]) })).toThrow(/no graph input has a dimension named 'batchh'/);
  });

  it('Gemm reads transB; Conv checks input and output channels; LSTM its input, hidden size and batch', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [8, 3, 16, 16]);
    const conv = b.op('Conv', [x, b.initializer('cw', [12, 3, 3, 3], filled(12 * 27))], { pads: attr.ints([1, 1, 1, 1]) }, { name: 'conv' });
    const flat = b.op('Flatten', [conv], {}, { name: 'flat' });
    b.op('Gemm', [flat, b.initializer('gw', [20, 12 * 256], filled(20 * 12 * 256))], { transB: attr.int(1) }, { name: 'gemm', outputs: ['y'] });
    b.output('y', F, [8, 20]);
    const s = b.input('s', F, [5, 6, 8]);
    b.op('LSTM', [s, b.initializer('lw', [1, 40, 8], filled(320)), b.initializer('lr', [1, 40, 10], filled(400))], { hidden_size: attr.int(10) }, { name: 'lstm', outputs: ['h'] });
    b.output('h', F, [5, 1, 6, 10]);
    const findings = ampRewrite(b.model(), { forceFp16: ['lstm'] }).report.summary.tensorCoreLint?.findings ?? [];
    expect(Object.fromEntries(findings.map((f) => [f.node, f.dims.map((d) => `${d.role}=${d.size}->${d.padTo}`)]))).toEqual({
      conv: ['input channels per group=3->8', 'output channels=12->16'],
      gemm: ['N (output features)=20->24'],
      lstm: ['hidden size=10->16', 'batch=6->8'],
    });
  });

  it('gives the findings with the same dims off the multiple one frozen list of them', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [4, 64]);
    const first = b.op('MatMul', [x, b.initializer('w1', [64, 64], filled(64 * 64))], {}, { name: 'first' });
    const second = b.op('MatMul', [first, b.initializer('w2', [64, 64], filled(64 * 64))], {}, { name: 'second' });
    b.op('MatMul', [second, b.initializer('w3', [64, 30], filled(64 * 30))], {}, { name: 'third', outputs: ['y'] });
    b.output('y', F, [4, 30]);
    const findings = ampRewrite(b.model()).report.summary.tensorCoreLint?.findings ?? [];
    expect(findings.map((f) => f.message)).toEqual([
      "MatMul 'first': M (rows: batch x sequence) 4 -> pad to 8",
      "MatMul 'second': M (rows: batch x sequence) 4 -> pad to 8",
      "MatMul 'third': N (output features) 30 -> pad to 32, M (rows: batch x sequence) 4 -> pad to 8",
    ]);
    const [a, c, d] = findings.map((f) => f.dims);
    expect(c).toBe(a);
    expect(d).not.toBe(a);
    expect(Object.isFrozen(a) && Object.isFrozen(a?.[0])).toBe(true);
  });

  it('tells apart findings with the same sizes off the multiple in other roles, and counts their FLOPs once each', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [16, 30]);
    const first = b.op('MatMul', [x, b.initializer('w1', [30, 64], filled(30 * 64))], {}, { name: 'inner30' });
    const second = b.op('MatMul', [first, b.initializer('w2', [64, 30], filled(64 * 30))], {}, { name: 'out30' });
    b.op('MatMul', [second, b.initializer('w3', [30, 64], filled(30 * 64))], {}, { name: 'again', outputs: ['y'] });
    b.output('y', F, [16, 64]);
    const summary = ampRewrite(b.model()).report.summary;
    const findings = summary.tensorCoreLint?.findings ?? [];
    expect(findings.map((f) => f.message)).toEqual([
      "MatMul 'inner30': K (inner) 30 -> pad to 32",
      "MatMul 'out30': N (output features) 30 -> pad to 32",
      "MatMul 'again': K (inner) 30 -> pad to 32",
    ]);
    expect(findings[2]?.dims).toBe(findings[0]?.dims);
    expect(findings[1]?.dims).not.toBe(findings[0]?.dims);
    const flops = 2 * 16 * 30 * 64;
    expect(summary.matrixFlops).toEqual({ lowPrecision: 3 * flops, total: 3 * flops, unknownNodes: 0, nodes: 3 });
  });

  it('checks only converted ops, and is off under --target cpu', () => {
    expect(ampRewrite(matmul(16, 30, 10), { forceFp32: ['mm'] }).report.summary.tensorCoreLint).toMatchObject({ checked: 0, findings: [] });
    expect(ampRewrite(matmul(16, 30, 10), { target: 'cpu' }).report.summary.tensorCoreLint).toBeNull();
  });

  it('on the fixtures: the transformer block passes, the conv block flags its RGB stem and 10-class head', () => {
    const lint = (name: string) => rewriteModel(loadModel(path.join(fixturesDir, name, 'model.onnx'))).report.amp.summary.tensorCoreLint;
    expect(lint('transformer-block')).toMatchObject({ checked: 9, unknown: 0, findings: [] });
    expect(lint('conv-block')?.findings.map((f) => f.message)).toEqual(["Conv 'stem': input channels per group 3 -> pad to 8", "Gemm 'fc': N (output features) 10 -> pad to 16"]);
  });
});
