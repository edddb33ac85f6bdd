/**
 * Weights float16 cannot hold. A Cast of a weight holding 1e5 to float16 gives inf at run time
 * whether the cast is stored (--weights fp16) or executed (--weights fp32), so every node that
 * reads such a weight stays fp32. bfloat16 has float32's range and needs no check.
 */
import { findAttribute } from '../../onnx/attributes.js';
import { DataType } from '../../onnx/data-types.js';
import { FLOAT16_MAX } from '../../onnx/float16.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import type { ModelGraph } from '../../onnx/graph.js';
import { extremeFiniteValue, largestFiniteMagnitude } from '../../onnx/tensor-data.js';
import { shortestFloat32 } from '../../onnx/float-conversion.js';
import { externalRefOf, isExternal } from '../../onnx/external-data.js';
import { attributeTypedOps } from '../../onnx/type-inference.js';

export interface PinnedNode {
  rule: 'weight-out-of-range' | 'activation-out-of-range' | 'integer-valued' | 'angle-input' | 'runtime-hazard';
  reason: string;
  /** The input slot that reads the weight; -1 when the node is pinned whatever it converts. */
  inputIndex: number;
}

function largestFinite(tensor: onnx.ITensorProto): number {
  // External data that was not located (inspect without the data file): nothing to check.
  if (isExternal(tensor) && !externalRefOf(tensor)) return 0;
  return largestFiniteMagnitude(tensor);
}

/** Nodes that read a float32 weight (initializer, Constant or ConstantOfShape value) outside float16's range. */
export function nodesReadingOutOfRangeWeights(graph: ModelGraph): Map<onnx.INodeProto, PinnedNode> {
  const pinned = new Map<onnx.INodeProto, PinnedNode>();
  const limit = FLOAT16_MAX + 16; // 65520 and above round to inf
  for (const scope of graph.scopes) {
    // forEach and an indexed loop: see inferScope (type-inference.ts) on for...of in a command.
    const weights: Array<[string, onnx.ITensorProto]> = [];
    scope.initializers.forEach((tensor, name) => {
      if (tensor.data_type === DataType.FLOAT) weights.push([name, tensor]);
    });
    const nodes = scope.currentNodes();
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i] as onnx.INodeProto;
      // Constant's 'value', and the value tensor of the ops rules/dtype-attributes.json types from one (ConstantOfShape).
      const attribute = node.domain ? undefined : node.op_type === 'Constant' ? 'value' : attributeTypedOps().get(node.op_type ?? '')?.tensorAttribute;
      if (!attribute) continue;
      const value = findAttribute(node, attribute)?.t;
      const output = node.output?.[0];
      if (value?.data_type === DataType.FLOAT && output) weights.push([output, value]);
    }
    for (let i = 0; i < weights.length; i++) {
      // Read by index: array destructuring goes through an iterator too.
      const weight = weights[i] as [string, onnx.ITensorProto];
      const name = weight[0];
      const tensor = weight[1];
      const largest = largestFinite(tensor);
      if (largest < limit) continue;
      let extreme: string | undefined;
      const readers = [scope, ...graph.scopes.filter((s) => s !== scope && s.resolve(name)?.scope === scope)];
      for (const reader of readers) {
        for (const use of reader.consumersOf(name)) {
          if (use.index < 0) continue;
          extreme ??= shortestFloat32(extremeFiniteValue(tensor));
          pinned.set(use.node, { rule: 'weight-out-of-range', reason: `reads weight '${name}' holding ${extreme}, outside float16's range (65504)`, inputIndex: use.index });
        }
      }
    }
  }
  return pinned;
}

/** float16's smallest subnormal is 2^-24; anything below half of it rounds to zero. */
export const FLOAT16_FLUSH_BELOW = 2 ** -25;

export interface ActivationLimits {
  /** A value whose magnitude reaches this pins its readers and writer (default 65520: what float16 rounds to inf). */
  limit?: number;
  /** Share of a value's summed magnitude carried by elements float16 rounds to zero (calibration.ts). */
  flushedShares?: ReadonlyMap<string, number>;
}

/**
 * Flushed shares at or above this pin a value's readers and writer: losing 0.01% of a value's mass
 * is more than noise (a saturated softmax flushes far less) and can be all of a reader's output
 * (the small probabilities of a long softmax whose large ones meet zeros).
 */
export const FLUSH_SHARE_LIMIT = 1e-4;

/**
 * Nodes of the main graph that read or write a value whose calibration run reached `limit` (float16's
 * range less a headroom), or most of whose nonzero elements round to zero in float16: converting
 * them would turn that value into inf, or its small values into zeros.
 */
export function nodesSeeingOutOfRangeActivations(
  graph: ModelGraph,
  ranges: ReadonlyMap<string, number>,
  limits: ActivationLimits = {},
): Map<onnx.INodeProto, PinnedNode> {
  const pinned = new Map<onnx.INodeProto, PinnedNode>();
  const limit = limits.limit ?? FLOAT16_MAX + 16;
  const flushed = limits.flushedShares ?? new Map<string, number>();
  // Without a calibration nothing can be pinned: no walk over every node and its values.
  if (!ranges.size && !flushed.size) return pinned;
  const headroom = limit < FLOAT16_MAX ? ` less the calibration headroom (${limit.toPrecision(5)})` : '';
  for (const node of graph.main.currentNodes()) {
    const values = [...(node.input ?? []), ...(node.output ?? [])];
    const large = values.find((value) => (ranges.get(value) ?? 0) >= limit);
    if (large !== undefined) {
      const seen = ranges.get(large) as number;
      pinned.set(node, {
        rule: 'activation-out-of-range',
        // The figures come from a float32 run (calibration's or the verification's); inf marks a value that first overflowed in the emulated float16 run.
        reason: Number.isFinite(seen)
          ? `'${large}' reached ${seen.toExponential(3)} in the float32 run, beyond float16's range (65504)${headroom}`
          : `'${large}' overflowed to inf in the emulated float16 run (its inputs finite), beyond float16's range (65504)`,
        inputIndex: -1,
      });
      continue;
    }
    const tiny = values.find((value) => (flushed.get(value) ?? 0) >= FLUSH_SHARE_LIMIT);
    if (tiny === undefined) continue;
    pinned.set(node, {
      rule: 'activation-out-of-range',
      reason: `${((flushed.get(tiny) as number) * 100).toPrecision(2)}% of the magnitude of '${tiny}' in the float32 run is in values below float16's smallest subnormal (6e-8), which round to zero`,
      inputIndex: -1,
    });
  }
  return pinned;
}
