/**
 * Reading and writing model files. Writes are atomic: every file goes to a temporary name in the
 * target folder first and is renamed into place only when all of them are complete.
 */
import { MAX_PROTOBUF_BYTES } from './byte-limits.js';
import { closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, readFileSync, rmSync, writeSync, readSync } from 'node:fs';
import path from 'node:path';
import { cloneMessage } from './clone.js';
import { decodeModel, encodeModel, encodeModelFile, type DecodeOptions } from './codec.js';
import { AmpError } from './errors.js';
import {
  attachExternalRef,
  externalRefOf,
  isExternal,
  tensorRawBytes,
  type DataFileHandle,
  type ExternalDataRef,
} from './external-data.js';
import { resolveExternalData, withDataFile } from './external-files.js';
import { onnx } from './generated/onnx.js';
import { pendingConversionOf, detachPendingConversion, streamConversion, type PendingConversion } from './pending-conversion.js';
import { printable } from './printable.js';
import { assertSeparateFiles, entryExists, isSameFile, OutputBatch, reachedStep, replaceWithLinkTo, writeFileAtomically, type NamedPath } from './safe-write.js';
import { forEachTensor } from './walk.js';
import { compareText } from './collation.js';

export interface LoadOptions extends Omit<DecodeOptions, 'source'> {
  /**
   * 'lazy' (default): locate and check every external tensor now, read its bytes when asked.
   * 'ignore': do not look at external data files (inspecting a model without its weights).
   */
  externalData?: 'lazy' | 'ignore';
  /** Folder that external `location`s are relative to; defaults to the model's folder. */
  externalDataDir?: string;
  /** Accept external data whose real path is outside the model's real folder (ONNX Runtime refuses it). */
  allowExternalOutside?: boolean;
}

export function loadModel(file: string, options: LoadOptions = {}): onnx.ModelProto {
  return loadModelFile(file, options).model;
}

/**
 * The model and the exact bytes it was decoded from (to write an unchanged model byte for byte),
 * and how many of its tensors were found to keep their data in external files ('lazy' only: 0
 * with 'ignore'), so that a caller need not walk the model again to learn there are none.
 */
export function loadModelFile(file: string, options: LoadOptions = {}): { model: onnx.ModelProto; bytes: Uint8Array; externalTensors: number } {
  const bytes = readModelFile(file);
  const model = decodeModel(bytes, { ...options, source: file });
  let externalTensors = 0;
  if ((options.externalData ?? 'lazy') === 'lazy') {
    const modelDir = options.externalDataDir ?? path.dirname(path.resolve(file));
    const files = new Map<string, DataFileHandle>();
    const resolveOptions = { allowOutside: options.allowExternalOutside ?? false };
    forEachTensor(model, (tensor) => {
      if (!isExternal(tensor)) return;
      attachExternalRef(tensor, resolveExternalData(tensor, modelDir, files, resolveOptions));
      externalTensors++;
    });
  }
  return { model, bytes, externalTensors };
}

function readModelFile(file: string): Buffer {
  let fd: number;
  try {
    // Non-blocking: opening a FIFO for reading would otherwise wait forever for a writer.
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new AmpError('FILE_NOT_FOUND', `${printable(file, 400)}: no such file`, { subject: file });
    throw new AmpError('READ_FAILED', `${printable(file, 400)}: cannot read (${code ?? String(error)})`, { subject: file, cause: error });
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) throw new AmpError('READ_FAILED', `${printable(file, 400)}: is a folder, not an ONNX file`, { subject: file });
    if (!stats.isFile()) throw new AmpError('READ_FAILED', `${printable(file, 400)}: not a regular file (a FIFO, device or socket)`, { subject: file });
    return readFileSync(fd);
  } catch (error) {
    if (error instanceof AmpError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new AmpError('READ_FAILED', `${printable(file, 400)}: cannot read (${code ?? String(error)})`, { subject: file, cause: error });
  } finally {
    closeSync(fd);
  }
}

