/**
 * What `bench` measures, given a runner that times one variant alone (isolated-bench.ts):
 * - the variants: fp32 and AMP; on CUDA, fp32 twice, with TF32 off (full fp32) and on (the CUDA
 *   provider's default), so the AMP speed-up is stated against both;
 * - the accuracy of every variant against full fp32;
 * - optionally, the largest batch that fits for fp32 and for AMP, with the throughput at each.
 * The runner is a parameter so the logic is tested with a faked one.
 */
import type { ProgressListener } from './activity.js';
import { AmpError } from '../onnx/errors.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { DEFAULT_TOLERANCE, judgeTensors, type OutputComparison } from './compare.js';
import { largestBatch, type BatchSearchResult } from './batch-search.js';
import { VariantFailed, type FeedSpec, type VariantJob, type VariantMeasurement, type VariantRunner } from './isolated-bench.js';
import type { Ort } from './ort.js';
import type { Provider } from './session.js';
import { decodeTensorProto, tensorProtoToOrt } from './tensors.js';

export type BenchModel = 'fp32' | 'amp' | 'fp16';

export interface PlannedVariant {
  label: string;
  model: BenchModel;
  tf32: boolean | null;
}

/**
 * The variants to time, the reference (full fp32) first, then AMP; with `pureFp16`, pure float16
 * last (every value float16: the unsafe upper bound on speed that AMP is measured against).
 */
export function planVariants(providers: readonly Provider[], options: { pureFp16?: boolean } = {}): PlannedVariant[] {
  const cuda = providers[0] === 'cuda';
  const variants: PlannedVariant[] = cuda
    ? [
        { label: 'fp32', model: 'fp32', tf32: false },
        { label: 'fp32+tf32', model: 'fp32', tf32: true },
        { label: 'amp', model: 'amp', tf32: true },
      ]
    : [
        { label: 'fp32', model: 'fp32', tf32: null },
        { label: 'amp', model: 'amp', tf32: null },
      ];
  if (options.pureFp16) variants.push({ label: 'fp16', model: 'fp16', tf32: cuda ? true : null });
  return variants;
}

export interface VariantBenchOptions {
  providers: Provider[];
  runs: number;
  warmup: number;
  feeds: FeedSpec;
  tolerance: { atol: number; rtol: number };
  /** Also time the pure float16 model (models.fp16 must be given). */
  pureFp16?: boolean;
  /** Told before each variant is timed. */
  onProgress?: ProgressListener;
}

export type MeasuredVariant = Omit<VariantMeasurement, 'outputs'>;

export interface VariantBenchResult {
  batch: number;
  runs: number;
  warmup: number;
  variants: MeasuredVariant[];
  /** AMP's outputs against full fp32. */
  accuracy: OutputComparison[];
  /** Every other variant's outputs against full fp32 (TF32 included). */
  accuracyByVariant: Record<string, OutputComparison[]>;
  /** fp32 median over AMP median. */
  speedup: number;
  /** AMP's speed-up against each other variant, by label (fp32, on CUDA fp32+tf32, and fp16 when timed: below 1 there). */
  speedups: Record<string, number>;
}

/** Every reference output against the candidate's (encoded TensorProtos), with bench's tolerance. */
export function compareAll(ort: Ort, reference: Record<string, Uint8Array>, candidate: Record<string, Uint8Array>, tolerance: { atol: number; rtol: number }): OutputComparison[] {
  return Object.entries(reference).map(([name, bytes]) => {
    const expected = tensorProtoToOrt(ort, decodeTensorProto(bytes, name));
    const got = candidate[name];
    return judgeTensors(name, expected, got && tensorProtoToOrt(ort, decodeTensorProto(got, name)), { ...tolerance, atolFloor: DEFAULT_TOLERANCE.atolFloor });
  });
}

