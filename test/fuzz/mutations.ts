/**
 * The fuzz tests' shared parts: the seeded source models (fixtures and a sample of the corpus), the
 * byte, structure and scope mutations, ONNX's checker as an outside oracle, and what it may refuse
 * that ONNX Runtime accepts (TOLERATED).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { decodeModel, encodeModel, onnx } from '../../src/onnx/codec.js';
import type { Ort } from '../../src/runtime/ort.js';
import { corpusAvailable, corpusModels, corpusDir, fixturesDir, repoRoot } from '../support/corpus.js';
import { PYTHON_HINT, pythonWithOnnx } from '../support/python.js';

export const SEED = Number(process.env.AMP_FUZZ_SEED ?? 20261123);
export const MAX_CASES = Number(process.env.AMP_FUZZ_CASES ?? 600);
export const TIME_BUDGET_MS = 40_000;


export function sources(random: () => number): Array<{ name: string; bytes: Buffer }> {
  // Every model in the fixture folders (model.onnx, and the exported or quantized ones named otherwise).
  const found = readdirSync(fixturesDir)
    .filter((d) => statSync(path.join(fixturesDir, d)).isDirectory())
    .flatMap((d) =>
      readdirSync(path.join(fixturesDir, d))
        .filter((f) => f.endsWith('.onnx'))
        .sort()
        .map((f) => ({ name: `fixtures/${d}/${f}`, bytes: readFileSync(path.join(fixturesDir, d, f)) })),
    );
  if (corpusAvailable) {
    const small = corpusModels().filter((m) => statSync(path.join(corpusDir, m)).size < 256 * 1024);
    for (let i = 0; i < 40 && small.length; i++) {
      const pick = small.splice(Math.floor(random() * small.length), 1)[0] as string;
      found.push({ name: pick, bytes: readFileSync(path.join(corpusDir, pick)) });
    }
  } else {
    console.warn(`[fuzz] ${corpusDir} not found: fuzzing fixtures/ only`);
  }
  return found;
}

export const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

export function byteMutation(bytes: Buffer, random: () => number): { kind: string; bytes: Buffer } {
  const out = Buffer.from(bytes);
  const at = Math.floor(random() * out.length);
  switch (Math.floor(random() * 5)) {
    case 0: {
      for (let i = 0; i < 1 + Math.floor(random() * 4); i++) out[Math.floor(random() * out.length)] = Math.floor(random() * 256);
      return { kind: 'byte-flip', bytes: out };
    }
    case 1:
      return { kind: 'truncate', bytes: out.subarray(0, at) };
    case 2:
      return { kind: 'delete-run', bytes: Buffer.concat([out.subarray(0, at), out.subarray(Math.min(out.length, at + 1 + Math.floor(random() * 16)))]) };
    case 3: {
      const from = Math.floor(random() * out.length);
      return { kind: 'splice-copy', bytes: Buffer.concat([out.subarray(0, at), out.subarray(from, from + 1 + Math.floor(random() * 64)), out.subarray(at)]) };
    }
    default:
      out[at] = out[at]! ^ (1 << Math.floor(random() * 8));
      return { kind: 'bit-flip', bytes: out };
  }
}

export function structureMutation(bytes: Buffer, random: () => number): { kind: string; bytes: Buffer } {
  const m = decodeModel(bytes);
  const graph = m.graph as onnx.GraphProto;
  const nodes = graph.node;
  const kinds = ['dup-node', 'drop-node', 'dangling-input', 'cycle', 'ir-version', 'no-opset', 'tensor-type', 'raw-length', 'empty-name', 'op-type', 'dup-initializer', 'reverse-nodes'];
  const kind = pick(random, kinds);
  const someNode = (nodes.length ? pick(random, nodes) : undefined) as onnx.NodeProto | undefined;
  const tensor = graph.initializer.length ? pick(random, graph.initializer) : undefined;
  switch (kind) {
    case 'dup-node': if (someNode) nodes.push(onnx.NodeProto.decode(onnx.NodeProto.encode(someNode).finish())); break;
    case 'drop-node': if (someNode) nodes.splice(nodes.indexOf(someNode), 1); break;
    case 'dangling-input': if (someNode?.input.length) someNode.input[0] = 'no_such_value'; break;
    case 'cycle': if (someNode?.input.length && someNode.output.length) someNode.input[0] = someNode.output[0] as string; break;
    case 'ir-version': m.ir_version = pick(random, [0, -1, 2, 99]) as never; break;
    case 'no-opset': m.opset_import = []; break;
    case 'tensor-type': if (tensor) tensor.data_type = pick(random, [0, 8, 10, 13, 17, 99]); break;
    case 'raw-length': if (tensor?.raw_data?.length) tensor.raw_data = tensor.raw_data.subarray(0, tensor.raw_data.length - 1); break;
    case 'empty-name': if (graph.input.length) (graph.input[0] as onnx.ValueInfoProto).name = ''; break;
    case 'op-type': if (someNode) someNode.op_type = pick(random, ['', 'MatMul', 'Softmax', 'NoSuchOp', '\u001b[31m']); break;
    case 'dup-initializer': if (tensor) graph.initializer.push(tensor); break;
    case 'reverse-nodes': nodes.reverse(); break;
  }
  return { kind: `struct-${kind}`, bytes: Buffer.from(encodeModel(m)) };
}

export const ATTRIBUTE_TYPE = onnx.AttributeProto.AttributeType;

/** Every node of the main graph and its subgraphs, with the graph that holds it. */
export function allNodes(graph: onnx.GraphProto): Array<{ node: onnx.NodeProto; graph: onnx.GraphProto }> {
  const found: Array<{ node: onnx.NodeProto; graph: onnx.GraphProto }> = [];
  for (const node of graph.node as onnx.NodeProto[]) {
    found.push({ node, graph });
    for (const attribute of node.attribute) {
      if (attribute.g) found.push(...allNodes(attribute.g as onnx.GraphProto));
      for (const sub of attribute.graphs ?? []) found.push(...allNodes(sub as onnx.GraphProto));
    }
  }
  return found;
}

