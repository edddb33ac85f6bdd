/**
 * The largest batch that fits: double the batch from a start until a run fails for lack of memory
 * (or a limit is reached), then bisect between the last fit and the first failure, on multiples of
 * 8 (the Tensor Core multiple), until the two are within 1/16 of each other. Every trial's throughput
 * is kept: mixed precision's claim is that it fits about twice the batch (seed 001).
 */
export type BatchAttempt = { fits: true; medianMs: number } | { fits: false; error: string };

export interface BatchTrial {
  batch: number;
  fits: boolean;
  medianMs?: number;
  itemsPerSecond?: number;
  error?: string;
}

export interface BatchSearchResult {
  /** null when even the start batch did not fit. */
  largest: number | null;
  /** Throughput at the largest batch. */
  itemsPerSecond: number | null;
  /** true when the limit was reached without a failure: the real limit is higher. */
  reachedLimit: boolean;
  trials: BatchTrial[];
}

export interface BatchSearchOptions {
  start: number;
  max: number;
  multiple?: number;
  /** Stop after this many trials (a GPU machine's time is lent by the minute); the best fit so far stands. */
  maxTrials?: number;
}

export async function largestBatch(attempt: (batch: number) => Promise<BatchAttempt>, options: BatchSearchOptions): Promise<BatchSearchResult> {
  const multiple = options.multiple ?? 8;
  const maxTrials = options.maxTrials ?? Infinity;
  const trials: BatchTrial[] = [];
  const tryBatch = async (batch: number): Promise<boolean> => {
    const result = await attempt(batch);
    trials.push(result.fits ? { batch, fits: true, medianMs: result.medianMs, itemsPerSecond: (batch * 1000) / result.medianMs } : { batch, fits: false, error: result.error });
    return result.fits;
  };
  let fit: number | null = null;
  let fail: number | null = null;
  for (let batch = Math.max(1, options.start); ; batch = Math.min(batch * 2, options.max)) {
    if (await tryBatch(batch)) {
      fit = batch;
      if (batch >= options.max || trials.length >= maxTrials) break;
    } else {
      fail = batch;
      break;
    }
  }
  if (fit !== null && fail !== null) {
    let low = fit;
    let high = fail;
    while (high - low > Math.max(multiple, low / 16) && trials.length < maxTrials) {
      const middle = Math.max(low + multiple, Math.floor((low + high) / 2 / multiple) * multiple);
      if (middle >= high) break;
      if (await tryBatch(middle)) low = middle;
      else high = middle;
    }
    fit = low;
  }
  const best = trials.find((t) => t.batch === fit && t.fits);
  return { largest: fit, itemsPerSecond: best?.itemsPerSecond ?? null, reachedLimit: fail === null && fit !== null && fit >= options.max, trials };
}
