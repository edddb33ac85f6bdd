/**
 * Checker parity at the attribute and scope level (issue #26): models ONNX's checker rejects are
 * INVALID_MODEL (exit 2) naming the node, attribute or function, never accepted, never exit 3.
 * Where ONNX's own checker is installed (Debian's python3-onnx 1.12, the newest at hand: test/support/python.ts),
 * each hand-built case is also run through it and must be rejected there too, except where the
 * old checker is known not to look (marked per case).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Long from 'long';
import { describe, expect, it } from 'vitest';
import { encodeModel, onnx } from '../../src/onnx/codec.js';
import { checkModel } from '../../src/onnx/check-model.js';
import { DataType } from '../../src/onnx/data-types.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { floatTensor, mainGraph, model, node, valueInfo } from '../support/models.js';
import { errorOf } from '../support/errors.js';
import { repoRoot } from '../support/corpus.js';
import { PYTHON_HINT, pythonWithOnnx } from '../support/python.js';

/** A call of a model-local function F of domain 'local'. */
function withFunctions(functions: Array<{ name: string; calls: string[] }>): onnx.ModelProto {
  const m = model({
    node: [node('F', ['x'], ['y'], 'call_f', { domain: 'local' })],
    input: [valueInfo('x', DataType.FLOAT, [2])],
    output: [valueInfo('y', DataType.FLOAT, [2])],
  });
  m.opset_import.push(onnx.OperatorSetIdProto.create({ domain: 'local', version: 1 }));
  m.functions = functions.map(({ name, calls }) =>
    onnx.FunctionProto.create({
      name,
      domain: 'local',
      input: ['a'],
      output: ['b'],
      opset_import: [onnx.OperatorSetIdProto.create({ domain: '', version: 17 }), onnx.OperatorSetIdProto.create({ domain: 'local', version: 1 })],
      node: calls.length
        ? calls.map((callee, i) => node(callee, [i ? `t${i - 1}` : 'a'], [i === calls.length - 1 ? 'b' : `t${i}`], `${name}_calls_${callee}`, { domain: 'local' }))
        : [node('Relu', ['a'], ['b'], `${name}_relu`)],
    }),
  );
  return m;
}

describe('model-local functions', () => {
  it('a function calling itself, directly or F → G → F, is INVALID_MODEL naming it (was exit 3)', () => {
    for (const [functions, cycle] of [
      [[{ name: 'F', calls: ['F'] }], "'F' → 'F'"],
      [[{ name: 'F', calls: ['G'] }, { name: 'G', calls: ['F'] }], "'F' → 'G' → 'F'"],
      [[{ name: 'F', calls: ['G'] }, { name: 'G', calls: ['H'] }, { name: 'H', calls: ['G'] }], "'G' → 'H' → 'G'"],
    ] as const) {
      const m = withFunctions(functions.map((f) => ({ ...f, calls: [...f.calls] })));
      const e = errorOf(() => rewriteModel(m));
      expect(e.code).toBe('INVALID_MODEL');
      expect(e.message).toContain(`calls itself (${cycle})`);
    }
  });

  it('functions calling each other without a cycle are accepted', () => {
    const m = withFunctions([{ name: 'F', calls: ['G', 'G'] }, { name: 'G', calls: [] }]);
    expect(() => checkModel(m)).not.toThrow();
    expect(() => rewriteModel(m)).not.toThrow();
  });
});

const ATTR = onnx.AttributeProto.AttributeType;
// Debian's python3-onnx 1.12 (the old checker CI installs) and the newest one at hand (AMP_PYTHON or the PATH).
const newest = pythonWithOnnx([1, 16]);
const checkers = [
  { name: 'python3-onnx 1.12', python: '/usr/bin/python3' },
  ...(newest ? [{ name: 'onnx >= 1.16', python: newest }] : []),
].filter(({ python }) => existsSync(python) && spawnSync(python, ['-c', 'import onnx'], { encoding: 'utf8' }).status === 0);
if (!checkers.length) console.warn(`[checker-parity] no ONNX checker installed (python3-onnx; ${PYTHON_HINT}): checking our side only`);
else if (!newest) console.warn(`[checker-parity] no onnx >= 1.16 (${PYTHON_HINT}): checked against python3-onnx 1.12 only`);

