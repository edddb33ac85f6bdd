/**
 * `compare --per-node` (and `comparePerNode`): where an fp16 problem starts. On the light SqueezeNet
 * rewritten by the tool, whose emulated float16 outputs are all NaN, it names the first node whose
 * value overflows, a Conv, as where the error starts; checked against an independent reading of
 * the emulated model's intermediate values. A pair that passes lists no node. The SqueezeNet cases
 * need the corpus (skipped without it).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { comparePerNode } from '../../src/api/compare-per-node.js';
import { buildMlpInference } from '../../src/builder/recipes/mlp.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { ModelGraph } from '../../src/onnx/graph.js';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { emulateNumerics } from '../../src/passes/emulate-numerics.js';
import { numericValues } from '../../src/runtime/compare.js';
import { randomInputs } from '../../src/runtime/inputs.js';
import { instrument } from '../../src/runtime/instrument.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { sharedValues } from '../../src/runtime/per-node.js';
import { openSession } from '../../src/runtime/session.js';
import { corpusAvailable, corpusDir, repoRoot } from '../support/corpus.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-per-node-'));
const bin = path.join(repoRoot, 'dist/cli/main.js');
const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
const squeezenet = path.join(corpusDir, 'light-models', 'light_squeezenet.onnx');

/**
 * The oracle: tune's instrumented run of the emulated candidate (every float32 value exposed), read
 * node by node in topological order: the first node with an inf or NaN output that no input had.
 */
async function firstOverflowingNode(candidateFile: string): Promise<{ node: string; op: string }> {
  const candidate = loadModel(candidateFile);
  const emulated = emulateNumerics(candidate).model;
  const probe = instrument(emulated);
  const ort = await loadOrt();
  const opened = await openSession(encodeModel(probe.model), ['cpu']);
  const values = await opened.session.run(randomInputs(ort, candidate, { seed: 0, defaultDim: 1 }));
  await opened.session.release();
  const nonFinite = (name: string) => {
    const tensor = values[name];
    return tensor !== undefined && (numericValues(tensor) ?? []).some((v) => !Number.isFinite(v));
  };
  for (const node of new ModelGraph(loadModel(squeezenet)).main.topologicalOrder().order) {
    if ((node.output ?? []).some(nonFinite) && !(node.input ?? []).some(nonFinite)) return { node: node.name ?? '', op: node.op_type ?? '' };
  }
  throw new Error('no value overflows');
}

