/**
 * The summary says why nothing or little was converted: "No allow-list ops found" only when there
 * are none; allow-list ops kept fp32 (an opset without the target type, pinned by a weight's or an
 * activation's range, unknown input types) are counted by rule; ops the pass could not process
 * (no schema: custom and gradient ops) are listed with their counts.
 */
import { describe, expect, it } from 'vitest';
import { GraphBuilder, valueInfo } from '../../src/builder/graph-builder.js';
import { DataType } from '../../src/onnx/data-types.js';
import { ampRewrite, type AmpOptions } from '../../src/passes/amp.js';
import { renderSummary } from '../../src/report/summary.js';

const F = DataType.FLOAT;

function matMulModel(weight: number, opset = 17) {
  const b = new GraphBuilder('g');
  b.op('MatMul', [b.input('x', F, [2, 2]), b.initializer('w', [2, 2], new Float32Array(4).fill(weight))], {}, { name: 'mm', outputs: ['y'] });
  b.output('y', F, [2, 2]);
  return b.model({ '': opset });
}

const summaryOf = (model: ReturnType<typeof matMulModel>, options: AmpOptions = {}) => renderSummary(ampRewrite(model, options).report.summary);

describe('summary: why nothing or little was converted', () => {
  it('no allow-list op at all: "No allow-list ops found"', () => {
    const b = new GraphBuilder('g');
    b.op('Relu', [b.input('x', F, [2])], {}, { name: 'relu', outputs: ['y'] });
    b.output('y', F, [2]);
    expect(summaryOf(b.model())).toContain('No allow-list ops found: nothing to convert');
  });

  it('bf16 below opset 13: the allow-list op is counted as kept by schema-forbids with the opset reason', () => {
    const text = summaryOf(matMulModel(0.5, 12), { mode: 'bf16' });
    expect(text).not.toContain('No allow-list ops found');
    expect(text).toMatch(/Allow-list ops found but none converted: 1 \(1 schema-forbids, e\.g\. MatMul 'mm': Cast at ai\.onnx opset 12 cannot produce tensor\(bfloat16\)\); nothing to convert/);
  });

  it('pinned by its range (a weight past float16, as --calibrate pins activations): counted by rule', () => {
    const text = summaryOf(matMulModel(1e6));
    expect(text).not.toContain('No allow-list ops found');
    expect(text).toMatch(/Allow-list ops found but none converted: 1 \(1 weight-out-of-range, e\.g\. MatMul 'mm'/);
  });

  it("the pin quotes the weight's extreme value as float32 writes it, sign included (torch.finfo(float32).min)", () => {
    const b = new GraphBuilder('g');
    const values = Float32Array.of(0.5, -3.4028234663852886e38, 2, 1e5);
    b.op('MatMul', [b.input('x', F, [2, 2]), b.initializer('w', [2, 2], values)], {}, { name: 'mm', outputs: ['y'] });
    b.output('y', F, [2, 2]);
    const mm = ampRewrite(b.model()).report.nodes.find((n) => n.node === 'mm');
    expect(mm?.reason).toBe("reads weight 'w' holding -3.4028235e+38, outside float16's range (65504)");
    expect(ampRewrite(matMulModel(70000.5)).report.nodes.find((n) => n.node === 'mm')?.reason).toBe("reads weight 'w' holding 70000.5, outside float16's range (65504)");
  });

  it('pinned by --force-fp32: counted by rule', () => {
    const text = summaryOf(matMulModel(0.5), { forceFp32: ['mm'] });
    expect(text).toMatch(/Allow-list ops found but none converted: 1 \(1 force-fp32/);
  });

  it('unknown input types downstream of a custom op, and the custom op listed as unprocessed with its count', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [2, 2]);
    const c1 = b.op('MyOp', [x], {}, { name: 'custom1', domain: 'org.example' });
    const c2 = b.op('MyOp', [c1], {}, { name: 'custom2', domain: 'org.example' });
    b.op('MatMul', [c2, b.initializer('w', [2, 2], new Float32Array(4).fill(0.5))], {}, { name: 'mm', outputs: ['y'] });
    b.output('y', F, [2, 2]);
    const text = summaryOf(b.model({ '': 17, 'org.example': 1 }));
    expect(text).not.toContain('No allow-list ops found');
    expect(text).toMatch(/Allow-list ops found but none converted: 1 \(1 unknown-type, e\.g\. MatMul 'mm': element type of 'myop_1' is unknown\)/);
    expect(text).toContain('Ops left unprocessed: 2 org.example:MyOp (no-schema), 1 MatMul (unknown-type)');
  });

  it('a model that converts says which allow-list ops stayed fp32 and which ops were left unprocessed', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [2, 2]);
    const mm1 = b.op('MatMul', [x, b.initializer('w1', [2, 2], new Float32Array(4).fill(0.5))], {}, { name: 'mm1' });
    const grad = b.op('SoftmaxGrad_13', [mm1, mm1], {}, { name: 'grad', domain: 'com.example.training' });
    b.valueInfos.push(valueInfo(grad, F, [2, 2]));
    b.op('MatMul', [grad, b.initializer('w2', [2, 2], new Float32Array(4).fill(0.5))], {}, { name: 'mm2', outputs: ['y'] });
    b.output('y', F, [2, 2]);
    const text = summaryOf(b.model({ '': 17, 'com.example.training': 1 }), { forceFp32: ['mm2'] });
    expect(text).toContain('Total nodes converted: 1');
    expect(text).toMatch(/^Allow-list ops kept FP32: 1 \(1 force-fp32, e\.g\. MatMul 'mm2': pinned to fp32 by --force-fp32\)$/m);
    expect(text).toMatch(/^Ops left unprocessed: 1 com\.example\.training:SoftmaxGrad_13 \(no-schema\)$/m);
  });
});
