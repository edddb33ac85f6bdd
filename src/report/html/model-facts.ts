/**
 * What the visual audit shows beside the decisions, read from the model itself (as Netron shows
 * it): each node's attributes, the shapes the model declares for its values, and a few leading
 * values of each weight stored in the file. Cheap on purpose: declared shapes only (graph inputs,
 * outputs, value_info, initializer dims), previews only of in-file data, a bounded count of each.
 */
import { DataType, dataTypeName } from '../../onnx/data-types.js';
import { isExternal } from '../../onnx/external-data.js';
import { bfloat16BitsToFloat32, float16BitsToFloat32 } from '../../onnx/float16.js';
import { onnx } from '../../onnx/generated/onnx.js';
import { ModelGraph } from '../../onnx/graph.js';
import { inferShapes } from '../../onnx/shape-inference.js';
import { printable } from '../../onnx/printable.js';

export interface ModelFacts {
  /** `${scope}\u0000${node id}` -> [attribute name, value as text]. */
  attributes: Map<string, Array<[string, string]>>;
  /** Value name -> its shape: as declared, e.g. "[batch, 128, 768]", else as inferred from the main graph's fixed dims. */
  shapes: Map<string, string>;
  /** Weight name -> its first values, e.g. "0.0132, -0.41, … (768 values)". */
  previews: Map<string, string>;
}

const PREVIEW_COUNT = 6;
const MAX_LIST = 16;

const number = (v: number): string => (Number.isInteger(v) ? String(v) : Number(v.toPrecision(4)).toString());
const list = (values: ArrayLike<unknown>, format: (v: never) => string): string => {
  const shown = Array.from(values).slice(0, MAX_LIST).map((v) => format(v as never));
  return `[${shown.join(', ')}${values.length > MAX_LIST ? `, … (${values.length})` : ''}]`;
};
const toNumber = (v: unknown): number => (typeof v === 'number' ? v : Number(v));

/** An attribute's value as one short line. */
export function attributeText(attribute: onnx.IAttributeProto): string {
  const A = onnx.AttributeProto.AttributeType;
  switch (attribute.type) {
    case A.FLOAT:
      return number(attribute.f ?? 0);
    case A.INT: {
      const value = toNumber(attribute.i ?? 0);
      // Cast's `to` and similar: the type's name reads better than its code.
      return /^(to|dtype|output_dtype|saturate_type)$/.test(attribute.name ?? '') ? `${value} (${dataTypeName(value)})` : String(value);
    }
    case A.STRING:
      return JSON.stringify(printable(new TextDecoder().decode(attribute.s ?? new Uint8Array()), 120));
    case A.FLOATS:
      return list(attribute.floats ?? [], number);
    case A.INTS:
      return list((attribute.ints ?? []).map(toNumber), String);
    case A.STRINGS:
      return list(attribute.strings ?? [], (s: Uint8Array) => JSON.stringify(printable(new TextDecoder().decode(s), 40)));
    case A.GRAPH:
      return `graph '${printable(attribute.g?.name ?? '', 80)}' (${attribute.g?.node?.length ?? 0} nodes)`;
    case A.GRAPHS:
      return `${attribute.graphs?.length ?? 0} graphs`;
    case A.TENSOR:
      return `tensor ${dataTypeName(attribute.t?.data_type ?? 0)} [${(attribute.t?.dims ?? []).map(toNumber).join(', ')}]`;
    default:
      return attribute.ref_attr_name ? `ref ${attribute.ref_attr_name}` : '(other)';
  }
}

function shapeText(type: onnx.ITypeProto | null | undefined): string | undefined {
  const shape = type?.tensor_type?.shape;
  if (!shape) return undefined;
  return `[${(shape.dim ?? []).map((d) => (d.dim_param ? printable(d.dim_param, 30) : d.dim_value !== undefined && d.dim_value !== null ? String(toNumber(d.dim_value)) : '?')).join(', ')}]`;
}