export interface NewDataFile {
  /** File name for the data, relative to the model's folder. */
  location: string;
  /** Tensors with at least this many bytes move to the data file (default 1024). */
  sizeThreshold?: number;
  /** Offsets are multiples of this (default 4096, the page size, so runtimes can map the file). */
  align?: number;
}

export interface SaveOptions {
  /**
   * 'keep' (default): external tensors keep location/offset/length; their bytes are copied there
   * when the target folder differs from the source. 'embed': all data goes into the .onnx file.
   * A NewDataFile: all external tensors and every tensor at or over the threshold go into one file.
   */
  externalData?: 'keep' | 'embed' | NewDataFile;
  /**
   * The bytes the model was loaded from, for a model no pass changed: with 'keep' they are
   * written as they are, so "unchanged" means byte-identical (a decode/encode cycle may reorder
   * fields or re-pack repeated numbers that the input wrote otherwise).
   */
  unchangedBytes?: Uint8Array;
  /** Files that must not be written (the inputs of the run, its reports): naming one is UNSAFE_PATH. */
  protect?: readonly NamedPath[];
  /**
   * With 'keep': the largest .onnx file to write (default and most: protobuf's 2 GiB). Converted
   * copies of external weights (--weights fp16) belong in the .onnx file, as every converted weight
   * does; when they and the tensors already in it come to more than this, the copies go to a new
   * data file named after the model (`<model>.data`) instead.
   */
  maxModelBytes?: number;
  /**
   * Stage the model and its data files in this batch (safe-write.ts, the door every output goes
   * through) instead of committing them now: the caller commits the batch with its other outputs,
   * the model last. Without it, saveModel commits at once.
   */
  batch?: OutputBatch;
}

/** What a save did, for a truthful message. */
export interface SaveResult {
  /** Every file written, absolute: the data files, then the model. */
  written: string[];
  /** Data files written under a fresh name because the requested name was taken (never overwritten). */
  renamedData: Array<{ requested: string; actual: string }>;
  /** Data files named after the replaced model (`<model>.<name>`) that it read, removed after the commit. */
  removed: string[];
  /** With 'keep': the converted copies of external weights that went to a data file of their own (see maxModelBytes). */
  copiesMoved?: { file: string; tensors: number; bytes: number };
}


/** A range of bytes to place at `offset` in an output data file. */
interface Placement {
  offset: number;
  length: number;
  source: { bytes: Uint8Array } | { ref: ExternalDataRef } | { conversion: PendingConversion };
}

/**
 * Reads every external tensor's bytes into the model (in place): a model that must travel as one
 * message, to ONNX Runtime from memory, which resolves no data file of a model given as bytes.
 */
export function embedExternalData(model: onnx.IModelProto): void {
  forEachTensor(model, (tensor) => {
    if (!isExternal(tensor)) return;
    tensor.raw_data = tensorRawBytes(tensor) ?? new Uint8Array();
    delete tensor.data_location;
    tensor.external_data = [];
  });
}

