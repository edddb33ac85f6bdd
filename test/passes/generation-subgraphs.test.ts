/**
 * Subgraph attributes of com.microsoft generation drivers (BeamSearch, GreedySearch, Sampling,
 * WhisperBeamSearch: encoder/decoder/init_decoder) are painted as scopes, never refused: a
 * BeamSearch-shaped model with a GPT-2-style decoder (one layer, a KV cache, ONNX Runtime's
 * LayerNormalization at opset 12), imported com.microsoft or not, is rewritten, its
 * decoder's MatMul converts inside the decoder scope while the decoder's inputs and outputs keep
 * the types BeamSearch feeds and reads, and ONNX Runtime runs the rewritten model to the same
 * sequences.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { attr, GraphBuilder } from '../../src/builder/graph-builder.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { checkModel } from '../../src/onnx/check-model.js';
import { saveModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { repoRoot } from '../support/corpus.js';
import { loadOrt } from '../../src/runtime/ort.js';

const F = DataType.FLOAT;
const I32 = DataType.INT32;
const VOCAB = 8;
const HIDDEN = 4;

/** GPT-2's decoder contract for BeamSearch: input_ids, position_ids, attention_mask, past_0 -> logits, present_0. */
function decoderGraph(): onnx.GraphProto {
  const d = new GraphBuilder('decoder');
  const ids = d.input('input_ids', I32, ['batch', 'seq']);
  d.input('position_ids', I32, ['batch', 'seq']);
  d.input('attention_mask', I32, ['batch', 'total']);
  const past = d.input('past_0', F, [2, 'batch', 1, 'past', HIDDEN]);
  const table = Float32Array.from({ length: VOCAB * HIDDEN }, (_, i) => Math.cos(i * 1.3));
  const emb = d.op('Gather', [d.initializer('embedding', [VOCAB, HIDDEN], table), ids], {}, { name: 'embed' });
  // ONNX Runtime's LayerNormalization of the default domain, below ONNX's version 17 (its transformer optimizer writes it).
  const gamma = d.initializer('ln_gamma', [HIDDEN], Float32Array.of(1, 0.5, 2, 1));
  const normed = d.op('LayerNormalization', [emb, gamma, d.initializer('ln_beta', [HIDDEN], new Float32Array(HIDDEN))], { axis: attr.int(-1) }, { name: 'ln_f' });
  const head = Float32Array.from({ length: HIDDEN * VOCAB }, (_, i) => Math.sin(i * 0.9) * 2);
  d.op('MatMul', [normed, d.initializer('lm_head', [HIDDEN, VOCAB], head)], {}, { name: 'lm_head_mm', outputs: ['logits'] });
  const kv = d.op('Unsqueeze', [emb], { axes: attr.ints([0, 2]) }, { name: 'kv_unsqueeze' });
  const kv2 = d.op('Concat', [kv, kv], { axis: attr.int(0) }, { name: 'kv_pair' });
  d.op('Concat', [past, kv2], { axis: attr.int(3) }, { name: 'kv_append', outputs: ['present_0'] });
  d.output('logits', F, ['batch', 'seq', VOCAB]);
  d.output('present_0', F, [2, 'batch', 1, 'total', HIDDEN]);
  return d.graph();
}

function beamSearchModel(importMicrosoft = true): onnx.ModelProto {
  const b = new GraphBuilder('beam');
  const inputs = [
    b.input('input_ids', I32, ['batch', 'seq']),
    b.input('max_length', I32, [1]),
    b.input('min_length', I32, [1]),
    b.input('num_beams', I32, [1]),
    b.input('num_return_sequences', I32, [1]),
    b.input('length_penalty', F, [1]),
    b.input('repetition_penalty', F, [1]),
  ];
  b.node('BeamSearch', inputs, { decoder: attr.graph(decoderGraph()), eos_token_id: attr.int(VOCAB - 1), pad_token_id: attr.int(0), model_type: attr.int(0) }, { name: 'beam_search', domain: 'com.microsoft', outputs: ['sequences'] });
  b.output('sequences', I32, ['batch', 'num_return_sequences', 'max_length']);
  return b.model(importMicrosoft ? { '': 12, 'com.microsoft': 1 } : { '': 12 });
}