export async function benchVariants(ort: Ort, models: Record<'fp32' | 'amp', Uint8Array> & { fp16?: Uint8Array }, options: VariantBenchOptions, runner: VariantRunner): Promise<VariantBenchResult> {
  const measured: VariantMeasurement[] = [];
  const planned = planVariants(options.providers, { pureFp16: options.pureFp16 ?? false });
  for (const variant of planned) {
    options.onProgress?.({ phase: `timing ${variant.label}`, done: measured.length, total: planned.length });
    const bytes = models[variant.model];
    if (!bytes) throw new AmpError('BAD_OPTION', `bench ${variant.label}: no ${variant.model} model to time`);
    const job: VariantJob = { label: variant.label, providers: options.providers, runs: options.runs, warmup: options.warmup, feeds: options.feeds, tf32: variant.tf32, keepOutputs: true };
    try {
      measured.push(await runner(job, bytes));
    } catch (error) {
      if (error instanceof VariantFailed) throw new AmpError('RUNTIME_FAILED', `bench ${variant.label}: ${error.message}`, { cause: error });
      throw error;
    }
  }
  const reference = measured[0] as VariantMeasurement;
  const amp = measured.find((m) => m.label === 'amp') as VariantMeasurement;
  const accuracyByVariant: Record<string, OutputComparison[]> = {};
  for (const m of measured.slice(1)) accuracyByVariant[m.label] = compareAll(ort, reference.outputs ?? {}, m.outputs ?? {}, options.tolerance);
  const speedups: Record<string, number> = {};
  for (const m of measured) if (m !== amp) speedups[m.label] = m.medianMs / amp.medianMs;
  return {
    batch: reference.batch,
    runs: options.runs,
    warmup: options.warmup,
    variants: measured.map(({ outputs: _outputs, ...rest }) => rest),
    accuracy: accuracyByVariant[amp.label] ?? [],
    accuracyByVariant,
    speedup: reference.medianMs / amp.medianMs,
    speedups,
  };
}

/** The symbolic batch dimension: the first dimension of the first graph input, which must be named. */
export function batchDimension(model: onnx.IModelProto): string {
  const first = (model.graph?.input ?? []).find((info) => !(model.graph?.initializer ?? []).some((t) => t.name === info.name));
  const dim = first?.type?.tensor_type?.shape?.dim?.[0];
  if (!dim?.dim_param) {
    throw new AmpError('BAD_OPTION', `--batch-search needs a symbolic batch dimension: input '${first?.name ?? '?'}' has a fixed first dimension (or pass --batch-dim)`, {
      subject: first?.name ?? '',
    });
  }
  return dim.dim_param;
}

export interface BatchSearchOptions {
  providers: Provider[];
  batchDim: string;
  start: number;
  max: number;
  runs: number;
  warmup: number;
  feeds: FeedSpec;
  onProgress?: ProgressListener;
}

/** The largest batch for fp32 (the provider's default math, TF32 on CUDA) and for AMP. */
export async function searchBatches(models: Record<'fp32' | 'amp', Uint8Array>, options: BatchSearchOptions, runner: VariantRunner): Promise<Record<'fp32' | 'amp', BatchSearchResult>> {
  const result = {} as Record<'fp32' | 'amp', BatchSearchResult>;
  for (const label of ['fp32', 'amp'] as const) {
    result[label] = await largestBatch(
      async (batch) => {
        options.onProgress?.({ phase: `batch search, ${label} at ${batch}`, done: 0 });
        const job: VariantJob = {
          label: `${label}@${batch}`,
          providers: options.providers,
          runs: options.runs,
          warmup: options.warmup,
          feeds: { ...options.feeds, dims: { ...options.feeds.dims, [options.batchDim]: batch } },
          tf32: options.providers[0] === 'cuda' ? true : null,
          keepOutputs: false,
        };
        try {
          const measured = await runner(job, models[label]);
          return { fits: true, medianMs: measured.medianMs };
        } catch (error) {
          if (error instanceof VariantFailed && error.outOfMemory) return { fits: false, error: error.message };
          throw error;
        }
      },
      { start: options.start, max: options.max },
    );
  }
  return result;
}
