/**
 * Models whose inputs differ in type between reference and candidate, and low-precision inputs read
 * inside a subgraph: a Loop whose body reads a float16 graph input (emulation widens it for the
 * body too, where it used to refuse with BAD_OPTION), float16 model I/O against float32, and the
 * decoder rewritten with --kv-cache fp16 checked by compare itself.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GraphBuilder, attr, randomNormal, seededRandom } from '../../src/builder/graph-builder.js';
import { DataType } from '../../src/onnx/data-types.js';
import { saveModel } from '../../src/onnx/model-io.js';
import { emulateNumerics } from '../../src/passes/emulate-numerics.js';
import { repoRoot } from '../support/corpus.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-compare-mixed-io-'));
const bin = path.join(repoRoot, 'dist/cli/main.js');
const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });

/**
 * state <- tanh(state * scale + bias) three times in a Loop whose body reads the graph input `scale`
 * from the outer scope; every float value is `type` (float16 or float32), inputs and output included.
 */
function buildScaledLoop(type: number): ReturnType<GraphBuilder['model']> {
  const b = new GraphBuilder('scaled_loop');
  b.input('x', type, [2, 4]);
  b.input('scale', type, [2, 4]);
  const body = new GraphBuilder('body', 'body/');
  body.input('i', DataType.INT64, []);
  body.input('cond_in', DataType.BOOL, []);
  body.input('state', type, [2, 4]);
  const scaled = body.op('Mul', ['state', 'scale'], {}, { name: 'body/scale' });
  const shifted = body.op('Add', [scaled, 'scale'], {}, { name: 'body/shift' });
  body.op('Tanh', [shifted], {}, { name: 'body/tanh', outputs: ['state_out'] });
  body.op('Identity', ['cond_in'], {}, { name: 'body/cond', outputs: ['cond_out'] });
  body.output('cond_out', DataType.BOOL, []);
  body.output('state_out', type, [2, 4]);
  const trip = b.op('Squeeze', [b.ints('trips', [3])], {}, { name: 'trip_count' });
  b.op('Loop', [trip, '', 'x'], { body: attr.graph(body.graph()) }, { name: 'loop', outputs: ['y'] });
  b.output('y', type, [2, 4]);
  return b.model({ '': 17 });
}

describe('a float16 graph input read inside a Loop body', () => {
  const fp16 = path.join(work, 'loop.fp16.onnx');
  const fp32 = path.join(work, 'loop.fp32.onnx');
  saveModel(buildScaledLoop(DataType.FLOAT16), fp16);
  saveModel(buildScaledLoop(DataType.FLOAT), fp32);

  it('is emulated: the body reads the widened copy, the model keeps its float16 input', () => {
    const emulated = emulateNumerics(buildScaledLoop(DataType.FLOAT16)).model;
    expect(emulated.graph?.input?.map((i) => i.type?.tensor_type?.elem_type)).toEqual([DataType.FLOAT16, DataType.FLOAT16]);
    const body = emulated.graph?.node?.find((n) => n.op_type === 'Loop')?.attribute?.[0]?.g;
    const reads = (body?.node ?? []).flatMap((n) => n.input ?? []);
    expect(reads).toContain('scale__widened');
    expect(reads).not.toContain('scale');
  });

  it('compared with itself: 0 error in every numerics mode', () => {
    for (const mode of ['auto', 'emulate', 'native']) {
      const result = cli(['compare', fp16, fp16, '--numerics', mode, '--json']);
      expect(result.status, `${mode}: ${result.stderr}`).toBe(0);
      expect(JSON.parse(result.stdout).outputs[0]).toMatchObject({ maxAbsError: 0, mismatched: 0, decidedBy: 'exact' });
    }
  });

  it('against its float32 twin: inputs made once, rounded to float16 and given to each side in its type', () => {
    const result = cli(['compare', fp32, fp16, '--json']);
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.numerics).toBe('emulate');
    expect(report.notices).toEqual([
      "input 'x' is float32 in the reference and float16 in the candidate: made once, rounded to float16, and given to each in its type",
      "input 'scale' is float32 in the reference and float16 in the candidate: made once, rounded to float16, and given to each in its type",
    ]);
    expect(report.outputs[0].maxAbsError).toBeGreaterThan(0);
    expect(report.outputs[0].maxAbsError).toBeLessThan(1e-2);
    // The other way round too: a float16 reference against a float32 candidate.
    expect(cli(['compare', fp16, fp32]).status).toBe(0);
  });
});

describe('--kv-cache fp16 checked by compare', () => {
  const fixture = path.join(repoRoot, 'fixtures/exporter-decoder-kv/model.onnx');
  const rewritten = path.join(work, 'decoder.kv16.onnx');
  // GroupQueryAttention ties seqlens_k and total_sequence_length to the cache length: inputs from a folder.
  const inputs = path.join(work, 'decoder_inputs');
  mkdirSync(inputs, { recursive: true });
  const random = seededRandom(4);
  const json = (name: string, dims: number[], data: number[]) => writeFileSync(path.join(inputs, `${name}.json`), JSON.stringify({ dims, data }));
  json('input_ids', [1, 1], [3]);
  json('position_ids', [1, 1], [2]);
  json('past_key_values.0.key', [1, 2, 2, 8], Array.from(randomNormal(32, 0.5, random)));
  json('past_key_values.0.value', [1, 2, 2, 8], Array.from(randomNormal(32, 0.5, random)));
  json('seqlens_k', [1], [2]);
  json('total_sequence_length', [], [3]);

  it('feeds each side its cache type and passes', () => {
    const rewrite = cli([fixture, '-o', rewritten, '--kv-cache', 'fp16', '-q']);
    expect(rewrite.status, rewrite.stderr).toBe(0);
    for (const mode of ['emulate', 'native']) {
      const result = cli(['compare', fixture, rewritten, '--inputs', inputs, '--numerics', mode, '--json']);
      expect(result.status, `${mode}: ${result.stderr}`).toBe(0);
      const report = JSON.parse(result.stdout);
      expect(report.notices).toEqual(expect.arrayContaining([expect.stringMatching(/^input 'past_key_values.0.key' is float32 in the reference and float16 in the candidate/)]));
      expect(report.outputs.map((o: { name: string }) => o.name)).toEqual(expect.arrayContaining(['present.0.key', 'present.0.value']));
      expect(report.outputs.every((o: { pass: boolean; finite: number }) => o.pass && o.finite > 0)).toBe(true);
    }
  });
});
