/**
 * The walks over a scope's node list (topological order, type inference, paint) read the value
 * ids of the nodes' names from a hint table by position instead of hashing each name. A hint is
 * only ever used after checking it against the name: these tests hold every answer through the
 * hints to the plain map's answer, through seeded random edits made through the graph model and
 * behind its back (names written into node.input and node.output directly, lists grown), in the
 * main graph and in subgraphs, and with a second graph model over the same model.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { onnx } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { GraphScope, ModelGraph, ValueIndex, slotCountOf } from '../../src/onnx/graph.js';
import { opsetsOf } from '../../src/onnx/opsets.js';
import { ElemTypes, inferElemTypes } from '../../src/onnx/type-inference.js';
import { validateModel } from '../../src/onnx/validate.js';
import { floatTensor, model, node, valueInfo } from '../support/models.js';
import { seededRandom } from '../../src/builder/graph-builder.js';

/** The builder's seeded generator (mulberry32): the same seed, the same random edits. */
const random = seededRandom;

function branch(name: string, reads: string[], output: string): onnx.GraphProto {
  return onnx.GraphProto.create({
    name,
    node: [node('Identity', [reads[0] as string], [`${name}_a`]), node('Add', [`${name}_a`, reads[1] as string], [output])],
    output: [valueInfo(output, 0)],
  });
}

/** Float and int64 values side by side (a swapped read changes a type), and an If whose branches read outer values. */
function mixedModel(): onnx.ModelProto {
  const graphAttribute = (name: string, g: onnx.GraphProto) => onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.GRAPH, g });
  return model({
    input: [valueInfo('x'), valueInfo('k', DataType.INT64), valueInfo('cond', DataType.BOOL)],
    initializer: [floatTensor('w0', [1], [1]), floatTensor('w1', [1], [2])],
    node: [
      node('Relu', ['x'], ['f0']),
      node('Neg', ['k'], ['i0']),
      node('Add', ['f0', 'w0'], ['f1']),
      node('Mul', ['i0', 'k'], ['i1']),
      node('Identity', ['f1'], ['f2']),
      node('Identity', ['i1'], ['i2']),
      node('If', ['cond'], ['g0'], 'if', { attribute: [graphAttribute('then_branch', branch('then', ['f2', 'f1'], 't_out')), graphAttribute('else_branch', branch('else', ['f0', 'x'], 'e_out'))] }),
      node('Sub', ['f2', 'g0'], ['f3']),
      node('Split', ['i2'], ['s0', 's1'], 'split'),
    ],
    output: [valueInfo('f3'), valueInfo('s1', DataType.INT64)],
  });
}

/** Every name of the scope's nodes, answered through the hint table as the walks read it, against the map. */
function checkHintAnswers(scope: GraphScope, nodes: readonly onnx.INodeProto[], label: string): void {
  const hints = scope.valueIdHints(nodes);
  let at = 0;
  for (const n of nodes) {
    const outputs = n.output ?? [];
    const names = [...outputs, ...(n.input ?? [])];
    names.forEach((name, k) => {
      if (!name) return;
      const expected = scope.valueIdOf(name);
      expect(scope.hintedValueId(hints?.[at + k], name), `${label} ${name}`).toBe(expected);
      if (expected >= 0) expect(scope.hintedInternValueId(hints?.[at + k], name), `${label} ${name}`).toBe(expected);
    });
    at += slotCountOf(n);
  }
}

type TypeTable = Array<[string, Array<[string, { elemType: number; source: string }]>]>;

function typeTable(graph: ModelGraph, types: ElemTypes): TypeTable {
  return graph.scopes.map((scope) => [scope.path, [...types.entries(scope)].map(([name, type]) => [name, { ...type }] as [string, { elemType: number; source: string }])]);
}

/** Forgets a scope's cached topological order, so that the next call walks the list again (the cache has no public reset). */
function forgetOrder(scope: GraphScope): void {
  (scope as unknown as { orderCache: unknown }).orderCache = undefined;
}

