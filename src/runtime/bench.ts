/**
 * fp32 against mixed precision in one process (npm run bench): both sessions warmed up, then run
 * alternately so that machine noise hits both alike, with intra-op spinning off so that neither
 * session's thread pool slows the other. Reports median and p90 latency, throughput, memory growth
 * at session start and first run (process RSS; GPU memory through nvidia-smi when present), and
 * the accuracy of the mixed-precision outputs against fp32.
 */
import { execFileSync } from 'node:child_process';
import type { InferenceSession } from 'onnxruntime-node';
import { DEFAULT_TOLERANCE, judgeTensors, type OutputComparison } from './compare.js';
import type { Feeds } from './inputs.js';
import { openSession, type Provider } from './session.js';

export interface VariantResult {
  label: string;
  provider: Provider;
  medianMs: number;
  p90Ms: number;
  itemsPerSecond: number;
  rssGrowthMiB: number;
  gpuMemoryGrowthMiB: number | null;
}

export interface BenchResult {
  batch: number;
  runs: number;
  warmup: number;
  variants: VariantResult[];
  accuracy: OutputComparison[];
  speedup: number;
}

export function gpuMemoryUsedMiB(): number | null {
  try {
    const out = execFileSync('nvidia-smi', ['--query-gpu=memory.used', '--format=csv,noheader,nounits'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return out.split('\n').filter(Boolean).map(Number).reduce((a, b) => a + b, 0);
  } catch {
    return null;
  }
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1) + 0.5))] ?? NaN;

export async function benchmarkPair(
  variants: Array<{ label: string; model: Uint8Array }>,
  providers: readonly Provider[],
  feeds: Feeds,
  options: { runs: number; warmup: number; batch: number; tolerance: { atol: number; rtol: number } },
): Promise<BenchResult> {
  const opened: Array<{ label: string; session: InferenceSession; provider: Provider; rss: number; gpu: number | null; times: number[] }> = [];
  for (const variant of variants) {
    const rssBefore = process.memoryUsage().rss;
    const gpuBefore = gpuMemoryUsedMiB();
    // Spinning off: an idle session's spinning intra-op threads would slow the one being timed
    // (fp32 measured 31.7 ms after an AMP run, 13.9 ms with spinning off). bench runs each
    // variant in its own process instead (isolated-bench.ts).
    const { session, provider } = await openSession(variant.model, providers, {
      extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
    });
    await session.run(feeds);
    const gpuAfter = gpuMemoryUsedMiB();
    opened.push({
      label: variant.label,
      session,
      provider,
      rss: (process.memoryUsage().rss - rssBefore) / 2 ** 20,
      gpu: gpuBefore === null || gpuAfter === null ? null : gpuAfter - gpuBefore,
      times: [],
    });
  }
  try {
    for (let i = 0; i < options.warmup; i++) for (const o of opened) await o.session.run(feeds);
    for (let i = 0; i < options.runs; i++) {
      for (const o of i % 2 === 0 ? opened : [...opened].reverse()) {
        const start = process.hrtime.bigint();
        await o.session.run(feeds);
        o.times.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
    }
    const reference = await opened[0]!.session.run(feeds);
    const candidate = await opened[opened.length - 1]!.session.run(feeds);
    const accuracy = opened[0]!.session.outputNames.map((name) => {
      const expected = reference[name]!;
      return judgeTensors(name, expected, candidate[name], { ...options.tolerance, atolFloor: DEFAULT_TOLERANCE.atolFloor });
    });
    const results = opened.map((o) => {
      const sorted = [...o.times].sort((a, b) => a - b);
      const median = percentile(sorted, 0.5);
      return {
        label: o.label,
        provider: o.provider,
        medianMs: median,
        p90Ms: percentile(sorted, 0.9),
        itemsPerSecond: (options.batch * 1000) / median,
        rssGrowthMiB: o.rss,
        gpuMemoryGrowthMiB: o.gpu,
      };
    });
    return {
      batch: options.batch,
      runs: options.runs,
      warmup: options.warmup,
      variants: results,
      accuracy,
      speedup: (results[0]?.medianMs ?? NaN) / (results[results.length - 1]?.medianMs ?? NaN),
    };
  } finally {
    for (const o of opened) await o.session.release();
  }
}
