/**
 * Calibration that finds overflows: the models built to fail in float16 in one known place get
 * exactly that place pinned (and then pass under emulation), deny-list nodes keep their rule,
 * random inputs index the whole embedding table, a headroom pins values near float16's max, and
 * several batches from a folder are all seen.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ATTENTION_NODES,
  EMBEDDING_NODES,
  OVERFLOW_NODES,
  UNDERFLOW_NODES,
  buildAttentionOverflow,
  buildEmbeddingRange,
  buildLongSoftmaxUnderflow,
  buildOverflowBeforeNorm,
} from '../../src/builder/recipes/fp16-failures.js';
import { DataType } from '../../src/onnx/data-types.js';
import { onnx } from '../../src/onnx/generated/onnx.js';
import { saveModel } from '../../src/onnx/model-io.js';
import { ampRewrite, type AmpReport } from '../../src/passes/amp.js';
import { calibrate, gatherIndexInputs, inputBatches, modelAwareRandomInputs } from '../../src/runtime/calibration.js';
import { randomInputs } from '../../src/runtime/inputs.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { repoRoot } from '../support/corpus.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-calibrate-'));
const bin = path.join(repoRoot, 'dist/cli/main.js');
const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
const pinnedBy = (report: AmpReport) => report.nodes.filter((n) => n.rule === 'activation-out-of-range').map((n) => n.node).sort();

describe('--calibrate on models that fail in float16 in one known place', () => {
  const cases = [
    { name: 'overflow-before-norm', build: buildOverflowBeforeNorm, expected: OVERFLOW_NODES },
    { name: 'attention-overflow', build: buildAttentionOverflow, expected: ATTENTION_NODES },
    { name: 'long-softmax-underflow', build: buildLongSoftmaxUnderflow, expected: UNDERFLOW_NODES },
  ];
  for (const { name, build, expected } of cases) {
    it(`${name}: pins exactly ${expected.join(', ')}, and the result passes compare under emulation where the plain rewrite fails`, () => {
      const original = path.join(work, `${name}.onnx`);
      saveModel(build(), original);
      const plain = path.join(work, `${name}.amp.onnx`);
      const calibrated = path.join(work, `${name}.cal.onnx`);
      const audit = path.join(work, `${name}.audit.json`);
      expect(cli([original, '-o', plain, '-q', '--no-verify']).status).toBe(0);
      const run = cli([original, '-o', calibrated, '--calibrate', '--report', audit, '-q']);
      expect(run.status, run.stderr).toBe(0);
      const report = JSON.parse(readFileSync(audit, 'utf8')) as AmpReport;
      expect(pinnedBy(report)).toEqual([...expected].sort());
      expect(cli(['compare', original, plain]).status).toBe(1);
      const checked = cli(['compare', original, calibrated]);
      expect(checked.status, checked.stdout).toBe(0);
    });
  }

  it('keeps the list rule of nodes that would stay fp32 anyway, naming what calibration saw; the Grappler counts do not move', async () => {
    const ort = await loadOrt();
    const model = buildLongSoftmaxUnderflow();
    const calibration = await calibrate(ort, model, [randomInputs(ort, model, { seed: 0 })], { numerics: 'emulate' });
    const plain = ampRewrite(model).report;
    const calibrated = ampRewrite(model, { activationRanges: calibration.ranges, activationLimit: calibration.limit, flushedShares: calibration.flushedShares }).report;
    const softmax = calibrated.nodes.find((n) => n.node === 'long/softmax')!;
    expect(softmax.rule).toBe('deny-list');
    expect(softmax.reason).toMatch(/^Softmax is on the deny list: [^;]+; also seen: .* of the magnitude of '.*' .* round to zero$/);
    expect(calibrated.summary.denyBlocking).toBe(plain.summary.denyBlocking);
    expect(calibrated.summary.blockedByDeny).toBe(plain.summary.blockedByDeny);
  });
});

describe('calibration inputs and headroom', () => {
  it('random integer inputs that index a Gather table cover the whole table', async () => {
    const ort = await loadOrt();
    const model = buildEmbeddingRange();
    expect(gatherIndexInputs(model)).toEqual(new Map([['tokens', 1000]]));
    const ids = Array.from(modelAwareRandomInputs(ort, model, { seed: 0 }).tokens!.data as BigInt64Array, Number);
    expect(Math.max(...ids)).toBeGreaterThan(500);
    expect(Math.max(...ids)).toBeLessThan(1000);
    expect(Math.min(...ids)).toBeGreaterThanOrEqual(0);
  });

  it('finds the large embedding rows that [0, 10) inputs miss; the headroom pins 4e4 (default 2) but not at headroom 1', async () => {
    const ort = await loadOrt();
    const model = buildEmbeddingRange();
    const pins = async (feeds: ReturnType<typeof randomInputs>, headroom?: number) => {
      const c = await calibrate(ort, model, [feeds], { numerics: 'emulate', headroom });
      return pinnedBy(ampRewrite(model, { activationRanges: c.ranges, activationLimit: c.limit, flushedShares: c.flushedShares }).report);
    };
    expect(await pins(randomInputs(ort, model, { seed: 0 }))).toEqual([]);
    const aware = modelAwareRandomInputs(ort, model, { seed: 0 });
    expect(await pins(aware)).toEqual([...EMBEDDING_NODES]);
    expect(await pins(aware, 1)).toEqual([]);
    await expect(calibrate(ort, model, [aware], { numerics: 'native', headroom: 0.5 })).rejects.toThrow(/--headroom 0.5/);
  });

  it('reads a folder of batch folders and sees every batch; the CLI takes it with --inputs', async () => {
    const ort = await loadOrt();
    const model = buildEmbeddingRange();
    const folder = path.join(work, 'batches');
    const tokens = (values: number[]) => onnx.TensorProto.encode(onnx.TensorProto.create({ name: 'tokens', dims: [1, 16], data_type: DataType.INT64, int64_data: values })).finish();
    mkdirSync(path.join(folder, 'batch_0'), { recursive: true });
    mkdirSync(path.join(folder, 'batch_1'), { recursive: true });
    writeFileSync(path.join(folder, 'batch_0', 'input_0.pb'), tokens(Array.from({ length: 16 }, (_, i) => i)));
    writeFileSync(path.join(folder, 'batch_1', 'tokens.pb'), tokens(Array.from({ length: 16 }, (_, i) => (i === 5 ? 700 : i))));
    const batches = inputBatches(ort, model, [folder]);
    expect(batches).toHaveLength(2);
    expect(Array.from(batches[1]!.tokens!.data as BigInt64Array, Number)[5]).toBe(700);
    const file = path.join(work, 'embedding.onnx');
    saveModel(model, file);
    const audit = path.join(work, 'embedding.audit.json');
    const firstOnly = cli([file, '-o', path.join(work, 'e1.onnx'), '--calibrate', '--inputs', path.join(folder, 'batch_0'), '--report', audit, '-q']);
    expect(firstOnly.status, firstOnly.stderr).toBe(0);
    expect(pinnedBy(JSON.parse(readFileSync(audit, 'utf8')))).toEqual([]);
    const both = cli([file, '-o', path.join(work, 'e2.onnx'), '--calibrate', '--inputs', folder, '--report', audit, '-q']);
    expect(both.status, both.stderr).toBe(0);
    expect(pinnedBy(JSON.parse(readFileSync(audit, 'utf8')))).toEqual([...EMBEDDING_NODES]);
  });
});
