/** Reading node attributes by name. */
import type { onnx } from './generated/onnx.js';
import { longToNumber } from './external-data.js';
import { DataType } from './data-types.js';
import { decodeUtf8, encodeUtf8 } from './utf8.js';

/** The node's first attribute of that name (a loop, no callback: every phase asks this for every node). */
export function findAttribute(node: onnx.INodeProto, name: string): onnx.IAttributeProto | undefined {
  const attributes = node.attribute;
  if (!attributes) return undefined;
  for (let i = 0; i < attributes.length; i++) {
    const attribute = attributes[i] as onnx.IAttributeProto;
    if (attribute.name === name) return attribute;
  }
  return undefined;
}

export function intAttribute(node: onnx.INodeProto, name: string): number | undefined {
  const attribute = findAttribute(node, name);
  return attribute && attribute.i != null ? longToNumber(attribute.i) : undefined;
}

/** An INTS attribute's values; undefined when it is absent or empty (an empty perm is no perm). */
export function intsAttribute(node: onnx.INodeProto, name: string): number[] | undefined {
  const list = findAttribute(node, name)?.ints;
  return list && list.length ? list.map((value) => longToNumber(value)) : undefined;
}

/**
 * A data-type attribute: an int (Cast-6 and later, dtype attributes) or, in Cast-1, a string
 * such as "FLOAT16".
 */
export function dtypeAttribute(node: onnx.INodeProto, name: string): number | undefined {
  const attribute = findAttribute(node, name);
  if (!attribute) return undefined;
  if (attribute.s && attribute.s.length) {
    const code = (DataType as unknown as Record<string, number>)[decodeUtf8(attribute.s).toUpperCase()];
    return typeof code === 'number' ? code : undefined;
  }
  return attribute.i != null ? longToNumber(attribute.i) : undefined;
}

/** Sets a data-type attribute in the form the attribute already uses (int, or Cast-1's string). */
export function setDtypeAttribute(attribute: onnx.IAttributeProto, type: number): void {
  if (attribute.s && attribute.s.length) attribute.s = encodeUtf8(DataType[type] as unknown as string);
  else attribute.i = type as unknown as typeof attribute.i;
}