/** y = Transpose(x) with the given attributes. */
function transpose(attribute: onnx.IAttributeProto[]): onnx.ModelProto {
  return model({
    node: [node('Transpose', ['x'], ['y'], 'tr', { attribute })],
    input: [valueInfo('x', DataType.FLOAT, [2, 3])],
    output: [valueInfo('y', DataType.FLOAT, [3, 2])],
  });
}

/** An If whose branches output `branchOutput` (Identity of the outer x). */
function ifModel(branchOutput: string, thenBranch?: onnx.IAttributeProto): onnx.ModelProto {
  const branch = (label: string) =>
    onnx.GraphProto.create({ name: label, node: [node('Identity', ['x'], [branchOutput], `${label}_id`)], output: [valueInfo(branchOutput, DataType.FLOAT, [2])] });
  return model({
    node: [
      node('If', ['c'], ['y'], 'if', {
        attribute: [
          thenBranch ?? onnx.AttributeProto.create({ name: 'then_branch', type: ATTR.GRAPH, g: branch('then') }),
          onnx.AttributeProto.create({ name: 'else_branch', type: ATTR.GRAPH, g: branch('else') }),
        ],
      }),
    ],
    input: [valueInfo('c', DataType.BOOL, []), valueInfo('x', DataType.FLOAT, [2])],
    output: [valueInfo('y', DataType.FLOAT, [2])],
  });
}

function sparseModel(indices: number[], indexDims: number[]): onnx.ModelProto {
  const m = model({
    node: [node('Relu', ['w'], ['y'], 'relu')],
    output: [valueInfo('y', DataType.FLOAT, [4])],
  });
  m.ir_version = 8 as never;
  m.graph!.sparse_initializer = [
    onnx.SparseTensorProto.create({
      values: floatTensor('w', [indices.length], indices.map(() => 1)),
      indices: onnx.TensorProto.create({ name: 'w_indices', data_type: DataType.INT64, dims: indexDims, int64_data: indices }),
      dims: [4],
    }),
  ];
  return m;
}

/** IR 8, the newest python3-onnx 1.12 knows (the models use nothing newer): its verdict is then about the case. */
function forOldChecker(m: onnx.ModelProto): onnx.ModelProto {
  m.ir_version = 8 as never;
  return m;
}

interface ParityCase {
  name: string;
  build: () => onnx.ModelProto;
  /** Our message, in part. */
  message: string;
  /** Checkers known not to reject it (by name), with why. */
  checkerMisses?: Record<string, string>;
}

