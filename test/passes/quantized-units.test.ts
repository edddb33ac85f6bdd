/**
 * Quantized node units (rules/quantized-units.json) are left exactly as they are: a QDQ Conv
 * (DequantizeLinear -> Conv -> QuantizeLinear) gets no Cast and keeps every node byte for byte,
 * the audit says `quantized-unit`, ONNX Runtime's outputs for the unit are identical, and a float
 * MatMul outside the unit still converts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../../src/builder/graph-builder.js';
import { decodeModel, encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { onnx } from '../../src/onnx/generated/onnx.js';
import { isKnownDomain, schemaVersions } from '../../src/onnx/schema.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { readQuantizedUnitsFile } from '../../src/passes/amp/quantized-units.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { renderSummary } from '../../src/report/summary.js';

const F = DataType.FLOAT;

/**
 * x -> Q -> DQ ; DQ(w int8), DQ(bias int32) -> Conv -> Q -> DQ -> y_q (the unit ORT fuses into
 * QLinearConv), beside a float branch z -> MatMul -> y_f.
 */
function qdqConvModel(): onnx.ModelProto {
  const b = new GraphBuilder('qdq_conv');
  const x = b.input('x', F, [1, 4, 12, 12]);
  const xScale = b.scalar('x_scale', 0.02);
  const xZero = b.initializer('x_zero', [], Uint8Array.of(128), DataType.UINT8);
  const xq = b.op('QuantizeLinear', [x, xScale, xZero], {}, { name: 'x_q' });
  const xdq = b.op('DequantizeLinear', [xq, xScale, xZero], {}, { name: 'x_dq' });
  const weights = Uint8Array.from({ length: 8 * 4 * 3 * 3 }, (_, i) => (((i * 37) % 200) - 100) & 0xff);
  const w = b.initializer('w_q', [8, 4, 3, 3], weights, DataType.INT8);
  const wScale = b.scalar('w_scale', 0.01);
  const wZero = b.initializer('w_zero', [], Uint8Array.of(0), DataType.INT8);
  const wdq = b.op('DequantizeLinear', [w, wScale, wZero], {}, { name: 'w_dq' });
  const bias = b.initializer('b_q', [8], Int32Array.of(50, -20, 7, 0, 300, -301, 12, 99), DataType.INT32);
  const bScale = b.scalar('b_scale', 0.0002);
  const bZero = b.initializer('b_zero', [], Int32Array.of(0), DataType.INT32);
  const bdq = b.op('DequantizeLinear', [bias, bScale, bZero], {}, { name: 'b_dq' });
  const conv = b.op('Conv', [xdq, wdq, bdq], {}, { name: 'conv' });
  const yScale = b.scalar('y_scale', 0.01);
  const yZero = b.initializer('y_zero', [], Uint8Array.of(128), DataType.UINT8);
  const yq = b.op('QuantizeLinear', [conv, yScale, yZero], {}, { name: 'y_q' });
  b.op('DequantizeLinear', [yq, yScale, yZero], {}, { name: 'y_dq', outputs: ['y_q_out'] });
  b.output('y_q_out', F, [1, 8, 10, 10]);
  const z = b.input('z', F, [2, 4]);
  b.op('MatMul', [z, b.initializer('wf', [4, 4], new Float32Array(16).fill(0.25))], {}, { name: 'float_mm', outputs: ['y_f'] });
  b.output('y_f', F, [2, 4]);
  return b.model({ '': 13 });
}

function rules(result: ReturnType<typeof ampRewrite>): Map<string, string> {
  return new Map(result.report.nodes.map((n) => [n.node, `${n.color}:${n.rule}`]));
}

const encodedNode = (node: onnx.INodeProto) => Buffer.from(onnx.NodeProto.encode(node).finish()).toString('hex');

