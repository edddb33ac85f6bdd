/**
 * The audit as a person reads it: a precision column (fp32/fp16/bf16) with each node's input and
 * output types after the rewrite, a legend, stable ids for unnamed nodes, reasons in numbers.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataType } from '../../src/onnx/data-types.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { renderAuditMarkdown } from '../../src/report/audit.js';
import { fixturesDir, repoRoot } from '../support/corpus.js';
import { floatTensor, model, node, valueInfo } from '../support/models.js';

const transformer = path.join(fixturesDir, 'transformer-block/model.onnx');

/** x -> MatMul -> Softmax -> MatMul -> y with no node names, as many exporters write them. */
function unnamedModel() {
  const w = floatTensor('w', [4, 4], Array.from({ length: 16 }, (_, i) => i / 16));
  return model({
    node: [node('MatMul', ['x', 'w'], ['a'], ''), node('Softmax', ['a'], ['b'], ''), node('MatMul', ['b', 'w'], ['y'], '')],
    initializer: [w],
    input: [valueInfo('x', DataType.FLOAT, [2, 4])],
    output: [valueInfo('y', DataType.FLOAT, [2, 4])],
  });
}

describe('audit readability', () => {
  it('gives unnamed nodes a stable id from their op and index', () => {
    const first = ampRewrite(unnamedModel()).report.nodes.map((n) => n.id);
    expect(first).toEqual(['MatMul#0', 'Softmax#1', 'MatMul#2']);
    expect(ampRewrite(unnamedModel()).report.nodes.map((n) => n.id)).toEqual(first);
    expect(renderAuditMarkdown(ampRewrite(unnamedModel()).report)).toContain('| graph | Softmax#1 | Softmax | fp32 | f32 → f32 |');
  });

  it("says each node's precision and its input and output types after the rewrite", () => {
    const { report } = ampRewrite(loadModel(transformer));
    const byId = new Map(report.nodes.map((n) => [n.id, n]));
    expect(byId.get('l0/q_proj')).toMatchObject({ precision: 'fp16', inputTypes: ['f16', 'f16'], outputTypes: ['f16'] });
    expect(byId.get('l0/softmax')).toMatchObject({ precision: 'fp32', inputTypes: ['f32'], outputTypes: ['f32'] });
    expect(byId.get('l0/q_heads')?.inputTypes).toEqual(['f16', 'i64']);
    const bf16 = ampRewrite(loadModel(transformer), { mode: 'bf16' }).report.nodes.find((n) => n.id === 'l0/q_proj');
    expect(bf16).toMatchObject({ precision: 'bf16', inputTypes: ['bf16', 'bf16'] });
    const text = renderAuditMarkdown(report);
    expect(text).toContain('| scope | node | op | precision | types in → out | list | rule | reason | casts added |');
    expect(text).toMatch(/- \*\*precision\*\*: what the node computes in after the rewrite/);
    expect(text).toContain('| graph | l0/q_proj | MatMul | fp16 | f16, f16 → f16 | allow | allow-list |');
  });

  it('gives reasons in numerical terms, never by appeal to a requirement', () => {
    for (const file of readdirSync(path.join(repoRoot, 'rules')).filter((f) => /^(allow|deny|infer|clear)\.json$/.test(f))) {
      const text = readFileSync(path.join(repoRoot, 'rules', file), 'utf8');
      expect(text, file).not.toMatch(/mission|requires it|as required/i);
    }
    const softmax = ampRewrite(loadModel(transformer)).report.lists.deny.find((e) => e.op === 'Softmax');
    expect(softmax?.reason).toMatch(/65504/);
  });
});
