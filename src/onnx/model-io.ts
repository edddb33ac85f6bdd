/**
 * Reading and writing model files. Writes are atomic: every file goes to a temporary name in the
 * target folder first and is renamed into place only when all of them are complete.
 */
import { closeSync, constants as fsConstants, fstatSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync, readSync } from 'node:fs';
import path from 'node:path';
import { cloneMessage } from './clone.js';
import { decodeModel, encodeModel, type DecodeOptions } from './codec.js';
import { AmpError } from './errors.js';
import {
  attachExternalRef,
  externalRefOf,
  isExternal,
  resolveExternalData,
  tensorRawBytes,
  type DataFileInfo,
  type ExternalDataRef,
} from './external-data.js';
import { onnx } from './generated/onnx.js';
import { printable } from './printable.js';
import { forEachTensor } from './walk.js';

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

/** The model and the exact bytes it was decoded from (to write an unchanged model byte for byte). */
export function loadModelFile(file: string, options: LoadOptions = {}): { model: onnx.ModelProto; bytes: Uint8Array } {
  const bytes = readModelFile(file);
  const model = decodeModel(bytes, { ...options, source: file });
  if ((options.externalData ?? 'lazy') === 'lazy') {
    const modelDir = options.externalDataDir ?? path.dirname(path.resolve(file));
    const files = new Map<string, DataFileInfo>();
    const resolveOptions = { allowOutside: options.allowExternalOutside ?? false };
    forEachTensor(model, (tensor) => {
      if (isExternal(tensor)) attachExternalRef(tensor, resolveExternalData(tensor, modelDir, files, resolveOptions));
    });
  }
  return { model, bytes };
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
}

const MAX_PROTOBUF_BYTES = 2 ** 31 - 1;

/** A range of bytes to place at `offset` in an output data file. */
interface Placement {
  offset: number;
  length: number;
  source: { bytes: Uint8Array } | { file: string; offset: number };
}

