/**
 * External data given as bytes, not files (the web page: the user drops the model and its data
 * files): each external tensor's range is copied into its raw_data, so that the model travels as
 * one message. The same checks as on files: a location inside the model's folder, a range inside
 * the file, every file there.
 */
import { AmpError } from './errors.js';
import { externalDataEntries, isExternal, parseCount } from './external-data.js';
import type { onnx } from './generated/onnx.js';
import { printable } from './printable.js';
import { forEachTensor } from './walk.js';

/** The file an external data `location` names, as a key of the files given: its path with `./` and repeated slashes removed. */
export function dataFileKey(location: string): string {
  return location.split(/[\\/]+/).filter((part) => part !== '.' && part !== '').join('/');
}

/**
 * Copies every external tensor's bytes from `files` (by dataFileKey of its location, or by the
 * location's last part where only the file's name is known) into its raw_data, in place. Returns
 * how many tensors were embedded.
 */
export function embedExternalBytes(model: onnx.IModelProto, files: ReadonlyMap<string, Uint8Array>): number {
  const byName = new Map<string, Uint8Array>();
  for (const [key, bytes] of files) byName.set(dataFileKey(key).split('/').pop() as string, bytes);
  let embedded = 0;
  forEachTensor(model, (tensor) => {
    if (!isExternal(tensor)) return;
    const name = tensor.name ?? '';
    const shown = printable(name);
    const entries = externalDataEntries(tensor);
    const location = entries.get('location');
    if (!location) throw new AmpError('EXTERNAL_DATA_BAD_LOCATION', `tensor '${shown}': external data has no 'location' key`, { subject: name });
    const key = dataFileKey(location);
    if (/^([\\/]|[A-Za-z]:)/.test(location) || key.split('/').includes('..') || location.includes('\0')) {
      throw new AmpError('EXTERNAL_DATA_BAD_LOCATION', `tensor '${shown}': external data location '${printable(location)}' must be a path inside the model's folder`, { subject: name });
    }
    const data = files.get(key) ?? byName.get(key.split('/').pop() as string);
    if (!data) {
      throw new AmpError('EXTERNAL_DATA_MISSING', `tensor '${shown}': its external data file ${printable(location)} was not given (add it beside the model)`, { subject: name });
    }
    const offset = parseCount(entries.get('offset') ?? '0', 'offset', name);
    const length = entries.has('length') ? parseCount(entries.get('length') ?? '', 'length', name) : data.length - offset;
    if (offset > data.length || offset + length > data.length) {
      throw new AmpError('EXTERNAL_DATA_OUT_OF_RANGE', `tensor '${shown}': external data ${printable(location)} bytes ${offset}..${offset + length} run past the end of the file (${data.length} bytes)`, { subject: name });
    }
    tensor.raw_data = data.subarray(offset, offset + length);
    delete tensor.data_location;
    tensor.external_data = [];
    embedded++;
  });
  return embedded;
}
