/**
 * The patterns of rules/runtime-hazards.json against the onnxruntime-node under test, each loaded in a
 * child process at the default session options (test/support/child-load.ts):
 * - the smallest model that shows the hazard, in float16: onnxruntime-node 1.30.0 crashes (SIGSEGV)
 *   opening it; another release's outcome is printed, so a release that fixes it shows in the log;
 * - the rewrite of the same graph in float32, and of a PyTorch dynamo-exported TransformerEncoder
 *   (test/models/torch-encoder-dynamo.onnx) whose default rewrite crashed 1.30, load and run.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../../src/builder/graph-builder.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { float32ToFloat16Bits } from '../../src/onnx/float16.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { compareModels } from '../../src/api/execute.js';
import { childRuntimeVersion, loadInChild } from '../support/child-load.js';
import { repoRoot } from '../support/corpus.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-runtime-hazards-'));

/** float16 x[batch, 10, 10] -> Transpose(perm) -> MatMul with a float16 weight [10, 16]. */
function float16TransposeMatMul(perm: number[]): Uint8Array {
  const b = new GraphBuilder('transpose_matmul');
  const x = b.input('x', DataType.FLOAT16, ['batch', 10, 10]);
  const weights = Uint16Array.from({ length: 160 }, (_, i) => float32ToFloat16Bits(Math.sin(i) / 4));
  const w = b.initializer('w', [10, 16], new Uint8Array(weights.buffer), DataType.FLOAT16);
  b.op('MatMul', [b.op('Transpose', [x], { perm: { kind: 'ints', value: perm } }, { name: 'transpose' }), w], {}, { name: 'matmul', outputs: ['y'] });
  b.output('y', DataType.FLOAT16);
  return encodeModel(b.model({ '': 18 }));
}

describe('runtime hazards on the onnxruntime-node under test', () => {
  const version = childRuntimeVersion();

  it('the float16 Transpose(perm [1, 0, 2]) -> MatMul: 1.30.0 crashes opening it, [0, 2, 1] opens', () => {
    const crashing = path.join(work, 'transpose-102.onnx');
    const fine = path.join(work, 'transpose-021.onnx');
    writeFileSync(crashing, float16TransposeMatMul([1, 0, 2]));
    writeFileSync(fine, float16TransposeMatMul([0, 2, 1]));
    const [first, second] = loadInChild([crashing, fine]);
    console.log(`[runtime-hazards] onnxruntime-node ${version}: float16 Transpose [1, 0, 2] -> MatMul ${first?.loaded ? 'loads' : `fails (${first?.signal ?? first?.error})`}`);
    if (version === '1.30.0') expect(first?.signal).toBe('SIGSEGV');
    expect(second?.loaded, second?.error ?? second?.signal).toBe(true);
  }, 120_000);

  it('the rewrite of a dynamo-exported TransformerEncoder opens at the default level and passes compare', async () => {
    const reference = path.join(repoRoot, 'test/models/torch-encoder-dynamo.onnx');
    const { model, report } = ampRewrite(loadModel(reference));
    expect(report.nodes.filter((n) => n.rule === 'runtime-hazard').map((n) => n.op)).toEqual(['Transpose', 'Transpose']);
    const candidate = path.join(work, 'encoder.amp.onnx');
    writeFileSync(candidate, encodeModel(model));
    const [loaded] = loadInChild([candidate]);
    expect(loaded?.loaded, loaded?.error ?? loaded?.signal).toBe(true);
    const result = await compareModels(reference, candidate, { numerics: 'emulate', ep: 'cpu', dims: { batch: 2 } });
    expect(result.candidateRefused).toBeNull();
    expect(result.pass).toBe(true);
  }, 120_000);
});
