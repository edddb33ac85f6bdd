/**
 * The audit tells the truth: in every fixture, a node the audit says runs in reduced precision
 * reads or writes the target type in the rewritten model and reads no float32 there except through
 * inputs its schema keeps apart; a node it says stays fp32 touches no value of the target type
 * (unless the model already had it); an fp32-stream reason names an input that is float32 in
 * the output.
 */
import { describe, expect, it } from 'vitest';
import { FIXTURE_CASES } from '../../src/builder/fixtures.js';
import { DataType } from '../../src/onnx/data-types.js';
import { ModelGraph } from '../../src/onnx/graph.js';
import { opsetsOf } from '../../src/onnx/opsets.js';
import { inferElemTypes } from '../../src/onnx/type-inference.js';
import { rewriteModel } from '../../src/passes/pipeline.js';

describe('audit reasons agree with the final types', () => {
  for (const fixture of FIXTURE_CASES) {
    it(fixture.name, () => {
      const original = fixture.build();
      const { model, report } = rewriteModel(original, fixture.options);
      const target = fixture.options.mode === 'bf16' ? DataType.BFLOAT16 : DataType.FLOAT16;
      const graph = new ModelGraph(model);
      const types = inferElemTypes(graph, opsetsOf(model));
      const scopes = new Map(graph.scopes.map((s) => [s.path, s]));
      let checked = 0;
      for (const audit of report.amp.nodes) {
        const scope = scopes.get(audit.scope);
        const node = scope?.currentNodes().find((n) => n.name === audit.node);
        if (!scope || !node) continue; // nodes the training transform replaced
        const values = [...(node.input ?? []), ...(node.output ?? [])].filter(Boolean);
        const typed = values.map((v) => types.get(scope, v));
        const touchesTarget = typed.includes(target);
        if (audit.color === 'ALLOW') {
          expect(touchesTarget, `${audit.node} (${audit.rule}) is said to run in reduced precision`).toBe(true);
          checked++;
        } else if (audit.rule !== 'control-flow' && audit.rule !== 'already-low-precision') {
          expect(touchesTarget, `${audit.node} (${audit.rule}: ${audit.reason}) is said to stay fp32`).toBe(false);
          checked++;
        }
        if (audit.rule === 'fp32-stream') {
          const named = /input '([^']+)'/.exec(audit.reason)?.[1] as string;
          expect(node.input).toContain(named);
          expect(types.get(scope, named), `${audit.node}: '${named}'`).toBe(DataType.FLOAT);
        }
      }
      expect(checked).toBeGreaterThan(0);
    });
  }
});
