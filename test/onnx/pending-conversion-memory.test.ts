/**
 * --weights fp16 on a multi-hundred-MB external weight runs in bounded memory: the float16 copy
 * is converted chunk by chunk into the output data file, never held whole. Measured on this
 * worker's own peak RSS (VmHWM, reset just before where Linux allows it); a file of its own so
 * that no other test's allocations count.
 */
import { closeSync, existsSync, ftruncateSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeModel, onnx } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { float32ToFloat16Bits } from '../../src/onnx/float16.js';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { model, node, valueInfo } from '../support/models.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-pending-memory-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const MiB = 2 ** 20;

/** This process's peak RSS in bytes since the last reset (VmHWM), or undefined off Linux. */
function peakRss(): number | undefined {
  const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(existsSync('/proc/self/status') ? readFileSync('/proc/self/status', 'utf8') : '');
  return hwm ? Number(hwm[1]) * 1024 : undefined;
}

/** Resets VmHWM to the current RSS (Linux's clear_refs 5); false where that is not allowed. */
function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

describe('a 512 MiB external float32 weight, --weights fp16, gathered into a new data file', () => {
  it('is converted through a fixed buffer: the peak grows by far less than the 256 MiB copy', (context) => {
    const length = 512 * MiB;
    const rows = length / 16;
    const data = path.join(work, 'w.bin');
    const fd = openSync(data, 'w');
    const marks: Array<[number, number]> = [[0, 0.333], [rows * 2 + 1, -1234.567], [length / 4 - 1, 3.0e-6]];
    try {
      ftruncateSync(fd, length); // sparse: zeros except the marks
      for (const [index, value] of marks) writeSync(fd, Buffer.from(Float32Array.from([value]).buffer), 0, 4, index * 4);
    } finally {
      closeSync(fd);
    }
    const weight = onnx.TensorProto.create({
      name: 'w',
      dims: [rows, 4],
      data_type: DataType.FLOAT,
      data_location: onnx.TensorProto.DataLocation.EXTERNAL,
      external_data: [
        { key: 'location', value: 'w.bin' },
        { key: 'length', value: String(length) },
      ].map((e) => onnx.StringStringEntryProto.create(e)),
    });
    const built = model({
      node: [node('MatMul', ['x', 'w'], ['y'])],
      input: [valueInfo('x', DataType.FLOAT, [1, rows])],
      output: [valueInfo('y', DataType.FLOAT, [1, 4])],
      initializer: [weight],
    });
    writeFileSync(path.join(work, 'big.onnx'), encodeModel(built));
    const loaded = loadModel(path.join(work, 'big.onnx'));

    const rssBefore = process.memoryUsage().rss;
    const reset = resetPeakRss();
    const { model: rewritten, report } = ampRewrite(loaded, { weights: 'fp16' });
    expect(report.summary.weightsConverted).toEqual(['w']);
    saveModel(rewritten, path.join(work, 'out.onnx'), { externalData: { location: 'out.onnx.data' } });
    const peak = peakRss() ?? process.resourceUsage().maxRSS * 1024;
    if (!reset) context.annotate?.('VmHWM could not be reset (not Linux, or /proc/self/clear_refs not writable): the bound is on the whole worker');
    // The whole copy would add 256 MiB; the chunk buffers and the graph are a few MB.
    expect(peak - (reset ? rssBefore : 0)).toBeLessThan(reset ? 96 * MiB : rssBefore + 96 * MiB);

    const out = path.join(work, 'out.onnx.data');
    expect(statSync(out).size).toBe(length / 2);
    const saved = loadModel(path.join(work, 'out.onnx')).graph?.initializer?.[0];
    expect(saved?.data_type).toBe(DataType.FLOAT16);
    const outFd = openSync(out, 'r');
    try {
      for (const [index, value] of marks) {
        const two = Buffer.alloc(2);
        readSync(outFd, two, 0, 2, index * 2);
        expect(two.readUInt16LE(0), `value ${index}`).toBe(float32ToFloat16Bits(value));
      }
    } finally {
      closeSync(outFd);
    }
  });
});
