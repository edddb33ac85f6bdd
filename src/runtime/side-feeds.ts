/**
 * One batch of inputs handed to each side of a comparison in the types that side declares: an
 * input that is float32 on one side and float16 on the other (`--kv-cache fp16`, float16 model
 * I/O) is rounded to float16 once, so both sides see the same values, each in its own type.
 */
import type { Tensor } from 'onnxruntime-node';
import { float16BitsToFloat32, float32ToFloat16Bits } from '../onnx/float16.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { printable } from '../onnx/printable.js';
import { numericValues } from './compare.js';
import { newTensor } from './float16-bits.js';
import type { Ort } from './ort.js';
import { requiredInputs, type Feeds } from './random-inputs.js';
import { ortTypeOf } from './tensors.js';

export interface SideFeeds {
  reference: Feeds;
  candidate: Feeds;
}

const FLOAT_TYPES = new Set<string>(['float32', 'float16', 'float64']);

/** The reference's feeds, and the candidate's: the same tensors where the types agree, converted where a float type differs. */
export function feedsForEachSide(ort: Ort, feeds: Feeds, candidate: onnx.IModelProto, notices: string[]): SideFeeds {
  const reference: Feeds = { ...feeds };
  const forCandidate: Feeds = {};
  for (const info of requiredInputs(candidate)) {
    const name = info.name ?? '';
    const given = feeds[name];
    const elemType = info.type?.tensor_type?.elem_type;
    if (!given || !elemType) continue;
    const wanted = ortTypeOf(elemType);
    if (given.type === wanted || !FLOAT_TYPES.has(given.type) || !FLOAT_TYPES.has(wanted)) {
      // Same type, or a difference no conversion bridges: ONNX Runtime says so for the candidate.
      forCandidate[name] = given;
      continue;
    }
    const values = numericValues(given) as Float64Array;
    const shared = given.type === 'float16' || wanted === 'float16' ? values.map((v) => float16BitsToFloat32(float32ToFloat16Bits(v))) : values;
    reference[name] = inType(ort, given.type, shared, given.dims);
    forCandidate[name] = inType(ort, wanted, shared, given.dims);
    const notice = `input '${printable(name)}' is ${given.type} in the reference and ${wanted} in the candidate: made once${shared === values ? '' : ', rounded to float16'}, and given to each in its type`;
    if (!notices.includes(notice)) notices.push(notice);
  }
  return { reference, candidate: forCandidate };
}

function inType(ort: Ort, type: Tensor.Type, values: Float64Array, dims: readonly number[]): Tensor {
  const data = type === 'float16' ? Uint16Array.from(values, float32ToFloat16Bits) : type === 'float64' ? Float64Array.from(values) : Float32Array.from(values);
  return newTensor(ort, type, data, dims);
}
