/**
 * Checking a model against golden outputs (`compare model.onnx --expected dir/`): the model runs as
 * it is first (a model ONNX Runtime refuses never passes), then under the chosen numerics, and each
 * output is judged against its expected tensor by compare's own rule, so the report reads as
 * compare's. The inputs: the ONNX test data's own input_N.pb, else what the caller gives.
 */
import { DEFAULT_TOLERANCE } from './compare.js';
import { encodeModel } from '../onnx/codec.js';
import { AmpError } from '../onnx/errors.js';
import type { onnx } from '../onnx/generated/onnx.js';
import type { OutputComparison } from './compare.js';
import { compareRuns, runOnce, runUnder, type SingleRun as ModelRun } from './compare-models.js';
import { checkExpectedAgainstDeclared, checkExpectedFits, type ExpectedLayout, type ExpectedOutputs } from './golden-outputs.js';
import { inputsFromFiles, type Feeds } from './inputs.js';
import { defaultNumerics, modelForNumerics, type Numerics } from './numerics.js';
import type { Ort } from './ort.js';
import type { OpenedSession, Provider } from './session.js';

export interface ExpectedComparison {
  provider: Provider;
  skipped: OpenedSession['skipped'];
  numerics: Numerics;
  pass: boolean;
  outputs: OutputComparison[];
  expected: {
    folder: string;
    layout: ExpectedLayout;
    /** The file each output's expected tensor came from. */
    files: Record<string, string>;
    /** Where the inputs came from: the test data's input_N.pb, the caller's files, or random. */
    inputs: 'test-data' | 'given';
    /** .pb files of the folder that are no output's. */
    unmatched: string[];
  };
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
  return { feeds: inputsFromFiles(ort, model, expected.inputFiles), source: 'test-data' };
}

export async function compareWithExpectedOutputs(model: onnx.IModelProto, expected: ExpectedOutputs, feeds: Feeds, source: 'test-data' | 'given', options: ExpectedOptions): Promise<ExpectedComparison> {
  checkExpectedAgainstDeclared(expected, model);
  // As it is first: the model that ships must load and run on the provider.
  const asIs = await runOnce(encodeModel(model), feeds, options.providers, 'candidate');
  const numerics = options.numerics ?? defaultNumerics(asIs.provider);
  const run = modelForNumerics(model, numerics) === model ? asIs : await runUnder(model, numerics, feeds, [asIs.provider], 'candidate');
  const outputNames = (model.graph?.output ?? []).map((o) => o.name ?? '');
  for (const name of outputNames) {
    const got = run.outputs[name];
    if (got) checkExpectedFits(expected, name, { type: got.type, dims: got.dims }, 'gives');
  }
  const reference: ModelRun = { outputs: expected.outputs, outputNames, provider: asIs.provider, skipped: [] };
  const outputs = compareRuns(reference, run, { atol: options.atol, rtol: options.rtol, atolFloor: options.atolFloor ?? DEFAULT_TOLERANCE.atolFloor });
  return {
    provider: asIs.provider,
    skipped: asIs.skipped,
    numerics,
    pass: outputs.every((row) => row.pass),
    outputs,
    expected: { folder: expected.folder, layout: expected.layout, files: expected.files, inputs: source, unmatched: expected.unmatched },
  };
}
