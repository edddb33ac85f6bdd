/** Where an overflow starts in a run, for calibration and the verification alike. No runtime here: this runs in a browser too. */
import type { onnx } from '../onnx/generated/onnx.js';

export const hasNonFinite = (data: Float32Array): boolean => data.some((v) => !Number.isFinite(v));

/**
 * Where overflows start, into `origins`: the exposed outputs that hold an inf or NaN (and did not in
 * float32) of nodes whose exposed inputs are all finite, not everything downstream of them.
 * Calibration and the rewrite's verification both read a run of the emulated rewrite this way.
 */
export function addOverflowOrigins(
  nodes: Iterable<onnx.INodeProto>,
  exposed: ReadonlySet<string>,
  dataOf: (name: string) => unknown,
  nonFiniteInFp32: ReadonlySet<string>,
  origins: Set<string>,
): void {
  const bad = (name: string): boolean => {
    const data = dataOf(name);
    return data instanceof Float32Array && hasNonFinite(data);
  };
  for (const node of nodes) {
    if (!(node.input ?? []).every((name) => !name || !exposed.has(name) || !bad(name))) continue;
    for (const name of node.output ?? []) if (exposed.has(name) && !nonFiniteInFp32.has(name) && bad(name)) origins.add(name);
  }
}
