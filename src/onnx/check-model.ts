/**
 * Checks a model before any pass looks at it, in the spirit of ONNX's checker: a model the
 * checker (or ONNX Runtime) would reject is a bad input (exit 2, naming the node or tensor), not
 * a crash in the middle of painting, and never passed through as "nothing to convert".
 *
 * What is checked: a graph is present; ir_version is in range; an opset is imported; in every
 * graph scope value names are non-empty where required and each value has one producer; the
 * nodes form no cycle; every tensor's data agrees with its dims and type and fits in what this
 * tool can hold; and the type/order checks the rewrite's own validator runs on its output.
 */
import { constants as bufferConstants } from 'node:buffer';
import Long from 'long';
import { SUPPORTED_IR_VERSION } from './codec.js';
import { DataType, bytesPerElement, dataTypeName } from './data-types.js';
import { AmpError } from './errors.js';
import { externalRefOf, isExternal } from './external-data.js';
import type { onnx } from './generated/onnx.js';
import { printable } from './printable.js';
import { forEachTensor } from './walk.js';
import { validateModel } from '../passes/validate.js';

/** The largest tensor this tool can hold in memory: one Node.js Buffer. */
export const MAX_TENSOR_BYTES = bufferConstants.MAX_LENGTH;

export interface CheckOptions {
  /** Name of the model in messages (a file path). */
  source?: string;
  /** Accept an ir_version newer than this tool knows (as --allow-newer-ir does when loading). */
  allowNewerIr?: boolean;
  /** Run the structural checks: graph, IR version, opsets, names, cycles, tensor data (default true). */
  structure?: boolean;
  /** Run the type and order checks of the rewrite's validator on the input (default true). */
  types?: boolean;
}

function invalid(message: string, subject: string): AmpError {
  return new AmpError('INVALID_MODEL', message, { subject });
}

/** Throws an AmpError (INVALID_MODEL or MODEL_TOO_LARGE) for the first problem found. */
export function checkModel(model: onnx.IModelProto, options: CheckOptions = {}): void {
  const source = options.source ?? 'model';
  if (options.structure ?? true) checkStructure(model, source, options);
  if (options.types ?? true) {
    const problems = validateModel(model);
    const first = problems[0];
    if (first) {
      const more = problems.length > 1 ? ` (and ${problems.length - 1} more problems)` : '';
      throw invalid(`the input model is invalid: ${printable(first.message, 400)}${more}`, first.node);
    }
  }
}

function checkStructure(model: onnx.IModelProto, source: string, options: CheckOptions): void {
  if (!model.graph) throw invalid(`${printable(source)}: the model has no graph`, source);
  checkIrVersion(model, source, options.allowNewerIr ?? false);
  if (!(model.opset_import ?? []).length) {
    throw invalid(`${printable(source)}: the model imports no opset (opset_import is empty), so its operators have no meaning`, source);
  }
  for (const opset of model.opset_import ?? []) {
    const version = Long.fromValue(opset.version ?? 0).toNumber();
    if (version < 1) throw invalid(`${printable(source)}: opset_import of domain '${printable(opset.domain)}' has version ${version}`, source);
  }
  checkGraph(model.graph, 'graph');
  forEachTensor(model, checkTensor);
}

function checkIrVersion(model: onnx.IModelProto, source: string, allowNewer: boolean): void {
  const ir = Long.fromValue(model.ir_version ?? 0).toNumber();
  if (ir < 1 || (!allowNewer && ir > SUPPORTED_IR_VERSION)) {
    throw invalid(`${printable(source)}: ir_version ${ir} is not a valid IR version (1 to ${SUPPORTED_IR_VERSION})`, source);
  }
}

