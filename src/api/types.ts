/**
 * The result types of the execute API, declared without naming ONNX Runtime (an optional peer
 * dependency): a project without onnxruntime-node, or without @types/node, compiles against them.
 * The runtime modules declare the same shapes next to the code; the assertions below keep the two
 * in step (a change to one side that the other lacks fails the build).
 */
import type { BenchResult as RuntimeBenchResult, VariantResult as RuntimeVariantResult } from '../runtime/bench.js';
import type { OutputComparison } from '../runtime/compare.js';
import type { Provider as RuntimeProvider } from '../runtime/session.js';
import type { TensorSummary as RuntimeTensorSummary } from '../runtime/summarize.js';

export type Provider = 'cuda' | 'webgpu' | 'cpu';

export interface TensorSummary {
  name: string;
  type: string;
  dims: number[];
  min: number;
  max: number;
  mean: number;
  nan: number;
  inf: number;
}

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

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const inStep: [Same<Provider, RuntimeProvider>, Same<TensorSummary, RuntimeTensorSummary>, Same<VariantResult, RuntimeVariantResult>, Same<BenchResult, RuntimeBenchResult>] = [
  true,
  true,
  true,
  true,
];
void inStep;
