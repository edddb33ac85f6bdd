/**
 * Timing one model variant without the others disturbing it. Two methods:
 * - 'process' (default): each variant runs alone in its own Node process, one after another. No
 *   other session's thread pool spins beside it, and a per-process setting such as TF32 can differ
 *   between variants (ONNX Runtime's Node binding passes only device_id to the CUDA provider, whose
 *   use_tf32 defaults to on; NVIDIA_TF32_OVERRIDE=0 in the child turns TF32 off in cuBLAS and cuDNN).
 * - 'in-process': the variants run one after another in this process with intra-op spinning off
 *   (session.intra_op.allow_spinning = 0), each session released before the next opens.
 * The parent sends the worker a job and the model's bytes on stdin and reads the measurement (and,
 * when asked, the outputs as TensorProtos) from its stdout.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { InferenceSession } from 'onnxruntime-node';
import { decodeModel } from '../onnx/codec.js';
import { onnx } from '../onnx/generated/onnx.js';
import { gpuMemoryUsedMiB } from './bench.js';
import { modelAwareRandomInputs } from './input-roles.js';
import { inputsFromFiles } from './inputs.js';
import { loadOrt } from './ort.js';
import { openSession, type Provider } from './session.js';
import { ortToTensorProto } from './tensors.js';

export const ISOLATION_METHODS = ['process', 'in-process'] as const;
export type IsolationMethod = (typeof ISOLATION_METHODS)[number];

export const ISOLATION_DESCRIPTIONS: Record<IsolationMethod, string> = {
  process: 'one process per variant, run one after another (no other session in the process; TF32 set per process)',
  'in-process': 'one process, variants one after another, each session released before the next, intra-op spinning off',
};

/** How every worker makes the same inputs: files, or seeded random values with these symbolic sizes. */
export interface FeedSpec {
  inputs: string[];
  dims: Record<string, number>;
  seed: number;
}

export interface VariantJob {
  label: string;
  providers: Provider[];
  runs: number;
  warmup: number;
  feeds: FeedSpec;
  /** true: TF32 allowed (the CUDA provider's default); false: TF32 off (NVIDIA_TF32_OVERRIDE=0); null: not applicable. */
  tf32: boolean | null;
  /** Return the outputs of one run, for the accuracy comparison. */
  keepOutputs: boolean;
}

export interface VariantMeasurement {
  label: string;
  provider: Provider;
  tf32: boolean | null;
  batch: number;
  medianMs: number;
  p90Ms: number;
  itemsPerSecond: number;
  rssGrowthMiB: number;
  gpuMemoryGrowthMiB: number | null;
  /** Every timed run's latency in milliseconds, in the order run (the distribution bench --report draws). */
  timesMs: number[];
  /** Output name -> encoded TensorProto, when the job asked for them. */
  outputs?: Record<string, Uint8Array>;
}

/** A variant that could not run; `outOfMemory` when the runtime could not allocate (the batch search's signal). */
export class VariantFailed extends Error {
  constructor(
    message: string,
    readonly outOfMemory: boolean,
  ) {
    super(message);
    this.name = 'VariantFailed';
  }
}

export type VariantRunner = (job: VariantJob, model: Uint8Array) => Promise<VariantMeasurement>;

const OUT_OF_MEMORY = /out of memory|failed to allocate|cudaMalloc|BFCArena|bad_alloc|CUBLAS_STATUS_ALLOC_FAILED|OOM/i;
export const isOutOfMemory = (message: string): boolean => OUT_OF_MEMORY.test(message);

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1) + 0.5))] ?? NaN;

