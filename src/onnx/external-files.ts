/**
 * External data on the file system: each data file is opened once, at load, with no-follow
 * semantics (its real path opened with O_NOFOLLOW), checked on the open descriptor (fstat: a
 * regular file; /proc/self/fd: inside the model's real folder), and every later read (the pass's
 * scans, the save's copies) goes through that descriptor: a file swapped for a symlink or a FIFO
 * mid-run is never read. Loading this module makes external tensors readable (external-data.ts).
 */
import { constants as bufferConstants } from 'node:buffer';
import { closeSync, constants as fsConstants, fstatSync, openSync, readlinkSync, readSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { AmpError } from './errors.js';
import { checkedLocation, checkedRange, setExternalReader, type DataFileHandle, type ExternalDataRef } from './external-data.js';
import type { onnx } from './generated/onnx.js';
import { printable } from './printable.js';

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
 * its size (`files` holds one open, checked descriptor per data file).
 */
export function resolveExternalData(
  tensor: onnx.ITensorProto,
  modelDir: string,
  files: Map<string, DataFileHandle>,
  options: ResolveOptions = {},
): ExternalDataRef {
  const { location, inside } = checkedLocation(tensor);
  const file = path.join(modelDir, inside);
  let info = files.get(file);
  if (info === undefined) {
    info = inspectDataFile(file, modelDir, tensor.name ?? '', location, options);
    files.set(file, info);
  }
  const { offset, length } = checkedRange(tensor, location, info.size);
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

/** An external tensor's bytes in pieces of `into`'s size, through the descriptor opened and checked at load (the path is never reopened). */
function readRefChunks(ref: ExternalDataRef, name: string, into: Uint8Array, visit: (length: number, done: number) => void): void {
  withDataFile(ref, (fd) => {
    for (let done = 0; done < ref.length; ) {
      const want = Math.min(into.length, ref.length - done);
      let got = 0;
      while (got < want) {
        const n = readSync(fd, into, got, want - got, ref.offset + done + got);
        if (n === 0) throw new AmpError('EXTERNAL_DATA_OUT_OF_RANGE', `tensor '${name}': ${ref.file} ended at byte ${ref.offset + done + got}, expected ${ref.offset + ref.length}`, { subject: name });
        got += n;
      }
      visit(want, done);
      done += want;
    }
  });
}

setExternalReader({ whole: readRefRange, chunks: readRefChunks });
