/**
 * Emulated low-precision numerics: a rewritten mixed-precision model becomes a float32 model in
 * which every value that would be float16 or bfloat16 is rounded to that type (a Cast to the low
 * type and straight back) where it is produced. Run on any provider, the result computes what a
 * GPU computes: each low-precision kernel reads rounded inputs, accumulates in float32 and stores
 * a rounded result (overflow to inf, subnormals kept, round to nearest even). ONNX Runtime's CPU
 * provider cannot be trusted for this by itself: it runs chains of float16 ops in float32 and
 * rounds only at the chain's ends, and it has no bfloat16 kernels for most ops.
 *
 * What is and is not emulated is listed in docs/accuracy.md ("Emulated numerics") and in
 * `EMULATION_SCOPE` below, which the report carries.
 */
import { findAttribute, dtypeAttribute, setDtypeAttribute } from '../onnx/attributes.js';
import { cloneMessage } from '../onnx/clone.js';
import { DataType, LOW_PRECISION_TYPES } from '../onnx/data-types.js';
import { tensorRawBytes } from '../onnx/external-data.js';
import { bfloat16BitsToFloat32, float16BitsToFloat32 } from '../onnx/float16.js';
import { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph, type GraphScope } from '../onnx/graph.js';
import { opsetsOf } from '../onnx/opsets.js';
import { attributeTypedOps, inferElemTypes, type ElemTypes } from '../onnx/type-inference.js';

export const EMULATION_SCOPE = {
  emulated: [
    'every float16/bfloat16 value is rounded to its type where it is produced (round to nearest even)',
    'float16 overflow: values of 65520 and above become inf, as on the GPU',
    'subnormals are kept, as NVIDIA GPUs keep them for float16 and bfloat16 storage',
    'low-precision kernels read rounded inputs, accumulate in float32 and store a rounded result (cuBLAS/cuDNN default for fp16 and bf16 GEMM and convolution)',
    'float16/bfloat16 weights and constants keep their stored (already rounded) values',
  ],
  notEmulated: [
    'kernel fusion effects (a fused kernel that keeps an intermediate in float32 registers is emulated as rounding it)',
    'tensor-core accumulation order and split-K partial sums (float32 sums here are sequential on the host)',
    'kernels that accumulate in float16 (none in ONNX Runtime CUDA by default) and intermediate roundings inside one kernel',
    'flush-to-zero modes some kernels enable',
  ],
} as const;

export interface EmulationReport {
  /** Values rounded to float16 / bfloat16 after their producer. */
  roundedValues: { float16: number; bfloat16: number };
  /** float16/bfloat16 initializers and Constants stored as float32 (their values unchanged). */
  widenedConstants: number;
  /** Nodes whose type attribute was changed from a low type to float32 (then rounded). */
  retypedNodes: number;
  scope: typeof EMULATION_SCOPE;
}

export interface EmulationResult {
  model: onnx.ModelProto;
  report: EmulationReport;
  /** Whether the model had any low-precision value at all. */
  changed: boolean;
}

const isLow = (type: number | undefined): type is number => type !== undefined && LOW_PRECISION_TYPES.has(type);

/** The float32 values of a float16 or bfloat16 tensor (raw_data or the bits in int32_data). */
export function lowPrecisionValues(tensor: onnx.ITensorProto): Float32Array {
  const toFloat = tensor.data_type === DataType.BFLOAT16 ? bfloat16BitsToFloat32 : float16BitsToFloat32;
  const raw = tensorRawBytes(tensor);
  let bits: ArrayLike<number>;
  if (raw && raw.length) {
    const copy = new Uint8Array(raw.length);
    copy.set(raw);
    bits = new Uint16Array(copy.buffer);
  } else bits = (tensor.int32_data ?? []) as number[];
  return Float32Array.from(bits, toFloat);
}

function widenTensor(tensor: onnx.ITensorProto): onnx.TensorProto {
  const values = lowPrecisionValues(tensor);
  const widened = onnx.TensorProto.create({ name: tensor.name ?? '', dims: tensor.dims ?? [], data_type: DataType.FLOAT, raw_data: new Uint8Array(values.buffer) });
  if (tensor.doc_string) widened.doc_string = tensor.doc_string;
  return widened;
}

function setElemType(info: onnx.IValueInfoProto | undefined, type: number): void {
  const tensorType = info?.type?.tensor_type;
  if (tensorType) tensorType.elem_type = type;
}