export function saveModel(model: onnx.IModelProto, file: string, options: SaveOptions = {}): SaveResult {
  const target = path.resolve(file);
  const targetDir = path.dirname(target);
  const mode = options.externalData ?? 'keep';
  let toWrite: onnx.IModelProto = model;
  const dataFiles = new Map<string, Placement[]>();
  const locations = new Map<string, string>();
  const sources = new Set<string>();
  // Float16 copies still to be made from an input data file: it is read while writing. With
  // 'keep', the same walk finds the external tensors (a big graph's walks are memory-bound); their
  // files join the sources after every conversion's, in the order two walks gave.
  const keptExternal: string[] = [];
  const files = new Map<string, DataFileHandle>();
  // With 'keep', what the tensors inside the .onnx file will hold: the copies still to be made, and the rest.
  let pendingBytes = 0;
  let embeddedBytes = 0;
  forEachTensor(model, (tensor) => {
    const conversion = pendingConversionOf(tensor);
    if (conversion) {
      sources.add(conversion.source.file);
      pendingBytes += conversion.byteLength;
    } else if (mode === 'keep' && !isExternal(tensor)) embeddedBytes += storedBytes(tensor);
    if (mode !== 'keep' || !isExternal(tensor)) return;
    // A tensor built in memory that points at external data expects it beside the target.
    const ref = externalRefOf(tensor) ?? resolveExternalData(tensor, targetDir, files);
    keptExternal.push(ref.file);
    const destination = path.join(targetDir, path.normalize(ref.location));
    if (destination === ref.file || isSameFile(destination, ref.file)) return;
    locations.set(destination, ref.location);
    placementsFor(dataFiles, destination).push({ offset: ref.offset, length: ref.length, source: { ref } });
  });
  for (const file of keptExternal) sources.add(file);

  // The copies cannot all stay in the .onnx file: rather than fail once the encoder has made them
  // whole (many GB read and converted for nothing), they go to a data file named after the model.
  let copiesMoved: SaveResult['copiesMoved'];
  const maxModelBytes = Math.min(options.maxModelBytes ?? MAX_PROTOBUF_BYTES, MAX_PROTOBUF_BYTES);
  if (!(maxModelBytes >= 0)) throw new AmpError('BAD_OPTION', `maxModelBytes ${String(options.maxModelBytes)}: expected a number of bytes`);
  if (mode === 'keep' && pendingBytes > 0 && pendingBytes + embeddedBytes > maxModelBytes) {
    toWrite = cloneMessage(model);
    const location = `${path.basename(target)}.data`;
    const moved = layOutNewDataFile(toWrite, { location }, targetDir, dataFiles, locations, 'pending copies');
    copiesMoved = { file: path.join(targetDir, location), ...moved };
  }

  if (mode !== 'keep') {
    forEachTensor(model, (tensor) => {
      const ref = isExternal(tensor) ? externalRefOf(tensor) : undefined;
      if (ref) sources.add(ref.file);
    });
    toWrite = cloneMessage(model);
    if (mode === 'embed') {
      embedExternalData(toWrite);
    } else {
      layOutNewDataFile(toWrite, mode, targetDir, dataFiles, locations);
    }
  }

  assertSeparateFiles(
    [{ path: target, role: 'the output model' }, ...[...dataFiles.keys()].map((d) => ({ path: d, role: 'the output data file' }))],
    [...[...sources].map((f) => ({ path: f, role: 'external data of the input' })), ...(options.protect ?? [])],
  );
  // A data file the model being replaced reads is the output's own: it keeps its name, so that
  // rewriting to the same output again and again leaves one data file under one stable name. Any
  // other existing file is never overwritten (another model may read it): the new data goes under
  // a fresh name derived from the output model, and the model points there.
  const ownData = dataFilesOfReplacedModel(target);
  const isOwn = (file: string): boolean => ownData.some((own) => isSameFile(own, file));
  const renamedData: SaveResult['renamedData'] = [];
  const replacedInPlace: Array<{ final: string; interim: string; location: string; interimLocation: string }> = [];
  const moveData = (from: string, to: string): string => {
    const placements = dataFiles.get(from) as Placement[];
    dataFiles.delete(from);
    dataFiles.set(to, placements);
    const location = locations.get(from) as string;
    const toLocation = path.join(path.dirname(location), path.basename(to));
    locations.set(to, toLocation);
    if (toWrite === model) toWrite = cloneMessage(model);
    relocate(toWrite, location, toLocation, to);
    return toLocation;
  };
  for (const requested of [...dataFiles.keys()]) {
    if (!entryExists(requested)) continue;
    let destination = requested;
    if (!isOwn(requested)) {
      destination = freshDataName(target, requested, dataFiles, isOwn);
      moveData(requested, destination);
      renamedData.push({ requested, actual: destination });
      if (!entryExists(destination)) continue;
    }
    // The old model reads this file until its replacement is committed: the new data goes in under
    // an interim name the new model reads, and takes the stable name only after the commit (below).
    const location = locations.get(destination) as string;
    const interim = freshDataName(target, destination, dataFiles, () => false);
    replacedInPlace.push({ final: destination, interim, location, interimLocation: moveData(destination, interim) });
  }

  const encoded = encodeModelFile(toWrite, file, 'save weights as external data', mode === 'keep' && options.unchangedBytes && toWrite === model ? options.unchangedBytes : undefined);
  const keep = new Set([...sources, ...dataFiles.keys(), ...replacedInPlace.map((r) => r.final), ...(options.protect ?? []).map((p) => path.resolve(p.path))]);
  // Only files named after the output model are ours to remove: another model may share the rest.
  const ours = `${path.basename(target)}.`;
  const oldData = ownData.filter((f) => path.basename(f).startsWith(ours) && ![...keep].some((k) => isSameFile(k, f)));
  const batch = options.batch ?? new OutputBatch();
  const removed: string[] = [];
  try {
    stageModelFiles(batch, target, encoded, dataFiles);
  } catch (error) {
    batch.abort();
    if (error instanceof AmpError) throw error;
    throw new AmpError('WRITE_FAILED', `${printable(file, 400)}: cannot write (${(error as NodeJS.ErrnoException).code ?? String(error)}); nothing was written, the old files are as they were`, {
      subject: file,
      cause: error,
    });
  }
  // Only after the commit: the old model read them until then.
  if (replacedInPlace.length) batch.onCommit(() => settleStableNames(toWrite, target, replacedInPlace, written, renamedData));
  batch.onCommit(() => {
    for (const stale of oldData) {
      try {
        rmSync(stale);
        removed.push(stale);
      } catch {
        // Left in place: an unreferenced file, not a damaged model.
      }
    }
  });
  const written = [...[...dataFiles.keys()].sort(compareText), target];
  if (!options.batch) batch.commit();
  if (!copiesMoved) return { written, renamedData, removed };
  const movedTo = copiesMoved.file;
  return { written, renamedData, removed, copiesMoved: { ...copiesMoved, file: renamedData.find((r) => r.requested === movedTo)?.actual ?? movedTo } };
}

