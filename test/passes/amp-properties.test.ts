/**
 * Properties the pass keeps on real models: it is pure (the input is not touched), deterministic
 * (same bytes twice), idempotent (running it on its own output changes nothing), and it never
 * makes an fp32 -> fp16 -> fp32 round trip with the Casts it adds.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_CASES } from '../../src/builder/fixtures.js';
import { encodeModel } from '../../src/onnx/codec.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite, type AmpOptions } from '../../src/passes/amp.js';
import { corpusAvailable, corpusDir, corpusModels } from '../support/corpus.js';

interface Subject {
  name: string;
  load: () => onnx.ModelProto;
  options: AmpOptions;
}

const subjects: Subject[] = [
  ...FIXTURE_CASES.map((c) => ({ name: `fixture ${c.name}`, load: c.build, options: c.options })),
  ...corpusModels('light-models').map((m) => ({ name: m, load: () => loadModel(path.join(corpusDir, m)), options: {} })),
  ...corpusModels('light-models').map((m) => ({ name: `${m} (bf16, fp16 weights)`, load: () => loadModel(path.join(corpusDir, m)), options: { mode: 'bf16', weights: 'fp16' } as AmpOptions })),
];

function addedCastRoundTrips(model: onnx.IModelProto, added: ReadonlySet<string>): string[] {
  const producers = new Map<string, onnx.INodeProto>();
  for (const node of model.graph?.node ?? []) for (const out of node.output ?? []) producers.set(out, node);
  return (model.graph?.node ?? [])
    .filter((node) => node.op_type === 'Cast' && added.has(node.name ?? ''))
    .filter((node) => {
      const producer = producers.get(node.input?.[0] ?? '');
      return producer?.op_type === 'Cast' && added.has(producer.name ?? '');
    })
    .map((node) => node.name ?? '');
}

describe('pass properties', () => {
  it.skipIf(!corpusAvailable)('has light models to check', () => expect(subjects.length).toBeGreaterThan(FIXTURE_CASES.length + 8));

  for (const subject of subjects) {
    it(`${subject.name}: pure, deterministic, idempotent, no Cast round trips`, () => {
      const input = subject.load();
      const before = Buffer.from(encodeModel(input));
      const first = ampRewrite(input, subject.options);
      expect(Buffer.from(encodeModel(input)).equals(before), 'the input model was modified').toBe(true);
      const bytes = Buffer.from(encodeModel(first.model));
      const second = ampRewrite(subject.load(), subject.options);
      expect(Buffer.from(encodeModel(second.model)).equals(bytes), 'two runs differ').toBe(true);
      const again = ampRewrite(first.model, subject.options);
      expect(again.modified).toBe(false);
      expect(Buffer.from(encodeModel(again.model)).equals(bytes), 'the pass changed its own output').toBe(true);
      const added = new Set(first.report.nodes.flatMap((n) => n.castsAdded));
      expect(addedCastRoundTrips(first.model, added)).toEqual([]);
    });
  }
});