export function saveModel(model: onnx.IModelProto, file: string, options: SaveOptions = {}): void {
  const target = path.resolve(file);
  const targetDir = path.dirname(target);
  const mode = options.externalData ?? 'keep';
  let toWrite: onnx.IModelProto = model;
  const dataFiles = new Map<string, Placement[]>();

  if (mode === 'keep') {
    const files = new Map<string, DataFileInfo>();
    forEachTensor(model, (tensor) => {
      if (!isExternal(tensor)) return;
      // A tensor built in memory that points at external data expects it beside the target.
      const ref = externalRefOf(tensor) ?? resolveExternalData(tensor, targetDir, files);
      const destination = path.join(targetDir, path.normalize(ref.location));
      if (destination === ref.file) return;
      placementsFor(dataFiles, destination).push({ offset: ref.offset, length: ref.length, source: { file: ref.file, offset: ref.offset } });
    });
  } else {
    toWrite = cloneMessage(model);
    if (mode === 'embed') {
      forEachTensor(toWrite, (tensor) => {
        if (!isExternal(tensor)) return;
        tensor.raw_data = tensorRawBytes(tensor) ?? new Uint8Array();
        delete tensor.data_location;
        tensor.external_data = [];
      });
    } else {
      layOutNewDataFile(toWrite, mode, targetDir, dataFiles);
    }
  }

  let encoded: Uint8Array;
  try {
    encoded = mode === 'keep' && options.unchangedBytes ? options.unchangedBytes : encodeModel(toWrite);
  } catch (error) {
    throw new AmpError('MODEL_TOO_LARGE', `${file}: cannot encode the model (${(error as Error).message}); save weights as external data`, {
      subject: file,
      cause: error,
    });
  }
  if (encoded.length > MAX_PROTOBUF_BYTES) {
    throw new AmpError(
      'MODEL_TOO_LARGE',
      `${file}: the model is ${encoded.length} bytes, over protobuf's 2 GiB limit; save weights as external data`,
      { subject: file },
    );
  }
  writeFilesAtomically(target, encoded, dataFiles);
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

function layOutNewDataFile(model: onnx.IModelProto, spec: NewDataFile, targetDir: string, dataFiles: Map<string, Placement[]>): void {
  const normalized = path.normalize(spec.location);
  if (path.isAbsolute(spec.location) || normalized.split(/[\\/]/).includes('..')) {
    throw new AmpError('BAD_OPTION', `external data location '${spec.location}' must be a file name inside the model's folder`);
  }
  const threshold = spec.sizeThreshold ?? 1024;
  const align = spec.align ?? 4096;
  const destination = path.join(targetDir, normalized);
  const placements = placementsFor(dataFiles, destination);
  let end = 0;
  forEachTensor(model, (tensor) => {
    const external = isExternal(tensor);
    if (!external && (tensor.raw_data == null || tensor.raw_data.length < threshold)) return;
    const ref = external ? requireRef(tensor) : undefined;
    const length = ref ? ref.length : (tensor.raw_data as Uint8Array).length;
    const offset = Math.ceil(end / align) * align;
    placements.push({
      offset,
      length,
      source: ref ? { file: ref.file, offset: ref.offset } : { bytes: tensor.raw_data as Uint8Array },
    });
    end = offset + length;
    delete tensor.raw_data;
    tensor.data_location = onnx.TensorProto.DataLocation.EXTERNAL;
    tensor.external_data = [
      onnx.StringStringEntryProto.create({ key: 'location', value: spec.location }),
      onnx.StringStringEntryProto.create({ key: 'offset', value: String(offset) }),
      onnx.StringStringEntryProto.create({ key: 'length', value: String(length) }),
    ];
    attachExternalRef(tensor, { location: spec.location, file: destination, offset, length });
  });
}

const COPY_CHUNK = 16 * 1024 * 1024;

function writeFilesAtomically(modelPath: string, modelBytes: Uint8Array, dataFiles: Map<string, Placement[]>): void {
  const written: Array<{ temp: string; final: string }> = [];
  try {
    for (const [destination, placements] of [...dataFiles].sort(([a], [b]) => a.localeCompare(b))) {
      const temp = temporaryName(destination);
      written.push({ temp, final: destination });
      writeDataFile(temp, placements);
    }
    const temp = temporaryName(modelPath);
    written.push({ temp, final: modelPath });
    writeWhole(temp, modelBytes);
    // Data files first, so the model never points at data that is not there yet.
    for (const { temp, final } of written) renameSync(temp, final);
  } catch (error) {
    for (const { temp } of written) rmSync(temp, { force: true });
    if (error instanceof AmpError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new AmpError('WRITE_FAILED', `${modelPath}: cannot write (${code}); nothing was written`, { subject: modelPath, cause: error });
  }
}

function temporaryName(final: string): string {
  return path.join(path.dirname(final), `.${path.basename(final)}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
}

function writeWhole(file: string, bytes: Uint8Array): void {
  const fd = openSync(file, 'wx');
  try {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeDataFile(file: string, placements: Placement[]): void {
  const fd = openSync(file, 'wx');
  const chunk = Buffer.allocUnsafe(COPY_CHUNK);
  try {
    for (const placement of [...placements].sort((a, b) => a.offset - b.offset)) {
      if ('bytes' in placement.source) {
        writeAt(fd, placement.source.bytes, placement.offset);
        continue;
      }
      const sourceFd = openSync(placement.source.file, 'r');
      try {
        for (let done = 0; done < placement.length; ) {
          const want = Math.min(COPY_CHUNK, placement.length - done);
          const got = readSync(sourceFd, chunk, 0, want, placement.source.offset + done);
          if (got === 0) throw new AmpError('EXTERNAL_DATA_OUT_OF_RANGE', `${placement.source.file}: ended early while copying external data`);
          writeAt(fd, chunk.subarray(0, got), placement.offset + done);
          done += got;
        }
      } finally {
        closeSync(sourceFd);
      }
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeAt(fd: number, bytes: Uint8Array, position: number): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}
