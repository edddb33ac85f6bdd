/**
 * --dim name=size for static analysis: a view of the model whose graph inputs have those symbolic
 * dimensions fixed, so shape inference can size the matrix ops (FLOPs share, Tensor Core lint).
 * The view shares every other message with the model and is only read, never written.
 */
import { AmpError } from '../../onnx/errors.js';
import type { onnx } from '../../onnx/generated/onnx.js';

export function withStaticDims(model: onnx.IModelProto, dims: ReadonlyMap<string, number>): onnx.IModelProto {
  const used = new Set<string>();
  const input = (model.graph?.input ?? []).map((info) => {
    const shape = info.type?.tensor_type?.shape;
    if (!shape?.dim?.some((d) => d.dim_param && dims.has(d.dim_param))) return info;
    const dim = shape.dim.map((d) => {
      if (!d.dim_param || !dims.has(d.dim_param)) return d;
      used.add(d.dim_param);
      return { dim_value: dims.get(d.dim_param) as number };
    });
    return { ...info, type: { ...info.type, tensor_type: { ...info.type?.tensor_type, shape: { dim } } } };
  });
  for (const name of dims.keys()) {
    if (!used.has(name)) throw new AmpError('BAD_OPTION', `--dim ${name}=${dims.get(name)}: no graph input has a dimension named '${name}'`, { subject: name });
  }
  return { ...model, graph: { ...model.graph, input } };
}

/**
 * The main graph's input declarations with those dimensions fixed, by name (the last input of a
 * name wins, as in a graph's input map), for inferShapes(graph, { inputs }): the shapes of
 * withStaticDims()'s view, without a second graph model built over it (a copy of every node's
 * wiring, for a big model about as much time and memory as the pass's own graph model).
 */
export function staticInputs(model: onnx.IModelProto, dims: ReadonlyMap<string, number>): ReadonlyMap<string, onnx.IValueInfoProto> {
  const inputs = new Map<string, onnx.IValueInfoProto>();
  for (const info of withStaticDims(model, dims).graph?.input ?? []) inputs.set(info.name ?? '', info);
  return inputs;
}
