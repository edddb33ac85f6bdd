/**
 * Tensors whose bytes live outside the .onnx file (ONNX's external data: `location`, `offset`,
 * `length` key/value pairs). Loading records where each tensor's bytes are and checks that they
 * exist; the bytes themselves are read only when asked for. The model message is not changed,
 * so a load/save cycle is lossless.
 */
import { constants as bufferConstants } from 'node:buffer';
import { closeSync, constants as fsConstants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';
import Long from 'long';
import { AmpError } from './errors.js';
import { onnx } from './generated/onnx.js';
import { printable } from './printable.js';

export interface ExternalDataRef {
  /** The `location` key, relative to the model's folder. */
  location: string;
  /** Absolute path of the data file. */
  file: string;
  offset: number;
  length: number;
}

/** Where the bytes of a loaded external tensor are. Kept beside the model, not in it. */
const externalRefs = new WeakMap<onnx.ITensorProto, ExternalDataRef>();

export function isExternal(tensor: onnx.ITensorProto): boolean {
  return tensor.data_location === onnx.TensorProto.DataLocation.EXTERNAL;
}

export function externalDataEntries(tensor: onnx.ITensorProto): Map<string, string> {
  return new Map((tensor.external_data ?? []).map((entry) => [entry.key ?? '', entry.value ?? '']));
}

/** What one stat of a data file found: its real path (symlinks resolved) and size. */
export interface DataFileInfo {
  real: string;
  size: number;
}

export interface ResolveOptions {
  /**
   * Accept a data file whose real path (after symlinks) is outside the model's real folder.
   * ONNX Runtime refuses such models; the default refuses them too.
   */
  allowOutside?: boolean;
}

/**
 * Resolves an external tensor's location against the model folder, requires the data file to be
 * a regular file whose real path is inside the model's real folder, and checks the range against
 * its size (`files` caches one look per data file).
 */
export function resolveExternalData(
  tensor: onnx.ITensorProto,
  modelDir: string,
  files: Map<string, DataFileInfo>,
  options: ResolveOptions = {},
): ExternalDataRef {
  const name = tensor.name ?? '';
  const shown = printable(name);
  const entries = externalDataEntries(tensor);
  const location = entries.get('location');
  if (!location) {
    throw new AmpError('EXTERNAL_DATA_BAD_LOCATION', `tensor '${shown}': external data has no 'location' key`, { subject: name });
  }
  const normalized = path.normalize(location);
  if (path.isAbsolute(location) || normalized.split(/[\\/]/).includes('..') || location.includes('\0')) {
    throw new AmpError(
      'EXTERNAL_DATA_BAD_LOCATION',
      `tensor '${shown}': external data location '${printable(location)}' must be a path inside the model's folder`,
      { subject: name },
    );
  }
  const file = path.join(modelDir, normalized);
  let info = files.get(file);
  if (info === undefined) {
    info = inspectDataFile(file, modelDir, name, location, options);
    files.set(file, info);
  }
  const size = info.size;
  const offset = parseCount(entries.get('offset') ?? '0', 'offset', name);
  const length = entries.has('length') ? parseCount(entries.get('length') ?? '', 'length', name) : size - offset;
  if (offset > size || offset + length > size) {
    throw new AmpError(
      'EXTERNAL_DATA_OUT_OF_RANGE',
      `tensor '${shown}': external data ${printable(location)} bytes ${offset}..${offset + length} run past the end of the file (${size} bytes)`,
      { subject: name },
    );
  }
  return { location, file: info.real, offset, length };
}

function inspectDataFile(file: string, modelDir: string, tensorName: string, location: string, options: ResolveOptions): DataFileInfo {
  const shown = `tensor '${printable(tensorName)}': external data file '${printable(location)}'`;
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    throw new AmpError('EXTERNAL_DATA_MISSING', `${shown} not found (looked for ${printable(file, 400)})`, { subject: tensorName });
  }
  if (!options.allowOutside) {
    const realDir = realpathSync(modelDir);
    if (!real.startsWith(realDir + path.sep)) {
      throw new AmpError(
        'UNSAFE_PATH',
        `${shown} resolves to ${printable(real, 400)}, outside the model's folder ${printable(realDir, 400)} ` +
          '(ONNX Runtime refuses this too; pass --allow-external-outside to accept it)',
        { subject: tensorName },
      );
    }
  }
  return { real, size: regularFileSize(real, shown, tensorName) };
}

