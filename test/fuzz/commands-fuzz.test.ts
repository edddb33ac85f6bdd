/**
 * The hostile-model fuzz (mutations.ts) through the other commands' front doors:
 * - make-training, in process as the command runs it: every case ends in a step graph or a typed
 *   error (exit 1 or 2), never an internal one (exit 3), writes nothing beside its -o, and what it
 *   accepts ONNX's checker accepts (what TOLERATED names aside) and ONNX Runtime loads the step graph
 *   where it loads the input;
 * - the loader gate run, compare, bench, tune, train and compare --expected read a model through
 *   (src/onnx/load-checked.ts): a model or a typed error;
 * - compare --expected's golden-file reader, on mutated golden .pb files: a tensor or a typed error.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/builder/graph-builder.js';
import { runMakeTraining } from '../../src/cli/make-training-command.js';
import { isAmpError } from '../../src/onnx/errors.js';
import { loadCheckedModel } from '../../src/onnx/load-checked.js';
import { readExpectedOutputs } from '../../src/runtime/golden-outputs.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { corpusAvailable, corpusDir } from '../support/corpus.js';
import { byteMutation, checkerName, checkerVerdicts, ortLoads, pick, scopeMutation, SEED, sources, structureMutation, TOLERATED } from './mutations.js';

const CASES = Number(process.env.AMP_FUZZ_COMMAND_CASES ?? 1500);
const TIME_BUDGET_MS = 40_000;

/** An internal error (exit 3): anything but a one-line AmpError. */
const internal = (error: unknown): boolean => !(isAmpError(error) && !error.message.includes('\n'));

