/**
 * Checking a model against golden outputs (`compare model.onnx --expected dir/`): the model runs as
 * it is first (a model ONNX Runtime refuses never passes), then under the chosen numerics, and each
 * output is judged against its expected tensor by compare's own rule, so the report reads as
 * compare's. The inputs: the ONNX test data's own input_N.pb, else what the caller gives.
 */
import { DEFAULT_TOLERANCE } from './compare.js';
import { encodeModel } from '../onnx/codec.js';
import { DataType, dataTypeName } from '../onnx/data-types.js';
import { AmpError, isAmpError } from '../onnx/errors.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { printable } from '../onnx/printable.js';
import type { OutputComparison } from './compare.js';
import { compareRuns, judgedDespiteRefusal, refusalNotice, runOnce, runUnder, type SingleRun as ModelRun } from './compare-models.js';
import { checkExpectedAgainstDeclared, checkExpectedFits, nonTensorKind, type ExpectedLayout, type ExpectedOutputs } from './golden-outputs.js';
import { inputsFromFiles, requiredInputs, type Feeds } from './inputs.js';
import { defaultNumerics, modelForNumerics, type Numerics } from './numerics.js';
import type { Ort } from './ort.js';
import type { OpenedSession, Provider } from './session.js';

/** Element types a feed can have (ONNX Runtime's JavaScript tensors: no bfloat16, no float8). */
const FEEDABLE: ReadonlySet<number> = new Set([
  DataType.FLOAT, DataType.FLOAT16, DataType.DOUBLE, DataType.INT8, DataType.UINT8, DataType.INT16, DataType.UINT16,
  DataType.INT32, DataType.UINT32, DataType.INT64, DataType.UINT64, DataType.BOOL, DataType.STRING,
]);

export interface ExpectedComparison {
  provider: Provider;
  skipped: OpenedSession['skipped'];
  numerics: Numerics;
  pass: boolean;
  /** ONNX Runtime's reason for refusing the model as it is (then it fails, with no outputs compared), or null. */
  candidateRefused: string | null;
  /** What the reader should know of how it was judged (a model compared under emulation that does not run as it is). */
  notices: string[];
  outputs: OutputComparison[];
  expected: {
    folder: string;
    layout: ExpectedLayout;
    /** The file each output's expected tensor came from. */
    files: Record<string, string>;
    /** Where the inputs came from: the test data's input_N.pb, the caller's files, or random. */
    inputs: 'test-data' | 'given';
    /** .pb files of the folder that are no output's (inputs kept beside the outputs). */
    unmatched: string[];
  };
  /** Golden outputs the model lacks (then it fails): saved <name>.pb's name, or output_N of test data. */
  missingOutputs: string[];
}

export interface ExpectedOptions {
  providers: readonly Provider[];
  /** Default: emulate on the CPU provider, native on a GPU provider (as compare). */
  numerics?: Numerics;
  atol: number;
  rtol: number;
  /** The absolute floor of compare's rule (default DEFAULT_TOLERANCE.atolFloor). */
  atolFloor?: number;
}

/**
 * The feeds for a check against `expected`: the ONNX test data's input_N.pb when the folder has
 * them (then `given` must be absent: two sources of inputs are a mistake), else `given()`.
 */
