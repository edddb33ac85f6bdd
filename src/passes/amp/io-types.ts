/**
 * The element type of the main graph's inputs and outputs. By default the pass keeps every graph
 * input and output in its declared type. With `ioTypes: 'fp16'` (or 'bf16') the float32 inputs and
 * outputs are declared in the low type instead (onnxconverter-common's `keep_io_types=False`): a
 * pipeline that feeds float16 and reads float16 needs no Cast at the model's edges. The retyping
 * runs on the rewritten graph, in three steps:
 *
 * 1. Each retyped input's readers take it as it comes: the pass's own Cast to the low type right
 *    behind it is dropped (before: `x:float -> Cast(to=float16) -> MatMul`; after: `x:float16 -> MatMul`).
 * 2. A reader that computes in float32 (a deny-list op reading the input directly) gets one Cast
 *    to float32, shared by all such readers; it is an edge Cast that must stay, and is reported.
 * 3. Each retyped output written through the pass's Cast back to float32 is written by the
 *    low-precision node itself (the Cast dropped); one written by a node computing float32 gets a
 *    Cast to the low type after it, reported as kept.
 *
 * The kv-cache option (kv-cache.ts) is the same rewiring for the cache inputs and outputs only.
 */
import { dtypeAttribute } from '../../onnx/attributes.js';
import { DataType } from '../../onnx/data-types.js';
import { AmpError } from '../../onnx/errors.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import type { ModelGraph } from '../../onnx/graph.js';
import { opsetsOf } from '../../onnx/opsets.js';
import { inferElemTypes } from '../../onnx/type-inference.js';
import { castNode, sharesEmptyFields } from './cast-node.js';

/** Graph inputs and outputs of the main graph to declare in the low type. */
export interface BoundaryValues {
  inputs: string[];
  outputs: string[];
}

/** An edge Cast the retyping had to keep: the graph input or output, and the node computing float32 beside it. */
export interface KeptEdgeCast {
  value: string;
  side: 'input' | 'output';
  node: onnx.INodeProto;
}

export interface BoundaryRewiring {
  castsRemoved: number;
  castsAdded: number;
  kept: KeptEdgeCast[];
}

const elemType = (info: onnx.IValueInfoProto | undefined) => info?.type?.tensor_type?.elem_type;

/** The float32 inputs (without an initializer, so not weights) and float32 outputs of the main graph. */
export function findFloatBoundary(graph: ModelGraph): BoundaryValues {
  const scope = graph.main;
  const inputs: string[] = [];
  const outputs: string[] = [];
  for (const [name, info] of scope.inputs) if (elemType(info) === DataType.FLOAT && !scope.initializers.has(name)) inputs.push(name);
  for (const [name, info] of scope.outputs) if (elemType(info) === DataType.FLOAT) outputs.push(name);
  return { inputs, outputs };
}

/**
 * Declares `values` in `lowType` on a rewritten model and rewires it (see the file comment).
 * `counts` are the pass's Cast counters, kept true to the Casts in the model. `option` names the
 * option in errors ("--io-types fp16").
 */
export function retypeBoundary(
  graph: ModelGraph,
  model: onnx.IModelProto,
  values: BoundaryValues,
  lowType: number,
  counts: { castsToTarget: number; castsToFloat32: number },
  option: string,
): BoundaryRewiring {
  const scope = graph.main;
  const types = inferElemTypes(graph, opsetsOf(model));
  let castsRemoved = 0;
  let castsAdded = 0;
  const kept: KeptEdgeCast[] = [];
  const shared = sharesEmptyFields(scope.graph.node?.[0]);
  const isCastTo = (node: onnx.INodeProto, type: number) => node.op_type === 'Cast' && !node.domain && dtypeAttribute(node, 'to') === type;
  const setType = (info: onnx.IValueInfoProto | undefined) => {
    if (info?.type?.tensor_type) info.type.tensor_type.elem_type = lowType;
  };
  // A Cast that only hands its input on to readers: they read `name` instead, and it goes.
  const bypassCast = (cast: onnx.INodeProto, name: string): boolean => {
    const castOutput = cast.output?.[0] ?? '';
    if (scope.isGraphOutput(castOutput)) return false;
    for (const reader of [...scope.consumersOf(castOutput)]) if (reader.index >= 0) scope.setInput(reader.node, reader.index, name);
    if (scope.consumersOf(castOutput).length) return false;
    scope.removeNode(cast);
    castsRemoved++;
    return true;
  };

  for (const name of values.inputs) {
    setType(scope.inputs.get(name));
    let upcast: string | undefined;
    for (const use of [...scope.consumersOf(name)]) {
      const node = use.node;
      if (use.index >= 0 && isCastTo(node, lowType) && bypassCast(node, name)) {
        counts.castsToTarget--;
        continue;
      }
      if (use.index < 0) {
        throw new AmpError('BAD_OPTION', `${option}: graph input '${name}' is read inside a subgraph of ${node.op_type} '${node.name ?? ''}', which this option does not rewire`, { subject: name });
      }
      if (!upcast) {
        upcast = graph.uniqueName(`${name}/as_fp32`);
        scope.insertNodeAfter(null, castNode(name, upcast, DataType.FLOAT, upcast, shared));
        castsAdded++;
        counts.castsToFloat32++;
      }
      if (!isCastTo(node, DataType.FLOAT)) kept.push({ value: name, side: 'input', node });
      scope.setInput(node, use.index, upcast);
    }
  }

  for (const name of values.outputs) {
    setType(scope.outputs.get(name));
    const producer = scope.producerOf(name);
    if (!producer) continue;
    const node = producer.node;
    const source = node.input?.[0] ?? '';
    if (isCastTo(node, DataType.FLOAT) && types.get(scope, source) === lowType) {
      // The pass's own Cast back to float32: the low-precision value becomes the output.
      const upstream = scope.producerOf(source);
      if (upstream && !scope.isGraphOutput(source) && !graph.main.inputs.has(source)) {
        scope.removeNode(node);
        castsRemoved++;
        counts.castsToFloat32--;
        for (const reader of [...scope.consumersOf(source)]) if (reader.index >= 0) scope.setInput(reader.node, reader.index, name);
        scope.renameNodeOutput(upstream.node, upstream.index, name);
        scope.graph.value_info = (scope.graph.value_info ?? []).filter((info) => info.name !== source);
        continue;
      }
    }
    // A node computing float32 writes the output: its value goes on in float32 under a new name,
    // and one Cast writes the output. The pass's own Casts of it to the low type read the output instead.
    const renamed = graph.uniqueName(`${name}/fp32`);
    for (const reader of [...scope.consumersOf(name)]) {
      if (reader.index < 0) continue;
      if (isCastTo(reader.node, lowType) && bypassCast(reader.node, name)) {
        counts.castsToTarget--;
        continue;
      }
      scope.setInput(reader.node, reader.index, renamed);
    }
    scope.renameNodeOutput(node, producer.index, renamed);
    // Named for what it does, not after the output: the output's name may be its producer's node name.
    const castName = graph.uniqueName(`${name}/to_${lowType === DataType.BFLOAT16 ? 'bf16' : 'fp16'}`);
    scope.insertNodeAfter(node, castNode(renamed, name, lowType, castName, shared));
    castsAdded++;
    counts.castsToTarget++;
    kept.push({ value: name, side: 'output', node });
  }
  graph.commit();
  return { castsRemoved, castsAdded, kept };
}