const castNode = (name: string, input: string, output: string, to: number): onnx.NodeProto =>
  onnx.NodeProto.create({
    name,
    op_type: 'Cast',
    input: [input],
    output: [output],
    attribute: [onnx.AttributeProto.create({ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: to })],
  });

/**
 * The emulating model of a mixed-precision model: same inputs and outputs (a float16 graph input
 * or output keeps its type), every internal value float32, rounded where it would be low.
 */
export function emulateNumerics(input: onnx.IModelProto): EmulationResult {
  const model = cloneMessage(input) as onnx.ModelProto;
  const graph = new ModelGraph(model);
  const types = inferElemTypes(graph, opsetsOf(model));
  const report: EmulationReport = { roundedValues: { float16: 0, bfloat16: 0 }, widenedConstants: 0, retypedNodes: 0, scope: EMULATION_SCOPE };
  const subgraphReads: SubgraphRead[] = [];
  for (const scope of graph.scopes) emulateScope(graph, scope, types, report, subgraphReads);
  graph.commit();
  // Subgraphs read the widened copy of a low-precision model input or output by its new name.
  for (const read of subgraphReads) renameInSubgraphs(read.node, read.from, read.to);
  const changed = report.roundedValues.float16 + report.roundedValues.bfloat16 + report.widenedConstants + report.retypedNodes > 0;
  return { model: changed ? model : (input as onnx.ModelProto), report, changed };
}

/** A main-graph node whose subgraphs read `from`, to read `to` instead once the graph is committed. */
interface SubgraphRead {
  node: onnx.INodeProto;
  from: string;
  to: string;
}

function emulateScope(graph: ModelGraph, scope: GraphScope, types: ElemTypes, report: EmulationReport, subgraphReads: SubgraphRead[]): void {
  const isMain = scope === graph.main;
  // Weights: stored low-precision values are exact in float32.
  const initializers = scope.graph.initializer ?? [];
  initializers.forEach((tensor, i) => {
    if (!isLow(tensor.data_type ?? undefined)) return;
    initializers[i] = widenTensor(tensor);
    scope.initializers.set(tensor.name ?? '', initializers[i] as onnx.ITensorProto);
    report.widenedConstants++;
  });
  for (const info of scope.graph.value_info ?? []) if (isLow(info.type?.tensor_type?.elem_type ?? undefined)) setElemType(info, DataType.FLOAT);
  if (!isMain) {
    // Subgraph inputs and outputs carry float32 now; their owners' outputs are rounded in the owner's scope.
    for (const info of [...(scope.graph.input ?? []), ...(scope.graph.output ?? [])]) {
      if (isLow(info.type?.tensor_type?.elem_type ?? undefined)) setElemType(info, DataType.FLOAT);
    }
  } else {
    for (const info of scope.graph.input ?? []) {
      const type = info.type?.tensor_type?.elem_type ?? undefined;
      if (isLow(type) && !scope.initializers.has(info.name ?? '')) widenGraphInput(graph, scope, info.name ?? '', subgraphReads);
    }
  }
  for (const node of scope.currentNodes()) {
    if (node.op_type === 'Constant' && !node.domain) {
      const value = findAttribute(node, 'value');
      if (value?.t && isLow(value.t.data_type ?? undefined)) {
        value.t = widenTensor(value.t);
        report.widenedConstants++;
      }
      continue;
    }
    const isCastToLow = node.op_type === 'Cast' && !node.domain && isLow(dtypeAttribute(node, 'to'));
    if (!isCastToLow) retypeAttributes(node, report);
    (node.output ?? []).forEach((name, index) => {
      const type = name ? types.get(scope, name) : undefined;
      if (!isLow(type)) return;
      roundOutput(graph, scope, node, index, type, isCastToLow, isMain && scope.isGraphOutput(name), subgraphReads);
      if (type === DataType.FLOAT16) report.roundedValues.float16++;
      else report.roundedValues.bfloat16++;
    });
  }
}

/** Ops typed by an attribute (ConstantOfShape's value, EyeLike's dtype...): make them produce float32. */
function retypeAttributes(node: onnx.INodeProto, report: EmulationReport): void {
  if (node.domain) return;
  const rule = attributeTypedOps().get(node.op_type ?? '');
  if (!rule) return;
  if (rule.attribute) {
    const attribute = findAttribute(node, rule.attribute);
    if (attribute && isLow(dtypeAttribute(node, rule.attribute))) {
      setDtypeAttribute(attribute, DataType.FLOAT);
      report.retypedNodes++;
    }
  }
  if (rule.tensorAttribute) {
    const attribute = findAttribute(node, rule.tensorAttribute);
    if (attribute?.t && isLow(attribute.t.data_type ?? undefined)) {
      attribute.t = widenTensor(attribute.t);
      report.retypedNodes++;
    }
  }
}

