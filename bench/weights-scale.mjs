// Weights at memory speed and models far over 2 GB:
//  1. fp32 -> fp16 / bf16 conversion and the fp16 range scan on 256 MiB in process (GB/s of
//     fp32 input per CPU second), against the one-value reference loop and a plain memory copy;
//  2. a model with BENCH_BIG_WEIGHTS_GIB (default 8) GiB of external float32 weights in a sparse
//     file (eight MatMuls), rewritten by the whole CLI with --weights fp32, and with --weights fp16 twice:
//     gathered into a named data file, and with the default --external-data keep (which puts the
//     copies in <output>.data: over 2 GiB, they cannot be in the .onnx file); peak RSS printed, every
//     file removed afterwards.
// Usage: node bench/weights-scale.mjs [--gib 8] [--out file]
import { execFileSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Best of `runs`, in CPU seconds of this thread: the conversion is single-threaded compute, and
 * on a shared machine wall time mostly measures the other processes.
 */
function bestSeconds(fn, runs = 5) {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1e6);
  }
  return best;
}

export async function conversionThroughput({ mib = 256 } = {}) {
  const { float32BitsToFloat16, float32BitsToBfloat16, largestFiniteBits } = await import(path.join(root, 'dist/onnx/float-conversion.js'));
  const { float32ToFloat16Bits } = await import(path.join(root, 'dist/onnx/float16.js'));
  const count = (mib * 2 ** 20) / 4;
  const values = new Float32Array(count);
  let seed = 1;
  for (let i = 0; i < count; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    values[i] = ((seed / 2 ** 32) - 0.5) * 2 ** ((seed >>> 24) % 24 - 12);
  }
  const bits = new Int32Array(values.buffer);
  const out = new Uint16Array(count);
  const copy = new Uint8Array(values.byteLength);
  const gbps = (seconds) => values.byteLength / 1e9 / seconds;
  const row = {
    mib,
    fp16GBps: gbps(bestSeconds(() => float32BitsToFloat16(bits, out))),
    bf16GBps: gbps(bestSeconds(() => float32BitsToBfloat16(bits, out))),
    rangeScanGBps: gbps(bestSeconds(() => largestFiniteBits(bits))),
    referenceFp16GBps: gbps(
      bestSeconds(() => {
        for (let i = 0; i < count; i++) out[i] = float32ToFloat16Bits(values[i]);
      }, 1),
    ),
    memcpyGBps: gbps(bestSeconds(() => copy.set(new Uint8Array(values.buffer)))),
  };
  console.log(
    `fp32->fp16 ${row.fp16GBps.toFixed(2)} GB/s, fp32->bf16 ${row.bf16GBps.toFixed(2)} GB/s, range scan ${row.rangeScanGBps.toFixed(2)} GB/s ` +
      `(one-value reference ${row.referenceFp16GBps.toFixed(2)} GB/s, memory copy ${row.memcpyGBps.toFixed(1)} GB/s)`,
  );
  return row;
}

