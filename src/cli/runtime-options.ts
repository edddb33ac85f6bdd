/** Options shared by the commands that execute models: provider, inputs, symbolic dimensions. */
import type { Argv } from 'yargs';
import { AmpError } from '../onnx/errors.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { oneBatchSpecs } from '../runtime/input-folders.js';
import { modelAwareRandomInputs } from '../runtime/input-roles.js';
import { inputsFromFiles, requiredInputs, resolveShape, type Feeds } from '../runtime/inputs.js';
import type { Ort } from '../runtime/ort.js';
import { parseProviders, type Provider } from '../runtime/session.js';
import { parseDims } from './rewrite-command.js';
import { checkDimNames } from './option-rules.js';

export interface RuntimeArgs {
  ep: string;
  inputs: string[];
  dim: string[];
  dimDefault: number;
  seed: number;
}

export function runtimeOptions<T>(yargs: Argv<T>): Argv<T & RuntimeArgs> {
  return yargs
    .option('ep', {
      type: 'string',
      default: 'cpu',
      describe: 'execution provider: cuda, webgpu or cpu; a comma list is a preference order; auto = cuda,webgpu,cpu',
    })
    .option('inputs', { type: 'string', array: true, default: [], describe: 'input tensors: name=file or files in input order (.pb TensorProto, .npy, .json), or a folder of them (ONNX test_data_set_N layout); random when absent' })
    .option('dim', { type: 'string', array: true, default: [], describe: 'size of a symbolic dimension for random inputs: name=value (repeatable)' })
    .option('dim-default', { type: 'number', default: 1, describe: 'size of every symbolic dimension not given with --dim (a notice names each)' })
    .option('seed', { type: 'number', default: 0, describe: 'seed for random inputs' }) as unknown as Argv<T & RuntimeArgs>;
}

export function providersOf(args: RuntimeArgs): Provider[] {
  return parseProviders(args.ep);
}

/** --inputs as the `name=file` list of its one batch (a folder of files resolved). */
export function inputFilesOfArgs(model: onnx.IModelProto, args: RuntimeArgs, command: string): string[] {
  return args.inputs.length ? oneBatchSpecs(model, args.inputs, command) : [];
}

/**
 * Inputs from --inputs (files or a folder of one batch), or random ones that respect the model
 * (input-roles.ts); symbolic dimensions without --dim take --dim-default, noted in `notices`.
 */
export function feedsOf(ort: Ort, model: onnx.IModelProto, args: RuntimeArgs, notices?: string[], command = 'this command'): Feeds {
  if (args.inputs.length) return inputsFromFiles(ort, model, inputFilesOfArgs(model, args, command));
  if (args.dimDefault !== undefined && !(Number.isInteger(args.dimDefault) && args.dimDefault >= 1)) {
    throw new AmpError('BAD_OPTION', `--dim-default ${args.dimDefault}: expected a positive integer`);
  }
  const dims = parseDims(args.dim);
  checkDimNames(model, dims, 'the model');
  return modelAwareRandomInputs(ort, model, { dims, seed: args.seed, defaultDim: args.dimDefault, notices });
}

/**
 * The one rule for symbolic dimensions (run, compare, bench; tune, --calibrate and the verification
 * take the same default): --dim sizes them, every other one takes --dim-default (1), and a notice
 * names each. The map covers every symbolic dimension of the model's inputs.
 */
export function dimsWithDefaults(model: onnx.IModelProto, args: Pick<RuntimeArgs, 'dim' | 'dimDefault'>, notices: string[]): Map<string, number> {
  if (args.dimDefault !== undefined && !(Number.isInteger(args.dimDefault) && args.dimDefault >= 1)) {
    throw new AmpError('BAD_OPTION', `--dim-default ${args.dimDefault}: expected a positive integer`);
  }
  const dims = parseDims(args.dim);
  checkDimNames(model, dims, 'the model');
  const sized = new Map(dims);
  for (const info of requiredInputs(model)) {
    const shape = info.type?.tensor_type?.shape?.dim ?? [];
    const resolved = resolveShape(info, dims, { defaultDim: args.dimDefault ?? 1, notices });
    shape.forEach((d, i) => {
      if (d.dim_param && !sized.has(d.dim_param)) sized.set(d.dim_param, resolved[i] as number);
    });
  }
  return sized;
}

