/**
 * The rewrite's side of its verification: the verification runs ONNX Runtime on the user's model,
 * untrusted work, so it runs in a worker process of its own (verify-worker.ts). A crash inside
 * ONNX Runtime ends the worker and reaches the user as a verdict in words, never as a dead
 * rewrite, and the rewrite's own process never loads ONNX Runtime. This module loads none of it.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { freemem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import { AmpError, type AmpErrorCode } from '../onnx/errors.js';
import type { AmpOptions } from '../passes/amp.js';
import type { ToleranceRule } from './compare.js';
import { frame, unframe } from './framed.js';
import { tooLargeToRunTwice } from './verify-defaults.js';
import type { Numerics } from './numerics.js';
import type { Provider, Verification } from './result-types.js';

/** What the worker is asked: every field plain data (Maps as entries, Infinity as 'inf'). */
export interface VerifyJob {
  /** The model's file (its external data found beside it); absent: the model's bytes follow the header. */
  modelPath?: string;
  allowNewerIr: boolean;
  allowExternalOutside: boolean;
  amp: SerialAmpOptions;
  inputs: string[];
  dims: Array<[string, number]>;
  seed: number;
  scale?: number;
  distribution?: 'uniform' | 'normal';
  headroom: number;
  providers: Provider[];
  numerics?: Numerics;
  tolerance: ToleranceRule;
  maxRounds: number;
}

/** AmpOptions as JSON carries them. The environment is the worker's own (inherited). */
export type SerialAmpOptions = Omit<AmpOptions, 'env' | 'dims' | 'activationRanges' | 'flushedShares' | 'inPlace'> & {
  dims?: Array<[string, number]>;
  activationRanges?: Array<[string, number | 'inf']>;
  flushedShares?: Array<[string, number]>;
};

export interface VerifiedFigures {
  verification: Verification;
  /** The figures to rewrite with: the same pins make the model the verification judged. */
  ranges: Map<string, number>;
  limit: number;
}

/** The verification's rounds: the first rewrite and at most two repairs. */
export { MAX_VERIFY_ROUNDS } from './verify-defaults.js';

export const encodeRanges = (ranges: ReadonlyMap<string, number>): Array<[string, number | 'inf']> =>
  [...ranges].map(([name, value]) => [name, Number.isFinite(value) ? value : 'inf']);
export const decodeRanges = (entries: ReadonlyArray<[string, number | 'inf']>): Map<string, number> =>
  new Map(entries.map(([name, value]) => [name, value === 'inf' ? Infinity : value]));

export function serialAmpOptions(options: AmpOptions): SerialAmpOptions {
  const { env: _env, dims, activationRanges, flushedShares, inPlace: _inPlace, audit: _audit, figures: _figures, ...rest } = options;
  return {
    ...rest,
    ...(dims ? { dims: [...dims] } : {}),
    ...(activationRanges ? { activationRanges: encodeRanges(activationRanges) } : {}),
    ...(flushedShares ? { flushedShares: [...flushedShares] } : {}),
  };
}

export function ampOptionsOf(serial: SerialAmpOptions, env: Readonly<Record<string, string | undefined>>): AmpOptions {
  const { dims, activationRanges, flushedShares, ...rest } = serial;
  return {
    ...rest,
    env,
    ...(dims ? { dims: new Map(dims) } : {}),
    ...(activationRanges ? { activationRanges: decodeRanges(activationRanges) } : {}),
    ...(flushedShares ? { flushedShares: new Map(flushedShares) } : {}),
  };
}

/** The one line a rewrite without ONNX Runtime says. */
export const NOT_INSTALLED = 'onnxruntime-node is not installed';

/** Whether onnxruntime-node can be found from here, without loading it. */
export function runtimeInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('onnxruntime-node');
    return true;
  } catch {
    return false;
  }
}

/**
 * Why a model of `bytes` bytes (weights included) cannot be verified here, or undefined: the
 * worker holds a copy and ONNX Runtime a session of each model in turn, with every float32 value
 * exposed, and that copy is encoded as one protobuf message (under 2 GiB).
 */
