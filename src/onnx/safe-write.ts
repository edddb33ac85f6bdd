/**
 * The one door every file this tool writes goes through (models, data files, reports, sidecars,
 * bench and run outputs, overrides, the AMP_REWRITE_PROFILE profile, doctor's copies).
 *
 * How a command uses it:
 *   1. `checkOutputs(outputs, inputs)` before the work: every output is refused (exit 2, nothing
 *      written) when an existing file there is not a regular file (a device, FIFO, socket or
 *      folder: it would be replaced), when it is an input or another output (real path, after
 *      symlinks, /proc/self/cwd and symlinked folders, or device+inode for hard links), or when
 *      its folder is missing or not writable.
 *   2. `const batch = new OutputBatch()`, then `batch.stage(file, role, bytes)` for each file
 *      (`saveModel(..., { batch })` stages a model and its data files), the model last: each goes
 *      to an exclusive temporary file beside its target (O_CREAT|O_EXCL|O_NOFOLLOW, so a planted
 *      symlink is never written through) and nothing is visible yet.
 *   3. `await yieldToSignals()` (a SIGINT/SIGTERM that arrived while staging ends the process
 *      here, temporaries removed, nothing committed), then `batch.commit()`: data files first
 *      (under names nothing else reads, never replacing), then the rest in staging order, so the
 *      model is committed last. A failure says exactly what was and was not written.
 * `writeFileAtomically(file, bytes)` is steps 2-3 for a single file.
 *
 * Temporary files are named `.<file>.amp-rewrite-<pid>-<random>.tmp`; a later run removes those
 * of a process that is gone (after `kill -9`), and SIGINT/SIGTERM remove those of this one.
 */
