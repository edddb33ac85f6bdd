/**
 * The graph model keeps producers and readers in flat tables (value ids, linked edge lists) and
 * the names uniqueName() avoids in one name table. These tests hold them to a plain reference
 * model of what they replaced (a list of uses per name, pushed in reading order and spliced at the
 * first match; a Set of every name ever seen or minted) through random edits.
 */
import { describe, expect, it } from 'vitest';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { ModelGraph, StringSet, ValueIndex, type ValueUse } from '../../src/onnx/graph.js';
import { DataType } from '../../src/onnx/data-types.js';
import { ElemTypes, inferElemTypes } from '../../src/onnx/type-inference.js';
import { opsetsOf } from '../../src/onnx/opsets.js';
import { model, node, valueInfo } from '../support/models.js';
import { seededRandom } from '../../src/builder/graph-builder.js';

/** The builder's seeded generator (mulberry32): the same seed, the same random edits. */
const random = seededRandom;

/** What the graph model answered before its tables: per name a list of uses and one producer. */
class Reference {
  readonly uses = new Map<string, ValueUse[]>();
  readonly producers = new Map<string, { node: onnx.INodeProto; index: number }>();
  add(node: onnx.INodeProto): void {
    (node.output ?? []).forEach((name, index) => name && this.producers.set(name, { node, index }));
    (node.input ?? []).forEach((name, index) => name && this.addUse(name, node, index));
  }
  addUse(name: string, node: onnx.INodeProto, index: number): void {
    const list = this.uses.get(name);
    if (list) list.push({ node, index });
    else this.uses.set(name, [{ node, index }]);
  }
  dropUse(name: string, node: onnx.INodeProto, index: number): void {
    const list = this.uses.get(name) ?? [];
    const at = list.findIndex((use) => use.node === node && use.index === index);
    if (at >= 0) list.splice(at, 1);
  }
}

/** A value `v0` read by 1 node, `v1` by 2, `v2` by 40, and a chain of other values. */
function fanOutModel(): onnx.ModelProto {
  const nodes: onnx.NodeProto[] = [node('Relu', ['x'], ['v0']), node('Relu', ['x'], ['v1']), node('Relu', ['x'], ['v2'])];
  nodes.push(node('Neg', ['v0'], ['r0']));
  for (let i = 0; i < 2; i++) nodes.push(node('Add', ['v1', 'x'], [`s${i}`]));
  for (let i = 0; i < 40; i++) nodes.push(node('Mul', [i % 3 === 0 ? 'x' : 'v1', 'v2'], [`m${i}`]));
  nodes.push(node('Split', ['m0'], ['p0', 'p1', 'p2'], 'split'));
  return model({ node: nodes, input: [valueInfo('x')], output: [valueInfo('m39'), valueInfo('p2')] });
}

/**
 * A short name of up to `maxLength - 1` units from the first six of `alphabet` (many repeats, many
 * equal hashes' neighbours), the empty name, non-ASCII ones, and half of them rebuilt into a string
 * object of their own (equal names that are not the same string).
 */
function randomName(next: () => number, alphabet: string, maxLength: number): string {
  const length = Math.floor(next() * maxLength);
  let name = '';
  for (let i = 0; i < length; i++) name += alphabet.charAt(Math.floor(next() * 6));
  return next() < 0.5 ? name : [...name].join('');
}