describe('quantized node units', () => {
  it('leave a QDQ Conv exactly as it is (no Cast inside, reason quantized-unit) while a float MatMul beside it converts', () => {
    const original = qdqConvModel();
    const before = new Map((original.graph?.node ?? []).map((n) => [n.name, encodedNode(n)]));
    const result = ampRewrite(qdqConvModel());
    const byNode = rules(result);
    for (const name of ['x_q', 'x_dq', 'w_dq', 'b_dq', 'conv', 'y_q', 'y_dq']) expect(byNode.get(name), name).toBe('NONE:quantized-unit');
    expect(result.report.nodes.find((n) => n.node === 'x_dq')?.reason).toMatch(/^DequantizeLinear is part of a quantized unit/);
    expect(byNode.get('float_mm')).toBe('ALLOW:allow-list');
    const conv = result.report.nodes.find((n) => n.node === 'conv');
    expect(conv?.reason).toBe("in the quantized unit after DequantizeLinear 'x_dq': every float input is dequantized; ONNX Runtime fuses the unit into an int8 kernel, which a Cast would stop");
    const after = result.model.graph?.node ?? [];
    // Every node of the unit is unchanged, and the only Casts are the float MatMul's.
    const unit = ['x_q', 'x_dq', 'w_dq', 'b_dq', 'conv', 'y_q', 'y_dq'];
    for (const name of unit) expect(encodedNode(after.find((n) => n.name === name) as onnx.INodeProto), name).toBe(before.get(name));
    const casts = after.filter((n) => n.op_type === 'Cast');
    expect(casts.length).toBeGreaterThan(0);
    for (const cast of casts) expect([...(cast.input ?? []), ...(cast.output ?? [])].join(' ')).toMatch(/\b(z|wf|y_f)\b/);
  });

  it('ONNX Runtime gives the QDQ output bit for bit as before, and the float branch within fp16 tolerance', async () => {
    const ort = await loadOrt();
    const feeds = {
      x: new ort.Tensor('float32', Float32Array.from({ length: 576 }, (_, i) => Math.sin(i * 0.7) * 2), [1, 4, 12, 12]),
      z: new ort.Tensor('float32', Float32Array.from({ length: 8 }, (_, i) => i / 3), [2, 4]),
    };
    const run = async (model: onnx.IModelProto) => {
      const session = await ort.InferenceSession.create(encodeModel(model));
      try {
        const outputs = await session.run(feeds);
        return { q: outputs.y_q_out!.data as Float32Array, f: outputs.y_f!.data as Float32Array };
      } finally {
        await session.release();
      }
    };
    const reference = await run(qdqConvModel());
    const amp = await run(ampRewrite(qdqConvModel()).model);
    expect([...amp.q]).toEqual([...reference.q]);
    // The unit really computes something (not all one quantization step).
    expect(new Set(reference.q).size).toBeGreaterThan(2);
    for (let i = 0; i < reference.f.length; i++) expect(Math.abs((amp.f[i] as number) - (reference.f[i] as number))).toBeLessThan(1e-2);
  });

  it('a float op with one input from outside the unit is no unit: it converts', () => {
    const b = new GraphBuilder('half');
    const w = b.initializer('w_q', [4, 4], new Uint8Array(16).fill(3), DataType.INT8);
    const wdq = b.op('DequantizeLinear', [w, b.scalar('s', 0.1), b.initializer('zp', [], Uint8Array.of(0), DataType.INT8)], {}, { name: 'w_dq' });
    b.op('MatMul', [b.input('x', F, [2, 4]), wdq], {}, { name: 'mm', outputs: ['y'] });
    b.output('y', F, [2, 4]);
    const byNode = rules(ampRewrite(b.model({ '': 13 })));
    expect(byNode.get('w_dq')).toBe('NONE:quantized-unit');
    expect(byNode.get('mm')).toBe('ALLOW:allow-list');
  });

  it('QLinear* and *Integer ops are quantized units, whatever their float scale inputs', () => {
    const b = new GraphBuilder('qlinear');
    const a = b.input('a', DataType.UINT8, [2, 4]);
    const s = b.scalar('s', 0.1);
    const zp = b.initializer('zp', [], Uint8Array.of(0), DataType.UINT8);
    const bw = b.initializer('bw', [4, 4], new Uint8Array(16).fill(2), DataType.UINT8);
    b.op('QLinearMatMul', [a, s, zp, bw, s, zp, s, zp], {}, { name: 'qmm', outputs: ['q'] });
    b.op('MatMulInteger', [a, bw, zp, zp], {}, { name: 'imm', outputs: ['i'] });
    b.output('q', DataType.UINT8, [2, 4]);
    b.output('i', DataType.INT32, [2, 4]);
    const result = ampRewrite(b.model({ '': 13 }));
    expect(rules(result).get('qmm')).toBe('NONE:quantized-unit');
    expect(rules(result).get('imm')).toBe('NONE:quantized-unit');
    expect(result.modified).toBe(false);
  });

  it('rules/quantized-units.json names only ops the schema table knows, each with a reason', () => {
    const file = readQuantizedUnitsFile();
    expect(file.meaning).toMatch(/QLinearConv/);
    for (const role of ['dequantize', 'quantize', 'quantizedOps'] as const) {
      expect(file[role].length).toBeGreaterThan(0);
      for (const entry of file[role]) {
        expect(isKnownDomain(entry.domain ?? ''), entry.op).toBe(true);
        expect(schemaVersions(entry.domain ?? '', entry.op).length, `${entry.domain ?? ''}:${entry.op}`).toBeGreaterThan(0);
        expect(entry.reason.length).toBeGreaterThan(20);
      }
    }
  });

  it("ONNX Runtime's own quantizer output (quantize_static, QDQ, per-channel int8; scripts/make-qdq-fixture.py) is left exactly as it is", async () => {
    const bytes = readFileSync(new URL('../../fixtures/quantized/qdq-cnn.onnx', import.meta.url));
    const { model, report, modified } = rewriteModel(decodeModel(bytes));
    expect(modified).toBe(false);
    expect(Buffer.from(encodeModel(model)).equals(bytes)).toBe(true);
    const byOp = new Map<string, Set<string>>();
    for (const n of report.amp.nodes) byOp.set(n.op, (byOp.get(n.op) ?? new Set()).add(`${n.color}:${n.rule}`));
    // Conv, Add, GlobalAveragePool, Flatten and Gemm each between DequantizeLinear and QuantizeLinear.
    for (const op of ['Conv', 'Add', 'GlobalAveragePool', 'Flatten', 'Gemm', 'DequantizeLinear', 'QuantizeLinear']) expect([...(byOp.get(op) ?? [])], op).toEqual(['NONE:quantized-unit']);
    expect(report.amp.summary.converted).toBe(0);
    // Not "No allow-list ops found": the summary says why the Convs and the Gemm stayed.
    expect(renderSummary(report.amp.summary)).toContain(
      "Allow-list ops found but none converted: 3 (3 quantized-unit, e.g. Conv '/conv1/Conv': in the quantized unit after DequantizeLinear 'x_DequantizeLinear': every float input is dequantized; ONNX Runtime fuses the unit into an int8 kernel, which a Cast would stop); nothing to convert, the model is written unchanged.",
    );
    const ort = await loadOrt();
    const session = await ort.InferenceSession.create(encodeModel(model));
    try {
      const logits = (await session.run({ x: new ort.Tensor('float32', Float32Array.from({ length: 768 }, (_, i) => Math.cos(i)), [1, 3, 16, 16]) })).logits;
      expect(logits?.dims).toEqual([1, 10]);
    } finally {
      await session.release();
    }
  });
});