/** Names, producers and cycles of one graph scope, then of its subgraphs. */
function checkGraph(graph: onnx.IGraphProto, path: string): void {
  const where = printable(path);
  const defined = new Map<string, string>();
  const define = (name: string | null | undefined, what: string, allowRedefinition = false): void => {
    if (!name) throw invalid(`${where}: ${what} has an empty name`, path);
    const before = defined.get(name);
    if (before !== undefined && !allowRedefinition) {
      throw invalid(`${where}: '${printable(name)}' is defined twice (${before} and ${what}); each value must have one producer`, name);
    }
    defined.set(name, what);
  };
  const graphInputs = new Set<string>();
  for (const input of graph.input ?? []) {
    define(input.name, `graph input '${printable(input.name)}'`);
    graphInputs.add(input.name ?? '');
  }
  const initializers = new Set<string>();
  for (const tensor of graph.initializer ?? []) {
    const name = tensor.name ?? '';
    if (initializers.has(name)) throw invalid(`${where}: initializer '${printable(name)}' appears twice`, name);
    initializers.add(name);
    // An initializer may also be listed as a graph input (its default value).
    define(name, `initializer '${printable(name)}'`, graphInputs.has(name));
  }
  for (const sparse of graph.sparse_initializer ?? []) define(sparse.values?.name, `sparse initializer '${printable(sparse.values?.name)}'`);
  const producerIndex = new Map<string, number>();
  (graph.node ?? []).forEach((node, index) => {
    const label = `${printable(node.op_type || '?')} node '${printable(node.name || node.output?.[0] || String(index))}'`;
    if (!node.op_type) throw invalid(`${where}: node ${index} ('${printable(node.name)}') has no op_type`, node.name ?? '');
    for (const output of node.output ?? []) {
      if (!output) continue; // an omitted optional output
      define(output, label);
      producerIndex.set(output, index);
    }
  });
  for (const output of graph.output ?? []) if (!output.name) throw invalid(`${where}: a graph output has an empty name`, path);
  checkAcyclic(graph, producerIndex, where);
  for (const node of graph.node ?? []) {
    for (const attribute of node.attribute ?? []) {
      const base = `${path}/${node.name || node.op_type}.${attribute.name}`;
      if (attribute.g) checkGraph(attribute.g, base);
      (attribute.graphs ?? []).forEach((g, i) => checkGraph(g, `${base}[${i}]`));
    }
  }
}

/** Kahn's algorithm over direct inputs: any node left over sits on a cycle. */
function checkAcyclic(graph: onnx.IGraphProto, producerIndex: Map<string, number>, where: string): void {
  const nodes = graph.node ?? [];
  const waiting = new Int32Array(nodes.length);
  const dependents: number[][] = nodes.map(() => []);
  nodes.forEach((node, i) => {
    const needs = new Set<number>();
    for (const input of node.input ?? []) {
      const at = input ? producerIndex.get(input) : undefined;
      if (at !== undefined) needs.add(at);
    }
    waiting[i] = needs.size;
    for (const at of needs) (dependents[at] as number[]).push(i);
  });
  const ready: number[] = [];
  for (let i = 0; i < nodes.length; i++) if (waiting[i] === 0) ready.push(i);
  let placed = 0;
  while (ready.length) {
    const i = ready.pop() as number;
    placed++;
    for (const next of dependents[i] as number[]) if (--(waiting as unknown as number[])[next] === 0) ready.push(next);
  }
  if (placed === nodes.length) return;
  const stuck = nodes.find((_, i) => (waiting[i] as number) > 0) as onnx.INodeProto;
  throw invalid(
    `${where}: the nodes form a cycle (${printable(stuck.op_type)} node '${printable(stuck.name || stuck.output?.[0])}' depends on its own output)`,
    stuck.name ?? '',
  );
}

/** The typed field a data type's values live in, and how many entries n elements take there. */
function typedField(dataType: number, count: bigint): { field: keyof onnx.ITensorProto; entries: bigint } | undefined {
  switch (dataType) {
    case DataType.FLOAT: return { field: 'float_data', entries: count };
    case DataType.COMPLEX64: return { field: 'float_data', entries: 2n * count };
    case DataType.DOUBLE: return { field: 'double_data', entries: count };
    case DataType.COMPLEX128: return { field: 'double_data', entries: 2n * count };
    case DataType.INT64: return { field: 'int64_data', entries: count };
    case DataType.UINT32: case DataType.UINT64: return { field: 'uint64_data', entries: count };
    case DataType.STRING: return { field: 'string_data', entries: count };
    case DataType.UINT4: case DataType.INT4: case DataType.FLOAT4E2M1: return { field: 'int32_data', entries: (count + 1n) / 2n };
    case DataType.UINT2: case DataType.INT2: return { field: 'int32_data', entries: (count + 3n) / 4n };
    default: return bytesPerElement(dataType) === undefined ? undefined : { field: 'int32_data', entries: count };
  }
}

