/**
 * Models in the shapes real exporters produce, for the fixtures and tests of issue 11:
 * an unsorted graph (as onnxconverter-common's test models are), a BERT encoder after ONNX
 * Runtime's transformer fusion, a decoder layer with rotary embeddings, grouped-query attention
 * and a past/present key-value cache, and a dynamo-style model made of local functions.
 */
import { DataType } from '../../onnx/data-types.js';
import { onnx } from '../../onnx/generated/onnx.js';
import { attr, GraphBuilder, randomNormal, seededRandom } from '../graph-builder.js';

const F = DataType.FLOAT;
const MS = 'com.microsoft';

/** MatMul -> Relu -> MatMul -> Softmax, with the node list written backwards (still a valid graph). */
export function buildUnsorted(): onnx.ModelProto {
  const random = seededRandom(11);
  const b = new GraphBuilder('unsorted');
  const x = b.input('x', F, [2, 8]);
  const w1 = b.initializer('w1', [8, 8], randomNormal(64, 0.3, random));
  const w2 = b.initializer('w2', [8, 4], randomNormal(32, 0.3, random));
  const h1 = b.op('MatMul', [x, w1], {}, { name: 'mm1', outputs: ['h1'] });
  const h2 = b.op('Relu', [h1], {}, { name: 'relu', outputs: ['h2'] });
  const h3 = b.op('MatMul', [h2, w2], {}, { name: 'mm2', outputs: ['h3'] });
  b.op('Softmax', [h3], { axis: attr.int(-1) }, { name: 'softmax', outputs: ['y'] });
  b.output('y', F, [2, 4]);
  b.nodes.reverse();
  return b.model();
}

const DYNAMO_DOMAIN = 'pkg.torch.model';

function localFunction(name: string, inputs: string[], outputs: string[], nodes: onnx.NodeProto[], opset: number, attributes: onnx.AttributeProto[] = []): onnx.FunctionProto {
  return onnx.FunctionProto.create({
    name,
    domain: DYNAMO_DOMAIN,
    input: inputs,
    output: outputs,
    node: nodes,
    attribute_proto: attributes,
    opset_import: [onnx.OperatorSetIdProto.create({ domain: '', version: opset }), onnx.OperatorSetIdProto.create({ domain: DYNAMO_DOMAIN, version: 1 })],
  });
}

function fnNode(opType: string, inputs: string[], outputs: string[], name: string, extra: Partial<onnx.INodeProto> = {}): onnx.NodeProto {
  return onnx.NodeProto.create({ op_type: opType, input: inputs, output: outputs, name, ...extra });
}

/**
 * The shape torch.onnx.export(dynamo=True) gives a model: every submodule is a model-local
 * function (here Linear, and Block calling Linear twice with a LeakyRelu whose slope is the
 * call's attribute), weights are graph initializers passed to the calls, and the main graph is
 * a few calls plus the head.
 */