export function tooLargeToVerify(bytes: number, available: number = freemem()): string | undefined {
  const gib = (n: number) => `${(n / 2 ** 30).toFixed(2)} GiB`;
  const cannot = tooLargeToRunTwice(bytes);
  if (cannot) return cannot;
  if (3 * bytes + 2 ** 28 > available) return `the model (${gib(bytes)}) is too large to run twice in this machine's free memory (${gib(available)}); run amp-rewrite compare on the written model where it fits`;
  return undefined;
}

/** The size of a model file and its external data files. */
export function modelFileBytes(file: string, externalFiles: readonly string[]): number {
  return [file, ...new Set(externalFiles)].reduce((sum, f) => sum + (existsSync(f) ? statSync(f).size : 0), 0);
}

/** The built worker next to this module (dist/runtime/verify-worker.js). */
export function verifyWorkerScript(): string {
  const beside = fileURLToPath(new URL('./verify-worker.js', import.meta.url));
  // Run from the TypeScript sources (the tests), the worker is the build's: a process of its own runs JavaScript.
  return existsSync(beside) || !import.meta.url.endsWith('.ts') ? beside : fileURLToPath(new URL('../../dist/runtime/verify-worker.js', import.meta.url));
}

/** The worker's stage lines on stderr: where it was when it ended. */
export const STAGE_PREFIX = 'amp-rewrite-verify-stage:';

/**
 * Runs the verification in a worker and returns its verdict. A worker that dies (a signal, an
 * exit without a reply) is a verdict too: not verified while the float32 model ran, FAIL once the
 * rewrite did, with what ONNX Runtime left on stderr.
 */
export function verifyInWorker(job: VerifyJob, modelBytes?: Uint8Array, workerScript: string = verifyWorkerScript()): Promise<VerifiedFigures> {
  return new Promise((resolve, reject) => {
    if (!existsSync(workerScript)) {
      reject(new Error(`the verification worker ${workerScript} is missing (npm run build)`));
      return;
    }
    // The worker gets the heap this process has: a model this process holds, it holds too.
    const heapMiB = Math.ceil(getHeapStatistics().heap_size_limit / 2 ** 20);
    const child = spawn(process.execPath, [`--max-old-space-size=${heapMiB}`, workerScript], { stdio: ['pipe', 'pipe', 'pipe'] });
    const killChild = () => child.kill('SIGKILL');
    process.once('exit', killChild);
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-20_000);
    });
    child.on('error', (error) => {
      process.removeListener('exit', killChild);
      reject(error);
    });
    child.on('close', (code, signal) => {
      process.removeListener('exit', killChild);
      const lines = stderr.split('\n');
      const stage = lines.filter((l) => l.startsWith(STAGE_PREFIX)).pop()?.slice(STAGE_PREFIX.length).trim();
      try {
        const { header } = unframe(Buffer.concat(out));
        if (typeof header.error === 'string') {
          // A user's mistake the worker found (an --inputs file that does not fit the model): the rewrite's error.
          // Anything else is a bug of the verification: an internal error, as in this process.
          reject(typeof header.code === 'string' ? new AmpError(header.code as AmpErrorCode, header.error) : new Error(`verification: ${header.error}`));
          return;
        }
        const reply = header as { verification: Verification; ranges: Array<[string, number | 'inf']>; limit: number };
        resolve({ verification: reply.verification, ranges: decodeRanges(reply.ranges), limit: reply.limit });
      } catch {
        const said = lines.filter((l) => l.trim() && !l.startsWith(STAGE_PREFIX)).pop()?.trim();
        const how = `${signal ? `died of ${signal}` : `exited with ${code}`}${said ? ` (${said.slice(0, 300)})` : ''}`;
        const verification: Verification =
          stage === 'rewrite'
            ? { status: 'fail', candidateRefused: `ONNX Runtime ${how} while loading or running the rewritten model`, reason: `ONNX Runtime ${how} on the rewritten model` }
            : { status: 'not-verified', reason: `the verification ${how}${stage === 'reference' ? ' while running the float32 model' : ''}` };
        resolve({ verification, ranges: new Map(), limit: Infinity });
      }
    });
    child.stdin.on('error', () => {
      // The worker's end is reported by 'close'.
    });
    child.stdin.end(frame(job, modelBytes ? [modelBytes] : []));
  });
}