/** The first values of an in-file tensor (external data is not read for a preview). */
export function previewText(tensor: onnx.ITensorProto): string | undefined {
  if (isExternal(tensor)) return undefined;
  const count = (tensor.dims ?? []).reduce<number>((n, d) => n * toNumber(d), 1);
  const raw = tensor.raw_data && tensor.raw_data.length ? tensor.raw_data : undefined;
  const view = raw ? new DataView(raw.buffer, raw.byteOffset, raw.byteLength) : undefined;
  const take = Math.min(PREVIEW_COUNT, count);
  const values: number[] = [];
  for (let i = 0; i < take; i++) {
    let v: number | undefined;
    switch (tensor.data_type) {
      case DataType.FLOAT:
        v = view ? (i * 4 + 4 <= view.byteLength ? view.getFloat32(i * 4, true) : undefined) : tensor.float_data?.[i];
        break;
      case DataType.FLOAT16:
      case DataType.BFLOAT16: {
        const bits = view ? (i * 2 + 2 <= view.byteLength ? view.getUint16(i * 2, true) : undefined) : tensor.int32_data?.[i];
        v = bits === undefined ? undefined : tensor.data_type === DataType.FLOAT16 ? float16BitsToFloat32(bits) : bfloat16BitsToFloat32(bits);
        break;
      }
      case DataType.DOUBLE:
        v = view ? (i * 8 + 8 <= view.byteLength ? view.getFloat64(i * 8, true) : undefined) : tensor.double_data?.[i];
        break;
      case DataType.INT64:
        v = view ? (i * 8 + 8 <= view.byteLength ? Number(view.getBigInt64(i * 8, true)) : undefined) : tensor.int64_data?.[i] === undefined ? undefined : toNumber(tensor.int64_data[i]);
        break;
      case DataType.INT32:
        v = view ? (i * 4 + 4 <= view.byteLength ? view.getInt32(i * 4, true) : undefined) : tensor.int32_data?.[i];
        break;
      default:
        return undefined;
    }
    if (v === undefined) break;
    values.push(v);
  }
  if (!values.length) return undefined;
  return `${values.map(number).join(', ')}${count > values.length ? `, … (${count} values)` : ''}`;
}

/** Attributes of every node (keyed as the audit names it), declared shapes and weight previews. */
export function modelFacts(model: onnx.IModelProto): ModelFacts {
  const facts: ModelFacts = { attributes: new Map(), shapes: new Map(), previews: new Map() };
  const graph = new ModelGraph(model);
  for (const scope of graph.scopes) {
    const g = scope.graph;
    for (const info of [...(g.input ?? []), ...(g.output ?? []), ...(g.value_info ?? [])]) {
      const text = shapeText(info.type);
      if (info.name && text) facts.shapes.set(info.name, text);
    }
    for (const tensor of g.initializer ?? []) {
      if (!tensor.name) continue;
      facts.shapes.set(tensor.name, `[${(tensor.dims ?? []).map(toNumber).join(', ')}]`);
      const preview = previewText(tensor);
      if (preview) facts.previews.set(tensor.name, preview);
    }
    (g.node ?? []).forEach((node, index) => {
      if (!node.attribute?.length) return;
      // The audit's id: the node's name, or Op#index for an unnamed one (passes/amp/node-types.ts).
      const id = node.name || `${node.op_type ?? '?'}#${index}`;
      facts.attributes.set(`${scope.path}\u0000${id}`, node.attribute.map((a) => [printable(a.name ?? '', 60), attributeText(a)]));
    });
  }
  // What the model does not declare, static inference often knows (fully known dims, main graph
  // only): exporters seldom write value_info for intermediate values, and Netron shows none then.
  for (const [name, dims] of inferShapes(graph)) if (!facts.shapes.has(name)) facts.shapes.set(name, `[${dims.join(', ')}]`);
  return facts;
}
