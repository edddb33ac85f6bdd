/**
 * NodeShapes, the shapes the FLOPs share and the Tensor Core lint read: found by the value ids of
 * the scope's hint table when the walk passes one, and the same shapes as the by-name lookup
 * (knownShape) whatever the hints hold, since each hint is checked against its name.
 */
import { describe, expect, it } from 'vitest';
import { FIXTURE_CASES } from '../../src/builder/fixtures.js';
import { ModelGraph, slotCountOf } from '../../src/onnx/graph.js';
import { inferShapes } from '../../src/onnx/shape-inference.js';
import { knownShape, NodeShapes } from '../../src/passes/amp/flops.js';
import type { NodeDecision } from '../../src/passes/amp/decisions.js';
import path from 'node:path';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { renderSummary } from '../../src/report/summary.js';
import { repoRoot } from '../support/corpus.js';

function shapesOfEveryNode(hintsFor: (real: Int32Array | undefined) => Int32Array | undefined) {
  const graph = new ModelGraph(FIXTURE_CASES.find((c) => c.name === 'transformer-block')!.build());
  const scope = graph.main;
  const shapes = inferShapes(graph);
  const order = scope.topologicalOrder().order;
  const hints = hintsFor(scope.valueIdHints(order));
  const nodeShapes = new NodeShapes(shapes);
  const seen: unknown[] = [];
  const expected: unknown[] = [];
  let at = 0;
  for (const node of order) {
    nodeShapes.reset({ node, scope } as NodeDecision, hints, at);
    seen.push([nodeShapes.input(0), nodeShapes.input(1), nodeShapes.output0()]);
    expected.push([knownShape(scope, node.input?.[0], shapes), knownShape(scope, node.input?.[1], shapes), knownShape(scope, node.output?.[0], shapes)]);
    at += slotCountOf(node);
  }
  return { seen, expected, hints };
}

describe('NodeShapes', () => {
  it('reads the shapes by the hint table and finds what the by-name lookup finds', () => {
    const { seen, expected, hints } = shapesOfEveryNode((real) => real);
    expect(hints).toBeDefined();
    expect(seen).toEqual(expected);
    // The walk is not vacuous: most values of the block have a known shape.
    expect(seen.flat().filter((shape) => shape !== undefined).length).toBeGreaterThan(40);
  });

  it('a wrong hint costs a lookup, never a wrong shape', () => {
    // Every hint shifted to another value's id.
    const shifted = shapesOfEveryNode((real) => real && Int32Array.from(real, (_, i) => real[(i + 7) % real.length] as number));
    expect(shifted.seen).toEqual(shifted.expected);
    const none = shapesOfEveryNode(() => undefined);
    expect(none.seen).toEqual(none.expected);
  });
});

describe('the FLOPs share of a model with a symbolic batch (every PyTorch export with a dynamic axis)', () => {
  const forward = () => loadModel(path.join(repoRoot, 'fixtures/torch-forward/encoder-torchscript.onnx'));
  it('is taken at 1 for each symbolic dimension, said so with the --dim hint, and equals --dim batch=1', () => {
    const assumed = ampRewrite(forward()).report.summary;
    const given = ampRewrite(forward(), { dims: new Map([['batch', 1]]) }).report.summary;
    expect(assumed.matrixFlops).toMatchObject({ total: given.matrixFlops?.total, lowPrecision: given.matrixFlops?.lowPrecision, unknownNodes: 0, assumedOne: ['batch'] });
    expect(given.matrixFlops?.assumedOne).toBeUndefined();
    expect(renderSummary(assumed)).toMatch(/\nMatrix FLOPs in FP16 \(MatMul, Gemm, Conv, Einsum\): 100\.0% of [\d.]+ kFLOP \(at batch=1: give --dim name=size\)\n/);
    expect(renderSummary(given)).not.toContain('give --dim');
  });

  it('the Tensor Core lint is not run at the assumed sizes: a batch of 1 is not reported as a dimension to pad', () => {
    const lint = ampRewrite(forward()).report.summary.tensorCoreLint;
    expect(JSON.stringify(lint ?? {})).not.toMatch(/"size":1\b/);
  });
});
