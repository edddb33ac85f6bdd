/**
 * Ops ONNX Runtime registers itself: LayerNormalization in the default domain from version 1 (its
 * contrib registrations, below ONNX's LayerNormalization-17), and com.microsoft ops recognised by
 * their type whether or not the model imports the domain, as ORT does when it loads a model.
 */
import { describe, expect, it } from 'vitest';
import { attr, GraphBuilder, valueInfo } from '../../src/builder/graph-builder.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { effectiveOpsetVersion, schemaFor, schemaVersions } from '../../src/onnx/schema.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { renderGraphText } from '../../src/report/graph-text.js';
import { loadOrt } from '../../src/runtime/ort.js';

const F = DataType.FLOAT;
const MS = 'com.microsoft';
const filled = (count: number, value: number) => new Float32Array(count).fill(value);

function rulesByNode(model: onnx.ModelProto): Map<string, string> {
  return new Map(ampRewrite(model).report.nodes.map((n) => [n.node, `${n.color}:${n.rule}`]));
}

/** MatMul -> LayerNormalization -> MatMul at the given default-domain opset. */
function layerNormModel(opset: number): onnx.ModelProto {
  const b = new GraphBuilder('ln');
  const x = b.input('x', F, [2, 8]);
  const mm = b.op('MatMul', [x, b.initializer('w1', [8, 8], filled(64, 0.1))], {}, { name: 'mm1' });
  const ln = b.op('LayerNormalization', [mm, b.initializer('gamma', [8], filled(8, 1)), b.initializer('beta', [8], filled(8, 0))], { axis: attr.int(-1), epsilon: attr.float(1e-5) }, { name: 'ln' });
  b.op('MatMul', [ln, b.initializer('w2', [8, 8], filled(64, 0.2))], {}, { name: 'mm2', outputs: ['y'] });
  b.output('y', F, [2, 8]);
  return b.model({ '': opset });
}

describe("ONNX Runtime's LayerNormalization in the default domain", () => {
  it('has a version from 1 with its type constraints, and ONNX’s version from 17', () => {
    const ort = schemaFor('', 'LayerNormalization', 11);
    expect(ort?.since).toBe(1);
    expect(ort?.typeConstraints.T).toEqual(['tensor(float16)', 'tensor(float)', 'tensor(double)', 'tensor(bfloat16)']);
    expect(ort?.typeConstraints.U).toEqual(['tensor(float)', 'tensor(bfloat16)']);
    expect(ort?.outputs.map((o) => o.name)).toEqual(['Y', 'mean', 'inv_std_var']);
    expect(ort?.attributes.map((a) => a.name)).toEqual(['axis', 'epsilon', 'stash_type']);
    expect(schemaFor('', 'LayerNormalization', 17)?.since).toBe(17);
    expect(schemaVersions('', 'LayerNormalization').map((s) => s.since)).toEqual([1, 17]);
  });

  for (const opset of [11, 12]) {
    it(`is accepted at opset ${opset} and painted per the lists (deny, fp32 between two fp16 MatMuls)`, () => {
      const rules = rulesByNode(layerNormModel(opset));
      expect(rules.get('ln')).toBe('DENY:deny-list');
      expect(rules.get('mm1')).toBe('ALLOW:allow-list');
      expect(rules.get('mm2')).toBe('ALLOW:allow-list');
    });
  }

  it('the rewritten opset-12 model runs on ONNX Runtime and matches the original', async () => {
    const ort = await loadOrt();
    const original = layerNormModel(12);
    const rewritten = ampRewrite(original).model;
    const x = new ort.Tensor('float32', Float32Array.from({ length: 16 }, (_, i) => Math.sin(i)), [2, 8]);
    const run = async (model: onnx.IModelProto) => {
      const session = await ort.InferenceSession.create(encodeModel(model));
      try {
        return (await session.run({ x })).y!.data as Float32Array;
      } finally {
        await session.release();
      }
    };
    const [reference, amp] = [await run(original), await run(rewritten)];
    for (let i = 0; i < reference.length; i++) expect(Math.abs((amp[i] as number) - (reference[i] as number))).toBeLessThan(2e-2);
  });
});

/** MatMul -> com.microsoft Attention -> SkipLayerNormalization, importing com.microsoft or not. */
function attentionModel(importMicrosoft: boolean): onnx.ModelProto {
  const b = new GraphBuilder('attention');
  const x = b.input('x', F, [1, 4, 8]);
  const proj = b.op('MatMul', [x, b.initializer('w_in', [8, 8], filled(64, 0.05))], {}, { name: 'proj' });
  const attention = b.op('Attention', [proj, b.initializer('qkv_w', [8, 24], filled(192, 0.02)), b.initializer('qkv_b', [24], filled(24, 0))], { num_heads: attr.int(2) }, { name: 'attention', domain: MS });
  b.node('SkipLayerNormalization', [attention, x, b.initializer('gamma', [8], filled(8, 1)), b.initializer('beta', [8], filled(8, 0))], {}, { name: 'skip_ln', domain: MS, outputs: ['y'] });
  b.valueInfos.push(valueInfo(attention, F, [1, 4, 8]));
  b.output('y', F, [1, 4, 8]);
  return b.model(importMicrosoft ? { '': 17, [MS]: 1 } : { '': 17 });
}

describe('com.microsoft ops recognised by type, imported or not', () => {
  it('a domain the model does not import is read at the newest version the table knows (the default domain never)', () => {
    expect(effectiveOpsetVersion(new Map([['', 17]]), MS)).toBeGreaterThanOrEqual(1);
    expect(effectiveOpsetVersion(new Map([['', 17], [MS, 1]]), MS)).toBe(1);
    expect(effectiveOpsetVersion(new Map(), '')).toBeUndefined();
    expect(effectiveOpsetVersion(new Map([['', 17]]), 'org.example')).toBeUndefined();
  });

  it('Attention and SkipLayerNormalization convert the same with and without a com.microsoft import', () => {
    const withImport = ampRewrite(attentionModel(true));
    const without = ampRewrite(attentionModel(false));
    const rules = (r: typeof withImport) => r.report.nodes.map((n) => `${n.node} ${n.color}:${n.rule}`);
    expect(rules(without)).toEqual(rules(withImport));
    expect(rules(without)).toContain('attention ALLOW:allow-list');
    expect(rules(without)).toContain('skip_ln DENY:deny-list');
    // The same graph; only the opset line (what the model imports) differs.
    const body = (model: onnx.IModelProto) => renderGraphText(model).split('\n').slice(1).join('\n');
    expect(body(without.model)).toEqual(body(withImport.model));
    expect(body(without.model)).toContain('Cast');
  });
});
