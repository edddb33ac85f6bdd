/**
 * Tensors whose bytes live outside the .onnx file (ONNX's external data: `location`, `offset`,
 * `length` key/value pairs). Loading records where each tensor's bytes are and checks that they
 * exist; the bytes themselves are read only when asked for. The model message is not changed,
 * so a load/save cycle is lossless.
 *
 * Each data file is opened once, at load, with no-follow semantics (its real path opened with
 * O_NOFOLLOW), checked on the open descriptor (fstat: a regular file; /proc/self/fd: inside the
 * model's real folder), and every later read (the pass's scans, the save's copies) goes through
 * that descriptor: a file swapped for a symlink or a FIFO mid-run is never read.
 */
import { constants as bufferConstants } from 'node:buffer';
import { closeSync, constants as fsConstants, fstatSync, openSync, readlinkSync, readSync, realpathSync, statSync } from 'node:fs';
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
  /** The data file opened and checked at load: reads go through it, never through the path again. */
  handle?: DataFileHandle;
}

/** Where the bytes of a loaded external tensor are. Kept beside the model, not in it. */
const externalRefs = new WeakMap<onnx.ITensorProto, ExternalDataRef>();

export function isExternal(tensor: onnx.ITensorProto): boolean {
  return tensor.data_location === onnx.TensorProto.DataLocation.EXTERNAL;
}

export function externalDataEntries(tensor: onnx.ITensorProto): Map<string, string> {
  return new Map((tensor.external_data ?? []).map((entry) => [entry.key ?? '', entry.value ?? '']));
}

/**
 * A data file opened once and checked on its descriptor: its real path, its size, and the
 * descriptor every read goes through. Closed when no tensor refers to it any more.
 */
export interface DataFileHandle {
  real: string;
  size: number;
  fd: number;
}
/** @deprecated the old name of DataFileHandle. */
export type DataFileInfo = DataFileHandle;

const closeWhenUnreachable = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
});

/** Test hook: called between the path checks and the open ("checked"), to swap the file there. */
let openHook: ((step: string, file: string) => void) | undefined;

export function setDataFileHook(hook: ((step: string, file: string) => void) | undefined): void {
  openHook = hook;
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
  return { location, file: info.real, offset, length, handle: info };
}

function inspectDataFile(file: string, modelDir: string, tensorName: string, location: string, options: ResolveOptions): DataFileHandle {
  const shown = `tensor '${printable(tensorName)}': external data file '${printable(location)}'`;
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    throw new AmpError('EXTERNAL_DATA_MISSING', `${shown} not found (looked for ${printable(file, 400)})`, { subject: tensorName });
  }
  const realDir = options.allowOutside ? undefined : realpathSync(modelDir);
  if (realDir !== undefined) requireInside(real, realDir, shown, tensorName);
  openHook?.('checked', real);
  // The real path has no symlink left in it: O_NOFOLLOW refuses one swapped in since.
  const fd = openRegularFile(real, shown, tensorName, true);
  try {
    // What the descriptor really is, whatever happened to the path since realpath.
    const opened = openedPath(fd, real);
    if (opened !== real && realDir !== undefined) requireInside(opened, realDir, shown, tensorName);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  const handle: DataFileHandle = { real, size: fstatSync(fd).size, fd };
  closeWhenUnreachable.register(handle, fd);
  return handle;
}

function requireInside(real: string, realDir: string, shown: string, tensorName: string): void {
  if (!real.startsWith(realDir + path.sep)) {
    throw new AmpError(
      'UNSAFE_PATH',
      `${shown} resolves to ${printable(real, 400)}, outside the model's folder ${printable(realDir, 400)} ` +
        '(ONNX Runtime refuses this too; pass --allow-external-outside to accept it)',
      { subject: tensorName },
    );
  }
}

/**
 * The path of the file an open descriptor is: Linux's /proc/self/fd link; elsewhere `expected`
 * when it is still the same file (device and inode), else a name that fails the folder check.
 */
function openedPath(fd: number, expected: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    const now = fstatSync(fd);
    try {
      const there = statSync(expected);
      if (there.dev === now.dev && there.ino === now.ino) return expected;
    } catch {
      // Gone from its path.
    }
    return '(a file swapped in while opening)';
  }
}

/**
 * Opens without blocking (a FIFO would wait forever for a writer) and requires a regular file:
 * no FIFO, device, socket or folder. `noFollow`: a symlink at the last step is refused (ELOOP).
 */
export function openRegularFile(file: string, shown: string, subject: string, noFollow = false): number {
  let fd: number;
  try {
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | (noFollow ? fsConstants.O_NOFOLLOW : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new AmpError('UNSAFE_PATH', `${shown} became a symbolic link after it was checked; not followed`, { subject });
    throw new AmpError('EXTERNAL_DATA_MISSING', `${shown} cannot be opened (${code ?? error})`, { subject });
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

/**
 * Runs `read` on the descriptor of an external tensor's data file: the one opened and checked at
 * load when there is one (never reopened by path), else the file opened now, no-follow, checked.
 */
export function withDataFile<T>(ref: ExternalDataRef, read: (fd: number) => T): T {
  if (ref.handle) return read(ref.handle.fd);
  const fd = openRegularFile(ref.file, `external data file ${printable(ref.file, 400)}`, ref.file, true);
  try {
    return read(fd);
  } finally {
    closeSync(fd);
  }
}

/** Reads the byte range of an external tensor; one tensor at a time. */
export function readRefRange(ref: ExternalDataRef): Uint8Array {
  const { file, offset, length } = ref;
  if (length > bufferConstants.MAX_LENGTH) {
    // One Buffer holds at most MAX_LENGTH bytes; callers that can stream use tensor-chunks.ts.
    throw new AmpError('MODEL_TOO_LARGE', `${file}: ${length} bytes at ${offset} do not fit in one buffer (at most ${bufferConstants.MAX_LENGTH}); keep them in external data`);
  }
  const out = Buffer.allocUnsafe(length);
  withDataFile(ref, (fd) => {
    let done = 0;
    while (done < length) {
      const n = readSync(fd, out, done, length - done, offset + done);
      if (n === 0) throw new AmpError('EXTERNAL_DATA_OUT_OF_RANGE', `${file}: ended at byte ${offset + done}, expected ${offset + length}`);
      done += n;
    }
  });
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
    return readRefRange(ref);
  }
  return tensor.raw_data ?? undefined;
}

export function longToNumber(value: Long | number | null | undefined): number {
  if (value == null) return 0;
  if (typeof value === 'number') return value;
  // A Long is read in place: Long.fromValue copies even a Long (a new object per dim and int attribute read).
  return Long.isLong(value) ? value.toNumber() : Long.fromValue(value).toNumber();
}
