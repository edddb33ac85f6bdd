/**
 * --inputs as files or folders, the same for every command: files (one batch), a folder of files
 * (one batch; a file is matched to the input of its name, `input_<i>` to the i-th input, otherwise
 * in sorted order; ONNX's `output_<i>` files beside them are skipped), or a folder of folders (one
 * batch each, in sorted order, like ONNX's test_data_set_<n>). A batch comes back as the
 * `name=file` list inputsFromFiles reads.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { AmpError } from '../onnx/errors.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { printable } from '../onnx/printable.js';
import { inputsFromFiles, requiredInputs, type Feeds } from './inputs.js';
import type { Ort } from './ort.js';

const TENSOR_FILE = /\.(pb|npy|json)$/i;
/** ONNX's test data sets keep the expected outputs beside the inputs. */
const OUTPUT_FILE = /^output_\d+\.(pb|npy|json)$/i;

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

export function inputBatchSpecs(model: onnx.IModelProto, specs: readonly string[]): string[][] {
  if (specs.length !== 1 || !isDir(specs[0] as string)) return [[...specs]];
  const folder = specs[0] as string;
  const entries = readdirSync(folder).sort();
  const subfolders = entries.filter((e) => isDir(path.join(folder, e)));
  const batches = subfolders.length ? subfolders.map((e) => path.join(folder, e)) : [folder];
  return batches.map((dir) => filesOfBatch(model, dir));
}

/** One batch, for commands that run once (run, bench): a folder of several batches is refused, naming them. */
export function oneBatchSpecs(model: onnx.IModelProto, specs: readonly string[], command: string): string[] {
  const batches = inputBatchSpecs(model, specs);
  if (batches.length !== 1) {
    const names = readdirSync(specs[0] as string).filter((e) => isDir(path.join(specs[0] as string, e))).sort();
    throw new AmpError('BAD_OPTION', `--inputs ${printable(specs[0], 400)}: ${command} runs one batch and this folder holds ${batches.length} (${names.slice(0, 5).map((n) => printable(n, 80)).join(', ')}${names.length > 5 ? ', ...' : ''}); name one of them`, { subject: specs[0] });
  }
  return batches[0] as string[];
}

function filesOfBatch(model: onnx.IModelProto, dir: string): string[] {
  const names = requiredInputs(model).map((i) => i.name ?? '');
  const stem = (file: string): string => file.replace(TENSOR_FILE, '');
  const files = readdirSync(dir).filter((f) => TENSOR_FILE.test(f) && (!OUTPUT_FILE.test(f) || names.includes(stem(f)))).sort();
  if (!files.length) throw new AmpError('BAD_OPTION', `--inputs ${printable(dir, 400)}: no .pb, .npy or .json input files`, { subject: dir });
  if (files.every((f) => names.includes(stem(f)))) return files.map((f) => `${stem(f)}=${path.join(dir, f)}`);
  const numbered = files.map((f) => /^input_(\d+)$/.exec(stem(f)));
  if (numbered.every((m) => m && names[Number(m[1])] !== undefined)) return files.map((f, i) => `${names[Number(numbered[i]![1])]}=${path.join(dir, f)}`);
  return files.map((f) => path.join(dir, f));
}

/**
 * Batches from --inputs: files (one batch), a folder of files (one batch), or a folder of folders
 * (one batch each, in sorted order, like ONNX's test_data_set_<n>).
 */
export function inputBatches(ort: Ort, model: onnx.IModelProto, specs: readonly string[]): Feeds[] {
  return inputBatchSpecs(model, specs).map((batch) => inputsFromFiles(ort, model, batch));
}