export function buildDynamoFunctions(): onnx.ModelProto {
  const random = seededRandom(17);
  const opset = 18;
  const b = new GraphBuilder('main_graph');
  const x = b.input('x', F, [2, 16]);
  const weights = (prefix: string, rows: number, cols: number) => [
    b.initializer(`${prefix}.weight`, [rows, cols], randomNormal(rows * cols, 0.25, random)),
    b.initializer(`${prefix}.bias`, [cols], randomNormal(cols, 0.1, random)),
  ];
  const [w1, b1] = weights('block.fc1', 16, 32) as [string, string];
  const [w2, b2] = weights('block.fc2', 32, 16) as [string, string];
  const [w3, b3] = weights('head', 16, 8) as [string, string];
  const slope = onnx.AttributeProto.create({ name: 'slope', type: onnx.AttributeProto.AttributeType.FLOAT, f: 0.1 });
  b.node('Block', [x, w1, b1, w2, b2], {}, { name: 'block_1', outputs: ['block_out'], domain: DYNAMO_DOMAIN });
  b.nodes[b.nodes.length - 1]!.attribute = [slope];
  const residual = b.op('Add', [x, 'block_out'], {}, { name: 'residual' });
  const logits = b.op('Linear', [residual, w3, b3], {}, { name: 'head_1', outputs: ['logits'], domain: DYNAMO_DOMAIN });
  b.op('Softmax', [logits], { axis: attr.int(-1) }, { name: 'softmax', outputs: ['probs'] });
  b.output('probs', F, [2, 8]);

  const linear = localFunction('Linear', ['input', 'weight', 'bias'], ['out'], [
    fnNode('MatMul', ['input', 'weight'], ['mm'], 'matmul'),
    fnNode('Add', ['mm', 'bias'], ['out'], 'add'),
  ], opset);
  const leakyAlpha = onnx.AttributeProto.create({ name: 'alpha', type: onnx.AttributeProto.AttributeType.FLOAT, ref_attr_name: 'slope' });
  const block = localFunction('Block', ['input', 'w1', 'b1', 'w2', 'b2'], ['out'], [
    fnNode('Linear', ['input', 'w1', 'b1'], ['h'], 'fc1', { domain: DYNAMO_DOMAIN }),
    fnNode('LeakyRelu', ['h'], ['act'], 'act', { attribute: [leakyAlpha] }),
    fnNode('Linear', ['act', 'w2', 'b2'], ['out'], 'fc2', { domain: DYNAMO_DOMAIN }),
  ], opset, [onnx.AttributeProto.create({ name: 'slope', type: onnx.AttributeProto.AttributeType.FLOAT, f: 0.01 })]);
  const model = b.model({ '': opset, [DYNAMO_DOMAIN]: 1 }, 'pytorch');
  model.functions = [linear, block];
  return model;
}

const I32 = DataType.INT32;
const I64 = DataType.INT64;

/**
 * A two-layer BERT encoder as ONNX Runtime's transformer optimizer leaves it: EmbedLayerNormalization,
 * then per layer a fused Attention (layer 0) or MatMuls + MultiHeadAttention (layer 1), the output
 * projection with SkipLayerNormalization, and an MLP with FastGelu (layer 0) or BiasGelu (layer 1)
 * closed by SkipLayerNormalization. Hidden 32, 4 heads, MLP 64, vocabulary 50.
 */
export function buildOrtFusedBert(): onnx.ModelProto {
  const random = seededRandom(23);
  const hidden = 32;
  const ffn = 64;
  const heads = 4;
  const vocab = 50;
  const b = new GraphBuilder('bert_fused');
  const w = (name: string, dims: number[], std = 0.2) => b.initializer(name, dims, randomNormal(dims.reduce((a, c) => a * c, 1), std, random));
  const ones = (name: string, n: number) => b.initializer(name, [n], new Float32Array(n).fill(1));
  const zeros = (name: string, n: number) => b.initializer(name, [n], new Float32Array(n));
  const ids = b.input('input_ids', I32, ['batch', 'sequence']);
  const segments = b.input('token_type_ids', I32, ['batch', 'sequence']);
  const mask = b.input('attention_mask', I32, ['batch', 'sequence']);
  const [embedded, maskIndex] = b.node(
    'EmbedLayerNormalization',
    [ids, segments, w('word_embeddings', [vocab, hidden], 0.5), w('position_embeddings', [16, hidden], 0.1), w('token_type_embeddings', [2, hidden], 0.1), ones('emb_ln.gamma', hidden), zeros('emb_ln.beta', hidden), mask],
    { epsilon: attr.float(1e-12) },
    { name: 'embeddings', outputs: ['embeddings_out', 'mask_index'], domain: MS },
  ) as [string, string];
  let x = embedded;
  for (let layer = 0; layer < 2; layer++) {
    const p = `layer${layer}`;
    let context: string;
    if (layer === 0) {
      context = b.op('Attention', [x, w(`${p}.qkv.weight`, [hidden, 3 * hidden]), w(`${p}.qkv.bias`, [3 * hidden], 0.05), maskIndex], { num_heads: attr.int(heads) }, { name: `${p}/attention`, domain: MS });
    } else {
      const q = b.op('MatMul', [x, w(`${p}.q.weight`, [hidden, hidden])], {}, { name: `${p}/q` });
      const k = b.op('MatMul', [x, w(`${p}.k.weight`, [hidden, hidden])], {}, { name: `${p}/k` });
      const v = b.op('MatMul', [x, w(`${p}.v.weight`, [hidden, hidden])], {}, { name: `${p}/v` });
      context = b.op('MultiHeadAttention', [q, k, v, w(`${p}.qkv.bias`, [3 * hidden], 0.05)], { num_heads: attr.int(heads) }, { name: `${p}/mha`, domain: MS });
    }
    const projected = b.op('MatMul', [context, w(`${p}.out.weight`, [hidden, hidden])], {}, { name: `${p}/out_proj` });
    const [norm1] = b.node('SkipLayerNormalization', [projected, x, ones(`${p}.ln1.gamma`, hidden), zeros(`${p}.ln1.beta`, hidden), w(`${p}.out.bias`, [hidden], 0.05)], { epsilon: attr.float(1e-12) }, { name: `${p}/skip_ln1`, domain: MS, count: 1 }) as [string];
    const up = b.op('MatMul', [norm1, w(`${p}.up.weight`, [hidden, ffn])], {}, { name: `${p}/mlp_up` });
    const act =
      layer === 0
        ? b.op('FastGelu', [up, w(`${p}.up.bias`, [ffn], 0.05)], {}, { name: `${p}/fast_gelu`, domain: MS })
        : b.op('BiasGelu', [up, w(`${p}.up.bias`, [ffn], 0.05)], {}, { name: `${p}/bias_gelu`, domain: MS });
    const down = b.op('MatMul', [act, w(`${p}.down.weight`, [ffn, hidden])], {}, { name: `${p}/mlp_down` });
    const outputs = layer === 1 ? ['last_hidden_state'] : undefined;
    [x] = b.node('SkipLayerNormalization', [down, norm1, ones(`${p}.ln2.gamma`, hidden), zeros(`${p}.ln2.beta`, hidden), w(`${p}.down.bias`, [hidden], 0.05)], { epsilon: attr.float(1e-12) }, { name: `${p}/skip_ln2`, domain: MS, ...(outputs ? { outputs } : { count: 1 }) }) as [string];
  }
  b.output('last_hidden_state', F, ['batch', 'sequence', hidden]);
  return b.model({ '': 17, [MS]: 1 }, 'onnxruntime.transformers');
}