export function expectedFeeds(ort: Ort, model: onnx.IModelProto, expected: ExpectedOutputs, inputsGiven: boolean, given: () => Feeds): { feeds: Feeds; source: 'test-data' | 'given' } {
  if (!expected.inputFiles.length) return { feeds: given(), source: 'given' };
  if (inputsGiven) {
    throw new AmpError('BAD_OPTION', `--expected ${expected.folder} holds its own inputs (input_0.pb...): give no other inputs (--inputs)`, { subject: expected.folder });
  }
  // A sequence or optional input's file is no TensorProto: said so, before a reader misreads it.
  requiredInputs(model).forEach((info, index) => {
    const kind = nonTensorKind(info);
    const file = expected.inputFiles[index];
    if (kind && file) throw new AmpError('BAD_INPUT_TENSOR', `${file}: the model's input '${printable(info.name)}' is ${kind}, not a tensor; only tensor inputs can be fed`, { subject: file });
    const elemType = info.type?.tensor_type?.elem_type;
    if (elemType && file && !FEEDABLE.has(elemType)) {
      throw new AmpError('BAD_INPUT_TENSOR', `${file}: the model's input '${printable(info.name)}' is ${dataTypeName(elemType)}, which ONNX Runtime's JavaScript binding cannot take`, { subject: file });
    }
  });
  return { feeds: inputsFromFiles(ort, model, expected.inputFiles), source: 'test-data' };
}

/**
 * The one check behind `compare --expected` and compareWithExpected: the verdict, and every notice
 * (`feedNotices`: those made with the inputs).
 */
export async function compareWithExpectedOutputs(model: onnx.IModelProto, expected: ExpectedOutputs, feeds: Feeds, source: 'test-data' | 'given', options: ExpectedOptions, feedNotices: readonly string[] = []): Promise<ExpectedComparison> {
  checkExpectedAgainstDeclared(expected, model);
  // As it is first: the model that ships must load and run on the provider. A refusal is the
  // verdict FAIL, as compare's for a candidate, not an error of the command.
  let asIs: ModelRun | undefined;
  let refused: string | null = null;
  try {
    asIs = await runOnce(encodeModel(model), feeds, options.providers, 'candidate');
  } catch (error) {
    if (!(isAmpError(error) && error.code === 'RUNTIME_FAILED')) throw error;
    refused = error.message;
  }
  const provider = asIs?.provider ?? options.providers[0] ?? 'cpu';
  const numerics = options.numerics ?? defaultNumerics(provider);
  const notices: string[] = [...feedNotices];
  if (expected.unmatched.length) notices.push(`--expected: ${expected.unmatched.map((f) => printable(f, 200)).join(', ')} ${expected.unmatched.length === 1 ? 'is' : 'are'} named as an input of the model (not compared)`);
  if (expected.missing.length) {
    notices.push(`--expected: the model has no output ${expected.missing.map((name) => `'${printable(name, 200)}'`).join(', ')}, which the golden outputs hold: FAIL`);
  }
  const judged = (outputs: OutputComparison[], candidateRefused: string | null): ExpectedComparison => ({
    provider,
    skipped: asIs?.skipped ?? [],
    numerics,
    pass: candidateRefused === null && expected.missing.length === 0 && outputs.every((row) => row.pass),
    candidateRefused,
    notices,
    outputs,
    expected: { folder: expected.folder, layout: expected.layout, files: expected.files, inputs: source, unmatched: expected.unmatched },
    missingOutputs: expected.missing,
  });
  const emulates = modelForNumerics(model, numerics) !== model;
  // Only a kernel the provider lacks, under emulation, leaves something to judge (as compare does).
  // Without low-precision values emulation is the model itself, which did not run: still refused.
  if (refused !== null && !(emulates && judgedDespiteRefusal(refused, numerics))) return judged([], refused);
  if (refused !== null) notices.push(refusalNotice('the model', provider, refused));
  const run = asIs && !emulates ? asIs : await runUnder(model, numerics, feeds, [provider], 'candidate');
  const outputNames = (model.graph?.output ?? []).map((o) => o.name ?? '');
  for (const name of outputNames) {
    const got = run.outputs[name];
    if (got) checkExpectedFits(expected, name, { type: got.type, dims: got.dims }, 'gives');
  }
  const reference: ModelRun = { outputs: expected.outputs, outputNames, provider, skipped: [] };
  return judged(compareRuns(reference, run, { atol: options.atol, rtol: options.rtol, atolFloor: options.atolFloor ?? DEFAULT_TOLERANCE.atolFloor }), null);
}
