import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeModel, encodeModel } from '../../src/onnx/codec.js';
import { corpusAvailable, corpusDir, corpusModels } from '../support/corpus.js';

describe('lossless codec over the whole corpus', () => {
  const models = corpusModels();

  it.skipIf(!corpusAvailable)('finds the corpus models', () => {
    expect(models.length).toBeGreaterThan(900);
  });

  it.skipIf(!corpusAvailable)('decodes and re-encodes every corpus model byte for byte', () => {
    const mismatched: string[] = [];
    for (const relative of models) {
      const bytes = readFileSync(path.join(corpusDir, relative));
      const again = encodeModel(decodeModel(bytes, { source: relative }));
      if (Buffer.compare(Buffer.from(again), bytes) !== 0) mismatched.push(relative);
    }
    console.log(`[codec] round-tripped ${models.length} corpus models, ${mismatched.length} differ`);
    expect(mismatched).toEqual([]);
  });
});