import { accessSync, closeSync, constants as fsConstants, copyFileSync, fsyncSync, linkSync, lstatSync, openSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import type { Stats } from 'node:fs';

/** What fileKind reads of a stat: structural, so the public declarations need no Node.js types. */
interface FileKindStats {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
  isSymbolicLink(): boolean;
}
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

// ---- checking targets ----

/** What a non-regular file is, for messages. */
export function fileKind(stats: FileKindStats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

function errnoOf(error: unknown): string {
  return (error as NodeJS.ErrnoException)?.code ?? String(error);
}

/**
 * Refuses a target this tool must not write: an existing entry that is not a regular file (a
 * device, FIFO or socket would be replaced by a regular file, a folder cannot be), or a folder
 * that does not exist or cannot be written. Nothing has been written when this throws.
 */
export function checkWritableTarget(output: NamedPath): void {
  const file = path.resolve(output.path);
  const shown = `${output.role} ${printable(output.path, 400)}`;
  let stats: Stats | undefined;
  try {
    // Followed: a symlink to /dev/null is refused as the device it leads to.
    stats = statSync(file);
  } catch {
    // Absent, or a dangling symlink (the rename replaces the link itself).
  }
  if (stats && !stats.isFile()) {
    throw new AmpError('UNSAFE_PATH', `${shown} is ${fileKind(stats)}; amp-rewrite writes only regular files (it would replace it)`, { subject: output.path });
  }
  const folder = path.dirname(file);
  let folderStats: Stats;
  try {
    folderStats = statSync(folder);
  } catch (error) {
    throw new AmpError('WRITE_FAILED', `${shown}: its folder ${printable(folder, 400)} does not exist (${errnoOf(error)})`, { subject: output.path });
  }
  if (!folderStats.isDirectory()) throw new AmpError('WRITE_FAILED', `${shown}: ${printable(folder, 400)} is not a folder`, { subject: output.path });
  try {
    accessSync(folder, fsConstants.W_OK | fsConstants.X_OK);
  } catch (error) {
    throw new AmpError('WRITE_FAILED', `${shown}: its folder ${printable(folder, 400)} is not writable (${errnoOf(error)})`, { subject: output.path });
  }
}

/** The AMP_REWRITE_PROFILE file (per-phase timings, written at exit): an output like any other. */
export const PROFILE_FILE: string | undefined = process.env.AMP_REWRITE_PROFILE || undefined;
export const PROFILE_ROLE = 'AMP_REWRITE_PROFILE';

/** Every input and output named to checkOutputs in this process: the profile, written at exit, is checked against them. */
const declared: { inputs: NamedPath[]; outputs: NamedPath[] } = { inputs: [], outputs: [] };

/**
 * Step 1 of the door (see the top of this file): checks every output of a command before it
 * starts its work. With AMP_REWRITE_PROFILE set, the profile is one of the outputs.
 */
export function checkOutputs(outputs: readonly NamedPath[], inputs: readonly NamedPath[]): void {
  // Recorded first: when this refuses, the profile written at exit must still not land on them.
  declared.inputs.push(...inputs);
  declared.outputs.push(...outputs);
  const all = PROFILE_FILE ? [...outputs, { path: PROFILE_FILE, role: PROFILE_ROLE }] : [...outputs];
  assertSeparateFiles(all, inputs);
  for (const output of all) checkWritableTarget(output);
}

/** The inputs and outputs checkOutputs has seen in this process. */
export function declaredFiles(): { inputs: readonly NamedPath[]; outputs: readonly NamedPath[] } {
  return declared;
}

// ---- temporary files ----

const liveTemporaries = new Set<string>();
/** Every file committed in this process, for the message when a signal ends it afterwards. */
const committedFiles: string[] = [];
let signalHandlersInstalled = false;

/** What the command line prints when a signal ends the process (the library prints nothing). */
export type CancellationNotice = (signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP', committed: readonly string[], removedTemporaries: number) => void;
let cancellationNotice: CancellationNotice | undefined;

export function setCancellationNotice(notice: CancellationNotice | undefined): void {
  cancellationNotice = notice;
}

function removeLiveTemporaries(): number {
  let removed = 0;
  for (const file of liveTemporaries) {
    try {
      rmSync(file, { force: true });
      removed++;
    } catch {
      // Left for the next run's sweep (its pid is then dead).
    }
  }
  liveTemporaries.clear();
  return removed;
}

function installSignalHandlers(): void {
  if (signalHandlersInstalled) return;
  signalHandlersInstalled = true;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = (): void => {
      const removed = removeLiveTemporaries();
      // Die of the signal as if no handler had been installed (a shell shows 130 for SIGINT,
      // 143 for SIGTERM), unless the host has its own.
      if (process.listenerCount(signal) === 1) {
        cancellationNotice?.(signal, committedFiles, removed);
        process.removeListener(signal, handler);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, handler);
  }
  process.on('exit', removeLiveTemporaries);
}

/**
 * Lets a signal that arrived during synchronous work act now: JavaScript signal handlers run only
 * between turns of the event loop. Call it between steps of a long command and before a commit.
 */
export function yieldToSignals(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Test hook: called at each step of a multi-file write ("data-placed", "model-committed"...). */
let faultHook: ((step: string) => void) | undefined;

export function setWriteFaultHook(hook: ((step: string) => void) | undefined): void {
  faultHook = hook;
}

export function reachedStep(step: string): void {
  faultHook?.(step);
}

const EXCLUSIVE = fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY | fsConstants.O_NOFOLLOW;

/** `.<file>.amp-rewrite-<pid>-<random>.tmp`: recognisably this tool's, and whose. */
const TEMPORARY_NAME = /^\..+\.amp-rewrite-(\d+)-[a-z0-9]+\.tmp$/;

export function isTemporaryName(name: string): boolean {
  return TEMPORARY_NAME.test(name);
}

function temporaryName(final: string): string {
  return path.join(path.dirname(final), `.${path.basename(final)}.amp-rewrite-${process.pid}-${Math.random().toString(36).slice(2, 10)}.tmp`);
}

/**
 * A temporary left by a process that is gone is removed only once it has not changed for this
 * long: a process in another PID namespace (a container sharing the folder) looks gone from here
 * while it is still writing.
 */
export const STALE_TEMPORARY_MS = 60_000;
const sweptFolders = new Set<string>();

function processIsGone(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes this tool's temporaries in `folder` whose process is gone (a `kill -9`, a power cut)
 * and that have not changed for STALE_TEMPORARY_MS. Regular files with our name pattern only.
 * Returns the names removed.
 */
export function sweepStaleTemporaries(folder: string, now = Date.now()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return removed;
  }
  for (const name of names) {
    const match = TEMPORARY_NAME.exec(name);
    if (!match || !processIsGone(Number(match[1]))) continue;
    const file = path.join(folder, name);
    try {
      const stats = lstatSync(file);
      if (!stats.isFile() || now - stats.mtimeMs < STALE_TEMPORARY_MS) continue;
      rmSync(file);
      removed.push(name);
    } catch {
      // Gone already, or not ours to remove.
    }
  }
  return removed;
}

/**
 * Creates a fresh temporary file beside `final` (same folder, so the rename is atomic), never
 * following a symlink and never opening an existing file. Returns its path and descriptor.
 */
export function createTemporary(final: string): { temp: string; fd: number } {
  installSignalHandlers();
  const folder = path.dirname(final);
  if (!sweptFolders.has(folder)) {
    sweptFolders.add(folder);
    sweepStaleTemporaries(folder);
  }
  for (let attempt = 0; ; attempt++) {
    const temp = temporaryName(final);
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
  committedFiles.push(final);
}

/**
 * Puts the content of `source` under `final`, replacing what was there in one rename: a hard link
 * to `source` under a temporary name (a copy where the file system has no links), renamed over `final`.
 */
export function replaceWithLinkTo(source: string, final: string): void {
  installSignalHandlers();
  const temp = temporaryName(final);
  liveTemporaries.add(temp);
  try {
    try {
      linkSync(source, temp);
    } catch {
      copyFileSync(source, temp, fsConstants.COPYFILE_EXCL);
    }
    commitTemporary(temp, final);
  } catch (error) {
    discardTemporary(temp);
    throw error;
  }
}

export function writeAll(fd: number, bytes: Uint8Array, position?: number): void {
  for (let done = 0; done < bytes.length; ) {
    done += writeSync(fd, bytes, done, bytes.length - done, position === undefined ? null : position + done);
  }
}

// ---- batches: stage everything, then commit ----

interface StagedFile {
  final: string;
  role: string;
  temp: string;
  /** 'new': the name must be free at commit (a data file: never replaces one another model may read). */
  mode: 'replace' | 'new';
  /** The model a data file belongs to: its data files are removed again when it is not committed. */
  group?: object;
  /** This entry commits its group. */
  commitsGroup: boolean;
}

export interface StageOptions {
  mode?: 'replace' | 'new';
  group?: object;
  commitsGroup?: boolean;
}

/**
 * Steps 2 and 3 of the door: files written to temporaries, then committed together. A failure
 * while staging removes every temporary ("nothing was written"); a failure while committing
 * names what was written and what was not.
 */
export class OutputBatch {
  private readonly staged: StagedFile[] = [];
  private readonly afterCommit: Array<() => void> = [];
  private state: 'open' | 'committed' | 'aborted' = 'open';
  /** The files committed so far, in order. */
  readonly written: string[] = [];

  /**
   * Writes `content` (bytes, or a function filling the descriptor) to a temporary beside `file`.
   * `role` names the file in messages ("--report", "the output model").
   */
  stage(file: string, role: string, content: Uint8Array | ((fd: number) => void), options: StageOptions = {}): void {
    if (this.state !== 'open') throw new Error(`OutputBatch: stage after ${this.state}`);
    const final = path.resolve(file);
    const mode = options.mode ?? 'replace';
    try {
      if (mode === 'replace') checkWritableTarget({ path: file, role });
    } catch (error) {
      this.abort();
      throw error;
    }
    let created: { temp: string; fd: number };
    try {
      created = createTemporary(final);
    } catch (error) {
      this.abort();
      throw this.failure(role, file, error);
    }
    try {
      try {
        if (typeof content === 'function') content(created.fd);
        else writeAll(created.fd, content);
        fsyncSync(created.fd);
      } finally {
        closeSync(created.fd);
      }
    } catch (error) {
      discardTemporary(created.temp);
      this.abort();
      throw this.failure(role, file, error);
    }
    this.staged.push({ final, role, temp: created.temp, mode, ...(options.group ? { group: options.group } : {}), commitsGroup: options.commitsGroup ?? false });
  }

  /** Runs after a successful commit (removing files the new set no longer reads); its errors are ignored. */
  onCommit(action: () => void): void {
    this.afterCommit.push(action);
  }

  /** The files staged, in commit order. */
  planned(): string[] {
    return this.commitOrder().map((entry) => entry.final);
  }

  private commitOrder(): StagedFile[] {
    const replacing = this.staged.filter((e) => e.mode === 'replace');
    return [...this.staged.filter((e) => e.mode === 'new'), ...replacing.filter((e) => !e.commitsGroup), ...replacing.filter((e) => e.commitsGroup)];
  }

  /** Removes every temporary; nothing was committed. */
  abort(): void {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    for (const entry of this.staged) discardTemporary(entry.temp);
  }

  /**
   * Puts every staged file in place: data files (new names, linked so an existing file is never
   * replaced), then the other files, then the models, each in staging order. Returns the files written.
   */
  commit(): string[] {
    if (this.state !== 'open') throw new Error(`OutputBatch: commit after ${this.state}`);
    const order = this.commitOrder();
    const committedBefore = committedFiles.length;
    const linked: StagedFile[] = [];
    // Each replaced file is kept under a hard link until the whole batch is in place, so that a
    // failure half-way puts the old ones back: all or nothing (doctor's library pair, a report
    // and its model). Where a link cannot be made the old file cannot come back, and the message
    // says which file is new.
    const replaced: Array<{ final: string; backup?: string; existed: boolean }> = [];
    // `at` is the first entry not yet in place.
    let at = 0;
    try {
      while (at < order.length) {
        const entry = order[at] as StagedFile;
        if (entry.mode === 'new') {
          placeWithoutReplacing(entry);
          linked.push(entry);
          at++;
          reachedStep('data-placed');
        } else {
          const backup = keepOld(entry.final);
          commitTemporary(entry.temp, entry.final);
          replaced.push({ final: entry.final, ...backup });
          at++;
          reachedStep(entry.commitsGroup ? 'model-committed' : 'file-committed');
        }
      }
    } catch (error) {
      this.state = 'aborted';
      for (const entry of order.slice(at)) discardTemporary(entry.temp);
      const stuck: string[] = [];
      for (const { final, backup, existed } of replaced.reverse()) {
        try {
          if (backup) commitTemporary(backup, final);
          else if (!existed) rmSync(final, { force: true });
          else stuck.push(final);
        } catch {
          stuck.push(final);
        }
      }
      // A data file is read only by its model: with every model back as it was, it goes too.
      for (const entry of linked) rmSync(entry.final, { force: true });
      committedFiles.length = committedBefore;
      committedFiles.push(...stuck);
      this.written.push(...stuck);
      const failed = order[at];
      throw this.failure(failed?.role ?? 'a file', failed?.final ?? '', error, order.map((e) => e.final).filter((f) => !stuck.includes(f)));
    }
    this.state = 'committed';
    for (const { backup } of replaced) if (backup) discardTemporary(backup);
    this.written.push(...linked.map((e) => e.final), ...replaced.map((r) => r.final));
    for (const folder of new Set(order.map((e) => path.dirname(e.final)))) syncFolder(folder);
    for (const action of this.afterCommit) {
      try {
        action();
      } catch {
        // Cleaning up after a commit never undoes it.
      }
    }
    return [...this.written];
  }

  /** The error for a failure: what was written (only at commit) and what was not. */
  private failure(role: string, file: string, error: unknown, notWritten: string[] = []): AmpError {
    const code = errnoOf(error);
    const what = error instanceof AmpError ? error.message : `${role} ${printable(file, 400)}: cannot write (${code})`;
    const outcome = this.written.length
      ? `; written: ${this.written.map((f) => printable(f, 200)).join(', ')}; not written: ${notWritten.length ? notWritten.map((f) => printable(f, 200)).join(', ') : 'nothing'}`
      : '; nothing was written, the old files are as they were';
    if (error instanceof AmpError && error.code !== 'WRITE_FAILED') return new AmpError(error.code, `${what}${outcome}`, { subject: error.subject ?? file, cause: error });
    return new AmpError('WRITE_FAILED', `${what}${outcome}`, { subject: file, cause: error });
  }
}

/** A hard link to the file at `final` (if any), under a temporary name: what a failed commit puts back. */
function keepOld(final: string): { backup?: string; existed: boolean } {
  try {
    if (!lstatSync(final).isFile()) return { existed: true };
  } catch {
    return { existed: false };
  }
  const backup = temporaryName(final);
  liveTemporaries.add(backup);
  try {
    linkSync(final, backup);
    return { backup, existed: true };
  } catch {
    liveTemporaries.delete(backup);
    return { existed: true };
  }
}

/** Moves a finished temporary file to a name that must not exist: a hard link fails rather than replace. */
function placeWithoutReplacing(entry: StagedFile): void {
  try {
    linkSync(entry.temp, entry.final);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new AmpError('UNSAFE_PATH', `${entry.role} ${printable(entry.final, 400)} appeared while writing; it was not overwritten`, { subject: entry.final });
    // A file system without hard links: the name was checked free just before.
    commitTemporary(entry.temp, entry.final);
    return;
  }
  discardTemporary(entry.temp);
  committedFiles.push(entry.final);
}

function syncFolder(folder: string): void {
  try {
    const fd = openSync(folder, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some file systems cannot sync a folder; the rename itself is still atomic.
  }
}

/** Writes a whole file through the door: an exclusive temporary, then an atomic rename. */
export function writeFileAtomically(file: string, bytes: Uint8Array, role = 'the output'): void {
  const batch = new OutputBatch();
  batch.stage(file, role, bytes);
  batch.commit();
}
