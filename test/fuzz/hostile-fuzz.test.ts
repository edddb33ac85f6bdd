/**
 * Seeded fuzzing of the rewrite: models from fixtures/ (always) and the shared corpus (when
 * present) are mutated at the byte level (flips, cuts, splices) and at the structure level
 * (duplicated or dropped nodes, dangling inputs, cycles, bad IR/opsets, wrong tensor data), then
 * loaded, checked, rewritten and saved as the CLI does. Every case must end in a written model or
 * a typed error (exit 1 or 2): no exit-3 crash, no output that ONNX Runtime cannot load when it
 * loads the input, no file touched outside the output paths. Bounded by case count and time.
 */
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
import { corpusAvailable, corpusModels, corpusDir, fixturesDir } from '../support/corpus.js';

const SEED = Number(process.env.AMP_FUZZ_SEED ?? 20261123);
const MAX_CASES = Number(process.env.AMP_FUZZ_CASES ?? 600);
const TIME_BUDGET_MS = 40_000;

type Outcome = 'converted' | 'unchanged' | 'exit-1' | 'exit-2' | 'exit-3' | 'ort-rejects-output' | 'touched-other-files';

function sources(random: () => number): Array<{ name: string; bytes: Buffer }> {
  const found = readdirSync(fixturesDir)
    .filter((d) => statSync(path.join(fixturesDir, d)).isDirectory())
    .map((d) => ({ name: `fixtures/${d}`, bytes: readFileSync(path.join(fixturesDir, d, 'model.onnx')) }));
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
    let cases = 0;
    for (; cases < MAX_CASES && Date.now() - started < TIME_BUDGET_MS; cases++) {
      const source = pick(random, corpus);
      let mutated: { kind: string; bytes: Buffer };
      try {
        mutated = random() < 0.5 ? byteMutation(source.bytes, random) : structureMutation(source.bytes, random);
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