describe.skipIf(!corpusAvailable)('compare --per-node on SqueezeNet', () => {
  const amp = path.join(work, 'squeezenet.amp.onnx');
  const calibrated = path.join(work, 'squeezenet.cal.onnx');
  let cliReport: { failingCount: number; firstOrigin: string; failing: Array<{ node: string }> } | undefined;

  it('names the first overflowing node (a Conv) as where the error starts, in the JSON and in the table', async () => {
    expect(cli([squeezenet, '-o', amp, '-q', '--no-verify']).status).toBe(0);
    const overflow = await firstOverflowingNode(amp);
    expect(overflow.op).toBe('Conv');

    const result = cli(['compare', squeezenet, amp, '--per-node', '--json']);
    expect(result.status, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout);
    const perNode = report.perNode;
    cliReport = perNode;
    expect(perNode).toMatchObject({ provider: 'cpu', numerics: 'emulate', firstOrigin: overflow.node });
    const first = perNode.failing[0];
    expect(first).toMatchObject({ node: overflow.node, op: 'Conv', origin: true, pass: false });
    const value = first.outputs[0];
    expect(value.candidateInf).toBe(value.elements);
    expect(value.referenceInf + value.referenceNaN).toBe(0);
    // Everything downstream fails too, but the error starts in one place only.
    expect(perNode.failingCount).toBeGreaterThan(10);
    expect(perNode.failing).toHaveLength(10);
    expect(perNode.failing.filter((n: { origin: boolean }) => n.origin)).toHaveLength(1);
    const positions = perNode.failing.map((n: { position: number }) => n.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    // The verdict stays the outputs'.
    expect(report.outputs[0].candidateNaN).toBe(1000);

    const text = cli(['compare', squeezenet, amp, '--per-node', '--per-node-limit', '3']);
    expect(text.status).toBe(1);
    expect(text.stdout).toMatch(new RegExp(`leave the tolerance, the first 3 in topological order:\\n`));
    expect(text.stdout).toMatch(new RegExp(`^${overflow.node}\\s+Conv\\s+\\S+\\s+${value.elements}\\s+n/a\\s+n/a\\s+${value.elements}\\s+0/0\\s+0/${value.elements}\\s+<- starts here`, 'm'));
    expect(text.stdout.split('\n').filter((l) => /^n\d+\s/.test(l))).toHaveLength(3);
  });

  it('a pair that passes lists no node: the calibrated rewrite, and the model against itself', () => {
    expect(cli([squeezenet, '-o', calibrated, '--calibrate', '-q']).status).toBe(0);
    const result = cli(['compare', squeezenet, calibrated, '--per-node']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/per node \(emulated numerics, cpu\): (\d+) nodes compared over \d+ shared values; every node's outputs are within tolerance/);
    expect(Number(/(\d+) nodes compared/.exec(result.stdout)?.[1])).toBeGreaterThan(60);
    const self = JSON.parse(cli(['compare', squeezenet, squeezenet, '--per-node', '--json']).stdout).perNode;
    expect(self).toMatchObject({ failingCount: 0, failing: [], firstOrigin: null });
  });

  it('the library gives the same nodes, natively too (the candidate\'s float16 values read as float16)', async () => {
    const emulated = await comparePerNode(squeezenet, amp);
    expect(cliReport).toBeDefined();
    expect(emulated.failing).toHaveLength(cliReport!.failingCount);
    expect(emulated.failing.slice(0, 10).map((n) => n.node)).toEqual(cliReport!.failing.map((n) => n.node));
    expect(emulated.firstOrigin?.node).toBe(cliReport!.firstOrigin);
    const native = await comparePerNode(squeezenet, amp, { numerics: 'native', ep: ['cpu'] });
    expect(native.numerics).toBe('native');
    expect(native.firstOrigin?.node).toBe(emulated.firstOrigin?.node);
    expect(native.valuesCompared).toBe(emulated.valuesCompared);
    const passing = await comparePerNode(squeezenet, calibrated);
    expect(passing.failing).toEqual([]);
    expect(passing.nodesCompared).toBeGreaterThan(60);
    await expect(comparePerNode(squeezenet, amp, { limit: 3 } as never)).rejects.toMatchObject({ code: 'BAD_OPTION', message: expect.stringContaining("'limit'") });
    await expect(comparePerNode(squeezenet, amp, { numerics: 'gpu' as never })).rejects.toMatchObject({ code: 'BAD_OPTION' });
  });
});

describe('shared values', () => {
  const model = buildMlpInference({ batch: 4, input: 16, hidden: 32, layers: 2, classes: 10, seed: 3 });

  it('a bfloat16 value JavaScript cannot read is read through the Cast the rewrite put after it', () => {
    const bf16 = ampRewrite(model, { mode: 'bf16' }).model;
    const shared = sharedValues(model, model, bf16);
    const graph = new ModelGraph(bf16);
    const throughCast = [...shared].filter(([name, copy]) => copy.candidate !== name);
    expect(throughCast.length).toBeGreaterThan(0);
    for (const [name, copy] of throughCast) {
      const cast = graph.main.producerNodeOf(copy.candidate);
      expect(cast?.op_type).toBe('Cast');
      expect(cast?.input?.[0]).toBe(name);
    }
    // Under emulation every value keeps its name as float32.
    const emulated = sharedValues(model, model, emulateNumerics(bf16).model);
    expect([...emulated].every(([name, copy]) => copy.candidate === name && copy.reference === name)).toBe(true);
    expect(emulated.size).toBeGreaterThanOrEqual(shared.size);
  });

  it('--per-node-limit must be a positive integer, and --per-node needs two models', () => {
    const file = path.join(work, 'mlp.onnx');
    saveModel(model, file);
    const zero = cli(['compare', file, file, '--per-node', '--per-node-limit', '0']);
    expect(zero.status).toBe(2);
    expect(zero.stderr).toMatch(/error \[BAD_OPTION\]: --per-node-limit/);
    const expected = cli(['compare', file, '--expected', work, '--per-node']);
    expect(expected.status).toBe(2);
    expect(expected.stderr).toMatch(/error \[BAD_OPTION\]: --per-node needs two models/);
  });
});
