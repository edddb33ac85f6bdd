/**
 * Random inputs that respect what the model does with them (rules/input-roles.json): table indices
 * within the table, masks 0/1, token types within their table, for compare as for --calibrate and
 * tune; and --inputs as a folder (ONNX's test_data_set_<n> layout) in compare, run and bench.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GraphBuilder, randomNormal, seededRandom } from '../../src/builder/graph-builder.js';
import { DataType } from '../../src/onnx/data-types.js';
import { onnx } from '../../src/onnx/generated/onnx.js';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { inputRoles, modelAwareRandomInputs } from '../../src/runtime/input-roles.js';
import { randomInputs } from '../../src/runtime/inputs.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { repoRoot } from '../support/corpus.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-input-roles-'));
const bin = path.join(repoRoot, 'dist/cli/main.js');
const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
const SEQ = 8;
const HIDDEN = 16;

/**
 * A BERT-style block in plain ONNX ops: word (6 rows) and token-type (2 rows) embedding tables read
 * by Gather, one attention head, and an additive mask (1 - mask) * -10000 from an int64 mask.
 */
function buildBertStyle(): ReturnType<GraphBuilder['model']> {
  const random = seededRandom(5);
  const b = new GraphBuilder('bert_style');
  b.input('input_ids', DataType.INT64, [1, SEQ]);
  b.input('token_type_ids', DataType.INT64, [1, SEQ]);
  b.input('attention_mask', DataType.INT64, [1, SEQ]);
  const weight = (name: string, dims: number[]) => b.initializer(name, dims, randomNormal(dims.reduce((x, y) => x * y, 1), 0.3, random));
  const words = b.op('Gather', [weight('word_embeddings', [6, HIDDEN]), 'input_ids'], {}, { name: 'embed_words' });
  const types = b.op('Gather', [weight('token_type_embeddings', [2, HIDDEN]), 'token_type_ids'], {}, { name: 'embed_types' });
  const hidden = b.op('Add', [words, types], {}, { name: 'embed_sum' });
  const q = b.op('MatMul', [hidden, weight('wq', [HIDDEN, HIDDEN])], {}, { name: 'q' });
  const k = b.op('MatMul', [hidden, weight('wk', [HIDDEN, HIDDEN])], {}, { name: 'k' });
  const v = b.op('MatMul', [hidden, weight('wv', [HIDDEN, HIDDEN])], {}, { name: 'v' });
  const scores = b.op('MatMul', [q, b.op('Transpose', [k], { perm: { kind: 'ints', value: [0, 2, 1] } })], {}, { name: 'scores' });
  const mask = b.op('Unsqueeze', [b.op('Cast', ['attention_mask'], { to: { kind: 'int', value: DataType.FLOAT } }), b.ints('axis1', [1])]);
  const additive = b.op('Mul', [b.op('Sub', [b.scalar('one', 1), mask]), b.scalar('neg', -10000)], {}, { name: 'mask_scale' });
  const probabilities = b.op('Softmax', [b.op('Add', [scores, additive], {}, { name: 'masked_scores' })], { axis: { kind: 'int', value: -1 } });
  b.op('MatMul', [probabilities, v], {}, { outputs: ['context'], name: 'context' });
  b.output('context', DataType.FLOAT, [1, SEQ, HIDDEN]);
  return b.model();
}

const bertFile = path.join(work, 'bert.onnx');
const bertAmp = path.join(work, 'bert.amp.onnx');
saveModel(buildBertStyle(), bertFile);
saveModel(ampRewrite(buildBertStyle()).model, bertAmp);