/** Sizes of the decoder fixture, shared with the test that feeds it. */
export const DECODER = { hidden: 32, heads: 4, kvHeads: 2, headSize: 8, ffn: 64, vocab: 40, maxPositions: 32 } as const;

/**
 * One LLaMA-style decoder layer as ONNX Runtime's GenAI builder or transformer optimizer emits it:
 * token embedding Gather, SimplifiedLayerNormalization (RMSNorm, default domain), Q/K/V MatMuls,
 * RotaryEmbedding on queries and keys, GroupQueryAttention reading past_key_values.0.key/value
 * and writing present.0.key/value, the output projection, SkipSimplifiedLayerNormalization, a
 * SiLU MLP, the residual Add, the final norm and the LM head.
 */
export function buildKvDecoder(): onnx.ModelProto {
  const random = seededRandom(29);
  const { hidden, heads, kvHeads, headSize, ffn, vocab, maxPositions } = DECODER;
  const b = new GraphBuilder('decoder_with_past');
  const w = (name: string, dims: number[], std = 0.2) => b.initializer(name, dims, randomNormal(dims.reduce((a, c) => a * c, 1), std, random));
  const ones = (name: string, n: number) => b.initializer(name, [n], new Float32Array(n).fill(1));
  const ids = b.input('input_ids', I64, ['batch', 'sequence']);
  const positions = b.input('position_ids', I64, ['batch', 'sequence']);
  const pastKey = b.input('past_key_values.0.key', F, ['batch', kvHeads, 'past_sequence', headSize]);
  const pastValue = b.input('past_key_values.0.value', F, ['batch', kvHeads, 'past_sequence', headSize]);
  const seqlens = b.input('seqlens_k', I32, ['batch']);
  const total = b.input('total_sequence_length', I32, []);
  const half = headSize / 2;
  const cos = new Float32Array(maxPositions * half);
  const sin = new Float32Array(maxPositions * half);
  for (let pos = 0; pos < maxPositions; pos++) {
    for (let i = 0; i < half; i++) {
      const angle = pos / 10000 ** ((2 * i) / headSize);
      cos[pos * half + i] = Math.cos(angle);
      sin[pos * half + i] = Math.sin(angle);
    }
  }
  const cosCache = b.initializer('cos_cache', [maxPositions, half], cos);
  const sinCache = b.initializer('sin_cache', [maxPositions, half], sin);

  const embedded = b.op('Gather', [w('embed_tokens.weight', [vocab, hidden], 0.5), ids], { axis: attr.int(0) }, { name: 'embed_tokens' });
  const norm1 = b.op('SimplifiedLayerNormalization', [embedded, ones('layers.0.input_layernorm.weight', hidden)], { axis: attr.int(-1), epsilon: attr.float(1e-6) }, { name: 'layers.0/input_layernorm' });
  const q = b.op('MatMul', [norm1, w('layers.0.q_proj.weight', [hidden, heads * headSize])], {}, { name: 'layers.0/attn/q_proj' });
  const k = b.op('MatMul', [norm1, w('layers.0.k_proj.weight', [hidden, kvHeads * headSize])], {}, { name: 'layers.0/attn/k_proj' });
  const v = b.op('MatMul', [norm1, w('layers.0.v_proj.weight', [hidden, kvHeads * headSize])], {}, { name: 'layers.0/attn/v_proj' });
  const qRot = b.op('RotaryEmbedding', [q, positions, cosCache, sinCache], { num_heads: attr.int(heads) }, { name: 'layers.0/attn/q_rotary', domain: MS });
  const kRot = b.op('RotaryEmbedding', [k, positions, cosCache, sinCache], { num_heads: attr.int(kvHeads) }, { name: 'layers.0/attn/k_rotary', domain: MS });
  const [context] = b.node('GroupQueryAttention', [qRot, kRot, v, pastKey, pastValue, seqlens, total], { num_heads: attr.int(heads), kv_num_heads: attr.int(kvHeads) }, {
    name: 'layers.0/attn/gqa',
    domain: MS,
    outputs: ['layers.0/attn/gqa/output', 'present.0.key', 'present.0.value'],
  }) as [string];
  const projected = b.op('MatMul', [context, w('layers.0.o_proj.weight', [heads * headSize, hidden])], {}, { name: 'layers.0/attn/o_proj' });
  const [norm2, , , residual] = b.node('SkipSimplifiedLayerNormalization', [projected, embedded, ones('layers.0.post_attention_layernorm.weight', hidden)], { epsilon: attr.float(1e-6) }, {
    name: 'layers.0/post_attention_layernorm',
    domain: MS,
    outputs: ['layers.0/post_ln', '', '', 'layers.0/residual_sum'],
  }) as [string, string, string, string];
  const gate = b.op('MatMul', [norm2, w('layers.0.gate_proj.weight', [hidden, ffn])], {}, { name: 'layers.0/mlp/gate_proj' });
  const up = b.op('MatMul', [norm2, w('layers.0.up_proj.weight', [hidden, ffn])], {}, { name: 'layers.0/mlp/up_proj' });
  const silu = b.op('Mul', [gate, b.op('Sigmoid', [gate], {}, { name: 'layers.0/mlp/act/sigmoid' })], {}, { name: 'layers.0/mlp/act/mul' });
  const down = b.op('MatMul', [b.op('Mul', [silu, up], {}, { name: 'layers.0/mlp/gate_mul' }), w('layers.0.down_proj.weight', [ffn, hidden])], {}, { name: 'layers.0/mlp/down_proj' });
  const out = b.op('Add', [residual, down], {}, { name: 'layers.0/residual_add' });
  const finalNorm = b.op('SimplifiedLayerNormalization', [out, ones('norm.weight', hidden)], { axis: attr.int(-1), epsilon: attr.float(1e-6) }, { name: 'norm' });
  b.op('MatMul', [finalNorm, w('lm_head.weight', [hidden, vocab])], {}, { name: 'lm_head', outputs: ['logits'] });
  b.output('logits', F, ['batch', 'sequence', vocab]);
  b.output('present.0.key', F, ['batch', kvHeads, 'total_sequence', headSize]);
  b.output('present.0.value', F, ['batch', kvHeads, 'total_sequence', headSize]);
  return b.model({ '': 17, [MS]: 1 }, 'onnxruntime-genai');
}
