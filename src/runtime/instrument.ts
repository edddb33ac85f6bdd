/**
 * Instrumented models: a copy of a model whose float32 main-graph values are all graph outputs, so
 * one run shows every intermediate value (calibration and tune read them).
 */
import { cloneMessage } from '../onnx/clone.js';
import { DataType } from '../onnx/data-types.js';
import { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph } from '../onnx/graph.js';
import { opsetsOf } from '../onnx/opsets.js';
import { inferElemTypes } from '../onnx/type-inference.js';

export interface Instrumented {
  model: onnx.ModelProto;
  /** The float32 values the run returns: node outputs, then float32 graph inputs. */
  watched: string[];
}

/** Exposes every float32 value of the main graph (only those in `only`, when given). */
export function instrument(model: onnx.IModelProto, only?: ReadonlySet<string>): Instrumented {
  const probe = cloneMessage(model) as onnx.ModelProto;
  const graph = new ModelGraph(probe);
  const types = inferElemTypes(graph, opsetsOf(probe));
  const outputs = probe.graph!.output ?? (probe.graph!.output = []);
  const existing = new Set(outputs.map((o) => o.name));
  const watched: string[] = [];
  for (const node of graph.main.currentNodes()) {
    for (const name of node.output ?? []) {
      if (!name || (only && !only.has(name)) || types.get(graph.main, name) !== DataType.FLOAT) continue;
      watched.push(name);
      if (existing.has(name)) continue;
      existing.add(name);
      outputs.push(onnx.ValueInfoProto.create({ name, type: onnx.TypeProto.create({ tensor_type: onnx.TypeProto.Tensor.create({ elem_type: DataType.FLOAT }) }) }));
    }
  }
  for (const info of probe.graph?.input ?? []) {
    const name = info.name ?? '';
    if ((!only || only.has(name)) && !graph.main.initializers.has(name) && types.get(graph.main, name) === DataType.FLOAT) watched.push(name);
  }
  return { model: probe, watched };
}
