/**
 * `--state inputs`: a training graph whose state inputs (parameters, optimizer moments, step
 * counts, loss-scale state) are plain graph inputs, with their initial values in a sidecar file.
 *
 * Why: ONNX gives an input a default by storing an initializer of the same name, and the step
 * graphs carry their initial state that way; but onnxruntime-node ignores feeds for such inputs,
 * so a user's own loop would keep training the initial weights. With plain inputs any loop can
 * feed the state back.
 *
 * The sidecar is itself an ONNX model with no inputs whose outputs are the initial values (one
 * Identity per tensor), so a plain onnxruntime-node loop reads it with one `session.run({})`, and
 * our loader reads it without ONNX Runtime.
 */
import path from 'node:path';
import { cloneMessage } from '../../onnx/clone.js';
import { DataType } from '../../onnx/data-types.js';
import { AmpError } from '../../onnx/errors.js';
import { isExternal, tensorRawBytes } from '../../onnx/external-data.js';
import { onnx } from '../../onnx/generated/onnx.js';

/** Where the initial state of `model.onnx` goes: `model.state.onnx` beside it. */
export function stateSidecarPath(modelPath: string): string {
  const parsed = path.parse(modelPath);
  return path.join(parsed.dir, `${parsed.ext === '.onnx' ? parsed.name : parsed.base}.state.onnx`);
}

const INITIAL_PREFIX = 'initial/';

/** A copy under another name; an external tensor's bytes are read into it (its link to the data is per object). */
function renamedTensor(tensor: onnx.ITensorProto, name: string): onnx.TensorProto {
  if (!isExternal(tensor)) return onnx.TensorProto.create({ ...tensor, name });
  return onnx.TensorProto.create({ name, dims: tensor.dims ?? [], data_type: tensor.data_type ?? DataType.FLOAT, raw_data: tensorRawBytes(tensor) ?? new Uint8Array() });
}

/**
 * Moves every initializer that gives a graph input its default into a sidecar model; returns the
 * step graph (now with plain inputs) and the sidecar. Pure: the input model is not changed.
 */
export function splitInitialState(model: onnx.IModelProto): { model: onnx.ModelProto; sidecar: onnx.ModelProto; moved: string[] } {
  const copy = cloneMessage(model) as onnx.ModelProto;
  const graph = copy.graph;
  if (!graph) throw new AmpError('TRAINING_CONTRACT', 'the model has no graph');
  const inputs = new Set((graph.input ?? []).map((i) => i.name ?? ''));
  const moved = (graph.initializer ?? []).filter((t) => inputs.has(t.name ?? ''));
  if (!moved.length) {
    throw new AmpError('BAD_OPTION', '--state inputs: no graph input has an initial value (an initializer of the same name) to move to the sidecar');
  }
  graph.initializer = (graph.initializer ?? []).filter((t) => !inputs.has(t.name ?? ''));
  const declared = new Map((graph.input ?? []).map((i) => [i.name ?? '', i]));
  const sidecar = onnx.ModelProto.create({
    ir_version: copy.ir_version,
    producer_name: copy.producer_name,
    producer_version: copy.producer_version,
    opset_import: copy.opset_import.filter((o) => (o.domain ?? '') === ''),
    graph: onnx.GraphProto.create({
      name: `${graph.name || 'model'}_initial_state`,
      doc_string: 'Initial values of the state inputs of the training step graph beside this file: run it with no feeds.',
      initializer: moved.map((t) => renamedTensor(t, `${INITIAL_PREFIX}${t.name}`)),
      node: moved.map((t) => onnx.NodeProto.create({ op_type: 'Identity', name: `initial_state/${t.name}`, input: [`${INITIAL_PREFIX}${t.name}`], output: [t.name ?? ''] })),
      output: moved.map((t) => declared.get(t.name ?? '') as onnx.ValueInfoProto),
    }),
  });
  return { model: copy, sidecar, moved: moved.map((t) => t.name ?? '') };
}

/** The initial values a sidecar holds, by state input name. */
export function readInitialState(sidecar: onnx.IModelProto, source: string): Map<string, onnx.ITensorProto> {
  const graph = sidecar.graph;
  const initializers = new Map((graph?.initializer ?? []).map((t) => [t.name ?? '', t]));
  const values = new Map<string, onnx.ITensorProto>();
  for (const node of graph?.node ?? []) {
    const [input] = node.input ?? [];
    const [output] = node.output ?? [];
    const tensor = input ? initializers.get(input) : undefined;
    if (node.op_type !== 'Identity' || !tensor || !output) {
      throw new AmpError('TRAINING_CONTRACT', `${source}: node '${node.name ?? ''}' is not an Identity of an initializer; not an initial-state file`, { subject: node.name ?? '' });
    }
    // The tensor itself, not a copy: an external tensor's data is found through the object.
    values.set(output, tensor);
  }
  return values;
}

/** The step graph with the sidecar's initial values back as same-name initializers (the stored-state form). */
export function withInitialStateFrom(model: onnx.IModelProto, sidecar: onnx.IModelProto, source: string): onnx.ModelProto {
  const copy = cloneMessage(model) as onnx.ModelProto;
  const graph = copy.graph;
  if (!graph) throw new AmpError('TRAINING_CONTRACT', 'the model has no graph');
  const present = new Set((graph.initializer ?? []).map((t) => t.name ?? ''));
  const inputs = new Set((graph.input ?? []).map((i) => i.name ?? ''));
  for (const [name, tensor] of readInitialState(sidecar, source)) {
    if (!inputs.has(name) || present.has(name)) continue;
    graph.initializer = [...(graph.initializer ?? []), renamedTensor(tensor, name)];
  }
  return copy;
}
