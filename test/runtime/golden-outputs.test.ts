/**
 * Golden outputs (`compare model.onnx --expected dir/`, `compareWithExpected`): a model against an
 * ONNX conformance test's test_data_set_0 (its real output_N.pb, its inputs from input_N.pb), and
 * against the folder `run --save-outputs` wrote; judged and reported as compare judges two models.
 * A folder, file or tensor that does not fit is a one-line BAD_EXPECTED_OUTPUT (exit 2) naming the
 * file and the output. Needs the corpus (skipped without it).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareWithExpected } from '../../src/api/compare-expected.js';
import { AmpError } from '../../src/onnx/errors.js';
import { onnx } from '../../src/onnx/generated/onnx.js';
import { corpusAvailable, corpusDir, repoRoot } from '../support/corpus.js';
import { loadModel } from '../../src/onnx/model-io.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-golden-'));
const bin = path.join(repoRoot, 'dist/cli/main.js');
const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
const nodeTest = (name: string) => path.join(corpusDir, 'onnx-node-tests', name);
const squeezenet = path.join(corpusDir, 'light-models', 'light_squeezenet.onnx');

/** A writable copy of a conformance test's first data set. */
function copyDataSet(test: string, name: string): string {
  const folder = path.join(work, name);
  cpSync(path.join(nodeTest(test), 'test_data_set_0'), folder, { recursive: true });
  chmodSync(folder, 0o755);
  for (const file of ['input_0.pb', 'input_1.pb', 'output_0.pb', 'output_1.pb', 'output_2.pb']) {
    try {
      chmodSync(path.join(folder, file), 0o644);
    } catch {
      // not every data set has every file
    }
  }
  return folder;
}

/** One line on stderr, `amp-rewrite: error [CODE]: ...`, exit 2. */
function expectTypedError(result: ReturnType<typeof cli>, code: string, ...mentions: string[]): void {
  expect(result.status, result.stdout).toBe(2);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(new RegExp(`^amp-rewrite: error \\[${code}\\]: `));
  for (const text of mentions) expect(result.stderr).toContain(text);
}

