/** One line per output tensor: shape, type, min/max/mean and how many values are NaN or infinite. */
import type { Tensor } from 'onnxruntime-node';
import { numericValues } from './compare.js';

export interface TensorSummary {
  name: string;
  type: string;
  dims: number[];
  min: number;
  max: number;
  mean: number;
  nan: number;
  inf: number;
}

export function summarizeTensor(name: string, tensor: Tensor): TensorSummary {
  const values = numericValues(tensor) ?? new Float64Array();
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let finite = 0;
  let nan = 0;
  let inf = 0;
  for (const v of values) {
    if (Number.isNaN(v)) nan++;
    else if (!Number.isFinite(v)) inf++;
    else {
      min = Math.min(min, v);
      max = Math.max(max, v);
      sum += v;
      finite++;
    }
  }
  return { name, type: tensor.type, dims: [...tensor.dims], min: finite ? min : NaN, max: finite ? max : NaN, mean: finite ? sum / finite : NaN, nan, inf };
}

export function renderTensorSummary(s: TensorSummary): string {
  const number = (v: number) => (Number.isFinite(v) ? v.toPrecision(6) : String(v));
  return `${s.name}: ${s.type}[${s.dims.join('x')}] min ${number(s.min)} max ${number(s.max)} mean ${number(s.mean)} nan ${s.nan} inf ${s.inf}`;
}
