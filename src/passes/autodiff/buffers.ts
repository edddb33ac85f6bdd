/**
 * Initializers that a gradient reaches but a framework does not train (rules/parameters.json):
 * buffers told by their content (masks, fills, sinusoidal position tables) and constants an
 * exporter stored as initializers (rank-0 scalars, one-element values with generated names).
 */
import type { onnx } from '../../onnx/generated/onnx.js';
import { readFloat32 } from '../../onnx/tensor-data.js';
import { ruleFile } from '../../rules/rule-files.js';

interface ParameterRules {
  nonFinite: { reason: string };
  maskFill: { minMagnitude: number; reason: string };
  fillRead: { ops: string[]; reason: string };
  recurrentInitialState: { reason: string };
  positionTable: { tolerance: number; reason: string };
  scalar: { generatedNames: string[]; rank0Reason: string; generatedReason: string };
  ties: { reason: string };
}

let rules: ParameterRules | undefined;
export function parameterRules(): ParameterRules {
  rules ??= ruleFile<ParameterRules>('parameters.json');
  return rules;
}

/**
 * Why a float initializer is a buffer or a constant rather than a parameter, or undefined.
 * `readBy` lists the ops of the nodes that read it; `initialState`, that an LSTM or GRU read it as its initial state.
 */
export function bufferReason(name: string, tensor: onnx.ITensorProto, readBy: readonly string[] = [], initialState = false): string | undefined {
  const r = parameterRules();
  const dims = (tensor.dims ?? []).map(Number);
  const elements = dims.reduce((a, d) => a * d, 1);
  if (elements <= 1) {
    if (dims.length === 0) return r.scalar.rank0Reason;
    if (r.scalar.generatedNames.some((p) => new RegExp(p).test(name))) return r.scalar.generatedReason;
  }
  let values: Float32Array;
  try {
    values = readFloat32(tensor);
  } catch {
    // Unreadable here (external data not loaded): judged by how it is consumed only.
    return undefined;
  }
  if (values.some((v) => !Number.isFinite(v))) return r.nonFinite.reason;
  if (elements > 1 && isMaskFill(values, r.maskFill.minMagnitude)) return r.maskFill.reason;
  const fill = elements > 1 && values.every((v) => v === values[0]);
  if (fill && readBy.some((op) => r.fillRead.ops.includes(op))) return r.fillRead.reason;
  if (fill && initialState) return r.recurrentInitialState.reason;
  if (isSinusoidalTable(values, dims, r.positionTable.tolerance)) return r.positionTable.reason;
  return undefined;
}

/** Every element 0 or one value of at least `minMagnitude`. */
function isMaskFill(values: Float32Array, minMagnitude: number): boolean {
  let fill: number | undefined;
  for (const v of values) {
    if (v === 0) continue;
    if (fill === undefined) {
      if (Math.abs(v) < minMagnitude) return false;
      fill = v;
    } else if (v !== fill) return false;
  }
  return fill !== undefined;
}

/**
 * Rows are positions, the last dim holds pairs (sin, cos) of position times a frequency: either
 * interleaved (column 2i sin, 2i+1 cos, as PyTorch's tutorial writes it) or in halves (sin of every
 * frequency, then cos). The frequencies are read off row 1 and every row checked against them.
 */
function isSinusoidalTable(values: Float32Array, dims: number[], tolerance: number): boolean {
  const width = dims[dims.length - 1] ?? 0;
  if (dims.length < 2 || width < 2 || width % 2 !== 0) return false;
  const rows = values.length / width;
  if (rows < 3) return false;
  const half = width / 2;
  for (const layout of ['interleaved', 'halves'] as const) {
    const sinAt = (i: number): number => (layout === 'interleaved' ? 2 * i : i);
    const cosAt = (i: number): number => (layout === 'interleaved' ? 2 * i + 1 : half + i);
    const frequencies = Array.from({ length: half }, (_, i) => Math.atan2(values[width + sinAt(i)]!, values[width + cosAt(i)]!));
    let fits = true;
    for (let p = 0; p < rows && fits; p++) {
      for (let i = 0; i < half; i++) {
        const angle = p * frequencies[i]!;
        if (Math.abs(values[p * width + sinAt(i)]! - Math.sin(angle)) > tolerance || Math.abs(values[p * width + cosAt(i)]! - Math.cos(angle)) > tolerance) {
          fits = false;
          break;
        }
      }
    }
    if (fits) return true;
  }
  return false;
}