const CASES: ParityCase[] = [
  {
    name: 'an attribute given twice',
    build: () => transpose([onnx.AttributeProto.create({ name: 'perm', type: ATTR.INTS, ints: [1, 0] }), onnx.AttributeProto.create({ name: 'perm', type: ATTR.INTS, ints: [1, 0] })]),
    message: "Transpose node 'tr': attribute 'perm' is given twice",
  },
  {
    name: 'Transpose.perm as FLOATS',
    build: () => transpose([onnx.AttributeProto.create({ name: 'perm', type: ATTR.FLOATS, floats: [1, 0] })]),
    message: "Transpose node 'tr': attribute 'perm' is FLOATS, and Transpose takes list of ints (INTS)",
  },
  {
    name: 'an attribute holding a value in a field its type does not use',
    build: () => transpose([onnx.AttributeProto.create({ name: 'perm', type: ATTR.INTS, ints: [1, 0], floats: [1, 0] })]),
    message: "attribute 'perm' holds values in 'floats' and 'ints'; an attribute has one",
  },
  {
    name: 'an attribute the op does not have',
    build: () => transpose([onnx.AttributeProto.create({ name: 'axis', type: ATTR.INT, i: 1 })]),
    message: "attribute 'axis' is not an attribute of Transpose-13 (it has perm)",
  },
  {
    name: 'If.then_branch as INT',
    build: () => ifModel('z', onnx.AttributeProto.create({ name: 'then_branch', type: ATTR.INT, i: 1 })),
    message: "If node 'if': attribute 'then_branch' is INT, and If takes graph (GRAPH)",
  },
  {
    name: 'Cast without to',
    build: () => model({ node: [node('Cast', ['x'], ['y'], 'cast')], input: [valueInfo('x', DataType.FLOAT, [2])], output: [valueInfo('y', DataType.FLOAT16, [2])] }),
    message: "Cast node 'cast': required attribute 'to' is missing",
  },
  {
    name: "a single output named ''",
    build: () => model({ node: [node('Relu', ['x'], [''], 'relu'), node('Relu', ['x'], ['y'], 'relu2')], input: [valueInfo('x', DataType.FLOAT, [2])], output: [valueInfo('y', DataType.FLOAT, [2])] }),
    message: "Relu node 'relu': output 0 ('Y') is required, and its name is empty",
  },
  {
    name: 'a subgraph value shadowing an outer one',
    build: () => {
      // The outer graph defines r before the If; the then branch defines r again.
      const m = ifModel('r');
      mainGraph(m).node.unshift(node('Relu', ['x'], ['r'], 'outer_relu'));
      return m;
    },
    message: "graph/if.then_branch: the output of Identity node 'then_id', 'r' shadows a value of an enclosing graph",
  },
  {
    name: 'a node domain with no opset import',
    build: () => model({ node: [node('Relu', ['x'], ['y'], 'relu'), node('Frob', ['y'], ['z'], 'frob', { domain: 'custom.ops' })], input: [valueInfo('x', DataType.FLOAT, [2])], output: [valueInfo('z', DataType.FLOAT, [2])] }),
    message: "Frob node 'frob' is in domain 'custom.ops', which the model does not import",
  },
  {
    name: 'opset 2^40',
    build: () => {
      const m = transpose([]);
      m.opset_import[0]!.version = Long.fromNumber(2 ** 40) as never;
      return m;
    },
    message: 'has version 1099511627776 (an opset version is 1 to 2147483647)',
  },
  {
    name: 'an attribute with no type',
    build: () => transpose([onnx.AttributeProto.create({ name: 'perm', ints: [1, 0] })]),
    message: "Transpose node 'tr': attribute 'perm' has no type",
  },
  {
    name: 'more inputs than the op takes',
    build: () => model({ node: [node('Relu', ['x', 'x'], ['y'], 'relu')], input: [valueInfo('x', DataType.FLOAT, [2])], output: [valueInfo('y', DataType.FLOAT, [2])] }),
    message: "Relu node 'relu': 2 inputs, and Relu-14 takes 1",
  },
  {
    name: 'a graph output nothing defines',
    build: () => model({ node: [node('Relu', ['x'], ['y'], 'relu')], input: [valueInfo('x', DataType.FLOAT, [2])], output: [valueInfo('y', DataType.FLOAT, [2]), valueInfo('ghost', DataType.FLOAT, [2])] }),
    message: "graph output 'ghost' is not an input, initializer or node output of its graph",
    checkerMisses: { 'python3-onnx 1.12': 'checks graph outputs from onnx 1.13 on; ONNX Runtime refuses the model' },
  },
  {
    name: 'a graph output whose type has no kind',
    build: () => model({ node: [node('Relu', ['x'], ['y'], 'relu')], input: [valueInfo('x', DataType.FLOAT, [2])], output: [onnx.ValueInfoProto.create({ name: 'y', type: onnx.TypeProto.create({}) })] }),
    message: "graph input or output 'y' has a type of no kind",
  },
  {
    name: 'a graph input that is a tensor with no element type (found by the fuzz on a dynamo export)',
    build: () => model({ node: [node('Relu', ['x'], ['y'], 'relu')], input: [onnx.ValueInfoProto.create({ name: 'x', type: onnx.TypeProto.create({ tensor_type: onnx.TypeProto.Tensor.create({}) }) })], output: [valueInfo('y', DataType.FLOAT, [2])] }),
    message: "graph input or output 'x' is a tensor with no element type",
  },
  {
    name: 'a sparse initializer index out of range',
    build: () => sparseModel([1, 9], [2]),
    message: "sparse initializer 'w': index 9 (entry 1) is outside its 4 elements",
  },
  {
    name: 'sparse initializer indices out of order',
    build: () => sparseModel([2, 1], [2]),
    message: "sparse initializer 'w': indices are not in ascending order at entry 1",
  },
  {
    name: 'a sparse coordinate out of range',
    build: () => sparseModel([5], [1, 1]),
    message: "sparse initializer 'w': coordinate 5 (entry 0) is outside dimension 0 of size 4",
  },
];

