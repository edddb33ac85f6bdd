/**
 * The CLI's in-place rewrite (no copy of the loaded model) gives exactly the bytes and report of
 * the pure rewrite, on the fixtures and the light models of the corpus.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_CASES } from '../../src/builder/fixtures.js';
import { encodeModel } from '../../src/onnx/codec.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite, type AmpOptions } from '../../src/passes/amp.js';
import { corpusModels, corpusDir } from '../support/corpus.js';

const subjects: Array<{ name: string; load: () => onnx.ModelProto; options: AmpOptions }> = [
  ...FIXTURE_CASES.map((c) => ({ name: `fixture ${c.name}`, load: c.build, options: c.options })),
  ...corpusModels('light-models').map((m) => ({ name: `${m} (fp16 weights)`, load: () => loadModel(path.join(corpusDir, m)), options: { weights: 'fp16' } as AmpOptions })),
];

describe('in-place rewrite', () => {
  it.each(subjects)('$name: same bytes and report as the copying rewrite, edited in place', ({ load, options }) => {
    const copying = ampRewrite(load(), options);
    const input = load();
    const inPlace = ampRewrite(input, { ...options, inPlace: true });
    expect(Buffer.from(encodeModel(inPlace.model)).equals(Buffer.from(encodeModel(copying.model)))).toBe(true);
    expect(inPlace.report).toEqual(copying.report);
    expect(inPlace.model).toBe(input);
  });
});
