/**
 * Painting's records: one object per node serves as its decision and as what cast planning reads
 * (paint.nodes), and the float32 input slots painting keeps per node name the right input even
 * past the 31 inputs its float32 bits cover.
 */
import { describe, expect, it } from 'vitest';
import { attr, GraphBuilder } from '../../src/builder/graph-builder.js';
import { DataType } from '../../src/onnx/data-types.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { ModelGraph } from '../../src/onnx/graph.js';
import { opsetsOf } from '../../src/onnx/opsets.js';
import { inferElemTypes } from '../../src/onnx/type-inference.js';
import { ampRewrite, effectiveLists, nodeMatcher } from '../../src/passes/amp.js';
import { sortGraph } from '../../src/passes/amp/graph-order.js';
import { MAX_TYPE_BITS, paintScope, type PaintOptions } from '../../src/passes/amp/paint.js';

const F = DataType.FLOAT;
const weight = (b: GraphBuilder, name: string) => b.initializer(name, [4, 4], new Float32Array(16).fill(0.5));

function paintAll(model: onnx.ModelProto) {
  const graph = new ModelGraph(model);
  sortGraph(graph);
  const opsets = opsetsOf(model);
  const types = inferElemTypes(graph, opsets);
  const options: PaintOptions = {
    target: DataType.FLOAT16,
    mode: 'fp16',
    forceFp32: nodeMatcher([]),
    pinned: new Map(),
    forceFp16: nodeMatcher([]),
    weightInputs: new Set(),
  };
  return graph.scopes.map((scope) => ({ scope, paint: paintScope(scope, types, opsets, effectiveLists({}), options) }));
}

/** A MatMul, a Softmax and a Relu around an If whose branches hold nodes of their own. */
function modelWithSubgraphs(): onnx.ModelProto {
  const branch = (name: string) => {
    const g = new GraphBuilder(name);
    g.op('Relu', ['mm'], {}, { name: `${name}_relu`, outputs: [`${name}_out`] });
    g.output(`${name}_out`, F, [4, 4]);
    return g.graph();
  };
  const b = new GraphBuilder('g');
  const x = b.input('x', F, [4, 4]);
  const cond = b.input('cond', DataType.BOOL, []);
  b.op('MatMul', [x, weight(b, 'w')], {}, { name: 'matmul', outputs: ['mm'] });
  b.op('Softmax', ['mm'], {}, { name: 'softmax', outputs: ['sm'] });
  b.op('If', [cond], { then_branch: attr.graph(branch('then')), else_branch: attr.graph(branch('else')) }, { name: 'if', outputs: ['chosen'] });
  b.op('Add', ['sm', 'chosen'], {}, { name: 'add', outputs: ['y'] });
  b.output('y', F, [4, 4]);
  return b.model();
}

describe('painted nodes', () => {
  it('is one object per node: the decision is what paint.nodes gives for its node', () => {
    const painted = paintAll(modelWithSubgraphs());
    expect(painted.length).toBe(3);
    for (const { scope, paint } of painted) {
      expect(paint.decisions.length).toBe(scope.topologicalOrder().order.length);
      expect(paint.nodes.size).toBe(paint.decisions.length);
      paint.decisions.forEach((decision, position) => {
        const found = paint.nodes.get(decision.node);
        expect(found).toBe(decision);
        expect(found?.decision).toBe(decision);
        expect(decision.scope).toBe(scope);
        // The map iterates in painting's order, like the Map it stands for.
        expect([...paint.nodes.keys()][position]).toBe(decision.node);
      });
      expect([...paint.nodes.values()]).toEqual(paint.decisions);
      expect([...paint.nodes].map(([node, entry]) => entry.decision.node === node)).not.toContain(false);
    }
    const main = painted[0]!.paint;
    // Out of painting's order too (lookups in order need no Map from node to position).
    for (const decision of [...main.decisions].reverse()) expect(main.nodes.get(decision.node)).toBe(decision);
    expect(main.nodes.get(main.decisions[0]!.node)).toBe(main.decisions[0]);
    expect(main.nodes.get(main.decisions[1]!.node)).toBe(main.decisions[1]);
    const inBranch = painted[1]!.paint.decisions[0]!.node;
    expect(main.nodes.has(inBranch)).toBe(false);
    expect(main.nodes.get(inBranch)).toBeUndefined();
    const matmul = main.decisions.find((d) => d.node.name === 'matmul');
    expect(matmul).toMatchObject({ color: 'ALLOW', rule: 'allow-list', processable: true, castsAdded: [] });
    expect(main.nodes.get(matmul!.node)?.floatInputs).toBe(0b11);
    expect(main.nodes.get(matmul!.node)?.floatOutputs).toBe(0b1);
  });

  it('adds no computesIn or castsOnOutputs field to a decision that has none', () => {
    const [{ paint }] = paintAll(modelWithSubgraphs());
    for (const decision of paint!.decisions) {
      expect(Object.keys(decision)).not.toContain('computesIn');
      expect(Object.keys(decision)).not.toContain('castsOnOutputs');
    }
  });
});

describe('float32 input slots past the bit masks', () => {
  /** A Concat (the graph's output) of MAX_TYPE_BITS + 2 MatMul outputs with one more float32 value at `at`. */
  function wideConcat(extra: (b: GraphBuilder) => string, at: number) {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [4, 4]);
    const parts: string[] = [];
    for (let i = 0; i < MAX_TYPE_BITS + 2; i++) parts.push(b.op('MatMul', [x, weight(b, `w${i}`)], {}, { name: `mm${i}` }));
    parts.splice(at, 0, extra(b));
    b.op('Concat', parts, { axis: attr.int(0) }, { name: 'concat', outputs: ['y'] });
    b.output('y', F, [4 * parts.length, 4]);
    return ampRewrite(b.model()).report.nodes.find((n) => n.node === 'concat')!;
  }

  it('names the fp32 stream among more inputs than the bits cover', () => {
    const concat = wideConcat((b) => b.input('stream', F, [4, 4]), MAX_TYPE_BITS + 1);
    expect(`${concat.color}:${concat.rule}`).toBe('NONE:fp32-stream');
    expect(concat.reason).toBe("input 'stream' is an fp32 value from outside the low-precision region");
  });

  it('lets a weight among them follow the allow ops', () => {
    const concat = wideConcat((b) => weight(b, 'bias'), 5);
    expect(`${concat.color}:${concat.rule}`).toBe('ALLOW:clear-flood');
  });
});
