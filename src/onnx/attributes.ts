/** Reading node attributes by name. */
import type { onnx } from './generated/onnx.js';
import { longToNumber } from './external-data.js';

export function findAttribute(node: onnx.INodeProto, name: string): onnx.IAttributeProto | undefined {
  return node.attribute?.find((attribute) => attribute.name === name);
}

export function intAttribute(node: onnx.INodeProto, name: string): number | undefined {
  const attribute = findAttribute(node, name);
  return attribute && attribute.i != null ? longToNumber(attribute.i) : undefined;
}