describe('graph model tables', () => {
  it('keeps consumersOf, consumerCount, someConsumer, producerOf and producerNodeOf equal to the reference through random rewiring', () => {
    const graph = new ModelGraph(fanOutModel());
    const scope = graph.main;
    const reference = new Reference();
    for (const n of scope.currentNodes()) reference.add(n);
    const names = () => [...new Set([...reference.uses.keys(), ...reference.producers.keys(), 'x', 'nowhere'])];
    const check = (): void => {
      for (const name of names()) {
        const expected = reference.uses.get(name) ?? [];
        expect(scope.consumersOf(name), name).toEqual(expected);
        expect(scope.consumerCount(name), name).toBe(expected.length);
        expect(scope.someConsumer(name, (n, index) => index === 1 && n.op_type === 'Mul')).toBe(expected.some((u) => u.index === 1 && u.node.op_type === 'Mul'));
        expect(scope.producerOf(name), name).toEqual(reference.producers.get(name));
        expect(scope.producerNodeOf(name), name).toBe(reference.producers.get(name)?.node);
      }
    };
    check();
    expect(scope.consumersOf('v2')).toHaveLength(40);
    expect(scope.producerOf('p2')).toEqual({ node: scope.producerNodeOf('p0'), index: 2 });
    const next = random(13);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
    let made = 0;
    for (let step = 0; step < 300; step++) {
      const nodes = scope.currentNodes();
      const choice = next();
      if (choice < 0.6) {
        // Rewire a reader of one of the shared values to another value (or to nothing).
        const n = pick(nodes);
        const inputs = n.input ?? [];
        if (!inputs.length) continue;
        const index = Math.floor(next() * inputs.length);
        const name = pick(['v0', 'v1', 'v2', 'x', '', `new${step % 7}`]);
        const old = inputs[index];
        if (old) reference.dropUse(old, n, index);
        if (name) reference.addUse(name, n, index);
        scope.setInput(n, index, name);
      } else if (choice < 0.75) {
        const n = pick(nodes);
        for (const name of n.output ?? []) if (reference.producers.get(name)?.node === n) reference.producers.delete(name);
        (n.input ?? []).forEach((name, index) => name && reference.dropUse(name, n, index));
        scope.removeNode(n);
      } else if (choice < 0.9) {
        const added = node('Cast', [pick(['v0', 'v1', 'v2', 'x'])], [graph.uniqueName(`c${made++}`)]);
        reference.add(added);
        scope.insertNodeAfter(pick(nodes), added);
      } else {
        const n = pick(nodes);
        if (!n.output?.length) continue;
        const index = Math.floor(next() * n.output.length);
        const old = n.output[index];
        if (old && reference.producers.get(old)?.node === n) reference.producers.delete(old);
        const renamed = graph.uniqueName(`${old}/renamed`);
        reference.producers.set(renamed, { node: n, index });
        scope.renameNodeOutput(n, index, renamed);
      }
      check();
    }
    // The answer is a snapshot: rewiring after the call leaves an earlier answer as it was.
    const before = scope.consumersOf('x');
    const reader = before[0];
    if (reader) scope.setInput(reader.node, reader.index, 'elsewhere');
    expect(before[0]).toEqual(reader);
  });

  it('StringSet answers as a Set through seeded random additions, growing past the size it was made for', () => {
    for (const expected of [0, 5, 300]) {
      const next = random(expected + 3);
      const set = new StringSet(expected);
      const reference = new Set<string>();
      const someName = (): string => randomName(next, 'ab/_é\u{1F600}', 4);
      for (let step = 0; step < 2000; step++) {
        const name = someName();
        expect(set.has(name), name).toBe(reference.has(name));
        if (next() < 0.5) {
          set.add(name);
          reference.add(name);
        }
        expect(set.size).toBe(reference.size);
      }
      for (let i = 0; i < 1000; i++) {
        const name = `n${i % 700}`;
        set.add(name);
        reference.add(name);
      }
      expect(set.size).toBe(reference.size);
      for (const name of [...reference, 'n700', 'x', '']) expect(set.has(name), name).toBe(reference.has(name));
    }
  });

  it('ValueIndex answers as a Map of first-seen ids through seeded random names, growing past the size it was made for', () => {
    for (const expected of [0, 7, 400]) {
      const next = random(expected + 11);
      const index = new ValueIndex(expected);
      const reference = new Map<string, number>();
      const someName = (): string => randomName(next, 'xy/_ü\u{1F680}', 5);
      for (let step = 0; step < 3000; step++) {
        const name = step % 3 === 0 ? `v${Math.floor(next() * 2000)}` : someName();
        expect(index.idOf(name), name).toBe(reference.get(name) ?? -1);
        if (next() < 0.6) {
          if (!reference.has(name)) reference.set(name, reference.size);
          expect(index.intern(name), name).toBe(reference.get(name));
        }
        expect(index.size).toBe(reference.size);
        // A hint is taken only when it is the name's id.
        const hint = Math.floor(next() * (reference.size + 3)) - 1;
        expect(index.hintedId(hint, name), `${name} hinted ${hint}`).toBe(reference.get(name) ?? -1);
      }
      expect([...index.entries()]).toEqual([...reference.entries()]);
      for (const [name, id] of reference) expect(index.nameOf(id)).toBe(name);
      expect(index.nameOf(reference.size)).toBeUndefined();
    }
  });

  it('answers uniqueName like a Set of every name seen when built or handed out since, after renames and removals', () => {
    const thenBranch = { name: 'then', node: [node('Identity', ['outer'], ['t_out'], 'shared_name')], output: [valueInfo('t_out')] };
    const elseBranch = { name: 'else', node: [node('Neg', ['outer'], ['e_out'], 'e_node')], output: [valueInfo('e_out')] };
    const ifNode = node('If', ['cond'], ['y'], 'if', { attribute: [{ name: 'then_branch', type: 5, g: thenBranch }, { name: 'else_branch', type: 5, g: elseBranch }] });
    const m = model({
      node: [node('Relu', ['x'], ['outer'], 'relu_node'), node('Abs', ['outer', ''], ['a', ''], 'shared_name'), ifNode],
      input: [valueInfo('x'), valueInfo('cond', DataType.BOOL)],
      output: [valueInfo('y')],
      // Names of the lists that are also node names (a node's name and a value's may be one).
      value_info: [valueInfo('annotated_only'), valueInfo('relu_node')],
      initializer: [
        { name: 'weight', data_type: DataType.FLOAT, dims: [1], float_data: [1] },
        { name: 'e_node', data_type: DataType.FLOAT, dims: [1], float_data: [1] },
      ],
    });
    const reference = new Set<string>();
    const note = (g: onnx.IGraphProto): void => {
      for (const n of g.node ?? []) {
        if (n.name) reference.add(n.name);
        for (const name of [...(n.input ?? []), ...(n.output ?? [])]) reference.add(name);
        for (const a of n.attribute ?? []) if (a.g) note(a.g);
      }
      for (const info of [...(g.input ?? []), ...(g.output ?? []), ...(g.value_info ?? [])]) reference.add(info.name ?? '');
      for (const t of g.initializer ?? []) reference.add(t.name ?? '');
    };
    note(m.graph!);
    const graph = new ModelGraph(m);
    const referenceUnique = (base: string): string => {
      let name = base;
      for (let i = 1; reference.has(name); i++) name = `${base}_${i}`;
      reference.add(name);
      return name;
    };
    const bases = ['x', 'outer', 'relu_node', 'shared_name', 'e_node', 't_out', 'e_out', 'annotated_only', 'weight', 'cond', 'y', '', 'a', 'fresh', 'fresh_1', 'x_1', 'never'];
    const asked = (): void => {
      for (const base of [...bases, ...bases.map((b) => `${b}_1`)]) {
        expect(graph.isNameUsed(base), base).toBe(reference.has(base));
      }
    };
    asked();
    for (const base of bases) expect(graph.uniqueName(base), base).toBe(referenceUnique(base));
    // Names leave the graph: they stay taken.
    const relu = graph.main.producerNodeOf('outer')!;
    graph.main.renameNodeOutput(relu, 0, 'outer_renamed_by_hand');
    graph.main.removeNode(graph.main.producerNodeOf('a')!);
    // A name wired in without uniqueName is not taken (as before).
    graph.main.setInput(ifNode, 0, 'wired_by_hand');
    for (const base of [...bases, 'outer_renamed_by_hand', 'wired_by_hand', 'a', 'outer']) expect(graph.uniqueName(base), base).toBe(referenceUnique(base));
    asked();
  });

  it('ElemTypes answers in the main graph and a subgraph, lists entries in first-typed order, and keeps a type it cannot share', () => {
    const body = { name: 'body', node: [node('Neg', ['outer'], ['inner'])], output: [valueInfo('inner')] };
    const m = model({
      node: [node('Relu', ['x'], ['outer']), node('If', ['cond'], ['y'], 'if', { attribute: [{ name: 'then_branch', type: 5, g: body }, { name: 'else_branch', type: 5, g: body }] })],
      input: [valueInfo('x'), valueInfo('cond', DataType.BOOL)],
      output: [valueInfo('y')],
    });
    const graph = new ModelGraph(m);
    const types = inferElemTypes(graph, opsetsOf(m));
    const [thenScope] = graph.main.children;
    expect(types.get(graph.main, 'outer')).toBe(DataType.FLOAT);
    expect(types.get(thenScope!, 'outer')).toBe(DataType.FLOAT);
    expect(types.info(thenScope!, 'inner')).toEqual({ elemType: DataType.FLOAT, source: 'schema' });
    expect([...types.entries(graph.main)].map(([name]) => name)).toEqual(['x', 'cond', 'outer', 'y']);
    const fresh = new ElemTypes();
    fresh.set(graph.main, 'b', { elemType: DataType.INT64, source: 'declared' });
    fresh.set(graph.main, 'a', { elemType: 123456, source: 'schema' });
    fresh.set(graph.main, 'b', { elemType: DataType.FLOAT16, source: 'schema' });
    expect([...fresh.entries(graph.main)]).toEqual([
      ['b', { elemType: DataType.FLOAT16, source: 'schema' }],
      ['a', { elemType: 123456, source: 'schema' }],
    ]);
    expect(fresh.get(graph.main, 'never')).toBeUndefined();
    expect(fresh.get(thenScope!, 'b')).toBe(DataType.FLOAT16);
    // The same shared object for the same type: one object per (type, source), not per value.
    fresh.set(graph.main, 'c', { elemType: DataType.FLOAT16, source: 'schema' });
    expect(fresh.info(graph.main, 'c')).toBe(fresh.info(graph.main, 'b'));
  });
});
