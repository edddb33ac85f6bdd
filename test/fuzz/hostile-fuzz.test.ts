/**
 * Seeded fuzzing of the rewrite: models from fixtures/ (always) and the shared corpus (when
 * present) are mutated at the byte level (flips, cuts, splices) and at the structure level
 * (duplicated or dropped nodes, dangling inputs, cycles, bad IR/opsets, wrong tensor data), then
 * loaded, checked, rewritten and saved as the CLI does; and at the attribute and scope level (attributes
 * duplicated, retyped, dropped or made up, outputs named '', shadowing subgraphs, unimported domains,
 * huge opsets, recursive functions). Every input the rewrite accepts is also run through ONNX's
 * checker (onnx >= 1.16: test/support/python.ts), which must accept it too, except what TOLERATED names (README, Safety). Every case must end in a written model or
 * a typed error (exit 1 or 2): no exit-3 crash, no output that ONNX Runtime cannot load when it
 * loads the input, no file touched outside the output paths. Bounded by case count and time.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/builder/graph-builder.js';
import { runInspect } from '../../src/cli/inspect-command.js';
import type { RewriteArgs } from '../../src/cli/rewrite-command.js';
import { checkModel } from '../../src/onnx/check-model.js';
import { decodeModel, encodeModel, onnx } from '../../src/onnx/codec.js';
import { isAmpError } from '../../src/onnx/errors.js';
import { loadModelFile, saveModel } from '../../src/onnx/model-io.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { loadOrt, type Ort } from '../../src/runtime/ort.js';
import { corpusAvailable, corpusModels, corpusDir, fixturesDir, repoRoot } from '../support/corpus.js';
import { PYTHON_HINT, pythonWithOnnx } from '../support/python.js';

const SEED = Number(process.env.AMP_FUZZ_SEED ?? 20261123);
const MAX_CASES = Number(process.env.AMP_FUZZ_CASES ?? 600);
const TIME_BUDGET_MS = 40_000;

type Outcome = 'converted' | 'unchanged' | 'exit-1' | 'exit-2' | 'exit-3' | 'ort-rejects-output' | 'touched-other-files';

function sources(random: () => number): Array<{ name: string; bytes: Buffer }> {
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

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

function byteMutation(bytes: Buffer, random: () => number): { kind: string; bytes: Buffer } {
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

function structureMutation(bytes: Buffer, random: () => number): { kind: string; bytes: Buffer } {
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

const ATTRIBUTE_TYPE = onnx.AttributeProto.AttributeType;

/** Every node of the main graph and its subgraphs, with the graph that holds it. */
function allNodes(graph: onnx.GraphProto): Array<{ node: onnx.NodeProto; graph: onnx.GraphProto }> {
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
function scopeMutation(bytes: Buffer, random: () => number): { kind: string; bytes: Buffer } {
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
const TOLERATED: ReadonlyArray<readonly [RegExp, string]> = [
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

function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(dir)) if (name !== 'out') files.set(name, createHash('sha256').update(readFileSync(path.join(dir, name))).digest('hex'));
  return files;
}

async function ortLoads(ort: Ort, bytes: Uint8Array): Promise<boolean> {
  try {
    const session = await ort.InferenceSession.create(bytes);
    await session.release();
    return true;
  } catch {
    return false;
  }
}

/** The newest ONNX checker at hand (python3-onnx 1.12 knows no IR past 8, which most fixtures use). */
const checkerPython = pythonWithOnnx([1, 16]);
const checkerName = checkerPython ? spawnSync(checkerPython, ['-c', 'import onnx; print("onnx " + onnx.__version__)'], { encoding: 'utf8' }).stdout.trim() : undefined;
if (!checkerPython) console.warn(`[fuzz] no ONNX checker >= 1.16 (${PYTHON_HINT}): accepted inputs are not compared with it`);

/** ONNX's checker's verdict on each file: 'ok', or its first line of complaint. */
function checkerVerdicts(files: readonly string[]): Map<string, string> {
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

describe('fuzzing the rewrite with hostile models', () => {
  it(`every mutated model ends in a valid output or a typed error (seed ${SEED})`, async () => {
    const ort = await loadOrt();
    ort.env.logLevel = 'error';
    const random = seededRandom(SEED);
    const corpus = sources(random);
    const root = mkdtempSync(path.join(tmpdir(), 'amp-fuzz-'));
    const counts = new Map<Outcome, number>();
    const byKind = new Map<string, number>();
    const failures: string[] = [];
    const started = Date.now();
    // The inputs the rewrite accepted, for ONNX's checker afterwards.
    const acceptedDir = mkdtempSync(path.join(tmpdir(), 'amp-fuzz-accepted-'));
    const accepted = new Map<string, string>();
    let cases = 0;
    for (; cases < MAX_CASES && Date.now() - started < TIME_BUDGET_MS; cases++) {
      const source = pick(random, corpus);
      let mutated: { kind: string; bytes: Buffer };
      try {
        const draw = random();
        mutated = draw < 0.45 ? byteMutation(source.bytes, random) : draw < 0.75 ? structureMutation(source.bytes, random) : scopeMutation(source.bytes, random);
      } catch {
        mutated = byteMutation(source.bytes, random);
      }
      byKind.set(mutated.kind, (byKind.get(mutated.kind) ?? 0) + 1);
      const inDir = path.join(root, `case-${cases}`);
      const outDir = path.join(inDir, 'out');
      mkdirSync(outDir, { recursive: true });
      const input = path.join(inDir, 'model.onnx');
      writeFileSync(input, mutated.bytes);
      const before = snapshot(inDir);
      const output = path.join(outDir, 'model.amp.onnx');
      let outcome: Outcome;
      try {
        // `inspect` reads the same bytes without external data; it must fail the same typed way.
        try {
          runInspect({ model: input, allowNewerIr: false, mode: 'fp16', weights: 'fp32', forceFp32: [], forceFp16: [], report: [], dim: [] } as unknown as RewriteArgs, () => undefined);
        } catch (error) {
          if (!isAmpError(error)) throw error;
        }
        const { model, bytes } = loadModelFile(input);
        checkModel(model, { source: input, types: false });
        const result = rewriteModel(model, { check: { source: input, structure: false } });
        saveModel(result.model, output, { ...(result.modified ? {} : { unchangedBytes: bytes }), protect: [{ path: input, role: 'the input model' }] });
        outcome = result.modified ? 'converted' : 'unchanged';
        writeFileSync(path.join(acceptedDir, `${cases}.onnx`), mutated.bytes);
        accepted.set(path.join(acceptedDir, `${cases}.onnx`), `${source.name} ${mutated.kind}`);
        if ((await ortLoads(ort, mutated.bytes)) && !(await ortLoads(ort, readFileSync(output)))) outcome = 'ort-rejects-output';
      } catch (error) {
        if (isAmpError(error) && !error.message.includes('\n')) outcome = error.exitCode === 1 ? 'exit-1' : 'exit-2';
        else {
          outcome = 'exit-3';
          failures.push(`${source.name} ${mutated.kind}: ${(error as Error)?.stack?.split('\n').slice(0, 3).join(' | ')}`);
        }
      }
      const after = snapshot(inDir);
      after.delete('out');
      before.delete('out');
      const outFiles = readdirSync(outDir);
      const expectedOut = outcome === 'converted' || outcome === 'unchanged' || outcome === 'ort-rejects-output' ? ['model.amp.onnx'] : [];
      if (JSON.stringify([...after]) !== JSON.stringify([...before]) || JSON.stringify(outFiles) !== JSON.stringify(expectedOut)) {
        failures.push(`${source.name} ${mutated.kind}: files touched (out: ${outFiles.join(', ')})`);
        outcome = 'touched-other-files';
      }
      if (outcome === 'ort-rejects-output') failures.push(`${source.name} ${mutated.kind}: ONNX Runtime loads the input but not the output`);
      counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
      rmSync(inDir, { recursive: true, force: true });
    }
    rmSync(root, { recursive: true, force: true });
    const checked = checkerVerdicts([...accepted.keys()]);
    const tolerated = new Map<string, number>();
    for (const [file, verdict] of checked) {
      if (verdict === 'ok') continue;
      const excuse = TOLERATED.find(([pattern]) => pattern.test(verdict));
      if (excuse) tolerated.set(excuse[1], (tolerated.get(excuse[1]) ?? 0) + 1);
      else failures.push(`${accepted.get(file)}: accepted, but ONNX's checker says: ${verdict}`);
    }
    rmSync(acceptedDir, { recursive: true, force: true });
    console.log(
      `[fuzz] ${accepted.size} accepted inputs; ONNX's checker (${checkerName ?? 'absent'}) accepts ${[...checked.values()].filter((v) => v === 'ok').length}, tolerated ${JSON.stringify(Object.fromEntries(tolerated))}`,
    );
    console.log(
      `[fuzz] seed ${SEED}: ${cases} cases from ${corpus.length} models in ${((Date.now() - started) / 1000).toFixed(1)} s; outcomes ${JSON.stringify(Object.fromEntries([...counts].sort()))}; mutations ${JSON.stringify(Object.fromEntries([...byKind].sort()))}`,
    );
    expect(failures).toEqual([]);
    expect(cases).toBeGreaterThan(50);
    // The mutations reach both ends: some models still convert, some are refused.
    expect((counts.get('converted') ?? 0) + (counts.get('unchanged') ?? 0)).toBeGreaterThan(0);
    expect(counts.get('exit-2') ?? 0).toBeGreaterThan(0);
  });
});