describe('input roles', () => {
  it('bounds table indices by the table, masks and token types to 0/1 (from ops, then from names)', async () => {
    const roles = inputRoles(buildBertStyle());
    expect(roles.get('input_ids')).toMatchObject({ low: 0, high: 6, role: 'index' });
    expect(roles.get('token_type_ids')).toMatchObject({ low: 0, high: 2, role: 'index' });
    expect(roles.get('attention_mask')).toMatchObject({ low: 0, high: 2, role: 'mask' });
    const ort = await loadOrt();
    const feeds = modelAwareRandomInputs(ort, buildBertStyle(), { seed: 3 });
    const values = (name: string) => new Set(Array.from(feeds[name]!.data as BigInt64Array, Number));
    expect(values('attention_mask')).toEqual(new Set([0, 1]));
    expect(values('token_type_ids')).toEqual(new Set([0, 1]));
    expect(Math.max(...values('input_ids'))).toBe(5);
    // The fused BERT: EmbedLayerNormalization's ids, segment ids and mask, by its input positions.
    const fused = inputRoles(loadModel(path.join(repoRoot, 'fixtures/exporter-bert-fused/model.onnx')));
    expect(fused.get('input_ids')).toMatchObject({ high: 50, role: 'index' });
    expect(fused.get('token_type_ids')).toMatchObject({ high: 2, role: 'index' });
    expect(fused.get('attention_mask')).toMatchObject({ high: 2, role: 'mask' });
  });

  it('compare runs the BERT-style pair on inputs the reference accepts, naming each bound; [0, 10) inputs break the reference', async () => {
    const result = cli(['compare', bertFile, bertAmp, '--json']);
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.notices).toEqual(expect.arrayContaining([
      expect.stringMatching(/^input 'input_ids' drawn from \[0, 6\): indexes Gather 'embed_words' table 'word_embeddings' of 6 rows/),
      expect.stringMatching(/^input 'attention_mask' drawn from \[0, 2\): its name says mask/),
    ]));
    expect(report.outputs[0].finite).toBe(SEQ * HIDDEN);
    // What compare drew before: ids up to 9 in a 6-row table.
    const ort = await loadOrt();
    const plain = randomInputs(ort, buildBertStyle(), { seed: 0 });
    const session = await ort.InferenceSession.create(bertFile);
    await expect(session.run(plain)).rejects.toThrow(/out of (data )?bounds|indices/i);
  });

  it('the fused BERT fixture compares against its rewrite', () => {
    const fixture = path.join(repoRoot, 'fixtures/exporter-bert-fused/model.onnx');
    const amp = path.join(work, 'bert-fused.amp.onnx');
    saveModel(ampRewrite(loadModel(fixture)).model, amp);
    const result = cli(['compare', fixture, amp, '--json']);
    expect([0, 1], result.stderr).toContain(result.status);
    expect(JSON.parse(result.stdout).notices).toEqual(expect.arrayContaining([expect.stringMatching(/^input 'attention_mask' drawn from \[0, 2\): EmbedLayerNormalization/)]));
  });
});

/**
 * Index inputs of GatherND, ScatterND and ScatterElements into computed tables (no initializer to read
 * the size from), as ONNX Runtime's computation_reduction_transformer test model reads its GatherND
 * indices: hidden[batch, seq, 16] = x @ w; picked = GatherND(hidden, positions[batch, 3, 1], batch_dims 1);
 * a ScatterND of rows into hidden at index pairs; a ScatterElements along axis 2.
 */
function buildIndexedTransformer(): ReturnType<GraphBuilder['model']> {
  const random = seededRandom(9);
  const b = new GraphBuilder('indexed');
  b.input('x', DataType.FLOAT, ['batch', 7, 16]);
  b.input('positions', DataType.INT64, ['batch', 3, 1]);
  b.input('pairs', DataType.INT64, [4, 2]);
  b.input('columns', DataType.INT64, ['batch', 7, 5]);
  const hidden = b.op('MatMul', ['x', b.initializer('w', [16, 16], randomNormal(256, 0.3, random))], {}, { name: 'project' });
  b.op('GatherND', [hidden, 'positions'], { batch_dims: { kind: 'int', value: 1 } }, { name: 'pick', outputs: ['picked'] });
  const rows = b.initializer('rows', [4, 16], randomNormal(64, 1, random));
  const scattered = b.op('ScatterND', [hidden, 'pairs', rows], {}, { name: 'scatter_rows' });
  const updates = b.initializer('updates', [2, 7, 5], randomNormal(70, 1, random));
  b.op('ScatterElements', [scattered, b.op('Slice', ['columns', b.ints('s0', [0]), b.ints('s2', [2]), b.ints('sa', [0])]), updates], { axis: { kind: 'int', value: 2 } }, { name: 'scatter_columns', outputs: ['mixed'] });
  b.output('picked', DataType.FLOAT, ['batch', 3, 16]);
  b.output('mixed', DataType.FLOAT, ['batch', 7, 16]);
  return b.model({ '': 18 });
}

