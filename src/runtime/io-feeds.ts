/**
 * Feeds for a model whose inputs are declared in float16 where the reference's are float32 (a
 * model rewritten with --io-types fp16, or --kv-cache fp16): compare and tune run both models on
 * the same inputs, so each float32 feed the candidate declares float16 is rounded to float16 once,
 * the way a pipeline that feeds the model float16 would hand it over. Other feeds pass as they are.
 */
import { DataType } from '../onnx/data-types.js';
import { AmpError } from '../onnx/errors.js';
import { float32ToFloat16Bits } from '../onnx/float16.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { newTensor } from './float16-bits.js';
import type { Feeds } from './inputs.js';
import type { Ort } from './ort.js';

/** `feeds` as `model` declares its inputs: float32 tensors for float16 inputs rounded to float16; the same object when nothing changes. */
export function feedsForDeclaredTypes(ort: Ort, model: onnx.IModelProto, feeds: Feeds): Feeds {
  let converted: Feeds | undefined;
  for (const info of model.graph?.input ?? []) {
    const name = info.name ?? '';
    const feed = feeds[name];
    const declared = info.type?.tensor_type?.elem_type;
    if (!feed || feed.type !== 'float32') continue;
    if (declared === DataType.BFLOAT16) {
      throw new AmpError('BAD_OPTION', `input '${name}' of the candidate is declared bfloat16, which onnxruntime-node cannot feed (its tensors have no bfloat16 type); compare a model rewritten with --io-types keep`, { subject: name });
    }
    if (declared !== DataType.FLOAT16) continue;
    const values = feed.data as Float32Array;
    const bits = Uint16Array.from(values, float32ToFloat16Bits);
    converted ??= { ...feeds };
    converted[name] = newTensor(ort, 'float16', bits, feed.dims);
  }
  return converted ?? feeds;
}