/**
 * Output `index` of `node`, a low-precision value `name`, is produced in float32 under a new name,
 * rounded by a Cast to the low type (unless the node is itself that Cast), and widened back under
 * its own name, so its readers are untouched. A main-graph output keeps its low type.
 */
function roundOutput(
  graph: ModelGraph,
  scope: GraphScope,
  node: onnx.INodeProto,
  index: number,
  type: number,
  nodeRounds: boolean,
  isModelOutput: boolean,
  subgraphReads: SubgraphRead[],
): void {
  const name = (node.output as string[])[index] as string;
  const suffix = type === DataType.FLOAT16 ? 'fp16' : 'bf16';
  let anchor: onnx.INodeProto = node;
  let low = name;
  if (!isModelOutput || !nodeRounds) {
    const produced = graph.uniqueName(`${name}__${nodeRounds ? suffix : 'fp32'}`);
    scope.renameNodeOutput(node, index, produced);
    if (nodeRounds) low = produced;
    else {
      low = isModelOutput ? name : graph.uniqueName(`${name}__${suffix}`);
      const round = castNode(graph.uniqueName(`${name}__round_${suffix}`), produced, low, type);
      scope.insertNodeAfter(anchor, round);
      anchor = round;
    }
  }
  if (!isModelOutput) {
    scope.insertNodeAfter(anchor, castNode(graph.uniqueName(`${name}__widen`), low, name, DataType.FLOAT));
    return;
  }
  // A model output stays low; its readers inside the model read a widened copy.
  const readers = scope.consumersOf(name).filter((use) => use.node !== anchor);
  if (!readers.length) return;
  const widened = graph.uniqueName(`${name}__widened`);
  scope.insertNodeAfter(anchor, castNode(graph.uniqueName(`${name}__widen`), name, widened, DataType.FLOAT));
  rewireReaders(scope, readers, name, widened, subgraphReads);
}

/** Direct readers read `widened` now; a node whose subgraphs read `name` is renamed inside them after commit. */
function rewireReaders(scope: GraphScope, readers: readonly { node: onnx.INodeProto; index: number }[], name: string, widened: string, subgraphReads: SubgraphRead[]): void {
  const direct = readers.filter((use) => use.index >= 0);
  for (const node of new Set(readers.filter((use) => use.index < 0).map((use) => use.node))) subgraphReads.push({ node, from: name, to: widened });
  for (const use of direct) scope.setInput(use.node, use.index, widened);
}

/** Renames the reads of an outer value in every subgraph of `node`, down to a graph that defines the name itself. */
function renameInSubgraphs(node: onnx.INodeProto, from: string, to: string): void {
  for (const attribute of node.attribute ?? []) {
    for (const subgraph of [attribute.g, ...(attribute.graphs ?? [])]) if (subgraph) renameInGraph(subgraph, from, to);
  }
}

function renameInGraph(graph: onnx.IGraphProto, from: string, to: string): void {
  const defines =
    (graph.input ?? []).some((i) => i.name === from) ||
    (graph.initializer ?? []).some((t) => t.name === from) ||
    (graph.node ?? []).some((n) => (n.output ?? []).includes(from));
  if (defines) return;
  for (const node of graph.node ?? []) {
    if (node.input?.includes(from)) node.input = node.input.map((input) => (input === from ? to : input));
    renameInSubgraphs(node, from, to);
  }
  for (const output of graph.output ?? []) if (output.name === from) output.name = to;
}

/** A float16/bfloat16 model input stays so; its readers, in the main graph or inside a subgraph, read a float32 copy. */
function widenGraphInput(graph: ModelGraph, scope: GraphScope, name: string, subgraphReads: SubgraphRead[]): void {
  const readers = [...scope.consumersOf(name)];
  if (!readers.length) return;
  const widened = graph.uniqueName(`${name}__widened`);
  scope.insertNodeAfter(null, castNode(graph.uniqueName(`${name}__widen`), name, widened, DataType.FLOAT));
  rewireReaders(scope, readers, name, widened, subgraphReads);
}