describe('attribute- and scope-level checks', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-parity-'));
  const files = CASES.map((c, i) => {
    const file = path.join(dir, `${i}.onnx`);
    writeFileSync(file, encodeModel(forOldChecker(c.build())));
    return file;
  });
  const verdicts = new Map(
    checkers.map(({ name, python }) => {
      const result = spawnSync(python, [path.join(repoRoot, 'test/support/onnx-checker.py')], { input: files.join('\n'), encoding: 'utf8' });
      return [name, new Map(result.stdout.trim().split('\n').map((line) => [line.split(' ')[1]?.replace(/:$/, ''), line]))] as const;
    }),
  );

  it.each(CASES.map((c, i) => [c.name, c, files[i] as string] as const))('%s: INVALID_MODEL naming it, as ONNX\'s checker', (_name, c, file) => {
    const e = errorOf(() => rewriteModel(c.build()));
    expect(e.code).toBe('INVALID_MODEL');
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain(c.message);
    for (const [checker, lines] of verdicts) {
      const verdict = lines.get(file) ?? '';
      if (c.checkerMisses?.[checker]) expect(verdict, `${checker} now rejects it: drop the mark`).toMatch(/^ok /);
      else expect(verdict, checker).toMatch(/^fail /);
      expect(verdict, checker).not.toMatch(/ir_version/);
    }
  });

  it('what ONNX allows stays accepted: an omitted optional output, a subgraph reading (not redefining) an outer value, a name an outer graph defines only later, If branch outputs with an empty type, com.microsoft without an import', () => {
    const optional = model({
      node: [node('LayerNormalization', ['x', 's', 'b'], ['y', '', 'inv'], 'ln', { attribute: [onnx.AttributeProto.create({ name: 'axis', type: ATTR.INT, i: -1 })] })],
      input: [valueInfo('x', DataType.FLOAT, [2, 4])],
      output: [valueInfo('y', DataType.FLOAT, [2, 4]), valueInfo('inv', DataType.FLOAT, [2, 1])],
      initializer: [floatTensor('s', [4], [1, 1, 1, 1]), floatTensor('b', [4], [0, 0, 0, 0])],
    });
    const laterOuter = ifModel('z');
    mainGraph(laterOuter).node.push(node('Relu', ['y'], ['z2'], 'after'));
    const contrib = model({ node: [node('FastGelu', ['x'], ['y'], 'gelu', { domain: 'com.microsoft' })], input: [valueInfo('x', DataType.FLOAT, [2])], output: [valueInfo('y', DataType.FLOAT, [2])] });
    // spox writes If branch outputs with an empty type (Silero VAD v5/v6): the checker types only the main graph's.
    const untypedBranches = ifModel('z');
    for (const attribute of mainGraph(untypedBranches).node[0]!.attribute!) attribute.g!.output![0]!.type = onnx.TypeProto.create({});
    const good = [optional, ifModel('z'), laterOuter, untypedBranches, sparseModel([0, 3], [2]), sparseModel([1, 3], [2])];
    for (const m of [...good, contrib]) expect(() => checkModel(m, { types: false })).not.toThrow();
    const goodFiles = good.map((m, i) => {
      const file = path.join(dir, `good-${i}.onnx`);
      writeFileSync(file, encodeModel(forOldChecker(m)));
      return file;
    });
    for (const { name, python } of checkers) {
      const result = spawnSync(python, [path.join(repoRoot, 'test/support/onnx-checker.py')], { input: goodFiles.join('\n'), encoding: 'utf8' });
      expect(result.stdout.trim().split('\n').filter((line) => !line.startsWith('ok ')).map((line) => line.replace(dir, '')), name).toEqual([]);
    }
  });
});
