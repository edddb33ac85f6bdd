/**
 * The rules every file this tool writes follows:
 *  - no output is the same file as an input or as another output, compared by real path (after
 *    symlinks, /proc/self/cwd and symlinked folders) and by device+inode (hard links);
 *  - temporary files are created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW) in the target folder,
 *    so a planted symlink or an existing file is never written through;
 *  - temporary files still open when SIGINT/SIGTERM arrives are removed before the process dies.
 */
import { closeSync, constants as fsConstants, fsyncSync, lstatSync, openSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { AmpError } from './errors.js';
import { printable } from './printable.js';

export interface NamedPath {
  path: string;
  /** What the path is, for messages: "the input model", "--report", "the data file of tensor 'w'". */
  role: string;
}

interface Identity {
  /** Where the directory entry really is: real folder + base name (what a rename replaces). */
  entry: string;
  /** The file's real path when it exists (symlinks followed). */
  real?: string;
  /** device:inode when it exists. */
  inode?: string;
}

function identityOf(file: string): Identity {
  const absolute = path.resolve(file);
  let folder = path.dirname(absolute);
  try {
    folder = realpathSync(folder);
  } catch {
    // A folder that does not exist yet cannot hold an input.
  }
  const identity: Identity = { entry: path.join(folder, path.basename(absolute)) };
  try {
    identity.real = realpathSync(absolute);
    const stats = statSync(absolute);
    identity.inode = `${stats.dev}:${stats.ino}`;
  } catch {
    // Does not exist (yet): only the entry can collide.
  }
  return identity;
}

function sameFile(a: Identity, b: Identity): boolean {
  const names = new Set([a.entry, a.real].filter(Boolean));
  return names.has(b.entry) || (b.real !== undefined && names.has(b.real)) || (a.inode !== undefined && a.inode === b.inode);
}

/** Whether two paths name the same file (real path or device+inode). */
export function isSameFile(a: string, b: string): boolean {
  return sameFile(identityOf(a), identityOf(b));
}

/**
 * Refuses (UNSAFE_PATH, exit 2) when any output is the same file as an input or as another
 * output. Nothing has been written when this throws.
 */
export function assertSeparateFiles(outputs: readonly NamedPath[], inputs: readonly NamedPath[]): void {
  const inputIds = inputs.map((input) => ({ ...input, id: identityOf(input.path) }));
  const outputIds: Array<NamedPath & { id: Identity }> = [];
  for (const output of outputs) {
    const id = identityOf(output.path);
    for (const input of inputIds) {
      if (sameFile(id, input.id)) {
        throw new AmpError('UNSAFE_PATH', `${output.role} ${printable(output.path, 400)} is ${input.role} (${printable(input.path, 400)}); write to another file`, {
          subject: output.path,
        });
      }
    }
    for (const other of outputIds) {
      if (sameFile(id, other.id)) {
        throw new AmpError('UNSAFE_PATH', `${output.role} ${printable(output.path, 400)} and ${other.role} ${printable(other.path, 400)} are the same file`, {
          subject: output.path,
        });
      }
    }
    outputIds.push({ ...output, id });
  }
}

/** Whether anything (a file, folder or dangling symlink) has this name. */
export function entryExists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

// ---- temporary files ----

const liveTemporaries = new Set<string>();
let signalHandlersInstalled = false;

function removeLiveTemporaries(): void {
  for (const file of liveTemporaries) rmSync(file, { force: true });
  liveTemporaries.clear();
}

function installSignalHandlers(): void {
  if (signalHandlersInstalled) return;
  signalHandlersInstalled = true;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = (): void => {
      removeLiveTemporaries();
      // Die of the signal as if no handler had been installed, unless the host has its own.
      if (process.listenerCount(signal) === 1) {
        process.removeListener(signal, handler);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, handler);
  }
  process.on('exit', removeLiveTemporaries);
}

/** Test hook: called at each step of a multi-file write ("data-linked", "model-committed"...). */
let faultHook: ((step: string) => void) | undefined;

export function setWriteFaultHook(hook: ((step: string) => void) | undefined): void {
  faultHook = hook;
}

export function reachedStep(step: string): void {
  faultHook?.(step);
}

const EXCLUSIVE = fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY | fsConstants.O_NOFOLLOW;

/**
 * Creates a fresh temporary file beside `final` (same folder, so the rename is atomic), never
 * following a symlink and never opening an existing file. Returns its path and descriptor.
 */
export function createTemporary(final: string): { temp: string; fd: number } {
  installSignalHandlers();
  for (let attempt = 0; ; attempt++) {
    const temp = path.join(path.dirname(final), `.${path.basename(final)}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
    try {
      liveTemporaries.add(temp);
      const fd = openSync(temp, EXCLUSIVE, 0o644);
      return { temp, fd };
    } catch (error) {
      liveTemporaries.delete(temp);
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 10) throw error;
    }
  }
}

/** Removes a temporary file (after a failure) and forgets it. */
export function discardTemporary(temp: string): void {
  rmSync(temp, { force: true });
  liveTemporaries.delete(temp);
}

/** Renames a finished temporary file into place; from here on it is no longer temporary. */
export function commitTemporary(temp: string, final: string): void {
  renameSync(temp, final);
  liveTemporaries.delete(temp);
}

export function writeAll(fd: number, bytes: Uint8Array, position?: number): void {
  for (let done = 0; done < bytes.length; ) {
    done += writeSync(fd, bytes, done, bytes.length - done, position === undefined ? null : position + done);
  }
}

/** Writes a whole file through an exclusive temporary and an atomic rename. */
export function writeFileAtomically(file: string, bytes: Uint8Array): void {
  const { temp, fd } = createTemporary(path.resolve(file));
  try {
    try {
      writeAll(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    commitTemporary(temp, file);
  } catch (error) {
    discardTemporary(temp);
    throw error;
  }
}
