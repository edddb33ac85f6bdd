/**
 * Every inference fixture, rewritten, runs on ONNX Runtime (CPU) with random inputs and matches
 * its fp32 original: the control-flow fixture shows that Casts placed inside If branches and Loop
 * bodies are valid where they are. Tolerance as in compare: 1e-2 of the largest magnitude plus
 * 1e-2 relative.
 */
import { describe, expect, it } from 'vitest';
import { FIXTURE_CASES } from '../../src/builder/fixtures.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { compareOutput, scaledTolerance } from '../../src/runtime/compare.js';
import { randomInputs } from '../../src/runtime/inputs.js';
import { loadOrt } from '../../src/runtime/ort.js';

describe('rewritten fixtures on ONNX Runtime', () => {
  // Training fixtures need real labels (see train.test.ts); bf16 fixtures need the CUDA provider:
  // ONNX Runtime's CPU provider has no bfloat16 MatMul kernel (OperatorKernels.md).
  // Fixtures with a runTest are run there, with inputs of their own.
  for (const fixture of FIXTURE_CASES.filter((c) => !/training/.test(c.name) && c.options.mode !== 'bf16' && !c.runTest)) {
    it(`${fixture.name} matches fp32`, async () => {
      const ort = await loadOrt();
      const model = fixture.build();
      const feeds = randomInputs(ort, model, { seed: 4 });
      if (feeds.labels) feeds.labels = new ort.Tensor('int64', (feeds.labels.data as BigInt64Array).map((v) => v % 16n), feeds.labels.dims);
      const run = async (bytes: Uint8Array) => {
        const session = await ort.InferenceSession.create(bytes);
        try {
          return { names: session.outputNames, outputs: await session.run(feeds) };
        } finally {
          await session.release();
        }
      };
      const reference = await run(encodeModel(model));
      const amp = await run(encodeModel(rewriteModel(model, fixture.options).model));
      for (const name of reference.names) {
        const comparison = compareOutput(name, reference.outputs[name]!, amp.outputs[name]!, scaledTolerance(reference.outputs[name]!, 1e-2, 1e-2));
        expect(comparison.pass, JSON.stringify(comparison)).toBe(true);
      }
    });
  }
});