/**
 * Mutations at the attribute and scope level (issue #26): what ONNX's checker rejects and byte
 * flips rarely reach. Attributes given twice, retyped, dropped or made up; a graph attribute made
 * an INT; an output named ''; a subgraph value shadowing an outer one; a node in a domain the
 * model does not import; an opset version past int32; a function that calls itself.
 */
export function scopeMutation(bytes: Buffer, random: () => number): { kind: string; bytes: Buffer } {
  const m = decodeModel(bytes);
  const graph = m.graph as onnx.GraphProto;
  const nodes = allNodes(graph);
  const withAttributes = nodes.filter(({ node }) => node.attribute.length);
  const kinds = ['attr-dup', 'attr-retype', 'attr-drop', 'attr-unknown', 'attr-graph-as-int', 'output-empty', 'shadow', 'domain-unimported', 'opset-huge', 'function-recursive'];
  const kind = pick(random, kinds);
  const some = nodes.length ? pick(random, nodes) : undefined;
  const attributed = withAttributes.length ? pick(random, withAttributes) : undefined;
  switch (kind) {
    case 'attr-dup': {
      const attribute = attributed ? pick(random, attributed.node.attribute) : undefined;
      if (attributed && attribute) attributed.node.attribute.push(onnx.AttributeProto.decode(onnx.AttributeProto.encode(attribute).finish()));
      break;
    }
    case 'attr-retype': {
      const attribute = attributed ? pick(random, attributed.node.attribute) : undefined;
      if (attribute) {
        const type = pick(random, [ATTRIBUTE_TYPE.FLOAT, ATTRIBUTE_TYPE.INT, ATTRIBUTE_TYPE.STRING, ATTRIBUTE_TYPE.FLOATS, ATTRIBUTE_TYPE.INTS, ATTRIBUTE_TYPE.GRAPH]);
        attribute.type = type;
        if (type === ATTRIBUTE_TYPE.FLOATS) attribute.floats = [1, 0];
        if (type === ATTRIBUTE_TYPE.INTS) attribute.ints = [1, 0];
      }
      break;
    }
    case 'attr-drop': if (attributed) attributed.node.attribute.splice(Math.floor(random() * attributed.node.attribute.length), 1); break;
    case 'attr-unknown': if (some) some.node.attribute.push(onnx.AttributeProto.create({ name: 'bogus', type: ATTRIBUTE_TYPE.INT, i: 1 })); break;
    case 'attr-graph-as-int': {
      const holder = nodes.find(({ node }) => node.attribute.some((a) => a.g));
      const attribute = holder?.node.attribute.find((a) => a.g);
      if (attribute) Object.assign(attribute, { type: ATTRIBUTE_TYPE.INT, g: null, i: 1 });
      else if (some) some.node.attribute.push(onnx.AttributeProto.create({ name: 'then_branch', type: ATTRIBUTE_TYPE.INT, i: 1 }));
      break;
    }
    case 'output-empty': if (some?.node.output.length) some.node.output[0] = ''; break;
    case 'shadow': {
      // A subgraph node's output renamed to a value of the main graph (an If branch made up where there is none).
      const outer = graph.input[0]?.name ?? graph.initializer[0]?.name;
      const inner = nodes.find(({ graph: g }) => g !== graph);
      if (inner?.node.output.length && outer) inner.node.output[0] = outer;
      else if (outer && graph.output[0]) {
        const branch = (label: string) => onnx.GraphProto.create({ name: label, node: [onnx.NodeProto.create({ op_type: 'Identity', input: [graph.output[0]!.name as string], output: [outer], name: `${label}_id` })], output: [onnx.ValueInfoProto.create({ name: outer, type: graph.output[0]!.type })] });
        graph.node.push(onnx.NodeProto.create({ op_type: 'If', name: 'fuzz_if', input: [outer], output: ['fuzz_if_out'], attribute: [onnx.AttributeProto.create({ name: 'then_branch', type: ATTRIBUTE_TYPE.GRAPH, g: branch('then') }), onnx.AttributeProto.create({ name: 'else_branch', type: ATTRIBUTE_TYPE.GRAPH, g: branch('else') })] }));
      }
      break;
    }
    case 'domain-unimported': if (some) some.node.domain = 'fuzz.unimported'; break;
    case 'opset-huge': if (m.opset_import[0]) m.opset_import[0].version = 2 ** 40 as never; break;
    case 'function-recursive': {
      m.opset_import.push(onnx.OperatorSetIdProto.create({ domain: 'fuzz.local', version: 1 }));
      m.functions.push(onnx.FunctionProto.create({ name: 'F', domain: 'fuzz.local', input: ['a'], output: ['b'], opset_import: [{ domain: 'fuzz.local', version: 1 }], node: [onnx.NodeProto.create({ op_type: 'F', domain: 'fuzz.local', input: ['a'], output: ['b'] })] }));
      if (some?.node.input[0] && some.node.output[0]) graph.node.push(onnx.NodeProto.create({ op_type: 'F', domain: 'fuzz.local', name: 'fuzz_call', input: [some.node.output[0]], output: ['fuzz_call_out'] }));
      break;
    }
  }
  return { kind: `scope-${kind}`, bytes: Buffer.from(encodeModel(m)) };
}