/** Eight MatMuls, each reading a [rows, 256] float32 weight from one sparse data file. */
export async function writeBigModel(dir, gib) {
  const { onnx, encodeModel } = await import(path.join(root, 'dist/index.js'));
  const matmuls = 8;
  const cols = 256;
  const bytesEach = Math.floor((gib * 2 ** 30) / matmuls / (cols * 4)) * cols * 4;
  const rows = bytesEach / (cols * 4);
  const data = path.join(dir, 'big.weights');
  const fd = openSync(data, 'w');
  ftruncateSync(fd, bytesEach * matmuls);
  closeSync(fd);
  const f32 = onnx.TensorProto.DataType.FLOAT;
  const info = (name, dims) => onnx.ValueInfoProto.create({ name, type: { tensor_type: { elem_type: f32, shape: { dim: dims.map((d) => ({ dim_value: d })) } } } });
  const graph = onnx.GraphProto.create({ name: 'big', input: [], output: [], node: [], initializer: [] });
  for (let i = 0; i < matmuls; i++) {
    graph.input.push(info(`x${i}`, [1, rows]));
    graph.output.push(info(`y${i}`, [1, cols]));
    graph.node.push(onnx.NodeProto.create({ op_type: 'MatMul', name: `mm${i}`, input: [`x${i}`, `w${i}`], output: [`y${i}`] }));
    graph.initializer.push(
      onnx.TensorProto.create({
        name: `w${i}`,
        dims: [rows, cols],
        data_type: f32,
        data_location: onnx.TensorProto.DataLocation.EXTERNAL,
        external_data: [
          { key: 'location', value: 'big.weights' },
          { key: 'offset', value: String(i * bytesEach) },
          { key: 'length', value: String(bytesEach) },
        ],
      }),
    );
  }
  const model = onnx.ModelProto.create({ ir_version: 9, opset_import: [{ domain: '', version: 17 }], graph });
  const file = path.join(dir, 'big.onnx');
  writeFileSync(file, encodeModel(model));
  return { file, weightBytes: bytesEach * matmuls };
}

function cliRun(dir, file, args) {
  const profile = path.join(dir, 'profile.json');
  const start = process.hrtime.bigint();
  let status = 0;
  let error = '';
  try {
    execFileSync(process.execPath, [path.join(root, 'dist/cli/main.js'), file, ...args, '--no-verify', '-q'], { env: { ...process.env, AMP_REWRITE_PROFILE: profile }, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (failure) {
    status = failure.status;
    error = String(failure.stderr).trim().split('\n')[0];
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const phases = JSON.parse(readFileSync(profile, 'utf8'));
  return { args: args.join(' '), status, error, seconds, peakRssBytes: phases.peakRssBytes, weightRangeMs: phases.weightRangeMs, castPlanMs: phases.castPlanMs, saveMs: phases.saveMs };
}

export async function bigExternalModel({ gib = 8 } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-big-'));
  try {
    const { file, weightBytes } = await writeBigModel(dir, gib);
    const rows = [];
    for (const args of [
      ['-o', path.join(dir, 'out-fp32.onnx'), '--weights', 'fp32'],
      ['-o', path.join(dir, 'out-fp16.onnx'), '--weights', 'fp16', '--external-data', 'out-fp16.weights'],
      // As a user types it: --external-data keep (the default) puts copies over protobuf's 2 GiB in <output>.data.
      ['-o', path.join(dir, 'out-fp16-keep.onnx'), '--weights', 'fp16'],
    ]) {
      const row = cliRun(dir, file, args);
      const dataFile = path.join(dir, args.includes('--external-data') ? 'out-fp16.weights' : 'out-fp16-keep.onnx.data');
      row.outputDataBytes = args.includes('fp16') ? (statSync(dataFile, { throwIfNoEntry: false })?.size ?? 0) : weightBytes;
      rows.push(row);
      console.log(
        `${(weightBytes / 2 ** 30).toFixed(1)} GiB external fp32 weights, ${row.args.replace(dir + '/', '')}: ` +
          (row.status ? `exit ${row.status} (${row.error})` : `${row.seconds.toFixed(1)} s`) +
          `, peak RSS ${(row.peakRssBytes / 2 ** 20).toFixed(0)} MiB (range scan ${(row.weightRangeMs / 1000).toFixed(1)} s)`,
      );
      rmSync(dataFile, { force: true });
    }
    return { weightBytes, rows };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { gib: { type: 'string', default: process.env.BENCH_BIG_WEIGHTS_GIB ?? '8' }, out: { type: 'string' } } });
  const result = {
    benchmark: 'weights-scale',
    date: new Date().toISOString(),
    machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, load ${os.loadavg()[0].toFixed(1)}`,
    conversion: await conversionThroughput(),
    bigModel: Number(values.gib) > 0 ? await bigExternalModel({ gib: Number(values.gib) }) : null,
  };
  if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
}
