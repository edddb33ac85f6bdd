/**
 * make-training reads its model through the gate every model-reading command uses
 * (src/onnx/load-checked.ts): a model the rewrite refuses, make-training refuses the same typed way
 * (exit 2, one line), and what it takes it assembles without argument-spread limits.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../../src/builder/graph-builder.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { onnx } from '../../src/onnx/generated/onnx.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { repoRoot } from '../support/corpus.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-make-training-gate-'));
const bin = path.join(repoRoot, 'dist/cli/main.js');
const F = DataType.FLOAT;

/** x[2,4] -> MatMul(w) -> (edit) -> y; `edit` breaks it. */
function linear(edit: (model: onnx.ModelProto) => void = () => {}): onnx.ModelProto {
  const b = new GraphBuilder('g');
  b.op('MatMul', [b.input('x', F, [2, 4]), b.initializer('w', [4, 4], new Float32Array(16).fill(0.1))], {}, { name: 'mm', outputs: ['y'] });
  b.output('y', F, [2, 4]);
  const model = b.model();
  edit(model);
  return model;
}

const graphOf = (model: onnx.ModelProto) => model.graph as onnx.GraphProto;

function makeTraining(model: onnx.ModelProto, name: string) {
  const file = path.join(work, `${name}.onnx`);
  const out = path.join(work, `${name}.step.onnx`);
  writeFileSync(file, encodeModel(model));
  const run = spawnSync(process.execPath, [bin, 'make-training', file, '-o', out, '--loss', 'mse'], { encoding: 'utf8' });
  return { ...run, out, file };
}

const HOSTILE: Array<[string, (model: onnx.ModelProto) => void, string, RegExp]> = [
  ['a cycle', (m) => graphOf(m).node.push(onnx.NodeProto.create({ op_type: 'Relu', name: 'loop', input: ['z'], output: ['z'] })), 'INVALID_MODEL', /cycle|depends on its own output|two producers|writes 'z'/],
  ['an initializer twice', (m) => graphOf(m).initializer.push(graphOf(m).initializer[0] as onnx.TensorProto), 'INVALID_MODEL', /initializer 'w' appears twice/],
  // Past one buffer on Node 20 (MODEL_TOO_LARGE); Node 24 and later hold larger buffers, so there the 64 bytes of data are found short of the claim.
  ['a tensor claiming 2^40 elements', (m) => { (graphOf(m).initializer[0] as onnx.ITensorProto).dims = [2 ** 20, 2 ** 20]; }, 'MODEL_TOO_LARGE|INVALID_MODEL', /tensor 'w' \(graph\): float \[1048576,1048576\]/],
  ['data type 999', (m) => { (graphOf(m).initializer[0] as onnx.TensorProto).data_type = 999; }, 'INVALID_MODEL', /999/],
  ['an attribute with an empty name', (m) => graphOf(m).node[0]?.attribute?.push(onnx.AttributeProto.create({ name: '', type: 2, i: 1 })), 'INVALID_MODEL', /an attribute has an empty name/],
  ['a LayerNormalization with one input', (m) => graphOf(m).node.push(onnx.NodeProto.create({ op_type: 'LayerNormalization', name: 'ln', input: ['y'], output: ['ln_out'] })), 'INVALID_MODEL', /1 inputs, and LayerNormalization-17 takes 2 to 3/],
  ['short raw data', (m) => { (graphOf(m).initializer[0] as onnx.TensorProto).float_data = []; (graphOf(m).initializer[0] as onnx.TensorProto).raw_data = new Uint8Array(6); }, 'INVALID_MODEL', /w/],
];

describe('make-training behind the loader gate', () => {
  it.each(HOSTILE)('%s: exit 2 with the typed error, nothing written', (name, edit, code, message) => {
    const run = makeTraining(linear(edit), name.replace(/\W+/g, '-'));
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(new RegExp(`^amp-rewrite: error \\[(?:${code})\\]: `));
    expect(run.stderr).toMatch(message);
    expect(existsSync(run.out)).toBe(false);
  });

  it('a 60,000-node forward chain is assembled (no call-stack limit) and checked', () => {
    const b = new GraphBuilder('chain');
    let value = b.op('MatMul', [b.input('x', F, [2, 4]), b.initializer('w', [4, 4], new Float32Array(16).fill(0.1))], {}, { name: 'mm' });
    for (let i = 0; i < 60_000; i++) value = b.op('Relu', [value], {}, { name: `relu_${i}` });
    b.op('Identity', [value], {}, { name: 'out', outputs: ['y'] });
    b.output('y', F, [2, 4]);
    const run = makeTraining(b.model(), 'chain');
    expect(run.status, run.stderr).toBe(0);
    expect(loadModel(run.out).graph?.node?.length ?? 0).toBeGreaterThan(120_000);
  }, 120_000);

  it('a weight the forward model also lists as a graph input is declared once in the step graph', () => {
    const run = makeTraining(linear((m) => graphOf(m).input.push(onnx.ValueInfoProto.create({ name: 'w', type: { tensor_type: { elem_type: F, shape: { dim: [{ dim_value: 4 }, { dim_value: 4 }] } } } }))), 'w-input');
    expect(run.status, run.stderr).toBe(0);
    const inputs = (loadModel(run.out).graph?.input ?? []).map((i) => i.name);
    expect(inputs.filter((name) => name === 'w')).toEqual(['w']);
    expect(new Set(inputs).size).toBe(inputs.length);
  });
});
