/**
 * Tied weights made one parameter again. Both PyTorch exporters store a tied weight twice: the
 * embedding as it is, and the output projection `emb.weight.t()` as a second initializer; trained
 * apart, the two copies drift (0.1 off torch after 8 steps). A float initializer equal to another,
 * or to its transpose, is replaced by that one (through a Transpose node for the transpose), so
 * the graph reads one parameter in both places and autodiff sums the two gradients.
 *
 * Only tensors holding more than one distinct value are compared: a fill of zeros or ones (a
 * fresh LayerNorm's weight and bias) equals every other fill of its shape without being tied.
 */
import { attr, toAttribute } from '../../builder/graph-builder.js';
import { DataType } from '../../onnx/data-types.js';
import { onnx } from '../../onnx/generated/onnx.js';
import { readFloat32 } from '../../onnx/tensor-data.js';

export interface Tie {
  /** The initializer kept: the parameter both places now read. */
  parameter: string;
  /** The initializer removed: its readers read `parameter` (or its transpose). */
  copy: string;
  transposed: boolean;
}

/** Replaces each tied copy in `graph` (in place) and returns the ties made, in initializer order. */
export function tieWeights(graph: onnx.GraphProto, candidates: ReadonlySet<string>, uniqueName: (wanted: string) => string): Tie[] {
  const outputs = new Set((graph.output ?? []).map((o) => o.name));
  const floats = (graph.initializer ?? []).filter((t) => t.data_type === DataType.FLOAT && candidates.has(t.name ?? '') && !outputs.has(t.name ?? ''));
  const byCount = new Map<number, onnx.ITensorProto[]>();
  for (const t of floats) {
    const count = (t.dims ?? []).reduce((a: number, d) => a * Number(d), 1);
    if (count < 2) continue;
    const list = byCount.get(count);
    if (list) list.push(t);
    else byCount.set(count, [t]);
  }
  const ties: Tie[] = [];
  const removed = new Set<string>();
  for (const group of byCount.values()) {
    if (group.length < 2) continue;
    const values = new Map<onnx.ITensorProto, Float32Array | undefined>();
    const read = (t: onnx.ITensorProto): Float32Array | undefined => {
      if (!values.has(t)) {
        let v: Float32Array | undefined;
        try {
          v = readFloat32(t);
        } catch {
          v = undefined;
        }
        values.set(t, v && hasTwoValues(v) ? v : undefined);
      }
      return values.get(t);
    };
    for (let j = 1; j < group.length; j++) {
      const copy = group[j]!;
      const b = read(copy);
      if (!b) continue;
      for (let i = 0; i < j; i++) {
        const kept = group[i]!;
        if (removed.has(kept.name ?? '')) continue;
        const a = read(kept);
        if (!a) continue;
        const dimsA = (kept.dims ?? []).map(Number);
        const dimsB = (copy.dims ?? []).map(Number);
        let transposed: boolean | undefined;
        if (sameDims(dimsA, dimsB) && equal(a, b)) transposed = false;
        else if (dimsA.length === 2 && dimsB.length === 2 && dimsA[0] === dimsB[1] && dimsA[1] === dimsB[0] && equalTransposed(a, b, dimsA[0]!, dimsA[1]!)) transposed = true;
        if (transposed === undefined) continue;
        ties.push({ parameter: kept.name ?? '', copy: copy.name ?? '', transposed });
        removed.add(copy.name ?? '');
        break;
      }
    }
  }
  if (!ties.length) return ties;
  graph.initializer = (graph.initializer ?? []).filter((t) => !removed.has(t.name ?? ''));
  const readers: onnx.NodeProto[] = [];
  for (const tie of ties) {
    if (tie.transposed) {
      // The copy's name stays the value its readers read, now written by a Transpose of the parameter.
      readers.push(onnx.NodeProto.create({ op_type: 'Transpose', name: uniqueName(`tie/${tie.copy}`), input: [tie.parameter], output: [tie.copy], attribute: [toAttribute('perm', attr.ints([1, 0]))] }));
    } else {
      for (const node of graph.node ?? []) node.input = (node.input ?? []).map((v) => (v === tie.copy ? tie.parameter : v));
    }
  }
  graph.node = [...readers, ...(graph.node ?? [])];
  return ties;
}

function hasTwoValues(v: Float32Array): boolean {
  for (let k = 1; k < v.length; k++) if (v[k] !== v[0]) return true;
  return false;
}

function sameDims(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((d, k) => d === b[k]);
}

function equal(a: Float32Array, b: Float32Array): boolean {
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** b [cols, rows] is a [rows, cols] transposed. */
function equalTransposed(a: Float32Array, b: Float32Array, rows: number, cols: number): boolean {
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) if (a[r * cols + c] !== b[c * rows + r]) return false;
  return true;
}
