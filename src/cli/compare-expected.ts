/**
 * `compare model.onnx --expected dir/`: the model against golden outputs (a folder `run
 * --save-outputs` wrote, or an ONNX test_data_set_N folder), judged and reported as compare judges
 * and reports two models.
 */
import { loadCheckedModel, RUNTIME_JUDGES_TYPES } from '../onnx/load-checked.js';
import type { Argv } from 'yargs';
import { AmpError } from '../onnx/errors.js';
import { printable } from '../onnx/printable.js';
import { TOLERANCE_RULE, type OutputComparison } from '../runtime/compare.js';
import { compareWithExpectedOutputs, expectedFeeds, type ExpectedComparison } from '../runtime/compare-expected.js';
import { readExpectedOutputs } from '../runtime/golden-outputs.js';
import { describeNumerics, parseNumerics } from '../runtime/numerics.js';
import { loadOrt } from '../runtime/ort.js';
import { describeProvider } from '../runtime/session.js';
import { requireNumber } from './numeric-options.js';
import { feedsOf, providersOf, type RuntimeArgs } from './runtime-options.js';

export interface ExpectedArgs extends RuntimeArgs {
  reference: string;
  candidate?: string;
  expected?: string;
  atol: number;
  atolFloor: number;
  rtol: number;
  numerics: string;
  json: boolean;
  quiet?: boolean;
}

export function expectedOptions<T>(yargs: Argv<T>): Argv<T & { expected?: string }> {
  return yargs.option('expected', {
    type: 'string',
    describe:
      'check the one model given against golden outputs instead of a second model: a folder run --save-outputs wrote, or any ONNX test_data_set_N folder (output_N.pb, run on its input_N.pb); a folder of <output>.pb files alone (older run --save-outputs) takes --inputs or the same --seed',
  }) as unknown as Argv<T & { expected?: string }>;
}

/** Which form of compare the arguments ask for: two models, or one and --expected. */
export function checkCompareModels(args: { candidate?: string; expected?: string }): void {
  if (args.expected !== undefined && args.candidate !== undefined) {
    throw new AmpError('BAD_OPTION', `--expected checks one model against saved outputs: drop the second model (${printable(args.candidate, 200)}) or --expected`);
  }
  if (args.expected === undefined && args.candidate === undefined) {
    throw new AmpError('BAD_OPTION', 'compare needs the candidate model after the reference, or --expected <folder> of golden outputs');
  }
}

export async function runCompareExpected(
  args: ExpectedArgs,
  print: (text: string) => void,
  render: (rows: OutputComparison[]) => string,
): Promise<number> {
  requireNumber('atol', args.atol, { min: 0 });
  requireNumber('rtol', args.rtol, { min: 0 });
  requireNumber('seed', args.seed, { integer: true });
  const model = loadCheckedModel(args.reference, RUNTIME_JUDGES_TYPES).model;
  const asked = parseNumerics(args.numerics);
  const ort = await loadOrt();
  const expected = readExpectedOutputs(ort, args.expected as string, model);
  const notices: string[] = [];
  const { feeds, source } = expectedFeeds(ort, model, expected, args.inputs.length > 0, () => feedsOf(ort, model, args, notices));
  const result = await compareWithExpectedOutputs(
    model,
    expected,
    feeds,
    source,
    { providers: providersOf(args), ...(asked ? { numerics: asked } : {}), atol: args.atol, rtol: args.rtol, atolFloor: args.atolFloor },
    notices,
  );
  const tolerance = { atol: args.atol, atolFloor: args.atolFloor, rtol: args.rtol, rule: TOLERANCE_RULE };
  if (args.json) {
    const { skipped: _skipped, ...shown } = result;
    print(`${JSON.stringify({ ...shown, tolerance }, null, 2)}\n`);
  } else if (!args.quiet) print(renderExpected(result, tolerance, result.notices, render));
  return result.pass ? 0 : 1;
}

function renderExpected(result: ExpectedComparison, { atol, atolFloor, rtol }: { atol: number; atolFloor: number; rtol: number }, notices: readonly string[], render: (rows: OutputComparison[]) => string): string {
  const inputs = result.expected.inputs === 'test-data' ? 'inputs from its input_N.pb' : 'inputs from --inputs or random (--seed, --dim), as when the outputs were saved';
  const layout = result.expected.layout === 'test-data-set' ? 'ONNX test data' : 'saved outputs';
  const lines = [
    describeProvider(result),
    describeNumerics(result.numerics, result.provider),
    `expected: ${printable(result.expected.folder, 400)} (${layout}; ${inputs})`,
    ...notices.map((n) => `notice: ${n}`),
    `tolerance: atol ${atol}, atol-floor ${atolFloor}, rtol ${rtol}: ${TOLERANCE_RULE}`,
  ];
  if (result.candidateRefused !== null) return `${lines.join('\n')}\nFAIL: ONNX Runtime refuses the model as it is on ${result.provider}: ${result.candidateRefused}\n`;
  const passed = result.outputs.filter((r) => r.pass).length;
  const missing = result.missingOutputs.length ? `; the model lacks ${result.missingOutputs.length} of the golden outputs (${result.missingOutputs.map((n) => `'${printable(n, 120)}'`).join(', ')})` : '';
  return `${lines.join('\n')}\n${render(result.outputs)}${result.pass ? 'PASS' : 'FAIL'}: ${passed} of ${result.outputs.length} outputs within tolerance of the expected outputs${missing}\n`;
}
