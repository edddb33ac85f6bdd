/**
 * Validation reuses the graph model the pass kept up to date through its edits instead of
 * building a new one. That is only sound if the edited index says what a fresh index of the
 * rewritten model says: same producer and same readers for every value in every scope.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_CASES } from '../../src/builder/fixtures.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { ModelGraph, type GraphScope } from '../../src/onnx/graph.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite, type AmpOptions } from '../../src/passes/amp.js';
import { validateModel } from '../../src/onnx/validate.js';
import { corpusDir, corpusModels } from '../support/corpus.js';

const subjects: Array<{ name: string; load: () => onnx.ModelProto; options: AmpOptions }> = [
  ...FIXTURE_CASES.map((c) => ({ name: `fixture ${c.name}`, load: c.build, options: c.options })),
  ...FIXTURE_CASES.map((c) => ({ name: `fixture ${c.name} (bf16, fp16 weights)`, load: c.build, options: { ...c.options, mode: 'bf16', weights: 'fp16' } as AmpOptions })),
  ...corpusModels('light-models').map((m) => ({ name: m, load: () => loadModel(path.join(corpusDir, m)), options: { weights: 'fp16' } as AmpOptions })),
];

function indexOf(scope: GraphScope): Record<string, unknown> {
  const names = new Set<string>([...scope.inputs.keys(), ...scope.outputs.keys(), ...scope.initializers.keys()]);
  for (const node of scope.currentNodes()) for (const name of [...(node.input ?? []), ...(node.output ?? [])]) if (name) names.add(name);
  const nodeIds = new Map(scope.currentNodes().map((node, i) => [node, i]));
  const id = (node: onnx.INodeProto) => nodeIds.get(node) ?? `outside:${node.name}`;
  return Object.fromEntries(
    [...names].sort().map((name) => {
      const producer = scope.producerOf(name);
      const readers = scope.consumersOf(name).map((use) => `${id(use.node)}#${use.index}`).sort();
      const resolved = scope.resolve(name);
      return [name, { producer: producer ? `${id(producer.node)}#${producer.index}` : null, readers, kind: resolved?.kind, initializer: scope.initializers.get(name)?.data_type }];
    }),
  );
}

describe('the pass keeps its graph model true to the rewritten model', () => {
  it.each(subjects)('$name', ({ load, options }) => {
    const result = ampRewrite(load(), options);
    if (!result.modified) return expect(result.graph).toBeUndefined();
    const kept = result.graph as ModelGraph;
    const fresh = new ModelGraph(result.model);
    expect(kept.scopes.map((s) => s.path)).toEqual(fresh.scopes.map((s) => s.path));
    kept.scopes.forEach((scope, i) => {
      expect([...scope.outerReferences].sort()).toEqual([...(fresh.scopes[i] as GraphScope).outerReferences].sort());
      expect(indexOf(scope)).toEqual(indexOf(fresh.scopes[i] as GraphScope));
    });
    expect(validateModel(result.model, kept)).toEqual(validateModel(result.model));
  });
});

describe('the same over the whole corpus, every node forced to fp16', () => {
  const models = corpusModels();
  it.skipIf(!models.length)(`${models.length} models`, () => {
    let modified = 0;
    for (const file of models) {
      const result = ampRewrite(loadModel(path.join(corpusDir, file)), { forceFp16: ['/.*/'], validate: false });
      if (!result.graph) continue;
      modified++;
      const fresh = new ModelGraph(result.model);
      result.graph.scopes.forEach((scope, i) => expect(indexOf(scope), file).toEqual(indexOf(fresh.scopes[i] as GraphScope)));
      expect(validateModel(result.model, result.graph), file).toEqual(validateModel(result.model));
    }
    expect(modified).toBeGreaterThan(models.length / 4);
  });
});