/**
 * Opens without blocking (a FIFO would wait forever for a writer) and requires a regular file:
 * no FIFO, device, socket or folder.
 */
function regularFileSize(file: string, shown: string, subject: string): number {
  const fd = openRegularFile(file, shown, subject);
  try {
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

export function openRegularFile(file: string, shown: string, subject: string): number {
  let fd: number;
  try {
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  } catch (error) {
    throw new AmpError('EXTERNAL_DATA_MISSING', `${shown} cannot be opened (${(error as NodeJS.ErrnoException).code ?? error})`, { subject });
  }
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    const kind = stats.isDirectory() ? 'a folder' : stats.isFIFO() ? 'a FIFO' : stats.isCharacterDevice() || stats.isBlockDevice() ? 'a device' : 'not a regular file';
    throw new AmpError('EXTERNAL_DATA_BAD_LOCATION', `${shown} is ${kind}; external data must be a regular file`, { subject });
  }
  return fd;
}

function parseCount(text: string, key: string, tensorName: string): number {
  if (!/^\d+$/.test(text)) {
    throw new AmpError('EXTERNAL_DATA_BAD_LOCATION', `tensor '${tensorName}': external data ${key} '${text}' is not a byte count`, {
      subject: tensorName,
    });
  }
  return Number(text);
}

export function attachExternalRef(tensor: onnx.ITensorProto, ref: ExternalDataRef): void {
  externalRefs.set(tensor, ref);
}

export function externalRefOf(tensor: onnx.ITensorProto): ExternalDataRef | undefined {
  return externalRefs.get(tensor);
}

/** Reads a byte range of a file; used for external tensors, one tensor at a time. */
export function readFileRange(file: string, offset: number, length: number): Uint8Array {
  if (length > bufferConstants.MAX_LENGTH) {
    // One Buffer holds at most MAX_LENGTH bytes; callers that can stream use tensor-chunks.ts.
    throw new AmpError('MODEL_TOO_LARGE', `${file}: ${length} bytes at ${offset} do not fit in one buffer (at most ${bufferConstants.MAX_LENGTH}); keep them in external data`);
  }
  const out = Buffer.allocUnsafe(length);
  const fd = openRegularFile(file, `external data file ${printable(file, 400)}`, file);
  try {
    let done = 0;
    while (done < length) {
      const n = readSync(fd, out, done, length - done, offset + done);
      if (n === 0) throw new AmpError('EXTERNAL_DATA_OUT_OF_RANGE', `${file}: ended at byte ${offset + done}, expected ${offset + length}`);
      done += n;
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

/**
 * The raw little-endian bytes of a tensor: raw_data, or the external range it points to. Typed
 * fields (float_data, int64_data...) are not raw bytes; the caller handles those.
 */
export function tensorRawBytes(tensor: onnx.ITensorProto): Uint8Array | undefined {
  if (isExternal(tensor)) {
    const ref = externalRefOf(tensor);
    if (!ref) {
      throw new AmpError('EXTERNAL_DATA_MISSING', `tensor '${tensor.name ?? ''}': external data was not resolved; load the model with loadModel()`, {
        subject: tensor.name ?? '',
      });
    }
    return readFileRange(ref.file, ref.offset, ref.length);
  }
  return tensor.raw_data ?? undefined;
}

export function longToNumber(value: Long | number | null | undefined): number {
  if (value == null) return 0;
  if (typeof value === 'number') return value;
  // A Long is read in place: Long.fromValue copies even a Long (a new object per dim and int attribute read).
  return Long.isLong(value) ? value.toNumber() : Long.fromValue(value).toNumber();
}
