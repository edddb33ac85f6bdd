/**
 * `compare --per-node` as a function: where the difference between two models starts. Both run
 * with every shared intermediate value exposed; each node of the reference, in topological order,
 * is judged by its outputs under compare's tolerance rule. Loads ONNX Runtime on first use; the
 * result names no ONNX Runtime type.
 */
import type { OutputComparison } from '../runtime/compare.js';
import { loadOrt } from '../runtime/ort.js';
import { comparePerNode as perNode, type NodeComparison as RuntimeNodeComparison, type PerNodeResult } from '../runtime/per-node.js';
import { checkChoice, checkNumber } from './check-options.js';
import { checkKnownOptions, numericsOption, type NumericsChoice } from './compare-options.js';
import { checkInputOptions, feedsFor, modelOf, providersOf, type ExecuteOptions, type ModelSource } from './execute.js';
import type { Numerics, Provider } from './types.js';

export interface PerNodeOptions extends ExecuteOptions {
  /** Tolerance, as compare's (defaults 0.01, 0.01). */
  atol?: number;
  /** The absolute floor of compare's rule (default 1e-5). */
  atolFloor?: number;
  rtol?: number;
  /** 'auto' (default): emulate on the CPU provider, native on a GPU provider, as compare. */
  numerics?: NumericsChoice;
}

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

const KNOWN = ['inputs', 'dims', 'seed', 'ep', 'atol', 'atolFloor', 'rtol', 'numerics'] as const;

/** Runs both models with every shared intermediate value exposed and lists the nodes whose outputs leave the tolerance. */
export async function comparePerNode(reference: ModelSource, candidate: ModelSource, options: PerNodeOptions = {}): Promise<PerNodeReport> {
  const untyped = options as Record<string, unknown>;
  checkKnownOptions('comparePerNode', untyped, KNOWN);
  checkInputOptions(untyped);
  checkNumber(untyped, 'atol', 0);
  checkNumber(untyped, 'rtol', 0);
  checkNumber(untyped, 'atolFloor', 0);
  checkChoice(untyped, 'numerics', ['auto', 'emulate', 'native']);
  const referenceModel = modelOf(reference);
  const candidateModel = modelOf(candidate);
  const ort = await loadOrt();
  const numerics = numericsOption(options.numerics);
  const result: PerNodeResult = await perNode(referenceModel, candidateModel, feedsFor(ort, referenceModel, options), {
    providers: providersOf(options),
    ...(numerics ? { numerics } : {}),
    atol: options.atol ?? 1e-2,
    rtol: options.rtol ?? 1e-2,
    atolFloor: options.atolFloor ?? 1e-5,
  });
  const failing: NodeComparison[] = result.failing satisfies RuntimeNodeComparison[];
  return { ...result, failing, firstOrigin: failing.find((n) => n.origin) ?? null };
}
