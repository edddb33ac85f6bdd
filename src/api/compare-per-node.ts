/**
 * `compare --per-node` as a function: where the difference between two models starts. Both run
 * with every shared intermediate value exposed; each node of the reference, in topological order,
 * is judged by its outputs under compare's tolerance rule. Loads ONNX Runtime on first use; the
 * result names no ONNX Runtime type.
 */
import type { OutputComparison } from '../runtime/compare.js';
import { loadOrt } from '../runtime/ort.js';
import { comparePerNode as perNode, type NodeComparison as RuntimeNodeComparison, type PerNodeResult } from '../runtime/per-node.js';
import { diagnosticSettings, type DiagnosticOptions } from './compare-options.js';
import { comparisonFeeds } from './comparison-feeds.js';
import { modelOf, type ModelSource } from './execute.js';
import type { Numerics, Provider } from './types.js';

/** The inputs (as runModel's), the provider, compare's tolerance rule and numerics. */
export type PerNodeOptions = DiagnosticOptions;

export interface NodeComparison {
  node: string;
  op: string;
  /** Position in the reference's topological order (0-based). */
  position: number;
  /** Its float outputs shared by both models, each judged as a model output is. */
  outputs: OutputComparison[];
  pass: boolean;
  /** The error starts here: every shared value it reads is within tolerance, one of its outputs is not. */
  origin: boolean;
}

export interface PerNodeReport {
  provider: Provider;
  numerics: Numerics;
  nodesCompared: number;
  valuesCompared: number;
  /** Every node whose outputs leave the tolerance, in topological order (empty: none does). */
  failing: NodeComparison[];
  /** The first failing node whose inputs are within tolerance: where the error starts (null: none). */
  firstOrigin: NodeComparison | null;
}

/** Runs both models with every shared intermediate value exposed and lists the nodes whose outputs leave the tolerance. */
export async function comparePerNode(reference: ModelSource, candidate: ModelSource, options: PerNodeOptions = {}): Promise<PerNodeReport> {
  const settings = diagnosticSettings('comparePerNode', options);
  const referenceModel = modelOf(reference);
  const candidateModel = modelOf(candidate);
  const ort = await loadOrt();
  const result: PerNodeResult = await perNode(referenceModel, candidateModel, comparisonFeeds(ort, referenceModel, options), settings);
  const failing: NodeComparison[] = result.failing satisfies RuntimeNodeComparison[];
  return { ...result, failing, firstOrigin: failing.find((n) => n.origin) ?? null };
}
