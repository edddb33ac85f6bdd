/**
 * The light models (ResNet50, VGG19, DenseNet121, Inception v1/v2, ShuffleNet, SqueezeNet, ZFNet,
 * AlexNet) rewritten and run on ONNX Runtime's CPU provider with the same random input as the fp32
 * original. Their weights are constants (0.02), so in the deeper ones activations grow past
 * float16's 65504; a calibration run finds those values and keeps the nodes that see them fp32.
 * Tolerance: |amp - fp32| <= 1e-2 * max|fp32| + 1e-2 * |fp32| per element (fp16 keeps 11
 * significant bits; a network compounds rounding over tens of layers).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeModel } from '../../src/onnx/codec.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { activationRanges } from '../../src/runtime/activation-range.js';
import { compareOutput, scaledTolerance } from '../../src/runtime/compare.js';
import { randomInputs } from '../../src/runtime/inputs.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { corpusAvailable, corpusDir, corpusModels } from '../support/corpus.js';

describe('light models on ONNX Runtime (CPU)', () => {
  // Without the corpus the loop below generates nothing, and a file without tests fails: say why it is empty.
  it.skipIf(!corpusAvailable)(`needs the light models under ${corpusDir} (absent: skipped)`, () => {
    expect(corpusModels('light-models').length).toBeGreaterThan(0);
  });
  for (const relative of corpusModels('light-models')) {
    it.skipIf(!corpusAvailable)(`${path.basename(relative)}: mixed precision matches fp32 once out-of-range activations are kept fp32`, async () => {
      const ort = await loadOrt();
      const model = loadModel(path.join(corpusDir, relative));
      const feeds = randomInputs(ort, model, { seed: 1 });
      const run = async (bytes: Uint8Array) => {
        const session = await ort.InferenceSession.create(bytes, { logSeverityLevel: 3 });
        try {
          return { names: session.outputNames, outputs: await session.run(feeds) };
        } finally {
          await session.release();
        }
      };
      const reference = await run(encodeModel(model));
      const ranges = await activationRanges(ort, model, feeds);
      const largest = Math.max(...ranges.values());
      const plain = ampRewrite(model);
      const calibrated = ampRewrite(model, { activationRanges: ranges });
      expect(plain.modified).toBe(true);
      const judge = async (bytes: Uint8Array) => {
        const { names, outputs } = await run(bytes);
        return names.map((name) => {
          const expected = reference.outputs[name]!;
          return compareOutput(name, expected, outputs[name]!, scaledTolerance(expected, 1e-2, 1e-2));
        });
      };
      const calibratedResult = await judge(encodeModel(calibrated.model));
      for (const comparison of calibratedResult) expect(comparison.pass, JSON.stringify(comparison)).toBe(true);
      const plainResult = await judge(encodeModel(plain.model));
      const plainPasses = plainResult.every((c) => c.pass);
      console.log(
        `[light] ${path.basename(relative)}: largest fp32 activation ${largest.toExponential(2)}; plain AMP ${plainPasses ? 'matches' : 'overflows'}; ` +
          `calibrated AMP converts ${calibrated.report.summary.converted} of ${plain.report.summary.converted} nodes and matches`,
      );
      // Plain AMP may only fail where the fp32 run itself left float16's range.
      if (!plainPasses) expect(largest).toBeGreaterThan(65504);
      if (largest < 65504) expect(calibrated.report.summary.converted).toBe(plain.report.summary.converted);
    });
  }
});
