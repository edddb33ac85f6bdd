/** ONNX type strings (`tensor(float16)`) as the schemas write them, to element type codes. */
import { dataTypeCode } from './data-types.js';

const typeStringCodes = new Map<string, number | undefined>();

/** A type string such as `tensor(float16)` to its element type; undefined for non-tensors. */
export function elemTypeOfTypeString(typeString: string): number | undefined {
  // Asked for every value whose schema names a concrete type (Shape's int64, say): remembered per
  // type string, since the schemas hold a few dozen of them and a regular expression per value was
  // a fifth of type inference.
  if (typeStringCodes.has(typeString)) return typeStringCodes.get(typeString);
  const match = /^tensor\((\w+)\)$/.exec(typeString);
  const code = match ? dataTypeCode(match[1] as string) : undefined;
  if (typeStringCodes.size < 1024) typeStringCodes.set(typeString, code);
  return code;
}