/** The worker's body: open, warm up, time `runs` runs, release. Used in the child process and in-process. */
export async function measureVariant(job: VariantJob, model: Uint8Array, sessionOptions: InferenceSession.SessionOptions = {}): Promise<VariantMeasurement> {
  const ort = await loadOrt();
  const decoded = decodeModel(model);
  const feeds = job.feeds.inputs.length
    ? inputsFromFiles(ort, decoded, job.feeds.inputs)
    : modelAwareRandomInputs(ort, decoded, { dims: new Map(Object.entries(job.feeds.dims)), seed: job.feeds.seed });
  const rssBefore = process.memoryUsage().rss;
  const gpuBefore = gpuMemoryUsedMiB();
  let opened;
  try {
    opened = await openSession(model, job.providers, sessionOptions);
  } catch (error) {
    const message = (error as Error).message;
    throw new VariantFailed(message, isOutOfMemory(message));
  }
  try {
    let first;
    try {
      first = await opened.session.run(feeds);
    } catch (error) {
      const message = (error as Error).message;
      throw new VariantFailed(message, isOutOfMemory(message));
    }
    const gpuAfter = gpuMemoryUsedMiB();
    const rssGrowthMiB = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
    for (let i = 0; i < job.warmup; i++) await opened.session.run(feeds);
    const times: number[] = [];
    for (let i = 0; i < job.runs; i++) {
      const start = process.hrtime.bigint();
      await opened.session.run(feeds);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    const timesMs = [...times];
    times.sort((a, b) => a - b);
    const batch = Object.values(feeds)[0]?.dims[0] ?? 1;
    const medianMs = percentile(times, 0.5);
    const outputs = job.keepOutputs
      ? Object.fromEntries(opened.session.outputNames.map((name) => [name, onnx.TensorProto.encode(ortToTensorProto(first[name]!, name)).finish()]))
      : undefined;
    return {
      label: job.label,
      provider: opened.provider,
      tf32: opened.provider === 'cuda' ? job.tf32 : null,
      batch,
      medianMs,
      p90Ms: percentile(times, 0.9),
      itemsPerSecond: (batch * 1000) / medianMs,
      rssGrowthMiB,
      gpuMemoryGrowthMiB: gpuBefore === null || gpuAfter === null ? null : gpuAfter - gpuBefore,
      timesMs,
      ...(outputs ? { outputs } : {}),
    };
  } finally {
    await opened.session.release();
  }
}

const NO_SPINNING: InferenceSession.SessionOptions = { extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } } };

export const inProcessRunner: VariantRunner = (job, model) => {
  if (job.tf32 === false) {
    return Promise.reject(new VariantFailed('TF32 cannot be turned off for one session in this process (use --isolation process)', false));
  }
  return measureVariant(job, model, NO_SPINNING);
};

// The framed protocol between parent and worker lives in framed.ts (the verification worker speaks it too).
export { frame, unframe } from './framed.js';
import { frame, unframe } from './framed.js';

/** The built worker next to this module (dist/runtime/bench-worker.js). */
export function defaultWorkerScript(): string {
  return fileURLToPath(new URL('./bench-worker.js', import.meta.url));
}

/** Runs each job in a fresh `node <worker>` process; TF32 off is NVIDIA_TF32_OVERRIDE=0 in that process only. */
export function processRunner(workerScript: string = defaultWorkerScript()): VariantRunner {
  return (job, model) =>
    new Promise((resolve, reject) => {
      if (!existsSync(workerScript)) {
        reject(new VariantFailed(`the bench worker ${workerScript} is missing (npm run build)`, false));
        return;
      }
      const env = { ...process.env };
      if (job.tf32 === false) env.NVIDIA_TF32_OVERRIDE = '0';
      else delete env.NVIDIA_TF32_OVERRIDE;
      const child = spawn(process.execPath, [workerScript], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.on('error', (error) => reject(new VariantFailed(error.message, false)));
      child.on('close', (code) => {
        const stderr = Buffer.concat(err).toString('utf8').trim();
        let reply;
        try {
          reply = unframe(Buffer.concat(out));
        } catch {
          // A worker killed by the system (out of host memory) says nothing on stdout.
          const message = `the ${job.label} worker exited with ${code}${stderr ? `: ${stderr.split('\n').pop()}` : ''}`;
          reject(new VariantFailed(message, isOutOfMemory(message) || code === null || code === 137));
          return;
        }
        const { header, blobs } = reply;
        if (typeof header.error === 'string') {
          reject(new VariantFailed(header.error, header.outOfMemory === true));
          return;
        }
        const names = (header.outputNames as string[] | undefined) ?? [];
        const { blobLengths: _lengths, outputNames: _names, ...measurement } = header;
        resolve({
          ...(measurement as unknown as VariantMeasurement),
          ...(names.length ? { outputs: Object.fromEntries(names.map((name, i) => [name, new Uint8Array(blobs[i] as Buffer)])) } : {}),
        });
      });
      child.stdin.on('error', () => {
        // The worker's exit is reported by 'close'.
      });
      child.stdin.end(frame(job, [model]));
    });
}
