/**
 * The real-model zoo (issue #27's proof): every ONNX model other tools wrote that we can get here,
 * the npm packages' ones (`node scripts/fetch-npm-models.mjs` unpacks them into .npm-models/, or
 * AMP_NPM_MODELS; each skips, saying so, when absent) and the committed exports. Each goes through
 * what a user does: the default rewrite, ONNX Runtime's CPU provider loads the output, and
 * `compareModels` (the `compare` command's semantics: default tolerance, emulated fp16 numerics)
 * passes; where it does not, `tuneModel` must find a passing set of fp32 pins. A model ONNX Runtime
 * itself refuses is skipped with its error. The table it prints is the README's.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareModels } from '../../src/api/execute.js';
import { tuneModel } from '../../src/api/tune.js';
import { encodeModel } from '../../src/onnx/codec.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { rewriteModel } from '../../src/passes/pipeline.js';
import { validateModel } from '../../src/onnx/validate.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { repoRoot, npmModelsDir } from '../support/corpus.js';

const npmDir = npmModelsDir;

interface ZooModel {
  /** Where the file is: under .npm-models/ (fetched) or the repository (committed). */
  file: string;
  fetched: boolean;
  exporter: string;
  /** What the model exercises in the pass. */
  exercises: string;
  /** Input files (JSON) by input name, for models random inputs cannot drive (a sample rate, an audio chunk). */
  inputs?: Record<string, { dims: number[]; data: number[] }>;
  dims?: Record<string, number>;
}

/** A 512-sample, 16 kHz audio chunk: Silero's If takes the 16k branch only for sr = 16000. */
const audio = { dims: [1, 512], data: Array.from({ length: 512 }, (_, i) => 0.3 * Math.sin(i / 7) + 0.05 * Math.sin(i * 1.3)) };
const sr = { dims: [], data: [16000] };
const zeros = (dims: number[]) => ({ dims, data: new Array<number>(dims.reduce((a, b) => a * b, 1)).fill(0) });
const sileroV4 = { input: audio, sr, h: zeros([2, 1, 64]), c: zeros([2, 1, 64]) };
const sileroV5 = { input: audio, state: zeros([2, 1, 128]), sr };

const ZOO: ZooModel[] = [
  { file: '@ricky0123+vad-node/dist/silero_vad.onnx', fetched: true, exporter: 'PyTorch 1.12 TorchScript', exercises: 'If branches (8k/16k), LSTM, STFT Conv', inputs: sileroV4 },
  { file: '@ricky0123+vad-web/dist/silero_vad_legacy.onnx', fetched: true, exporter: 'PyTorch 1.12 TorchScript', exercises: 'If branches, LSTM', inputs: sileroV4 },
  { file: '@ricky0123+vad-web/dist/silero_vad_v5.onnx', fetched: true, exporter: 'spox', exercises: 'all compute inside If branches, LSTM state', inputs: sileroV5 },
  { file: '@ricky0123+vad-web/dist/silero_vad_v6.onnx', fetched: true, exporter: 'spox', exercises: 'all compute inside If branches, LSTM state', inputs: sileroV5 },
  { file: 'openwakeword-js/models/hello_deepa.onnx', fetched: true, exporter: 'PyTorch 2.8 TorchScript', exercises: 'Gemm, LayerNorm spelled as ReduceMean/Pow/Sqrt' },
  { file: '@gutenye+ocr-models/assets/ch_PP-OCRv4_det_infer.onnx', fetched: true, exporter: 'paddle2onnx (opset 11)', exercises: 'CNN + FPN, Resize, ConvTranspose, HardSigmoid SE', dims: { 'p2o.DynamicDimension.0': 1, 'p2o.DynamicDimension.1': 64, 'p2o.DynamicDimension.2': 64 } },
  { file: '@gutenye+ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx', fetched: true, exporter: 'paddle2onnx (opset 9)', exercises: 'CNN + SVTR attention (MatMul, Softmax), LayerNorm as ReduceMean, 6625-way Softmax', dims: { 'p2o.DynamicDimension.0': 1, 'p2o.DynamicDimension.1': 64 } },
  { file: '@gutenye+ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx', fetched: true, exporter: 'paddle2onnx (opset 9)', exercises: 'MobileNetV3 with BatchNormalization, HardSigmoid SE', dims: { 'p2o.DynamicDimension.0': 1, 'p2o.DynamicDimension.1': 48, 'p2o.DynamicDimension.2': 96 } },
  { file: 'test/models/llama-mask.onnx', fetched: false, exporter: 'PyTorch 2.13 TorchScript', exercises: 'LLaMA-style decoder: finfo.min padding mask, RMSNorm (no rotary embedding)', dims: { batch: 1, seq: 8 } },
  { file: 'test/models/bert-post-ln.onnx', fetched: false, exporter: 'PyTorch 2.13 TorchScript', exercises: 'post-LN BERT: LayerNormalization-17, attention mask', dims: { batch: 1, seq: 8 } },
  { file: 'test/models/mobilenetv3-se-dynamo.onnx', fetched: false, exporter: 'PyTorch 2.13 dynamo', exercises: 'MobileNetV3-SE: ReduceMean pooling, local functions inlined' },
  { file: 'fixtures/torch-forward/mlp-torchscript.onnx', fetched: false, exporter: 'PyTorch 2.13 TorchScript', exercises: 'MLP (Gemm)', dims: { batch: 2 } },
  { file: 'fixtures/torch-forward/mlp-dynamo.onnx', fetched: false, exporter: 'PyTorch 2.13 dynamo', exercises: 'MLP (MatMul+Add), local functions', dims: { batch: 2 } },
  { file: 'fixtures/torch-forward/cnn-torchscript.onnx', fetched: false, exporter: 'PyTorch 2.13 TorchScript', exercises: 'CNN (Conv, MaxPool, Gemm)', dims: { batch: 2 } },
  { file: 'fixtures/torch-forward/cnn-dynamo.onnx', fetched: false, exporter: 'PyTorch 2.13 dynamo', exercises: 'CNN, opset 20, local functions', dims: { batch: 2 } },
  { file: 'fixtures/torch-forward/encoder-torchscript.onnx', fetched: false, exporter: 'PyTorch 2.13 TorchScript', exercises: 'transformer encoder: embedding, attention, LayerNorm', dims: { batch: 2 } },
  { file: 'fixtures/torch-forward/encoder-dynamo.onnx', fetched: false, exporter: 'PyTorch 2.13 dynamo', exercises: 'transformer encoder, opset 20', dims: { batch: 2 } },
  { file: 'fixtures/ort-tools/bert-opt14-fused.onnx', fetched: false, exporter: "ONNX Runtime's transformer optimizer", exercises: 'LayerNormalization at opset 14 (ORT registration), SkipLayerNormalization, com.microsoft GELU', dims: { batch: 1, seq: 8 } },
  { file: 'fixtures/ort-tools/bert-opt14-dynamic-int8.onnx', fetched: false, exporter: "ONNX Runtime's quantize_dynamic", exercises: 'DynamicQuantizeLinear + MatMulInteger units', dims: { batch: 1, seq: 8 } },
  { file: 'fixtures/quantized/qdq-cnn.onnx', fetched: false, exporter: 'ONNX Runtime quantizer (QDQ)', exercises: 'QDQ units left as they are (quantized-unit)' },
];