function orderOf(scope: GraphScope): { order: string[]; blocked: string[]; unproduced: readonly string[] | undefined } {
  forgetOrder(scope);
  const { order, blocked } = scope.topologicalOrder();
  return { order: order.map((n) => n.name ?? ''), blocked: blocked.map((n) => n.name ?? ''), unproduced: scope.lastUnproducedReads() };
}

/** Types and orders computed with the hint tables, then with every hint table withheld: the map's answers. */
function withAndWithoutHints(graph: ModelGraph): { hinted: unknown; plain: unknown } {
  const opsets = opsetsOf(graph.model);
  const hinted = { orders: graph.scopes.map(orderOf), types: typeTable(graph, inferElemTypes(graph, opsets)) };
  const spies = [vi.spyOn(GraphScope.prototype, 'valueIdHints').mockReturnValue(undefined), vi.spyOn(GraphScope.prototype, 'initializerIdHints').mockReturnValue(undefined)];
  const plain = { orders: graph.scopes.map(orderOf), types: typeTable(graph, inferElemTypes(graph, opsets)) };
  for (const spy of spies) spy.mockRestore();
  return { hinted, plain };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('value id hints', () => {
  it('are exact for an unedited list and for a list edited then walked once (the layout the walks step through)', () => {
    const graph = new ModelGraph(mixedModel());
    for (const scope of graph.scopes) {
      const nodes = scope.currentNodes();
      const hints = scope.valueIdHints(nodes) as Int32Array;
      expect(hints, scope.path).toBeDefined();
      let at = 0;
      for (const n of nodes) {
        [...(n.output ?? []), ...(n.input ?? [])].forEach((name, k) => expect(hints[at + k], `${scope.path} ${name}`).toBe(name ? scope.valueIdOf(name) : -1));
        at += slotCountOf(n);
      }
      expect(at).toBe(hints.length);
    }
    const main = graph.main;
    const before = main.currentNodes();
    const slotOf = (position: number): number => before.slice(0, position).reduce((sum, n) => sum + slotCountOf(n), 0);
    main.insertNodeAfter(before[1] as onnx.INodeProto, node('Identity', ['i0'], ['i0_copy'], 'copy'));
    main.insertNodeAfter(null, node('Identity', ['k'], ['k_copy'], 'first'));
    // Two reads rewired: through setInput(), whose slot in the table keeps the old name's id (which
    // the check turns away), and through setHintedInput(), which keeps the table true.
    const plainReader = before[3] as onnx.INodeProto;
    const hintedReader = before[5] as onnx.INodeProto;
    main.setInput(plainReader, 0, 'i0_copy');
    main.setHintedInput(hintedReader, 0, 'i0_copy', slotOf(5) + (hintedReader.output?.length ?? 0), -1, -1);
    main.removeNode(before[4] as onnx.INodeProto);
    graph.commit();
    // The commit builds the committed list's table: the kept nodes' ids, the inserted nodes' as indexed.
    const committed = main.currentNodes();
    expect(committed.map((n) => n.name)).toEqual(['first', ...before.slice(0, 2).map((n) => n.name), 'copy', ...before.slice(2).filter((_, i) => i !== 2).map((n) => n.name)]);
    const table = main.valueIdHints(committed) as Int32Array;
    expect(table).toBeDefined();
    let at = 0;
    for (const n of committed) {
      [...(n.output ?? []), ...(n.input ?? [])].forEach((name, k) => {
        const stale = n === plainReader && k === (n.output?.length ?? 0);
        expect(table[at + k], `${n.name} ${name}`).toBe(stale ? main.valueIdOf('i0') : name ? main.valueIdOf(name) : -1);
        expect(main.hintedValueId(table[at + k], name), `${n.name} ${name}`).toBe(main.valueIdOf(name));
      });
      at += slotCountOf(n);
    }
    expect(at).toBe(table.length);
  });

  it('are exact for nodes with more names than the table\'s first guess allows (it grows)', () => {
    const many = Array.from({ length: 40 }, (_, i) => `x${i}`);
    const m = model({ input: many.map((name) => valueInfo(name)), node: [node('Concat', many, ['c'], 'concat', { attribute: [onnx.AttributeProto.create({ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 })] })], output: [valueInfo('c')] });
    const graph = new ModelGraph(m);
    const main = graph.main;
    const exact = (nodes: readonly onnx.INodeProto[]): void => {
      const hints = main.valueIdHints(nodes) as Int32Array;
      let at = 0;
      for (const n of nodes) {
        [...(n.output ?? []), ...(n.input ?? [])].forEach((name, k) => expect(hints[at + k], name).toBe(main.valueIdOf(name)));
        at += slotCountOf(n);
      }
      expect(hints.length).toBe(at);
    };
    exact(main.currentNodes());
    main.insertNodeAfter(null, node('Concat', [...many, ...many], ['d'], 'twice'));
    graph.commit();
    exact(main.topologicalOrder().order);
  });

  it('spare the in-order walk and the type inference every lookup of a node\'s names in an unedited list, and the inference after a commit', () => {
    const m = mixedModel();
    m.graph!.node = m.graph!.node!.filter((n) => n.op_type !== 'If' && n.op_type !== 'Sub');
    m.graph!.output = [valueInfo('s1', DataType.INT64)];
    const graph = new ModelGraph(m);
    const opsets = opsetsOf(m);
    const idOf = vi.spyOn(ValueIndex.prototype, 'idOf');
    const intern = vi.spyOn(ValueIndex.prototype, 'intern');
    graph.main.topologicalOrder();
    inferElemTypes(graph, opsets);
    expect(idOf).not.toHaveBeenCalled();
    // The graph inputs, typed by name (the initializers by their ids noted as the model was indexed).
    expect(intern).toHaveBeenCalledTimes(3);
    const main = graph.main;
    main.insertNodeAfter(main.currentNodes()[0] as onnx.INodeProto, node('Identity', ['f0'], ['f0_copy'], 'copy'));
    main.setInput(main.currentNodes()[3] as onnx.INodeProto, 0, 'f0_copy');
    graph.commit();
    idOf.mockClear();
    main.topologicalOrder();
    // The commit gave the new list a table (the old ids, the inserted node's as indexed): only the
    // read rewired through setInput(), whose slot kept the old id, is looked up.
    expect(idOf).toHaveBeenCalledTimes(1);
    idOf.mockClear();
    intern.mockClear();
    inferElemTypes(graph, opsets);
    expect(idOf).not.toHaveBeenCalled();
    expect(intern).toHaveBeenCalledTimes(3);
    // A node taken out: the walk steps over it in the old list.
    main.removeNode(main.currentNodes().find((n) => n.op_type === 'Split') as onnx.INodeProto);
    main.removeNode(main.currentNodes()[1] as onnx.INodeProto);
    graph.commit();
    idOf.mockClear();
    main.topologicalOrder();
    expect(idOf).not.toHaveBeenCalled();
  });

  it('let a Cast be inserted and read with the ids its maker has, and no name hashed again', () => {
    // Without the If, whose subgraphs' outer reads the walk looks up by name.
    const m = mixedModel();
    m.graph!.node = m.graph!.node!.filter((n) => n.op_type !== 'If' && n.op_type !== 'Sub');
    m.graph!.output = [valueInfo('s1', DataType.INT64)];
    const graph = new ModelGraph(m);
    const main = graph.main;
    const nodes = main.currentNodes();
    const producer = nodes[0] as onnx.INodeProto;
    const reader = nodes[2] as onnx.INodeProto;
    const readerSlot = slotCountOf(producer) + slotCountOf(nodes[1] as onnx.INodeProto) + (reader.output?.length ?? 0);
    const ids = new Int32Array(2);
    const intern = vi.spyOn(ValueIndex.prototype, 'intern');
    const output = graph.uniqueNameInto('f0_cast', ids, 0);
    expect(ids[0]).toBe(main.valueIdOf(output));
    ids[1] = main.valueIdOf('f0');
    intern.mockClear();
    const idOf = vi.spyOn(ValueIndex.prototype, 'idOf');
    main.insertNodeAfter(producer, node('Cast', ['f0'], [output], output), ids);
    main.setHintedInput(reader, 0, output, readerSlot, ids[0] as number, ids[1] as number);
    expect(intern).not.toHaveBeenCalled();
    expect(idOf).not.toHaveBeenCalled();
    graph.commit();
    main.topologicalOrder();
    expect(intern).not.toHaveBeenCalled();
    expect(idOf).not.toHaveBeenCalled();
    expect(main.consumersOf(output).map((use) => use.node)).toEqual([reader]);
    expect(main.consumersOf('f0').map((use) => use.node.op_type)).toEqual(['Cast']);
    expect(main.producerNodeOf(output)?.op_type).toBe('Cast');
  });

  it('are let go by the validation, a pass\'s last walk, and recorded again by the next in-order walk', () => {
    const m = mixedModel();
    const graph = new ModelGraph(m);
    const opsets = opsetsOf(m);
    const types = inferElemTypes(graph, opsets);
    expect(validateModel(m, graph, types)).toEqual([]);
    for (const scope of graph.scopes) {
      expect(scope.valueIdHints(scope.currentNodes()), scope.path).toBeUndefined();
      expect(scope.initializerIdHints(), scope.path).toBeUndefined();
    }
    const { hinted, plain } = withAndWithoutHints(graph);
    expect(hinted).toEqual(plain);
    for (const scope of graph.scopes) {
      expect(scope.valueIdHints(scope.topologicalOrder().order), scope.path).toBeDefined();
      checkHintAnswers(scope, scope.topologicalOrder().order, scope.path);
    }
  });

  it('answer as the map does through seeded random edits, through the graph model and behind its back, in every scope', () => {
    for (const seed of [1, 7, 42]) {
      const graph = new ModelGraph(mixedModel());
      const next = random(seed);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
      let made = 0;
      for (let step = 0; step < 150; step++) {
        const scope = pick(graph.scopes);
        const nodes = scope.currentNodes();
        const target = pick(nodes);
        const known = [...scope.valueIds()].map(([name]) => name);
        const someName = (): string => (next() < 0.15 ? `new_${made++}` : next() < 0.1 ? 'nowhere' : pick(known));
        const inputs = target.input ?? (target.input = []);
        const slot = Math.floor(next() * Math.max(1, inputs.length));
        const edit = Math.floor(next() * 12);
        if (edit === 0) scope.setInput(target, slot, someName());
        else if (edit === 1) inputs[slot] = someName();
        else if (edit === 2 && target.output?.length) target.output[0] = next() < 0.5 ? `out_${made++}` : pick(known);
        else if (edit === 3) inputs.push(someName());
        else if (edit === 4 && target.output?.length) scope.renameNodeOutput(target, 0, `renamed_${made++}`);
        else if (edit === 5) {
          // With ids claimed for its names, right or wrong, or none.
          const claimed = next() < 0.5 ? [Math.floor(next() * (known.length + 2)) - 1, Math.floor(next() * (known.length + 2)) - 1] : undefined;
          scope.insertNodeAfter(next() < 0.2 ? null : target, node('Identity', [someName()], [`ins_${made++}`]), claimed);
        }
        else if (edit === 6 && nodes.length > 2 && target.op_type !== 'If') scope.removeNode(target);
        else if (edit === 7) graph.commit();
        // The same name in a string object of its own: equal, but no pointer compare can tell.
        else if (edit === 8 && inputs[slot]) inputs[slot] = [...(inputs[slot] as string)].join('');
        // Initializers added or taken away behind the graph model's back, typed differently.
        else if (edit === 9) scope.initializers.set(next() < 0.5 ? someName() : `w_${made++}`, onnx.TensorProto.create({ name: 'w', data_type: pick([DataType.INT64, DataType.FLOAT16]) }));
        else if (edit === 10) scope.initializers.delete(pick([...scope.initializers.keys(), 'w0']));
        // A rewire that claims a table slot and ids, right or wrong: the table may be made to lie, never the answers.
        else if (edit === 11) scope.setHintedInput(target, slot, someName(), Math.floor(next() * (known.length + 2)) - 1, Math.floor(next() * 40) - 2, Math.floor(next() * (known.length + 2)) - 1);
        for (const s of graph.scopes) {
          checkHintAnswers(s, s.currentNodes(), `seed ${seed} step ${step} ${s.path} list`);
          checkHintAnswers(s, s.topologicalOrder().order, `seed ${seed} step ${step} ${s.path} order`);
          const visible = (name: string): boolean => s.inputs.has(name) || s.initializers.has(name) || (s.parent?.isVisible(name) ?? false);
          expect(s.unproducedReadsVisible(), `seed ${seed} step ${step} ${s.path} unproduced`).toBe((s.lastUnproducedReads() as readonly string[]).every(visible));
          const size = [...s.valueIds()].length;
          for (const name of ['x', 'f1', 'nowhere', ...(target.input ?? [])]) {
            if (!name) continue;
            const hint = Math.floor(next() * (size + 4)) - 2;
            expect(s.hintedValueId(hint, name), `${name} hinted ${hint}`).toBe(s.valueIdOf(name));
          }
        }
        if (step % 10 === 9) {
          const { hinted, plain } = withAndWithoutHints(graph);
          expect(hinted, `seed ${seed} step ${step}`).toEqual(plain);
        }
      }
    }
  });

  it('type a name written into a node behind the graph model\'s back by that name, not by the one indexed there', () => {
    const m = mixedModel();
    const graph = new ModelGraph(m);
    const relu = graph.main.currentNodes()[0] as onnx.INodeProto;
    const identity = graph.main.currentNodes()[4] as onnx.INodeProto;
    // Identity read f1 (float) when indexed; it now reads i1 (int64), and writes a name never indexed.
    (identity.input as string[])[0] = 'i1';
    (identity.output as string[])[0] = 'f2_direct';
    (relu.output as string[])[0] = 'f0';
    const types = inferElemTypes(graph, opsetsOf(m));
    expect(types.get(graph.main, 'f2_direct')).toBe(DataType.INT64);
    expect(types.get(graph.main, 'f2')).toBeUndefined();
    const { hinted, plain } = withAndWithoutHints(graph);
    expect(hinted).toEqual(plain);
  });

  it('a second graph model over the same (edited, committed) model answers as the first', () => {
    const m = mixedModel();
    const first = new ModelGraph(m);
    const main = first.main;
    const cast = node('Cast', ['i2'], ['i2_float'], 'cast', { attribute: [onnx.AttributeProto.create({ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: DataType.FLOAT })] });
    main.insertNodeAfter(main.currentNodes()[5] as onnx.INodeProto, cast);
    main.setInput(main.currentNodes().find((n) => n.op_type === 'Sub') as onnx.INodeProto, 1, 'i2_float');
    first.commit();
    const second = new ModelGraph(m);
    const opsets = opsetsOf(m);
    const firstTypes = typeTable(first, inferElemTypes(first, opsets));
    expect(typeTable(second, inferElemTypes(second, opsets))).toEqual(firstTypes);
    for (const graph of [first, second]) {
      for (const scope of graph.scopes) checkHintAnswers(scope, scope.topologicalOrder().order, scope.path);
      const { hinted, plain } = withAndWithoutHints(graph);
      expect(hinted).toEqual(plain);
    }
  });
});
