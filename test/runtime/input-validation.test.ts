/**
 * Input files for run/compare/bench are checked against the model's declared inputs before ONNX
 * Runtime sees them: type, rank, dimensions, value counts, value ranges, file kind and size.
 * Each failure is one typed line (exit 2), never ONNX Runtime's message passed through, a zero
 * fill, a NaN, a wrap-around or a hang.
 */
import { spawnSync } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { valueInfo } from '../../src/builder/graph-builder.js';
import { parseDims } from '../../src/cli/rewrite-command.js';
import { encodeModel, onnx } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { AmpError } from '../../src/onnx/errors.js';
import { inputsFromFiles, randomInputs } from '../../src/runtime/inputs.js';
import { loadOrt, type Ort } from '../../src/runtime/ort.js';
import { repoRoot } from '../support/corpus.js';
import { model as modelOf, node } from '../support/models.js';
import { errorOf } from '../support/errors.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-inputs-'));
const model = (inputs: onnx.ValueInfoProto[]) => onnx.ModelProto.create({ graph: onnx.GraphProto.create({ input: inputs }) });
const floatModel = model([valueInfo('x', DataType.FLOAT, [2, 3])]);
const intModel = model([valueInfo('ids', DataType.INT64, [2])]);

let ort: Ort;
beforeAll(async () => {
  ort = await loadOrt();
});


function file(name: string, content: string | Uint8Array): string {
  const at = path.join(work, name);
  writeFileSync(at, content);
  return at;
}