describe('generation drivers with subgraph attributes', () => {
  it('BeamSearch is kept with its reason and its decoder is painted as a scope, the decoder I/O types unchanged', () => {
    const result = ampRewrite(beamSearchModel());
    expect(result.modified).toBe(true);
    const byNode = new Map(result.report.nodes.map((n) => [n.node, n]));
    expect(byNode.get('beam_search')?.rule).toBe('unlisted');
    expect(byNode.get('beam_search')?.reason).toMatch(/runs its own encoder\/decoder subgraphs: the nodes inside those are painted/);
    expect(byNode.get('lm_head_mm')?.color).toBe('ALLOW');
    expect(`${byNode.get('ln_f')?.color}:${byNode.get('ln_f')?.rule}`).toBe('DENY:deny-list');
    const decoder = result.model.graph?.node?.[0]?.attribute?.find((a) => a.name === 'decoder')?.g as onnx.IGraphProto;
    const declared = (values: onnx.IValueInfoProto[] | null | undefined) => (values ?? []).map((v) => `${v.name}:${v.type?.tensor_type?.elem_type}`);
    expect(declared(decoder.input)).toEqual(declared(decoderGraph().input));
    expect(declared(decoder.output)).toEqual(declared(decoderGraph().output));
    expect((decoder.node ?? []).some((n) => n.op_type === 'Cast')).toBe(true);
  });

  it('a BeamSearch model without a com.microsoft import is rewritten the same', () => {
    const rules = (model: onnx.ModelProto) => ampRewrite(model).report.nodes.map((n) => `${n.node} ${n.color}:${n.rule}`);
    expect(rules(beamSearchModel(false))).toEqual(rules(beamSearchModel(true)));
  });

  it('ONNX Runtime runs the rewritten BeamSearch model to the same sequences', async () => {
    const ort = await loadOrt();
    const int32 = (values: number[], dims: number[]) => new ort.Tensor('int32', Int32Array.from(values), dims);
    const feeds = {
      input_ids: int32([1, 2, 3, 4], [2, 2]),
      max_length: int32([6], [1]),
      min_length: int32([1], [1]),
      num_beams: int32([2], [1]),
      num_return_sequences: int32([1], [1]),
      length_penalty: new ort.Tensor('float32', Float32Array.of(1), [1]),
      repetition_penalty: new ort.Tensor('float32', Float32Array.of(1), [1]),
    };
    const run = async (model: onnx.IModelProto) => {
      const session = await ort.InferenceSession.create(encodeModel(model));
      try {
        return [...((await session.run(feeds)).sequences!.data as Int32Array)];
      } finally {
        await session.release();
      }
    };
    const reference = await run(beamSearchModel());
    expect(reference.length).toBe(12);
    expect(await run(ampRewrite(beamSearchModel()).model)).toEqual(reference);
    expect(await run(ampRewrite(beamSearchModel(false)).model)).toEqual(reference);
  });

  it("the command rewrites it: the decoder's inputs reuse the driver's names, as ONNX Runtime's convert_generation writes them", () => {
    const work = mkdtempSync(path.join(tmpdir(), 'amp-beam-'));
    const file = path.join(work, 'beam.onnx');
    saveModel(beamSearchModel(), file);
    const run = spawnSync(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), file, '-o', path.join(work, 'beam.amp.onnx')], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Total nodes converted: [1-9]/);
    // The verification sets the driver's inputs as a caller does (max_length, num_beams...) and runs both to the same sequences.
    expect(run.stdout).toMatch(/\nVerified: PASS on 1 batch of random inputs .*worst output 'sequences' at 0\.00 of its tolerance \(max abs error 0\.00\)\n$/);
    // A nested graph that runs in the enclosing graph's scope still may not shadow: a Loop body reusing the input's name.
    const loop = new GraphBuilder('loop');
    loop.input('x', F, [2]);
    const body = new GraphBuilder('body');
    body.input('i', DataType.INT64, []);
    body.input('cond', DataType.BOOL, []);
    body.input('x', F, [2]);
    body.op('Identity', ['cond'], {}, { outputs: ['cond_out'] });
    body.op('Relu', ['x'], {}, { outputs: ['x_out'] });
    body.output('cond_out', DataType.BOOL, []);
    body.output('x_out', F, [2]);
    loop.node('Loop', [loop.ints('trips', [2]), '', 'x'], { body: attr.graph(body.graph()) }, { name: 'loop', outputs: ['y'] });
    loop.output('y', F, [2]);
    expect(() => checkModel(loop.model())).toThrow(/subgraph input 'x' shadows a value of an enclosing graph/);
  });
});
