/**
 * The golden-test fixtures: each case is a model built in code, the pass options to run on it,
 * and one sentence saying what it checks. scripts/update-fixtures.mjs writes fixtures/<case>/
 * from this list (model.onnx, case.json, expected.summary.txt, expected.graph.txt).
 */
import type { onnx } from '../onnx/generated/onnx.js';
import type { RewriteOptions } from '../passes/pipeline.js';
import { buildControlFlow, buildConvBlock, buildOutOfRangeWeight } from './recipes/small-models.js';
import { buildTransformer } from './recipes/transformer.js';
import { buildDynamoFunctions, buildKvDecoder, buildOrtFusedBert, buildUnsorted } from './recipes/exporter-graphs.js';
import { buildAttentionTrainingStep, buildMlpTrainingStep, withInitialState } from './recipes/training.js';

export interface FixtureCase {
  name: string;
  checks: string;
  build: () => onnx.ModelProto;
  options: Pick<RewriteOptions, 'mode' | 'weights' | 'forceFp32' | 'forceFp16' | 'lossScale' | 'kvCache'>;
  /** The test that runs this fixture on ONNX Runtime with inputs of its own (its inputs must be consistent, e.g. a cache length). */
  runTest?: string;
}

const smallTransformer = () => buildTransformer({ batch: 2, sequence: 8, model: 32, heads: 4, ffn: 64, layers: 1, vocab: 16, seed: 3 });

export const FIXTURE_CASES: FixtureCase[] = [
  {
    name: 'transformer-block',
    checks: 'MatMuls and the MLP in fp16; Softmax, LayerNormalization, the residual stream and the loss in fp32; one Cast per edge that changes precision.',
    build: smallTransformer,
    options: {},
  },
  {
    name: 'transformer-block-bf16',
    checks: 'mixed_bfloat16 on the same block: infer ops fed by allow ops follow them (step 4), everything else as in fp16.',
    build: smallTransformer,
    options: { mode: 'bf16' },
  },
  {
    name: 'transformer-block-weights-fp16',
    checks: '--weights fp16 stores fp16 copies of the weights only allow ops read, and no weight Casts remain for them.',
    build: smallTransformer,
    options: { weights: 'fp16' },
  },
  {
    name: 'conv-block',
    checks: 'Conv, BatchNormalization (statistics stay fp32 through their own type variables), Relu and the residual Add in fp16; pooling and Softmax in fp32.',
    build: buildConvBlock,
    options: {},
  },
  {
    name: 'control-flow',
    checks: 'MatMuls inside If branches and a Loop body are converted, with Casts of outer activations inside the scope that reads them and the outer weight cast once in the main graph (not at every Loop iteration); branch and body outputs keep their types.',
    build: buildControlFlow,
    options: {},
  },
  {
    name: 'out-of-range-weight',
    checks: 'a weight holding 1e5 (beyond float16) keeps the MatMul that reads it in fp32, with the reason; with --weights fp16 the in-range weight is stored in fp16.',
    build: buildOutOfRangeWeight,
    options: { weights: 'fp16' },
  },
  {
    name: 'mlp-training-adam',
    checks: 'a training step (MLP, Adam): forward and backward MatMuls in fp16, loss and its gradient region fp32, scaled seed, fp32 unscaled gradients, all-finite check, every state output guarded, dynamic scale update.',
    build: () => withInitialState(buildMlpTrainingStep({ inputSize: 12, hidden: 8, hiddenLayers: 2, classes: 3, batch: 'batch', optimizer: 'adam', seed: 1 })),
    options: {},
  },
  {
    name: 'attention-training-sgd',
    checks: 'a training step with attention (MatMul, Softmax, LayerNormalization) and SGD with momentum: Softmax and LayerNormalization with their backward stay fp32.',
    build: () => withInitialState(buildAttentionTrainingStep({ sequence: 4, width: 8, classes: 3, batch: 'batch', optimizer: 'sgd-momentum', seed: 1 })),
    options: {},
  },
  {
    name: 'exporter-bert-fused',
    checks: "a BERT encoder after ONNX Runtime's fusion: MatMuls, Attention and MultiHeadAttention in fp16; EmbedLayerNormalization and SkipLayerNormalization fp32 (LayerNormalization's rule); FastGelu and BiasGelu between MatMuls follow them (activation rule).",
    build: buildOrtFusedBert,
    options: {},
    runTest: 'test/runtime/exporter-graphs-run.test.ts',
  },
  {
    name: 'exporter-decoder-kv',
    checks: 'a decoder layer with RotaryEmbedding, GroupQueryAttention (its cache type converted with it), SimplifiedLayerNormalization and past/present KV: the cache keeps its float32 I/O by default, the embedding Gather and the residual stay fp32.',
    build: buildKvDecoder,
    options: {},
    runTest: 'test/runtime/exporter-graphs-run.test.ts',
  },
  {
    name: 'exporter-decoder-kv-fp16',
    checks: '--kv-cache fp16 on the same decoder: past and present are declared float16 and GroupQueryAttention reads and writes them without Casts.',
    build: buildKvDecoder,
    options: { kvCache: 'fp16' },
    runTest: 'test/runtime/exporter-graphs-run.test.ts',
  },
  {
    name: 'exporter-dynamo-functions',
    checks: 'a dynamo-style model of local functions (Block calling Linear twice, attribute references): every call inlined and painted at its call site, the residual fp32.',
    build: buildDynamoFunctions,
    options: {},
    runTest: 'test/runtime/exporter-graphs-run.test.ts',
  },
  {
    name: 'exporter-unsorted',
    checks: 'a graph whose node list is not in topological order: sorted stably before painting, the output valid.',
    build: buildUnsorted,
    options: {},
    runTest: 'test/runtime/exporter-graphs-run.test.ts',
  },
];
