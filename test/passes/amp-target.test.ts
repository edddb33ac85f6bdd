/**
 * --target: which nodes change color between `any` and a provider, and why (rules/kernels.json).
 * Run on the committed fixtures and on small built graphs.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../../src/builder/graph-builder.js';
import { DataType } from '../../src/onnx/data-types.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { ampRewrite, type AmpOptions } from '../../src/passes/amp.js';
import { renderSummary } from '../../src/report/summary.js';
import { fixturesDir, repoRoot } from '../support/corpus.js';

const F = DataType.FLOAT;
const fixture = (name: string) => loadModel(path.join(fixturesDir, name, 'model.onnx'));

/** node name -> "COLOR:rule" for every node whose color differs between the two runs. */
function colorChanges(before: ReturnType<typeof ampRewrite>['report'], after: ReturnType<typeof ampRewrite>['report']) {
  const old = new Map(before.nodes.map((n) => [n.node, `${n.color}:${n.rule}`]));
  return Object.fromEntries(after.nodes.filter((n) => old.get(n.node) !== `${n.color}:${n.rule}`).map((n) => [n.node, `${old.get(n.node)} -> ${n.color}:${n.rule}`]));
}

describe('rules/kernels.json', () => {
  it('matches its schema, and every fact names a source', () => {
    const schema = JSON.parse(readFileSync(path.join(repoRoot, 'rules/kernels.schema.json'), 'utf8'));
    const rules = JSON.parse(readFileSync(path.join(repoRoot, 'rules/kernels.json'), 'utf8'));
    const validate = new Ajv2020.default({ allErrors: true }).compile(schema);
    expect(validate(rules), JSON.stringify(validate.errors)).toBe(true);
    expect(rules.targets.cuda.fp32Accumulating.map((f: { op: string }) => f.op)).toEqual(expect.arrayContaining(['LayerNormalization', 'Softmax']));
  });
});

describe('--target cuda on the transformer fixture', () => {
  const model = fixture('transformer-block');
  const any = rewriteModel(model, {});
  const cuda = rewriteModel(model, { target: 'cuda' });

  it('runs the mid-model LayerNorms and the attention Softmax in fp16; the LayerNorm feeding the output and the loss stay fp32', () => {
    expect(colorChanges(any.report.amp, cuda.report.amp)).toEqual({
      'l0/ln1': 'DENY:deny-list -> ALLOW:target-kernel',
      'l0/ln2': 'DENY:deny-list -> ALLOW:target-kernel',
      'l0/softmax': 'DENY:deny-list -> ALLOW:target-kernel',
      'l0/scale': 'NONE:not-between-allow -> ALLOW:between-allow',
    });
    const byName = new Map(cuda.report.amp.nodes.map((n) => [n.node, n]));
    expect(byName.get('l0/softmax')?.reason).toMatch(/--target cuda: .*accumulat.*float.*source: onnxruntime\/core\/providers\/cuda\/math\/softmax/);
    expect(byName.get('l0/ln1')?.reason).toContain('onnxruntime/core/providers/cuda/nn/layer_norm_impl.cu');
    expect(byName.get('final_ln')?.color).toBe('DENY');
    expect(byName.get('final_ln')?.reason).toContain("feeds the graph output 'hidden'");
    expect(byName.get('loss')?.color).toBe('DENY');
  });

  it('removes the Cast pairs around them and says so in the summary', () => {
    const casts = (m: typeof any.model) => (m.graph?.node ?? []).filter((n) => n.op_type === 'Cast' && !/\/to_fp16$/.test(n.name ?? '') ).length;
    expect(casts(cuda.model)).toBeLessThan(casts(any.model));
    expect(cuda.report.amp.summary.targetConverted).toBe(3);
    expect(cuda.report.amp.summary.denyBlocking).toBe(any.report.amp.summary.denyBlocking - 3);
    expect(renderSummary(cuda.report.amp.summary)).toContain('Target: cuda (CUDAExecutionProvider); 3 nodes in FP16');
    expect(renderSummary(any.report.amp.summary)).not.toContain('Target:');
  });

  it('keeps the bf16 rewrite in step: LogSoftmax has no bf16 CUDA kernel listed, LayerNorm and Softmax do', () => {
    const bf16 = rewriteModel(model, { target: 'cuda', mode: 'bf16' });
    expect(bf16.report.amp.summary.targetConverted).toBe(3);
  });

  it('changes nothing under --target cpu or webgpu', () => {
    for (const target of ['cpu', 'webgpu'] as const) {
      const other = rewriteModel(model, { target });
      expect(colorChanges(any.report.amp, other.report.amp)).toEqual({});
    }
  });
});

