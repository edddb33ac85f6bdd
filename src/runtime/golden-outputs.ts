/**
 * Golden outputs: a folder of expected output tensors to check a model against, so that outputs
 * computed once (on the GPU box, by the original model) can gate a model anywhere later. Two
 * layouts, told apart by their file names:
 *
 * - ONNX test data (`test_data_set_N/`): `output_0.pb`, `output_1.pb`... in the model's output
 *   order (as ONNX's test runner pairs them), with the inputs in `input_0.pb`... beside them;
 * - `run --save-outputs dir/`: one `<output name>.pb` per output (the name with every character
 *   outside [A-Za-z0-9_.-] written as `_`); the inputs are the user's (`--inputs`, or the same
 *   `--seed`/`--dim` that made the random ones).
 *
 * Every model output needs its expected tensor, of the same shape and of the same type (any two
 * float types may be compared). A folder, file or tensor that does not fit is a typed error
 * (BAD_EXPECTED_OUTPUT) naming the file and the output, never a FAIL.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Tensor } from 'onnxruntime-node';
import { AmpError } from '../onnx/errors.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { longToNumber } from '../onnx/external-data.js';
import { printable } from '../onnx/printable.js';
import { readTensorFile } from './inputs.js';
import type { Ort } from './ort.js';
import { ortTypeOf } from './tensors.js';

export type ExpectedLayout = 'test-data-set' | 'saved-outputs';

export interface ExpectedOutputs {
  folder: string;
  layout: ExpectedLayout;
  /** The expected tensor of each model output, by output name. */
  outputs: Record<string, Tensor>;
  /** The file each output's tensor came from. */
  files: Record<string, string>;
  /** The ONNX test data's input files, in input order (empty for saved outputs). */
  inputFiles: string[];
  /** .pb files of the folder that are no output's and no input's either: kept aside (inputs beside saved outputs). */
  unmatched: string[];
  /**
   * Golden outputs the model does not have: saved outputs (<name>.pb) that are neither an output's
   * nor an input's, or test data's output_N.pb past the model's outputs. A model that lacks one
   * FAILs: it does not give what the golden run gave.
   */
  missing: string[];
}

/** The file `run --save-outputs` writes an output to, and the one compare --expected looks for. */
export function savedOutputFileName(outputName: string): string {
  return `${outputName.replace(/[^A-Za-z0-9_.-]/g, '_')}.pb`;
}

const TEST_DATA_FILE = /^(input|output)_(\d+)\.pb$/;
const FLOAT_TYPES: ReadonlySet<string> = new Set(['float32', 'float16', 'float64']);

function badExpected(message: string, subject: string): AmpError {
  return new AmpError('BAD_EXPECTED_OUTPUT', message, { subject });
}

/** The .pb files of the folder, sorted; a missing or empty folder is an error naming it. */
function pbFiles(folder: string): string[] {
  let entries: string[];
  try {
    if (!statSync(folder).isDirectory()) throw badExpected(`--expected ${printable(folder, 400)}: not a folder; give the folder that run --save-outputs wrote, or an ONNX test_data_set_N folder`, folder);
    entries = readdirSync(folder);
  } catch (error) {
    if (error instanceof AmpError) throw error;
    throw new AmpError('FILE_NOT_FOUND', `--expected ${printable(folder, 400)}: cannot read the folder (${(error as NodeJS.ErrnoException).code ?? String(error)})`, { subject: folder, cause: error });
  }
  const files = entries.filter((name) => name.toLowerCase().endsWith('.pb')).sort();
  if (!files.length) throw badExpected(`--expected ${printable(folder, 400)}: the folder holds no .pb file (expected output_0.pb... or <output name>.pb)`, folder);
  return files;
}

/** test_data_set files by kind, in index order; a gap in the numbering is an error naming the missing file. */
function numbered(folder: string, files: readonly string[], kind: 'input' | 'output'): string[] {
  const indices = files.map((f) => TEST_DATA_FILE.exec(f)).filter((m): m is RegExpExecArray => m?.[1] === kind).map((m) => Number(m[2]));
  indices.sort((a, b) => a - b);
  indices.forEach((index, position) => {
    if (index !== position) throw badExpected(`--expected ${printable(folder, 400)}: ${kind}_${position}.pb is missing (the folder has ${kind}_${index}.pb)`, path.join(folder, `${kind}_${position}.pb`));
  });
  return indices.map((index) => path.join(folder, `${kind}_${index}.pb`));
}

/** What a declared value is when it is no tensor ('sequence', 'optional'...); undefined for a tensor or an undeclared type. */
export function nonTensorKind(info: onnx.IValueInfoProto): string | undefined {
  const type = info.type;
  if (!type || type.tensor_type) return undefined;
  if (type.sequence_type) return 'a sequence';
  if (type.optional_type) return 'an optional';
  if (type.map_type) return 'a map';
  if (type.sparse_tensor_type) return 'a sparse tensor';
  return undefined;
}

/** A sequence or optional output's test data is a SequenceProto or OptionalProto, which a TensorProto reader would misread. */
function requireTensorOutput(output: onnx.IValueInfoProto, file: string): void {
  const kind = nonTensorKind(output);
  if (kind) throw badExpected(`--expected ${printable(file, 400)}: the model's output '${printable(output.name)}' is ${kind}, not a tensor; --expected compares tensor outputs only`, file);
}

