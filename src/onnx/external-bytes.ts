/**
 * External data given as bytes, not files (the web page: the user drops the model and its data
 * files): each external tensor's range is copied into its raw_data, so that the model travels as
 * one message. The same checks as on files: a location inside the model's folder, a range inside
 * the file, every file there.
 */
import { AmpError } from './errors.js';
import { checkedLocation, checkedRange, isExternal, normalizedLocation } from './external-data.js';
import type { onnx } from './generated/onnx.js';
import { printable } from './printable.js';
import { forEachTensor } from './walk.js';

/**
 * Copies every external tensor's bytes from `files` into its raw_data, in place: a file is found
 * by the tensor's location, resolved (`./w.data` is `w.data`), or, where only the file's name is
 * known (a file picked or dropped in a page), by the location's last part. Returns how many tensors
 * were embedded.
 */
export function embedExternalBytes(model: onnx.IModelProto, files: ReadonlyMap<string, Uint8Array>): number {
  const byPath = new Map<string, Uint8Array>();
  const byName = new Map<string, Uint8Array>();
  for (const [key, bytes] of files) {
    const inside = normalizedLocation(key);
    byPath.set(inside, bytes);
    byName.set(lastPart(inside), bytes);
  }
  let embedded = 0;
  forEachTensor(model, (tensor) => {
    if (!isExternal(tensor)) return;
    const name = tensor.name ?? '';
    const { location, inside } = checkedLocation(tensor);
    const data = byPath.get(inside) ?? byName.get(lastPart(inside));
    if (!data) {
      throw new AmpError('EXTERNAL_DATA_MISSING', `tensor '${printable(name)}': its external data file ${printable(location)} was not given (add it beside the model)`, { subject: name });
    }
    const { offset, length } = checkedRange(tensor, location, data.length);
    tensor.raw_data = data.subarray(offset, offset + length);
    delete tensor.data_location;
    tensor.external_data = [];
    embedded++;
  });
  return embedded;
}

const lastPart = (inside: string): string => inside.slice(inside.lastIndexOf('/') + 1);
