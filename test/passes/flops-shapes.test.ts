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
