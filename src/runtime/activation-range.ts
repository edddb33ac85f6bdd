/**
 * Calibration: the largest magnitude every float32 value of the main graph reaches in an fp32
 * run. The AMP pass keeps nodes that would see values beyond float16's range in fp32, so a
 * model whose activations outgrow 65504 still runs correctly in mixed precision.
 */
import { cloneMessage } from '../onnx/clone.js';
import { encodeModel } from '../onnx/codec.js';
import { DataType } from '../onnx/data-types.js';
import { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph } from '../onnx/graph.js';
import { opsetsOf } from '../onnx/opsets.js';
import { inferElemTypes } from '../onnx/type-inference.js';
import type { Feeds } from './inputs.js';
import type { Ort } from './ort.js';
import { createSession } from './session.js';

export async function activationRanges(ort: Ort, model: onnx.IModelProto, feeds: Feeds): Promise<Map<string, number>> {
  const probe = cloneMessage(model) as onnx.ModelProto;
  const graph = new ModelGraph(probe);
  const types = inferElemTypes(graph, opsetsOf(probe));
  const existing = new Set((probe.graph?.output ?? []).map((o) => o.name));
  const watched: string[] = [];
  for (const node of graph.main.currentNodes()) {
    for (const name of node.output ?? []) {
      if (!name || types.get(graph.main, name) !== DataType.FLOAT) continue;
      watched.push(name);
      if (!existing.has(name)) {
        probe.graph!.output!.push(
          onnx.ValueInfoProto.create({ name, type: onnx.TypeProto.create({ tensor_type: onnx.TypeProto.Tensor.create({ elem_type: DataType.FLOAT }) }) }),
        );
      }
    }
  }
  for (const info of probe.graph?.input ?? []) if (types.get(graph.main, info.name ?? '') === DataType.FLOAT) watched.push(info.name ?? '');
  const session = await createSession(ort, encodeModel(probe));
  try {
    const outputs = await session.run(feeds);
    const ranges = new Map<string, number>();
    for (const name of watched) {
      const tensor = outputs[name] ?? feeds[name];
      if (!tensor) continue;
      let largest = 0;
      for (const value of tensor.data as Float32Array) if (Number.isFinite(value) && Math.abs(value) > largest) largest = Math.abs(value);
      ranges.set(name, largest);
    }
    return ranges;
  } finally {
    await session.release();
  }
}