describe('--target cuda on the conv fixture: a Softmax that feeds a graph output stays fp32', () => {
  it('leaves the final Softmax DENY with the reason', () => {
    const model = fixture('conv-block');
    const any = rewriteModel(model, {});
    const cuda = rewriteModel(model, { target: 'cuda' });
    expect(colorChanges(any.report.amp, cuda.report.amp)).toEqual({});
    const softmax = cuda.report.amp.nodes.find((n) => n.op === 'Softmax');
    expect(softmax?.reason).toMatch(/accumulates in float32, but it feeds the graph output/);
  });
});

function attentionLike(options: { softmaxToLog?: boolean } = {}) {
  const b = new GraphBuilder('g');
  const x = b.input('x', F, [8, 8]);
  const w = b.initializer('w', [8, 8], new Float32Array(64).fill(0.1));
  const scores = b.op('MatMul', [x, w], {}, { name: 'scores' });
  const probs = b.op('Softmax', [scores], {}, { name: 'softmax' });
  if (options.softmaxToLog) {
    const log = b.op('Log', [probs], {}, { name: 'log' });
    b.op('MatMul', [log, w], {}, { name: 'out', outputs: ['y'] });
  } else {
    b.op('MatMul', [probs, w], {}, { name: 'out', outputs: ['y'] });
  }
  b.output('y', F, [8, 8]);
  return b.model();
}

describe('the middle-of-the-model rule', () => {
  const rule = (options: AmpOptions, build = attentionLike()) => {
    const node = ampRewrite(build, options).report.nodes.find((n) => n.node === 'softmax');
    return `${node?.color}:${node?.rule}`;
  };
  it('a Softmax between two MatMuls runs fp16 under cuda only', () => {
    expect(rule({})).toBe('DENY:deny-list');
    expect(rule({ target: 'cuda' })).toBe('ALLOW:target-kernel');
  });
  it('a Softmax that feeds a deny-list op (Log) stays fp32', () => {
    const node = ampRewrite(attentionLike({ softmaxToLog: true }), { target: 'cuda' }).report.nodes.find((n) => n.node === 'softmax');
    expect(`${node?.color}:${node?.rule}`).toBe('DENY:deny-list');
    expect(node?.reason).toContain("feeds Log 'log' (deny list)");
  });
  it('--force-fp32 still wins', () => {
    expect(rule({ target: 'cuda', forceFp32: ['softmax'] })).toBe('NONE:force-fp32');
  });
});

describe('--target cpu warnings', () => {
  it('names converted ops without a CPU float16 kernel and the MatMul + Add pairs ORT fuses into a slow fp16 Gemm', () => {
    const b = new GraphBuilder('g');
    const x = b.input('x', F, [4, 8]);
    const w = b.initializer('w', [8, 8], new Float32Array(64).fill(0.1));
    const bias = b.initializer('bias', [8], new Float32Array(8).fill(0.1));
    const h = b.op('Add', [b.op('MatMul', [x, w], {}, { name: 'mm' }), bias], {}, { name: 'bias_add' });
    b.op('Gemm', [h, w], {}, { name: 'gemm', outputs: ['y'] });
    b.output('y', F, [4, 8]);
    const summary = ampRewrite(b.model(), { target: 'cpu' }).report.summary;
    const kinds = summary.targetWarnings.map((w) => `${w.kind}:${w.node}`).sort();
    expect(kinds).toEqual(['fused-into-slow-kernel:mm', 'no-kernel:bias_add', 'no-kernel:mm', 'slow-kernel:gemm']);
    expect(summary.targetWarnings.find((w) => w.kind === 'fused-into-slow-kernel')?.source).toContain('matmul_add_fusion.cc');
    const text = renderSummary(summary);
    expect(text).toContain('Warning: 4 converted nodes have no fast FP16 kernel on CPUExecutionProvider');
    expect(ampRewrite(b.model(), {}).report.summary.targetWarnings).toEqual([]);
  });
});

describe('amp-rewrite --target (built CLI)', () => {
  const cli = (args: string[]) => spawnSync(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), ...args], { encoding: 'utf8' });
  it('--target cuda reaches the pass; an unknown target is exit 2', () => {
    const model = path.join(fixturesDir, 'transformer-block', 'model.onnx');
    const run = cli([model, '--dry-run', '--json', '--target', 'cuda']);
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ target: 'cuda', targetConverted: 3 });
    const bad = cli([model, '--dry-run', '--target', 'tpu']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('target');
  });
});