function npy(descr: string, shape: string, data: Uint8Array, headerLength?: number): Buffer {
  const header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`.padEnd(118, ' ') + '\n';
  return Buffer.concat([Buffer.from('\x93NUMPY\x01\x00', 'latin1'), Buffer.from([(headerLength ?? header.length) & 0xff, (headerLength ?? header.length) >> 8]), Buffer.from(header, 'latin1'), Buffer.from(data)]);
}

const floats = (n: number): Uint8Array => new Uint8Array(new Float32Array(n).buffer);

describe('input files are validated against the declared input', () => {
  it('accepts a matching file', () => {
    const feeds = inputsFromFiles(ort, floatModel, [file('ok.npy', npy('<f4', '(2, 3)', floats(6)))]);
    expect(feeds.x!.dims).toEqual([2, 3]);
  });

  it('wrong dtype, rank or dimension', () => {
    const int32 = errorOf(() => inputsFromFiles(ort, floatModel, [file('i32.npy', npy('<i4', '(2, 3)', floats(6)))]));
    expect(int32.code).toBe('BAD_INPUT_TENSOR');
    expect(int32.message).toContain("for input 'x': holds int32, the model declares float32");
    expect(errorOf(() => inputsFromFiles(ort, floatModel, [file('rank.npy', npy('<f4', '(6,)', floats(6)))])).message).toContain('shape [6] has rank 1, the model declares [2,3]');
    expect(errorOf(() => inputsFromFiles(ort, floatModel, [file('dim.npy', npy('<f4', '(3, 2)', floats(6)))])).message).toContain('shape [3,2], the model declares [2,3] (dimension 0)');
  });

  it('a symbolic dimension must have one size across inputs', () => {
    const m = model([valueInfo('a', DataType.FLOAT, ['n']), valueInfo('b', DataType.FLOAT, ['n'])]);
    const e = errorOf(() => inputsFromFiles(ort, m, [file('a.json', '[1, 2]'), file('b.json', '[1, 2, 3]')]));
    expect(e.message).toContain("dimension 'n' is 3 here but 2 in input 'a'");
  });

  it('bad .npy headers', () => {
    const cases: Array<[string, Buffer, RegExp]> = [
      ['magic.npy', Buffer.from('not numpy at all'), /no \\x93NUMPY magic/],
      ['long-header.npy', npy('<f4', '(2, 3)', floats(6), 60000), /the header claims 60000 bytes/],
      ['shape.npy', npy('<f4', "('a', 3)", floats(6)), /is not a list of sizes/],
      ['short-data.npy', npy('<f4', '(2, 3)', floats(5)), /needs 24 bytes of data, the file has 20/],
      ['dtype.npy', npy('>c16', '(2, 3)', floats(6)), /unsupported \.npy/],
    ];
    for (const [name, bytes, message] of cases) {
      const e = errorOf(() => inputsFromFiles(ort, floatModel, [file(name, bytes)]));
      expect(e.code, name).toBe('BAD_INPUT_TENSOR');
      expect(e.message, name).toMatch(message);
    }
  });

  it('JSON whose data is not an array, nested 10k deep, ragged, or holding strings', () => {
    expect(errorOf(() => inputsFromFiles(ort, floatModel, [file('obj.json', '{"data": 5}')])).message).toContain('"data" must be an array');
    const deep = `${'['.repeat(10_000)}1${']'.repeat(10_000)}`;
    expect(errorOf(() => inputsFromFiles(ort, floatModel, [file('deep.json', deep)])).message).toContain('nested deeper than 32');
    expect(errorOf(() => inputsFromFiles(ort, floatModel, [file('ragged.json', '[[1,2,3],[4,5]]')])).message).toContain('ragged arrays');
    expect(errorOf(() => inputsFromFiles(ort, floatModel, [file('str.json', '[[1,2,3],[4,5,"six"]]')])).message).toContain('value 5 ("six") is not a number');
    expect(errorOf(() => inputsFromFiles(ort, floatModel, [file('dims.json', '{"dims": [2, 3], "data": [1, 2]}')])).message).toContain('need 6 values, "data" has 2');
  });

  it('an int64 JSON value beyond 2^53 is refused, not wrapped', () => {
    const e = errorOf(() => inputsFromFiles(ort, intModel, [file('big.json', '[1e30, 2]')]));
    expect(e.message).toContain('value 0 (1e+30) is not an integer that int64 holds exactly');
    expect(Array.from(inputsFromFiles(ort, intModel, [file('ok-ids.json', '[9007199254740991, -3]')]).ids!.data as BigInt64Array)).toEqual([9007199254740991n, -3n]);
  });

  it('a .pb with too few values is refused, not zero-filled', () => {
    const pb = onnx.TensorProto.encode(onnx.TensorProto.create({ name: 'x', dims: [2, 3], data_type: DataType.FLOAT, float_data: [1, 2, 3] })).finish();
    const e = errorOf(() => inputsFromFiles(ort, floatModel, [file('few.pb', pb)]));
    expect(e.code).toBe('BAD_INPUT_TENSOR');
    expect(e.message).toContain('needs 6 entries in float_data, it has 3');
  });

  it('a .pb that is not a TensorProto is refused by the strict decode', () => {
    const e = errorOf(() => inputsFromFiles(ort, floatModel, [file('junk.pb', Buffer.from([0x00, 0x01]))]));
    expect(e.code).toBe('NOT_ONNX');
    expect(e.message).toContain('field number 0 in onnx.TensorProto');
  });

  it('a FIFO or /dev/zero as an input file is refused at once; a file larger than the declared shape too', () => {
    const fifo = path.join(work, 'pipe.npy');
    execFileSync('mkfifo', [fifo]);
    expect(errorOf(() => inputsFromFiles(ort, floatModel, [fifo])).message).toContain('not a regular file');
    expect(errorOf(() => inputsFromFiles(ort, floatModel, ['x=/dev/zero'])).message).toContain('input files must be .pb (ONNX TensorProto), .npy or .json');
    const zero = path.join(work, 'zero.npy');
    execFileSync('ln', ['-s', '/dev/zero', zero]);
    expect(errorOf(() => inputsFromFiles(ort, floatModel, [zero])).message).toContain('not a regular file');
    const big = file('big.npy', Buffer.alloc(2 << 20));
    expect(errorOf(() => inputsFromFiles(ort, floatModel, [big])).message).toMatch(/more than the \d+ a tensor of the declared shape can take/);
  });

  it('--dim is bounded: beyond int32, or more than memory can hold', () => {
    expect(errorOf(() => parseDims(['N=4294967296'])).message).toContain('larger than any dimension can be');
    const m = model([valueInfo('x', DataType.FLOAT, ['N', 'N'])]);
    const e = errorOf(() => randomInputs(ort, m, { dims: parseDims(['N=100000000']) }));
    expect(e.code).toBe('BAD_OPTION');
    expect(e.message).toContain("input 'x' of shape [100000000,100000000] would take");
  });
});

describe('run and compare on the command line', () => {
  const bin = path.join(repoRoot, 'dist/cli/main.js');
  const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 60_000 });
  const relu = file(
    'relu.onnx',
    encodeModel(modelOf({ node: [node('Relu', ['x'], ['y'])], input: [valueInfo('x', DataType.FLOAT, [2, 3])], output: [valueInfo('y', DataType.FLOAT, [2, 3])] })),
  );
  const neg = file(
    'neg.onnx',
    encodeModel(modelOf({ node: [node('Neg', ['x'], ['y'])], input: [valueInfo('x', DataType.FLOAT, [2, 3])], output: [valueInfo('y', DataType.FLOAT, [2, 3])] })),
  );

  it('compare --atol abc or NaN is an error, not a PASS on models that differ', () => {
    for (const atol of ['abc', 'NaN']) {
      const result = cli(['compare', relu, neg, '--atol', atol]);
      expect(result.status, result.stderr).toBe(2);
      // Quoted as typed (yargs reads 'abc' as NaN; the message says what the user wrote).
      expect(result.stderr).toContain(`[BAD_OPTION]: --atol ${atol}: not a number`);
    }
    expect(cli(['compare', relu, neg, '--rtol', '-1']).status).toBe(2);
    expect(cli(['compare', relu, neg]).status).toBe(1);
  });

  it('run with an input of the wrong type is one typed line, exit 2', () => {
    const result = cli(['run', relu, '--inputs', `x=${file('i32-cli.npy', npy('<i4', '(2, 3)', floats(6)))}`]);
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('[BAD_INPUT_TENSOR]');
  });
});
