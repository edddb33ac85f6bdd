/**
 * Cast planning's lowered values are kept by value id (LoweredValues), the ids read from the
 * scope's hint table by position: these tests hold the table to a Set of names, and the pass with
 * the hints to the pass without them, byte for byte.
 */
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeModel } from '../../src/onnx/codec.js';
import { GraphScope, ModelGraph } from '../../src/onnx/graph.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite, type AmpOptions } from '../../src/passes/amp.js';
import { CastsMade, LoweredValues } from '../../src/passes/amp/cast-plan.js';
import { fixturesDir } from '../support/corpus.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('cast planning by value id', () => {
  it('keeps the lowered values as a Set of names would, for indexed and unindexed names', () => {
    const m = loadModel(path.join(fixturesDir, 'transformer-block/model.onnx'), { externalData: 'ignore' });
    const graph = new ModelGraph(m);
    const indexed = [...new Set((m.graph?.node ?? []).flatMap((n) => [...(n.input ?? []), ...(n.output ?? [])]).filter(Boolean))];
    expect(indexed.length).toBeGreaterThan(10);
    const names = indexed.slice(0, 40).concat(['not/in/the/index', 'another unknown name']);
    const lowered = new LoweredValues(graph.main);
    const reference = new Set<string>();
    let seed = 11;
    const random = (n: number): number => {
      seed = (seed * 48271) % 2147483647;
      return seed % n;
    };
    for (let step = 0; step < 500; step++) {
      const name = names[random(names.length)] as string;
      const what = random(5);
      if (what === 0) {
        lowered.delete(name);
        reference.delete(name);
      } else if (what === 1) {
        lowered.addId(graph.main.valueIdOf(name), name);
        reference.add(name);
      } else {
        lowered.add(name);
        reference.add(name);
      }
      const probe = names[random(names.length)] as string;
      expect(lowered.has(probe), probe).toBe(reference.has(probe));
      expect(lowered.hasId(graph.main.valueIdOf(probe), probe), probe).toBe(reference.has(probe));
    }
    expect(reference.size).toBeGreaterThan(5);
    expect(lowered.names().sort()).toEqual([...reference].sort());
    expect(new Set(lowered.names()).size).toBe(lowered.names().length);
  });

  it('keeps the Casts made as a Map of names would, asked by name or by id, for indexed and unindexed names', () => {
    const m = loadModel(path.join(fixturesDir, 'transformer-block/model.onnx'), { externalData: 'ignore' });
    const graph = new ModelGraph(m);
    const indexed = [...new Set((m.graph?.node ?? []).flatMap((n) => [...(n.input ?? []), ...(n.output ?? [])]).filter(Boolean))];
    const names = indexed.slice(0, 40).concat(['not/in/the/index', 'another unknown name']);
    const made = new CastsMade(graph.main);
    const reference = new Map<string, string>();
    let seed = 5;
    const random = (n: number): number => {
      seed = (seed * 48271) % 2147483647;
      return seed % n;
    };
    for (let step = 0; step < 400; step++) {
      const name = names[random(names.length)] as string;
      const output = `${name}/cast${step}`;
      if (random(2) === 0) made.set(name, output);
      else made.setById(graph.main.valueIdOf(name), name, output);
      reference.set(name, output);
      const probe = names[random(names.length)] as string;
      expect(made.get(probe), probe).toBe(reference.get(probe));
      expect(made.getById(graph.main.valueIdOf(probe), probe), probe).toBe(reference.get(probe));
    }
    expect(reference.size).toBeGreaterThan(20);
  });

  it('rewrites as it does with every hint table withheld, and finds each node name by its hint', () => {
    const cases: Array<[string, AmpOptions]> = [
      ['transformer-block', {}],
      ['transformer-block', { weights: 'fp16' }],
      ['transformer-block', { mode: 'bf16' }],
      ['control-flow', {}],
      ['exporter-decoder-kv', { weights: 'fp16' }],
      ['conv-block', {}],
    ];
    for (const [fixture, options] of cases) {
      const file = path.join(fixturesDir, fixture, 'model.onnx');
      const asked = { count: 0, misses: 0 };
      const original = GraphScope.prototype.hintedValueId;
      const spy = vi.spyOn(GraphScope.prototype, 'hintedValueId').mockImplementation(function (this: GraphScope, hint, name) {
        const id = original.call(this, hint, name);
        asked.count++;
        if (hint !== id) asked.misses++;
        return id;
      });
      const hinted = ampRewrite(loadModel(file, { externalData: 'ignore' }), { ...options, audit: false });
      spy.mockRestore();
      const noHints = vi.spyOn(GraphScope.prototype, 'valueIdHints').mockReturnValue(undefined);
      const plain = ampRewrite(loadModel(file, { externalData: 'ignore' }), { ...options, audit: false });
      noHints.mockRestore();
      expect(Buffer.from(encodeModel(hinted.model)).equals(Buffer.from(encodeModel(plain.model))), `${fixture} ${JSON.stringify(options)}`).toBe(true);
      expect(JSON.stringify(hinted.report.summary)).toBe(JSON.stringify(plain.report.summary));
      // Every name asked by position (type inference, paint, shape inference, cast planning) was found by its hint.
      expect(asked.count, fixture).toBeGreaterThan(0);
      expect(asked.misses, `${fixture} ${JSON.stringify(options)}`).toBe(0);
    }
  });
});