const where = (model: ZooModel) => (model.fetched ? path.join(npmDir, model.file) : path.join(repoRoot, model.file));
const rows: string[] = [];
const work = mkdtempSync(path.join(tmpdir(), 'amp-zoo-'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  if (rows.length) console.log(['[model-zoo] exporter | model | exercises | result (CPU provider, emulated fp16 numerics)', ...rows].join('\n'));
});

/** The JSON input files `compare` and `tune` read, as a user would pass them. */
function inputFiles(model: ZooModel): string[] | undefined {
  if (!model.inputs) return undefined;
  return Object.entries(model.inputs).map(([name, tensor]) => {
    const file = path.join(work, `${path.basename(model.file, '.onnx')}.${name}.json`);
    writeFileSync(file, JSON.stringify(tensor));
    return `${name}=${file}`;
  });
}

/** ONNX Runtime's own verdict on the original: undefined when it loads, its error otherwise. */
async function ortRefusal(bytes: Uint8Array): Promise<string | undefined> {
  const ort = await loadOrt();
  try {
    const session = await ort.InferenceSession.create(bytes);
    await session.release();
    return undefined;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
}

describe('real-model zoo: rewrite, ORT load, compare (tune where fp16 needs it)', () => {
  const absent = ZOO.filter((m) => !existsSync(where(m)));
  if (absent.some((m) => m.fetched)) it.skip(`npm models absent from ${npmDir}: run node scripts/fetch-npm-models.mjs (.ci/run does)`, () => {});
  for (const model of ZOO.filter((m) => existsSync(where(m)))) {
    const name = path.basename(model.file);
    it(`${name} (${model.exporter})`, async () => {
      const file = where(model);
      const original = loadModel(file);
      const refusal = await ortRefusal(encodeModel(original));
      if (refusal) {
        rows.push(`${model.exporter} | ${name} | ${model.exercises} | not loadable by ORT: ${refusal}`);
        console.warn(`[model-zoo] ${name}: ONNX Runtime refuses the original (${refusal}); skipped`);
        return;
      }
      const { model: amp, report } = rewriteModel(original, {});
      const converted = report.amp.summary.converted;
      // Quantized units stay as the quantizer wrote them: every quantize/dequantize/integer op keeps its rule.
      const quantized = report.amp.nodes.filter((n) => /^(Dynamic)?(De)?[Qq]uantizeLinear$|Integer$|^QLinear/.test(n.op));
      if (/QDQ|MatMulInteger/.test(model.exercises)) expect(quantized.length, 'quantized nodes in the audit').toBeGreaterThan(0);
      for (const node of quantized) expect(`${node.id} ${node.rule}`).toBe(`${node.id} quantized-unit`);
      expect(validateModel(amp)).toEqual([]);
      expect(await ortRefusal(encodeModel(amp)), 'ONNX Runtime loads the rewrite').toBeUndefined();
      const inputs = inputFiles(model);
      const options = { ...(inputs ? { inputs } : {}), ...(model.dims ? { dims: model.dims } : {}) };
      const compared = await compareModels(file, amp, options);
      const worst = compared.outputs.reduce((w, o) => Math.max(w, o.maxAbsError), 0);
      let result = `pass (${converted} nodes converted, max abs error ${worst.toExponential(1)})`;
      if (!compared.pass) {
        const tuned = await tuneModel(file, { ...options, batches: 1 });
        expect(tuned.pass, `tune found no passing set for ${name}: ${JSON.stringify(compared.outputs)}`).toBe(true);
        const pins = tuned.pinned.map((p) => `${p.op} ${p.node}`).join(', ');
        result = `fails by default (max abs error ${worst.toExponential(1)}); pass after tune with ${tuned.extent.pinned} pin${tuned.extent.pinned === 1 ? '' : 's'} (${pins}; ${tuned.extent.converted} converted)`;
      }
      rows.push(`${model.exporter} | ${name} | ${model.exercises} | ${result}`);
      console.log(`[model-zoo] ${name}: ${result}`);
    });
  }
});
