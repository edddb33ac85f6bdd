import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/onnx/model-io.js';
import { rewriteModel } from '../../../src/passes/pipeline.js';
import { trainingRegions } from '../../../src/report/html/training-regions.js';
import { fixturesDir } from '../../support/corpus.js';
import { onnx } from '../../../src/onnx/codec.js';
import { tensor } from '../../../src/builder/graph-builder.js';
import { node, valueInfo } from '../../support/models.js';

/** node name -> region, for a training fixture rewritten as the CLI does (loss scaling, then AMP). */
function regionsOf(fixture: string): Map<string, string> {
  const { report } = rewriteModel(loadModel(path.join(fixturesDir, fixture, 'model.onnx')));
  const regions = trainingRegions(report.amp, report.training!.contract);
  return new Map(report.amp.nodes.map((n, i) => [n.node, regions.names[regions.of[i]!] ?? 'none']));
}

const count = (regions: Map<string, string>, region: string): number => [...regions.values()].filter((r) => r === region).length;

describe('training regions', () => {
  it('tells forward, loss, backward and optimizer apart in an MLP trained with Adam', () => {
    const regions = regionsOf('mlp-training-adam');
    // The forward pass ends at the last node taking a parameter; the loss follows it.
    for (const name of ['fc1/matmul', 'fc2/relu', 'fc3/bias_add']) expect(regions.get(name), name).toBe('forward');
    expect(regions.get('loss/softmax_cross_entropy')).toBe('loss');
    // The backward pass: the scaled seed, the recomputed softmax and masks, the gradients and their unscaling.
    for (const name of ['amp/loss_grad/scaled', 'loss_grad/softmax', 'fc2/relu_mask', 'fc1/matmul_grad_w', 'amp/fc1.weight_grad']) expect(regions.get(name), name).toBe('backward');
    // The update: Adam's moments, the finite check and the guarded state, the loss scale's own update.
    for (const name of ['adam/fc1.weight/m_update', 'adam/fc3.bias/param_update', 'amp/all_finite', 'amp/fc1.weight.next', 'amp/loss_scale.next']) expect(regions.get(name), name).toBe('optimizer');
    expect(count(regions, 'none')).toBe(0);
  });

  it("gives a body's nodes the region of the node that holds the body", () => {
    // The MLP with its second ReLU behind an If: both branches read fc2's output from the outer scope.
    const model = loadModel(path.join(fixturesDir, 'mlp-training-adam', 'model.onnx'));
    const graph = model.graph!;
    const at = graph.node!.findIndex((n) => n.name === 'fc2/relu');
    const branch = (name: string, op: string) =>
      onnx.GraphProto.create({ name, node: [node(op, ['fc2/bias_add'], [`${name}_out`], `${name}/${op.toLowerCase()}`)], output: [valueInfo(`${name}_out`, 1, [8, 16])] });
    graph.node![at] = node('If', ['use_relu'], ['fc2/relu'], 'fc2/if', {
      attribute: [
        { name: 'then_branch', type: onnx.AttributeProto.AttributeType.GRAPH, g: branch('then', 'Relu') },
        { name: 'else_branch', type: onnx.AttributeProto.AttributeType.GRAPH, g: branch('else', 'Identity') },
      ],
    });
    graph.initializer!.push(tensor('use_relu', [], Uint8Array.of(1)));
    const { report } = rewriteModel(model);
    const regions = trainingRegions(report.amp, report.training!.contract);
    const regionOf = (name: string) => regions.names[regions.of[report.amp.nodes.findIndex((n) => n.node === name)]!];
    expect(regionOf('fc2/if')).toBe('forward');
    expect(regionOf('then/relu')).toBe('forward');
    expect(regionOf('else/identity')).toBe('forward');
    expect(regionOf('fc1/matmul_grad_w')).toBe('backward');
  });

  it('does the same for an attention block trained with SGD', () => {
    const regions = regionsOf('attention-training-sgd');
    for (const region of ['forward', 'loss', 'backward', 'optimizer']) expect(count(regions, region), region).toBeGreaterThan(0);
    expect(regions.get('attn/softmax')).toBe('forward');
    expect(regions.get('head/bias_add')).toBe('forward');
    expect(regions.get('attn/softmax_grad')).toBe('backward');
    expect(regions.get('sgd-momentum/head.weight/param_update')).toBe('optimizer');
    expect(count(regions, 'none')).toBe(0);
  });
});
