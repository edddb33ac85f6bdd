/**
 * `compare model.onnx --expected dir/` as a function: a model against golden outputs, a folder
 * `run --save-outputs` wrote (inputs from `inputs`, or random from the same `seed` and `dims`) or an
 * ONNX test_data_set_N folder (its own input_N.pb). Judged by compare's tolerance rule; a folder,
 * file or tensor that does not fit the model is an AmpError with code BAD_EXPECTED_OUTPUT.
 */
import type { OutputComparison } from '../runtime/compare.js';
import { compareWithExpectedOutputs, type ExpectedComparison } from '../runtime/compare-expected.js';
import { expectedFeeds } from '../runtime/compare-expected.js';
import { readExpectedOutputs } from '../runtime/golden-outputs.js';
import { loadOrt } from '../runtime/ort.js';
import { checkNumber, checkChoice } from './check-options.js';
import { checkKnownOptions, numericsOption, type NumericsChoice } from './compare-options.js';
import { checkInputOptions, feedsFor, modelOf, providersOf, type ExecuteOptions, type ModelSource } from './execute.js';
import type { Numerics, Provider } from './types.js';

export interface ExpectedOptions extends ExecuteOptions {
  /** Tolerance, as compare's (defaults 0.01, 0.01). */
  atol?: number;
  /** The absolute floor of compare's rule (default 1e-5). */
  atolFloor?: number;
  rtol?: number;
  /** 'auto' (default): emulate on the CPU provider, native on a GPU provider, as compare. */
  numerics?: NumericsChoice;
}

export interface ExpectedReport {
  provider: Provider;
  numerics: Numerics;
  pass: boolean;
  outputs: OutputComparison[];
  expected: {
    folder: string;
    layout: 'test-data-set' | 'saved-outputs';
    /** The file each output's expected tensor came from. */
    files: Record<string, string>;
    inputs: 'test-data' | 'given';
    /** .pb files of the folder that are no output of the model (not compared). */
    unmatched: string[];
  };
}

const KNOWN = ['inputs', 'dims', 'seed', 'ep', 'atol', 'atolFloor', 'rtol', 'numerics'] as const;

/** Runs the model (as it is, then under the numerics) and judges each output against the folder's expected tensor. */
export async function compareWithExpected(source: ModelSource, folder: string, options: ExpectedOptions = {}): Promise<ExpectedReport> {
  const untyped = options as Record<string, unknown>;
  checkKnownOptions('compareWithExpected', untyped, KNOWN);
  checkInputOptions(untyped);
  checkNumber(untyped, 'atol', 0);
  checkNumber(untyped, 'rtol', 0);
  checkNumber(untyped, 'atolFloor', 0);
  checkChoice(untyped, 'numerics', ['auto', 'emulate', 'native']);
  const model = modelOf(source);
  const ort = await loadOrt();
  const expected = readExpectedOutputs(ort, folder, model);
  const { feeds, source: inputs } = expectedFeeds(ort, model, expected, Boolean(options.inputs?.length), () => feedsFor(ort, model, options));
  const numerics = numericsOption(options.numerics);
  const result: ExpectedComparison = await compareWithExpectedOutputs(model, expected, feeds, inputs, {
    providers: providersOf(options),
    ...(numerics ? { numerics } : {}),
    atol: options.atol ?? 1e-2,
    rtol: options.rtol ?? 1e-2,
    atolFloor: options.atolFloor ?? 1e-5,
  });
  const { skipped: _skipped, ...report } = result;
  return report;
}
