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
import { diagnosticSettings, type DiagnosticOptions } from './compare-options.js';
import { comparisonFeeds } from './comparison-feeds.js';
import { modelOf, type ModelSource } from './execute.js';
import type { Numerics, Provider } from './types.js';

/** The inputs (as runModel's), the provider, compare's tolerance rule and numerics. */
export type ExpectedOptions = DiagnosticOptions;

export interface ExpectedReport {
  provider: Provider;
  numerics: Numerics;
  pass: boolean;
  /** ONNX Runtime's reason for refusing the model as it is (`pass` is then false, no output compared), or null. */
  candidateRefused: string | null;
  /** How it was judged, where a reader should know (a model that does not run as it is, compared under emulation). */
  notices: string[];
  outputs: OutputComparison[];
  expected: {
    folder: string;
    layout: 'test-data-set' | 'saved-outputs';
    /** The file each output's expected tensor came from. */
    files: Record<string, string>;
    inputs: 'test-data' | 'given';
    /** .pb files of the folder named as an input of the model (not compared). */
    unmatched: string[];
  };
  /** Golden outputs the model lacks (`pass` is then false): saved <name>.pb's name, or output_N of test data. */
  missingOutputs: string[];
}

/** Runs the model (as it is, then under the numerics) and judges each output against the folder's expected tensor. */
export async function compareWithExpected(source: ModelSource, folder: string, options: ExpectedOptions = {}): Promise<ExpectedReport> {
  const settings = diagnosticSettings('compareWithExpected', options);
  const model = modelOf(source);
  const ort = await loadOrt();
  const expected = readExpectedOutputs(ort, folder, model);
  // The command line's verdict and notices: the same inputs (files, a folder, or random ones that respect the model) and the same check.
  const notices: string[] = [];
  const { feeds, source: inputs } = expectedFeeds(ort, model, expected, Boolean(options.inputs?.length), () => comparisonFeeds(ort, model, options, notices, 'compareWithExpected'));
  const result: ExpectedComparison = await compareWithExpectedOutputs(model, expected, feeds, inputs, settings, notices);
  const { skipped: _skipped, ...report } = result;
  return report;
}