describe('fuzzing the other model-reading commands', () => {
  it(`make-training and the loader gate: a result or a typed error, never exit 3 (seed ${SEED})`, async () => {
    const ort = await loadOrt();
    ort.env.logLevel = 'error';
    const random = seededRandom(SEED + 1);
    const corpus = sources(random);
    // Half the cases from the PyTorch exports make-training is made for (a logits output): more of them get as far as the step graph.
    const forward = corpus.filter((m) => m.name.includes('torch-forward'));
    const root = mkdtempSync(path.join(tmpdir(), 'amp-fuzz-commands-'));
    const acceptedDir = mkdtempSync(path.join(tmpdir(), 'amp-fuzz-commands-accepted-'));
    const accepted = new Map<string, string>();
    const failures: string[] = [];
    const outcomes = new Map<string, number>();
    const count = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    const started = Date.now();
    let cases = 0;
    for (; cases < CASES && Date.now() - started < TIME_BUDGET_MS; cases++) {
      const source = random() < 0.5 && forward.length ? pick(random, forward) : pick(random, corpus);
      const draw = random();
      let mutated: { kind: string; bytes: Buffer };
      try {
        mutated = draw < 0.4 ? byteMutation(source.bytes, random) : draw < 0.75 ? structureMutation(source.bytes, random) : scopeMutation(source.bytes, random);
      } catch {
        mutated = byteMutation(source.bytes, random);
      }
      const label = `${source.name} ${mutated.kind}`;
      const dir = path.join(root, `case-${cases}`);
      mkdirSync(path.join(dir, 'out'), { recursive: true });
      const input = path.join(dir, 'model.onnx');
      writeFileSync(input, mutated.bytes);
      // The gate of run, compare, bench, tune, train and compare --expected.
      try {
        loadCheckedModel(input);
        count('gate: accepted');
      } catch (error) {
        if (internal(error)) failures.push(`gate: ${label}: ${(error as Error)?.stack?.split('\n').slice(0, 3).join(' | ')}`);
        else count(`gate: exit ${(error as { exitCode: number }).exitCode}`);
      }
      // make-training, as the command runs it.
      const output = path.join(dir, 'out', 'step.onnx');
      try {
        const loss = source.name.includes('torch-forward') ? 'cross-entropy' : 'mse';
        await runMakeTraining({ model: input, output, loss, optimizer: 'sgd', lr: 0.01, quiet: true }, () => undefined);
        count('make-training: written');
        const file = path.join(acceptedDir, `${cases}.onnx`);
        writeFileSync(file, mutated.bytes);
        accepted.set(file, label);
        if ((await ortLoads(ort, mutated.bytes)) && !(await ortLoads(ort, readFileSync(output)))) failures.push(`make-training: ${label}: ONNX Runtime loads the input but not the step graph`);
      } catch (error) {
        if (internal(error)) failures.push(`make-training: ${label}: ${(error as Error)?.stack?.split('\n').slice(0, 3).join(' | ')}`);
        else count(`make-training: exit ${(error as { exitCode: number }).exitCode}`);
      }
      const written = readdirSync(path.join(dir, 'out'));
      if (written.some((f) => f !== 'step.onnx')) failures.push(`make-training: ${label}: wrote ${written.join(', ')}`);
      rmSync(dir, { recursive: true, force: true });
    }
    rmSync(root, { recursive: true, force: true });
    for (const [file, verdict] of checkerVerdicts([...accepted.keys()])) {
      if (verdict !== 'ok' && !TOLERATED.some(([pattern]) => pattern.test(verdict))) failures.push(`make-training: ${accepted.get(file)}: accepted, but ONNX's checker says: ${verdict}`);
    }
    rmSync(acceptedDir, { recursive: true, force: true });
    console.log(`[fuzz-commands] seed ${SEED + 1}: ${cases} cases in ${((Date.now() - started) / 1000).toFixed(1)} s; ${JSON.stringify(Object.fromEntries([...outcomes].sort()))}; checker ${checkerName ?? 'absent'}`);
    expect(failures).toEqual([]);
    expect(cases).toBeGreaterThan(50);
    expect(outcomes.get('make-training: written') ?? 0).toBeGreaterThan(0);
    expect(outcomes.get('make-training: exit 2') ?? 0).toBeGreaterThan(0);
  }, 120_000);

  it.skipIf(!corpusAvailable)('the golden-file reader of compare --expected: a tensor or a typed error', async () => {
    const ort = await loadOrt();
    const random = seededRandom(SEED + 2);
    const tests = ['test_matmul_2d', 'test_relu', 'test_softmax_axis_0', 'test_gather_0', 'test_argmax_default_axis_example', 'test_split_equal_parts_1d'];
    const root = mkdtempSync(path.join(tmpdir(), 'amp-fuzz-golden-'));
    const failures: string[] = [];
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 300; i++) {
      const test = pick(random, tests);
      const testDir = path.join(corpusDir, 'onnx-node-tests', test);
      const model = loadCheckedModel(path.join(testDir, 'model.onnx')).model;
      const folder = path.join(root, `case-${i}`);
      mkdirSync(folder);
      const setDir = path.join(testDir, 'test_data_set_0');
      for (const file of readdirSync(setDir)) writeFileSync(path.join(folder, file), readFileSync(path.join(setDir, file)));
      const goldens = readdirSync(folder).filter((f) => f.startsWith('output_'));
      const target = path.join(folder, pick(random, goldens));
      writeFileSync(target, byteMutation(readFileSync(target), random).bytes);
      try {
        readExpectedOutputs(ort, folder, model);
        outcomes.set('read', (outcomes.get('read') ?? 0) + 1);
      } catch (error) {
        if (internal(error)) failures.push(`${test}: ${(error as Error)?.stack?.split('\n').slice(0, 3).join(' | ')}`);
        else outcomes.set((error as { code: string }).code, (outcomes.get((error as { code: string }).code) ?? 0) + 1);
      }
      rmSync(folder, { recursive: true, force: true });
    }
    rmSync(root, { recursive: true, force: true });
    console.log(`[fuzz-golden] 300 mutated golden files: ${JSON.stringify(Object.fromEntries([...outcomes].sort()))}`);
    expect(failures).toEqual([]);
    expect(outcomes.size).toBeGreaterThan(1);
  }, 120_000);
});