const TYPED_FIELDS = ['float_data', 'int32_data', 'string_data', 'int64_data', 'double_data', 'uint64_data'] as const;

function rawBytesFor(dataType: number, count: bigint): bigint | undefined {
  const per = bytesPerElement(dataType);
  if (per === undefined) return undefined;
  if (per >= 1) return count * BigInt(per);
  const perByte = BigInt(Math.round(1 / per));
  return (count + perByte - 1n) / perByte;
}

/** The checks every stored tensor gets, for one tensor (an input file's TensorProto, say). */
export function checkTensorData(tensor: onnx.ITensorProto, where: string): void {
  checkTensor(tensor, where);
}

function checkTensor(tensor: onnx.ITensorProto, where: string): void {
  const name = tensor.name ?? '';
  const label = `tensor '${printable(name)}' (${printable(where)})`;
  const dataType = tensor.data_type ?? 0;
  let count = 1n;
  for (const dim of tensor.dims ?? []) {
    const value = BigInt(Long.fromValue(dim).toString());
    if (value < 0n) throw invalid(`${label}: dimension ${value} is negative`, name);
    count *= value;
  }
  const dims = `[${(tensor.dims ?? []).map((d) => Long.fromValue(d).toString()).join(',')}]`;
  const typeName = dataTypeName(dataType);
  const raw = rawBytesFor(dataType, count);
  const field = typedField(dataType, count);
  if (!field) throw invalid(`${label}: data type ${dataType} is not a tensor element type`, name);
  if (raw !== undefined && raw > BigInt(MAX_TENSOR_BYTES)) {
    throw new AmpError(
      'MODEL_TOO_LARGE',
      `${label}: ${typeName} ${dims} is ${raw} bytes, over the ${MAX_TENSOR_BYTES} bytes one tensor may hold in this tool`,
      { subject: name },
    );
  }
  if (isExternal(tensor)) {
    const ref = externalRefOf(tensor);
    if (ref && raw !== undefined && BigInt(ref.length) !== raw) {
      throw invalid(`${label}: ${typeName} ${dims} needs ${raw} bytes, its external data holds ${ref.length}`, name);
    }
    return;
  }
  const stored = TYPED_FIELDS.filter((f) => ((tensor[f] as unknown[] | null | undefined) ?? []).length > 0);
  const hasRaw = tensor.raw_data != null && Object.hasOwn(tensor, 'raw_data') && (tensor.raw_data.length > 0 || stored.length === 0);
  if (hasRaw) {
    if (dataType === DataType.STRING) throw invalid(`${label}: a string tensor cannot store its values in raw_data`, name);
    if (stored.length) throw invalid(`${label}: values in both raw_data and ${stored[0]}`, name);
    const length = BigInt((tensor.raw_data as Uint8Array).length);
    if (raw !== undefined && length !== raw) {
      throw invalid(`${label}: ${typeName} ${dims} needs ${raw} bytes of raw_data, it has ${length}`, name);
    }
    return;
  }
  if (stored.length > 1) throw invalid(`${label}: values in both ${stored[0]} and ${stored[1]}`, name);
  const used = stored[0];
  if (used === undefined) {
    if (count !== 0n) throw invalid(`${label}: ${typeName} ${dims} has ${count} elements but no values`, name);
    return;
  }
  if (used !== field.field) throw invalid(`${label}: a ${typeName} tensor stores its values in ${field.field}, not ${used}`, name);
  const entries = BigInt((tensor[used] as unknown[]).length);
  if (entries !== field.entries) throw invalid(`${label}: ${typeName} ${dims} needs ${field.entries} entries in ${used}, it has ${entries}`, name);
}
