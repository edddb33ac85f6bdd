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

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/builder/graph-builder.js';
import { runInspect } from '../../src/cli/inspect-command.js';
import type { RewriteArgs } from '../../src/cli/rewrite-command.js';
import { checkModel } from '../../src/onnx/check-model.js';
import { onnx } from '../../src/onnx/codec.js';
import { isAmpError } from '../../src/onnx/errors.js';
import { loadModelFile, saveModel } from '../../src/onnx/model-io.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { SEED, MAX_CASES, TIME_BUDGET_MS, sources, pick, byteMutation, structureMutation, scopeMutation, TOLERATED, snapshot, ortLoads, checkerName, checkerVerdicts } from './mutations.js';

type Outcome = 'converted' | 'unchanged' | 'exit-1' | 'exit-2' | 'exit-3' | 'ort-rejects-output' | 'touched-other-files';

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