/** Points every tensor stored at `from` to `to` (a fresh data file name). */
function relocate(model: onnx.IModelProto, from: string, to: string, file: string): void {
  forEachTensor(model, (tensor) => {
    if (!isExternal(tensor)) return;
    const entry = (tensor.external_data ?? []).find((e) => e.key === 'location');
    if (!entry || entry.value !== from) return;
    tensor.external_data = (tensor.external_data ?? []).map((e) => (e.key === 'location' ? onnx.StringStringEntryProto.create({ key: 'location', value: to }) : e));
    const ref = externalRefOf(tensor);
    if (ref) attachExternalRef(tensor, { location: to, file, offset: ref.offset, length: ref.length });
  });
}

/**
 * `<output model>.<requested name>`, then with a counter, until the name is free or is a data file
 * of the output's own (`reusable`). A requested name already of that form is not prefixed again.
 */
function freshDataName(target: string, requested: string, planned: Map<string, Placement[]>, reusable: (file: string) => boolean): string {
  const prefix = `${path.basename(target)}.`;
  const name = path.basename(requested).replace(new RegExp(`^${escapeRegExp(prefix)}(\\d+\\.)?`), '');
  for (let n = 0; ; n++) {
    const candidate = path.join(path.dirname(requested), n === 0 ? `${prefix}${name}` : `${prefix}${n}.${name}`);
    if (candidate === requested || planned.has(candidate)) continue;
    if (!entryExists(candidate) || reusable(candidate)) return candidate;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * After the commit, each data file the old model read and the new one replaces takes its stable
 * name back: the interim file is linked over it in one rename, the model is rewritten to point
 * there (another atomic commit) and the interim name goes. A crash at any step leaves a model
 * whose data file is complete (the interim one, at worst); a failure leaves the interim name in use.
 */
function settleStableNames(
  model: onnx.IModelProto,
  target: string,
  moves: ReadonlyArray<{ final: string; interim: string; location: string; interimLocation: string }>,
  written: string[],
  renamedData: SaveResult['renamedData'],
): void {
  const settled: typeof moves[number][] = [];
  for (const move of moves) {
    try {
      replaceWithLinkTo(move.interim, move.final);
      reachedStep('data-replaced');
      relocate(model, move.interimLocation, move.location, move.final);
      settled.push(move);
    } catch {
      renamedData.push({ requested: move.final, actual: move.interim });
    }
  }
  if (!settled.length) return;
  try {
    writeFileAtomically(target, encodeModel(model), 'the output model');
  } catch {
    for (const move of settled) renamedData.push({ requested: move.final, actual: move.interim });
    return;
  }
  reachedStep('model-repointed');
  for (const move of settled) {
    rmSync(move.interim, { force: true });
    const at = written.indexOf(move.interim);
    if (at >= 0) written[at] = move.final;
  }
}

/**
 * The data files the model currently at `target` reads (regular files inside its folder), so
 * that replacing the model can remove the ones nothing reads any more. Empty when there is no
 * model there or it cannot be read.
 */
const LOCATION_KEY = Buffer.from('location', 'utf8');

function dataFilesOfReplacedModel(target: string): string[] {
  let old: onnx.ModelProto;
  try {
    if (!lstatSync(target).isFile()) return [];
    const bytes = readFileSync(target);
    // A data file is named by an external_data entry whose key is "location", stored as these very
    // bytes; a model without them (weights embedded, the common case) references no data file, and
    // is not decoded (a second full decode while the new model is still held).
    if (bytes.indexOf(LOCATION_KEY) === -1) return [];
    old = decodeModel(bytes);
  } catch {
    return [];
  }
  const folder = path.dirname(target);
  const found = new Set<string>();
  const files = new Map<string, DataFileHandle>();
  forEachTensor(old, (tensor) => {
    if (!isExternal(tensor)) return;
    try {
      found.add(resolveExternalData(tensor, folder, files).file);
    } catch {
      // Missing, outside the folder or not a regular file: not ours to remove.
    }
  });
  return [...found];
}

function requireRef(tensor: onnx.ITensorProto): ExternalDataRef {
  const ref = externalRefOf(tensor);
  if (!ref) {
    throw new AmpError(
      'EXTERNAL_DATA_MISSING',
      `tensor '${tensor.name ?? ''}': external data was not resolved (load the model with loadModel and externalData 'lazy')`,
      { subject: tensor.name ?? '' },
    );
  }
  return ref;
}

function placementsFor(files: Map<string, Placement[]>, destination: string): Placement[] {
  let list = files.get(destination);
  if (!list) files.set(destination, (list = []));
  return list;
}

function layOutNewDataFile(
  model: onnx.IModelProto,
  spec: NewDataFile,
  targetDir: string,
  dataFiles: Map<string, Placement[]>,
  locations: Map<string, string>,
  which: 'all' | 'pending copies' = 'all',
): { tensors: number; bytes: number } {
  const moved = { tensors: 0, bytes: 0 };
  const normalized = path.normalize(spec.location);
  if (path.isAbsolute(spec.location) || normalized.split(/[\\/]/).includes('..')) {
    throw new AmpError('BAD_OPTION', `external data location '${spec.location}' must be a file name inside the model's folder`);
  }
  const threshold = spec.sizeThreshold ?? 1024;
  const align = spec.align ?? 4096;
  const destination = path.join(targetDir, normalized);
  locations.set(destination, spec.location);
  const placements = placementsFor(dataFiles, destination);
  let end = 0;
  forEachTensor(model, (tensor) => {
    const external = isExternal(tensor);
    // Checked before raw_data, which would make a pending copy whole.
    const conversion = pendingConversionOf(tensor);
    if (conversion) {
      if (conversion.byteLength < threshold) return;
    } else if (which === 'pending copies' || (!external && (tensor.raw_data == null || tensor.raw_data.length < threshold))) return;
    const ref = external ? requireRef(tensor) : undefined;
    const length = ref ? ref.length : conversion ? conversion.byteLength : (tensor.raw_data as Uint8Array).length;
    const offset = Math.ceil(end / align) * align;
    placements.push({
      offset,
      length,
      source: ref ? { ref } : conversion ? { conversion } : { bytes: tensor.raw_data as Uint8Array },
    });
    end = offset + length;
    moved.tensors++;
    moved.bytes += length;
    detachPendingConversion(tensor);
    delete tensor.raw_data;
    tensor.data_location = onnx.TensorProto.DataLocation.EXTERNAL;
    tensor.external_data = [
      onnx.StringStringEntryProto.create({ key: 'location', value: spec.location }),
      onnx.StringStringEntryProto.create({ key: 'offset', value: String(offset) }),
      onnx.StringStringEntryProto.create({ key: 'length', value: String(length) }),
    ];
    attachExternalRef(tensor, { location: spec.location, file: destination, offset, length });
  });
  return moved;
}

/** The bytes a tensor's data takes inside the .onnx file, at least (packed numbers at their element size). */
function storedBytes(tensor: onnx.ITensorProto): number {
  const strings = tensor.string_data ?? [];
  let bytes = tensor.raw_data?.length ?? 0;
  for (const s of strings) bytes += s.length;
  bytes += 4 * ((tensor.float_data?.length ?? 0) + (tensor.int32_data?.length ?? 0));
  bytes += 8 * ((tensor.int64_data?.length ?? 0) + (tensor.double_data?.length ?? 0) + (tensor.uint64_data?.length ?? 0));
  return bytes;
}

const COPY_CHUNK = 16 * 1024 * 1024;

/**
 * Stages a model and its data files so that a crash at any point leaves either the complete old
 * set or the complete new set: the data files go under names nothing else reads (checked above)
 * and are linked into place before the model's rename, which is the commit (OutputBatch).
 */
function stageModelFiles(batch: OutputBatch, modelPath: string, modelBytes: Uint8Array, dataFiles: Map<string, Placement[]>): void {
  const group = {};
  for (const [destination, placements] of [...dataFiles].sort(([a], [b]) => compareText(a, b))) {
    batch.stage(destination, 'the output data file', (fd) => writeDataFile(fd, placements), { mode: 'new', group });
  }
  batch.stage(modelPath, 'the output model', modelBytes, { group, commitsGroup: true });
  reachedStep('model-written');
}

function writeDataFile(fd: number, placements: Placement[]): void {
  const chunk = Buffer.allocUnsafe(COPY_CHUNK);
  for (const placement of [...placements].sort((a, b) => a.offset - b.offset)) {
      if ('bytes' in placement.source) {
        writeAt(fd, placement.source.bytes, placement.offset);
        continue;
      }
      if ('conversion' in placement.source) {
        // Converted chunk by chunk into one fixed buffer: never the whole copy in memory.
        streamConversion(placement.source.conversion, (bytes, at) => writeAt(fd, bytes, placement.offset + at));
        continue;
      }
      // Through the descriptor opened and checked at load: a file swapped since is never read.
      const { ref } = placement.source;
      withDataFile(ref, (sourceFd) => {
        for (let done = 0; done < placement.length; ) {
          const want = Math.min(COPY_CHUNK, placement.length - done);
          const got = readSync(sourceFd, chunk, 0, want, ref.offset + done);
          if (got === 0) throw new AmpError('EXTERNAL_DATA_OUT_OF_RANGE', `${printable(ref.file, 400)}: ended early while copying external data`);
          writeAt(fd, chunk.subarray(0, got), placement.offset + done);
          done += got;
        }
      });
  }
}

function writeAt(fd: number, bytes: Uint8Array, position: number): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}