describe('index inputs of GatherND, ScatterND and ScatterElements', () => {
  it('are drawn within the computed table: tuples component by component', async () => {
    const ort = await loadOrt();
    const notices: string[] = [];
    const feeds = modelAwareRandomInputs(ort, buildIndexedTransformer(), { seed: 1, dims: new Map([['batch', 2]]), notices });
    const values = (name: string) => Array.from(feeds[name]!.data as BigInt64Array, Number);
    expect(Math.max(...values('positions'))).toBeLessThan(7);
    // Pairs address [batch, seq]: the first of each pair below 2, the second below 7.
    const pairs = values('pairs');
    expect(Math.max(...pairs.filter((_, i) => i % 2 === 0))).toBeLessThan(2);
    expect(Math.max(...pairs.filter((_, i) => i % 2 === 1))).toBeLessThan(7);
    expect(Math.max(...pairs.filter((_, i) => i % 2 === 1))).toBeGreaterThanOrEqual(2);
    expect(Math.max(...values('columns'))).toBeLessThan(16);
    expect(notices).toEqual(expect.arrayContaining([expect.stringMatching(/^input 'pairs' drawn from \[0, 2\): indexes ScatterND 'scatter_rows' value '.*' of shape \[2, 7, 16\], tuples of 2 within \[2, 7\]/)]));
    // The reference runs on them.
    const session = await ort.InferenceSession.create(new Uint8Array(onnx.ModelProto.encode(buildIndexedTransformer()).finish()));
    const outputs = await session.run(feeds);
    expect(outputs.picked?.dims).toEqual([2, 3, 16]);
  });

  it('compare runs the model against its rewrite on them', () => {
    const file = path.join(work, 'indexed.onnx');
    const amp = path.join(work, 'indexed.amp.onnx');
    saveModel(buildIndexedTransformer(), file);
    saveModel(ampRewrite(buildIndexedTransformer()).model, amp);
    const result = cli(['compare', file, amp, '--dim', 'batch=2', '--json']);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).pass).toBe(true);
  });
});

describe('--inputs as a folder', () => {
  const ids = (values: number[], name: string) => onnx.TensorProto.encode(onnx.TensorProto.create({ name, dims: [1, SEQ], data_type: DataType.INT64, int64_data: values })).finish();
  const root = path.join(work, 'bert_data');
  for (const [set, word] of [[0, 1], [1, 4]] as const) {
    const dir = path.join(root, `test_data_set_${set}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'input_0.pb'), ids(Array.from({ length: SEQ }, (_, i) => (i + word) % 6), 'input_ids'));
    writeFileSync(path.join(dir, 'input_1.pb'), ids(Array(SEQ).fill(0), 'token_type_ids'));
    writeFileSync(path.join(dir, 'input_2.pb'), ids(Array.from({ length: SEQ }, (_, i) => (i < 6 ? 1 : 0)), 'attention_mask'));
    // ONNX's layout keeps the expected output beside the inputs: not an input.
    writeFileSync(path.join(dir, 'output_0.pb'), onnx.TensorProto.encode(onnx.TensorProto.create({ name: 'context', dims: [1], data_type: DataType.FLOAT, float_data: [0] })).finish());
  }

  it('compare reads every batch of a folder of test_data_set folders', () => {
    const result = cli(['compare', bertFile, bertAmp, '--inputs', root, '--json']);
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.batches).toBe(2);
    expect(report.outputs[0].elements).toBe(2 * SEQ * HIDDEN);
    expect(report.notices).toEqual([]);
    const text = cli(['compare', bertFile, bertAmp, '--inputs', root]);
    expect(text.stdout).toMatch(/PASS: 1 of 1 outputs within tolerance over 2 batches of inputs/);
  });

  it('run and bench take a folder of one batch; a folder of two is refused naming them', () => {
    const one = path.join(root, 'test_data_set_1');
    const run = cli(['run', bertFile, '--inputs', one, '--json']);
    expect(run.status, run.stderr).toBe(0);
    const fromFiles = cli(['run', bertFile, '--inputs', ...['input_0', 'input_1', 'input_2'].map((f) => path.join(one, `${f}.pb`)), '--json']);
    expect(JSON.parse(run.stdout).outputs).toEqual(JSON.parse(fromFiles.stdout).outputs);
    const two = cli(['run', bertFile, '--inputs', root]);
    expect(two.status).toBe(2);
    expect(two.stderr).toMatch(/BAD_OPTION\]: --inputs .*bert_data: run runs one batch and this folder holds 2 \(test_data_set_0, test_data_set_1\); name one of them/);
    const bench = cli(['bench', bertFile, '--inputs', one, '--runs', '1', '--warmup', '0', '--isolation', 'in-process', '--json']);
    expect(bench.status, bench.stderr).toBe(0);
    expect(JSON.parse(bench.stdout).batch).toBe(1);
  });
});