describe.skipIf(!corpusAvailable)('compare --expected on ONNX conformance test data', () => {
  const model = nodeTest('test_matmul_2d/model.onnx');
  const dataSet = path.join(nodeTest('test_matmul_2d'), 'test_data_set_0');
  const amp = path.join(work, 'matmul.amp.onnx');

  it('the original passes its own test data; the float16 rewrite passes with a float16-sized error and fails a tighter tolerance', () => {
    const original = cli(['compare', model, '--expected', dataSet, '--json']);
    expect(original.status, original.stderr).toBe(0);
    const report = JSON.parse(original.stdout);
    expect(report).toMatchObject({ pass: true, numerics: 'emulate', expected: { layout: 'test-data-set', inputs: 'test-data', files: { c: path.join(dataSet, 'output_0.pb') } } });
    expect(report.outputs[0]).toMatchObject({ name: 'c', elements: 9, mismatched: 0 });
    expect(report.outputs[0].maxAbsError).toBeLessThan(1e-5);

    expect(cli([model, '-o', amp, '-q']).status).toBe(0);
    const text = cli(['compare', amp, '--expected', dataSet]);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/expected: .*test_data_set_0 \(ONNX test data; inputs from its input_N\.pb\)/);
    expect(text.stdout).toMatch(/^c\s+9\s+9\s/m);
    expect(text.stdout).toMatch(/PASS: 1 of 1 outputs within tolerance of the expected outputs/);
    const figures = JSON.parse(cli(['compare', amp, '--expected', dataSet, '--json']).stdout).outputs[0];
    // float16 inputs and weights: an error of float16's size (2^-11 relative), not zero, not more.
    expect(figures.maxAbsError).toBeGreaterThan(1e-4);
    expect(figures.maxRelError).toBeLessThan(4e-3);
    const tight = cli(['compare', amp, '--expected', dataSet, '--atol', '0', '--rtol', '1e-5']);
    expect(tight.status).toBe(1);
    expect(tight.stdout).toMatch(/FAIL: 0 of 1 outputs within tolerance/);
  });

  it('a changed expected value fails: the figures come from the folder, not from another run', () => {
    const folder = copyDataSet('test_matmul_2d', 'changed');
    const file = path.join(folder, 'output_0.pb');
    const tensor = onnx.TensorProto.decode(readFileSync(file));
    const values = new Float32Array(new Uint8Array(tensor.raw_data).slice().buffer);
    values[4] = (values[4] as number) + 1;
    tensor.raw_data = new Uint8Array(values.buffer);
    writeFileSync(file, onnx.TensorProto.encode(tensor).finish());
    const result = cli(['compare', model, '--expected', folder, '--json']);
    expect(result.status, result.stderr).toBe(1);
    const output = JSON.parse(result.stdout).outputs[0];
    expect(output).toMatchObject({ pass: false, mismatched: 1 });
    expect(output.maxAbsError).toBeCloseTo(1, 4);
  });

  it('a model of several outputs: output_N.pb go to the outputs in order', () => {
    const split = nodeTest('test_split_equal_parts_1d');
    const result = cli(['compare', path.join(split, 'model.onnx'), '--expected', path.join(split, 'test_data_set_0'), '--json']);
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.outputs.map((o: { name: string; maxAbsError: number }) => [o.name, o.maxAbsError])).toEqual([
      ['output_1', 0],
      ['output_2', 0],
      ['output_3', 0],
    ]);
    // The same files in another order are other values: the pairing is by position, and it shows.
    const swapped = copyDataSet('test_split_equal_parts_1d', 'swapped');
    copyFileSync(path.join(split, 'test_data_set_0/output_1.pb'), path.join(swapped, 'output_0.pb'));
    copyFileSync(path.join(split, 'test_data_set_0/output_0.pb'), path.join(swapped, 'output_1.pb'));
    expect(cli(['compare', path.join(split, 'model.onnx'), '--expected', swapped]).status).toBe(1);
    // A golden output_N.pb past the model's outputs: the model lacks it, FAIL (exit 1), named in --json.
    const extra = copyDataSet('test_split_equal_parts_1d', 'extra');
    copyFileSync(path.join(split, 'test_data_set_0/output_0.pb'), path.join(extra, 'output_3.pb'));
    const lacking = cli(['compare', path.join(split, 'model.onnx'), '--expected', extra, '--json']);
    expect(lacking.status, lacking.stderr).toBe(1);
    expect(JSON.parse(lacking.stdout)).toMatchObject({ pass: false, missingOutputs: ['output_3'] });
  });

  it('compareWithExpected takes an inputs folder as the command line does, with the same verdict', async () => {
    const inputs = path.join(work, 'matmul-inputs');
    cpSync(dataSet, inputs, { recursive: true });
    rmSync(path.join(inputs, 'output_0.pb'));
    const saved = path.join(work, 'matmul-saved');
    expect(cli(['run', model, '--inputs', inputs, '--save-outputs', saved, '-q']).status).toBe(0);
    // run --save-outputs writes a test_data_set: the inputs it ran on beside the outputs, so the check reruns on them.
    expect(readdirSync(saved).sort()).toEqual(['input_0.pb', 'input_1.pb', 'output_0.pb']);
    const viaCli = JSON.parse(cli(['compare', model, '--expected', saved, '--json']).stdout);
    expect(viaCli).toMatchObject({ pass: true, expected: { layout: 'test-data-set', inputs: 'test-data' } });
    expect(cli(['compare', model, '--expected', saved, '--inputs', inputs]).stderr).toMatch(/holds its own inputs/);
    const viaApi = await compareWithExpected(model, saved);
    expect(viaApi).toMatchObject({ pass: true, missingOutputs: [] });
    expect(viaApi.pass).toBe(viaCli.pass);
    expect(viaApi.notices).toEqual(viaCli.notices);
  });

  it('what does not fit is a typed one-line error naming the file and the output (exit 2)', async () => {
    expectTypedError(cli(['compare', model, '--expected', nodeTest('test_matmul_2d')]), 'BAD_EXPECTED_OUTPUT', 'holds no .pb file');
    const shape = copyDataSet('test_matmul_2d', 'shape');
    copyFileSync(path.join(dataSet, 'input_1.pb'), path.join(shape, 'output_0.pb'));
    expectTypedError(cli(['compare', model, '--expected', shape]), 'BAD_EXPECTED_OUTPUT', `${path.join(shape, 'output_0.pb')}: shape [4,3], the model declares [3,3] for output 'c'`);
    expectTypedError(cli(['compare', model, model, '--expected', dataSet]), 'BAD_OPTION', '--expected checks one model');
    expectTypedError(cli(['compare', model]), 'BAD_OPTION', 'or --expected');
    expectTypedError(cli(['compare', model, '--expected', dataSet, '--inputs', path.join(dataSet, 'input_0.pb')]), 'BAD_OPTION', 'holds its own inputs');

    // The same errors from the library (in process: quicker than a command each).
    const rejects = (folder: string, code: string, text: string, source = model) =>
      expect(compareWithExpected(source, folder)).rejects.toMatchObject({ code, message: expect.stringContaining(text) });
    await rejects(path.join(work, 'absent'), 'FILE_NOT_FOUND', 'absent');
    const type = copyDataSet('test_matmul_2d', 'type');
    copyFileSync(path.join(nodeTest('test_argmax_default_axis_example'), 'test_data_set_0/output_0.pb'), path.join(type, 'output_0.pb'));
    await rejects(type, 'BAD_EXPECTED_OUTPUT', `${path.join(type, 'output_0.pb')}: holds int64, the model declares float32 for output 'c'`);
    const split = nodeTest('test_split_equal_parts_1d/model.onnx');
    const missing = copyDataSet('test_split_equal_parts_1d', 'missing');
    rmSync(path.join(missing, 'output_2.pb'));
    await rejects(missing, 'BAD_EXPECTED_OUTPUT', "no output_2.pb for the model's output 'output_3'", split);
    const gap = copyDataSet('test_split_equal_parts_1d', 'gap');
    rmSync(path.join(gap, 'output_1.pb'));
    await rejects(gap, 'BAD_EXPECTED_OUTPUT', 'output_1.pb is missing (the folder has output_2.pb)', split);
    // A golden file far beyond the output's declared size (a sparse 1.5 GB file: nothing on disk) is
    // refused from its size, before a byte is read.
    const huge = copyDataSet('test_matmul_2d', 'huge');
    truncateSync(path.join(huge, 'output_0.pb'), 1.5 * 2 ** 30);
    const started = Date.now();
    await rejects(huge, 'BAD_EXPECTED_OUTPUT', `expected output 'c': ${path.join(huge, 'output_0.pb')}: 1610612736 bytes, more than the`);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe.skipIf(!corpusAvailable)('compareWithExpected across the conformance tests', () => {
  it('every eighth test data set passes or is a typed error, never an internal one; non-tensor I/O is named as such', async () => {
    const tests = readdirSync(path.join(corpusDir, 'onnx-node-tests')).sort().filter((_, i) => i % 8 === 0);
    const outcomes: Record<string, number> = {};
    for (const test of tests) {
      let outcome: string;
      try {
        outcome = (await compareWithExpected(nodeTest(`${test}/model.onnx`), path.join(nodeTest(test), 'test_data_set_0'), { numerics: 'native' })).pass ? 'pass' : 'fail';
      } catch (error) {
        expect(error, test).toBeInstanceOf(AmpError);
        outcome = (error as AmpError).code;
      }
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
    // 854 of the 922 pass on ONNX Runtime's CPU provider; the rest are random ops, known deviations, non-tensor or bfloat16 I/O.
    expect(outcomes.pass ?? 0).toBeGreaterThan(tests.length * 0.85);
    await expect(compareWithExpected(nodeTest('test_identity_sequence/model.onnx'), path.join(nodeTest('test_identity_sequence'), 'test_data_set_0'))).rejects.toMatchObject({
      code: 'BAD_EXPECTED_OUTPUT',
      message: expect.stringContaining("the model's output 'y' is a sequence, not a tensor"),
    });
    await expect(compareWithExpected(nodeTest('test_optional_has_element/model.onnx'), path.join(nodeTest('test_optional_has_element'), 'test_data_set_0'))).rejects.toMatchObject({
      code: 'BAD_INPUT_TENSOR',
      message: expect.stringContaining("input_0.pb: the model's input 'optional_input' is an optional, not a tensor"),
    });
  });
});

describe.skipIf(!corpusAvailable)('run --save-outputs, then compare --expected (SqueezeNet)', () => {
  const golden = path.join(work, 'squeezenet-golden');
  const amp = path.join(work, 'squeezenet.amp.onnx');

  it('the model passes its own saved outputs; the rewrite fails them under emulation (NaN), passes natively on cpu', async () => {
    expect(cli(['run', squeezenet, '--save-outputs', golden, '-q']).status).toBe(0);
    expect(cli([squeezenet, '-o', amp, '-q', '--no-verify']).status).toBe(0);
    const self = JSON.parse(cli(['compare', squeezenet, '--expected', golden, '--json']).stdout);
    expect(self).toMatchObject({ pass: true, expected: { layout: 'test-data-set', inputs: 'test-data', files: { softmaxout_1: path.join(golden, 'output_0.pb') } } });
    // With another seed the check still runs on the inputs the golden run saw.
    expect(JSON.parse(cli(['compare', squeezenet, '--expected', golden, '--seed', '7', '--json']).stdout).outputs[0].maxAbsError).toBe(0);
    expect(self.outputs[0].maxAbsError).toBe(0);

    const emulated = cli(['compare', amp, '--expected', golden, '--json']);
    expect(emulated.status).toBe(1);
    const output = JSON.parse(emulated.stdout).outputs[0];
    expect(output).toMatchObject({ name: 'softmaxout_1', elements: 1000, candidateNaN: 1000, pass: false });
    expect(cli(['compare', amp, '--expected', golden, '--numerics', 'native']).status).toBe(0);

    // The library: the same verdict and figures.
    const api = await compareWithExpected(amp, golden);
    expect(api).toMatchObject({ provider: 'cpu', numerics: 'emulate', pass: false, expected: { layout: 'test-data-set' } });
    expect(api.outputs).toEqual(JSON.parse(emulated.stdout).outputs.map((o: Record<string, unknown>) => ({ ...o, maxAbsError: NaN, maxRelError: NaN, cosine: NaN })));
    expect((await compareWithExpected(amp, golden, { numerics: 'native' })).pass).toBe(true);
    await expect(compareWithExpected(amp, golden, { tolerance: 1 } as never)).rejects.toMatchObject({ code: 'BAD_OPTION', message: expect.stringContaining("'tolerance'") });
    await expect(compareWithExpected(amp, path.join(work, 'absent'))).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
  });

  it('a golden output the model lacks is FAIL (CLI and API alike); an input kept beside is noted; a missing output file names the output', async () => {
    // The layout older runs of --save-outputs wrote, one <output>.pb per output and no inputs, is still read.
    const other = path.join(work, 'squeezenet-other');
    mkdirSync(other);
    writeFileSync(path.join(other, 'softmaxout_1.pb'), readFileSync(path.join(golden, 'output_0.pb')));
    // The golden run had an output 'extra' that this model does not give: it cannot pass.
    writeFileSync(path.join(other, 'extra.pb'), readFileSync(path.join(golden, 'output_0.pb')));
    const lacking = cli(['compare', squeezenet, '--expected', other]);
    expect(lacking.status, lacking.stderr).toBe(1);
    expect(lacking.stdout).toMatch(/notice: --expected: the model has no output 'extra', which the golden outputs hold: FAIL/);
    expect(lacking.stdout).toMatch(/\nFAIL: 1 of 1 outputs within tolerance of the expected outputs; the model lacks 1 of the golden outputs \('extra'\)\n$/);
    const json = JSON.parse(cli(['compare', squeezenet, '--expected', other, '--json']).stdout);
    expect(json).toMatchObject({ pass: false, missingOutputs: ['extra'] });
    const api = await compareWithExpected(squeezenet, other);
    expect(api).toMatchObject({ pass: false, missingOutputs: ['extra'] });
    expect(api.notices).toEqual(json.notices);
    rmSync(path.join(other, 'extra.pb'));
    // A file named as the model's input is the input kept beside the outputs: noted, not compared.
    const inputName = loadModel(squeezenet).graph?.input?.[0]?.name as string;
    writeFileSync(path.join(other, `${inputName.replace(/[^A-Za-z0-9_.-]/g, '_')}.pb`), readFileSync(path.join(golden, 'output_0.pb')));
    const noted = cli(['compare', squeezenet, '--expected', other]);
    expect(noted.status, noted.stderr).toBe(0);
    expect(noted.stdout).toMatch(/notice: --expected: .*\.pb is named as an input of the model \(not compared\)/);
    rmSync(path.join(other, 'softmaxout_1.pb'));
    expectTypedError(cli(['compare', squeezenet, '--expected', other]), 'BAD_EXPECTED_OUTPUT', "no softmaxout_1.pb for the model's output 'softmaxout_1'");
  });
});