/** Reads an expected output file; its problems are BAD_EXPECTED_OUTPUT naming the output. */
function readExpectedTensor(ort: Ort, file: string, output: onnx.IValueInfoProto): Tensor {
  // Bounded by the output's declared size before a byte is read (a 1.5 GB file next to a 10-element
  // output is refused at once); its type and shape are checked after, with their own message.
  try {
    return readTensorFile(ort, file, output);
  } catch (error) {
    if (error instanceof AmpError && error.code !== 'FILE_NOT_FOUND') throw badExpected(`expected output '${printable(output.name)}': ${error.message}`, file);
    throw error;
  }
}

/**
 * The expected outputs in `folder` for every output of `model`. Layout: ONNX test data when the
 * folder has output_N.pb files, else run --save-outputs's <name>.pb.
 */
export function readExpectedOutputs(ort: Ort, folder: string, model: onnx.IModelProto): ExpectedOutputs {
  const files = pbFiles(folder);
  const outputs = model.graph?.output ?? [];
  const result: ExpectedOutputs = { folder, layout: 'saved-outputs', outputs: {}, files: {}, inputFiles: [], unmatched: [], missing: [] };
  if (files.some((f) => TEST_DATA_FILE.exec(f)?.[1] === 'output')) {
    result.layout = 'test-data-set';
    const outputFiles = numbered(folder, files, 'output');
    result.inputFiles = numbered(folder, files, 'input');
    // Golden outputs past the model's own: it lacks them (judged FAIL, not an error of the folder).
    result.missing = outputFiles.slice(outputs.length).map((file) => path.basename(file, '.pb'));
    outputs.forEach((output, index) => {
      const file = outputFiles[index];
      if (file === undefined) throw badExpected(`--expected ${printable(folder, 400)}: no output_${index}.pb for the model's output '${printable(output.name)}'`, output.name ?? '');
      requireTensorOutput(output, file);
      result.outputs[output.name ?? ''] = readExpectedTensor(ort, file, output);
      result.files[output.name ?? ''] = file;
    });
    result.unmatched = files.filter((f) => !TEST_DATA_FILE.test(f)).map((f) => path.join(folder, f));
    return result;
  }
  for (const output of outputs) {
    const file = path.join(folder, savedOutputFileName(output.name ?? ''));
    if (!files.includes(path.basename(file))) {
      throw badExpected(`--expected ${printable(folder, 400)}: no ${printable(path.basename(file), 200)} for the model's output '${printable(output.name)}' (the folder holds ${files.slice(0, 5).map((f) => printable(f, 80)).join(', ')}${files.length > 5 ? ', ...' : ''})`, output.name ?? '');
    }
    requireTensorOutput(output, file);
    result.outputs[output.name ?? ''] = readExpectedTensor(ort, file, output);
    result.files[output.name ?? ''] = file;
  }
  const used = new Set(Object.values(result.files).map((f) => path.basename(f)));
  // A file named as one of the model's inputs is an input kept beside the outputs; any other is a golden output the model lacks.
  const inputFiles = new Set((model.graph?.input ?? []).map((input) => savedOutputFileName(input.name ?? '')));
  const others = files.filter((f) => !used.has(f));
  result.unmatched = others.filter((f) => inputFiles.has(f)).map((f) => path.join(folder, f));
  result.missing = others.filter((f) => !inputFiles.has(f)).map((f) => f.replace(/\.pb$/i, ''));
  return result;
}

/**
 * The expected tensor must be what the model gives (or declares, before it runs): the same type
 * (two float types may differ: their values compare) and the same shape.
 */
export function checkExpectedFits(expected: ExpectedOutputs, output: string, got: { type: string; dims: readonly number[] | undefined }, what: 'declares' | 'gives'): void {
  const tensor = expected.outputs[output];
  const file = expected.files[output] ?? expected.folder;
  if (!tensor) return;
  const bothFloat = FLOAT_TYPES.has(tensor.type) && FLOAT_TYPES.has(got.type);
  if (tensor.type !== got.type && !bothFloat) {
    throw badExpected(`--expected ${printable(file, 400)}: holds ${tensor.type}, the model ${what} ${got.type} for output '${printable(output)}'`, file);
  }
  if (got.dims && got.dims.join(',') !== tensor.dims.join(',')) {
    throw badExpected(`--expected ${printable(file, 400)}: shape [${tensor.dims.join(',')}], the model ${what} [${got.dims.join(',')}] for output '${printable(output)}'`, file);
  }
}

/** Checks the expected tensors against the outputs the model declares, where it declares a type and fixed dimensions. */
export function checkExpectedAgainstDeclared(expected: ExpectedOutputs, model: onnx.IModelProto): void {
  for (const output of model.graph?.output ?? []) {
    const tensorType = output.type?.tensor_type;
    if (!tensorType?.elem_type) continue;
    let type: string;
    try {
      type = ortTypeOf(tensorType.elem_type);
    } catch {
      continue;
    }
    const dims = tensorType.shape?.dim;
    const fixed = dims?.every((d) => d.dim_value != null && Object.hasOwn(d, 'dim_value'));
    checkExpectedFits(expected, output.name ?? '', { type, dims: dims && fixed ? dims.map((d) => longToNumber(d.dim_value)) : undefined }, 'declares');
  }
}