/**
 * What ONNX's checker rejects that this tool accepts on purpose (README, Safety: "deliberately
 * tolerated"), by the checker's message. Anything else accepted that the checker rejects fails
 * the test.
 */
export const TOLERATED: ReadonlyArray<readonly [RegExp, string]> = [
  // ONNX Runtime sorts a graph's nodes when it loads it (the exporters write some unsorted).
  [/^Nodes in a graph must be topologically sorted/, 'nodes out of order'],
  // ONNX Runtime's own default-domain ops (SimplifiedLayerNormalization): ONNX has no schema for them.
  [/^No Op registered for (SimplifiedLayerNormalization|Affine|ScaledTanh|ParametricSoftplus|Scale|ImageScaler|Crop|DynamicSlice) with domain_version/, "ONNX Runtime's default-domain ops"],
  // ONNX Runtime registers LayerNormalization in the default domain from version 1 (its transformer optimizer
  // writes it at opset 11-16, fixtures/ort-tools/bert-opt14-fused.onnx); ONNX's own starts at 17.
  [/^No Op registered for LayerNormalization with domain_version of ([1-9]|1[0-6])\b/, "ONNX Runtime's LayerNormalization below opset 17"],
  // A value_info type without its shape field: the shape is unknown, as ONNX Runtime reads it.
  [/^Field 'shape' of 'type' is required but missing/, 'a type without a shape field'],
  // A graph's name is for diagnostics only; ONNX Runtime loads a graph without one.
  [/^Field 'name' of 'graph' is required to be non-empty/, 'an unnamed graph'],
];

export function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(dir)) if (name !== 'out') files.set(name, createHash('sha256').update(readFileSync(path.join(dir, name))).digest('hex'));
  return files;
}

export async function ortLoads(ort: Ort, bytes: Uint8Array): Promise<boolean> {
  try {
    const session = await ort.InferenceSession.create(bytes);
    await session.release();
    return true;
  } catch {
    return false;
  }
}

/** The newest ONNX checker at hand (python3-onnx 1.12 knows no IR past 8, which most fixtures use). */
export const checkerPython = pythonWithOnnx([1, 16]);
export const checkerName = checkerPython ? spawnSync(checkerPython, ['-c', 'import onnx; print("onnx " + onnx.__version__)'], { encoding: 'utf8' }).stdout.trim() : undefined;
if (!checkerPython) console.warn(`[fuzz] no ONNX checker >= 1.16 (${PYTHON_HINT}): accepted inputs are not compared with it`);

/** ONNX's checker's verdict on each file: 'ok', or its first line of complaint. */
export function checkerVerdicts(files: readonly string[]): Map<string, string> {
  if (!checkerPython || !files.length) return new Map();
  const result = spawnSync(checkerPython, [path.join(repoRoot, 'test/support/onnx-checker.py')], { input: files.join('\n'), encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  const verdicts = new Map<string, string>();
  for (const line of result.stdout.trim().split('\n')) {
    const ok = /^ok (.*)$/.exec(line);
    const fail = /^fail (.*?\.onnx): (.*)$/.exec(line);
    if (ok) verdicts.set(ok[1] as string, 'ok');
    else if (fail) verdicts.set(fail[1] as string, fail[2] as string);
  }
  return verdicts;
}

