/**
 * tune: the smallest set of nodes to keep fp32 so that the mixed-precision model passes a
 * tolerance, found with few runs. Start from the list-based rewrite; if it fails under the chosen
 * numerics (emulated by default), rank the converted nodes from ONE instrumented run of each model
 * (every float32 value exposed: where the error jumps, where values come near float16's limits,
 * where an inf starts, where small values flush to zero), then verify growing prefixes of that
 * ranking with full runs, and drop pins that change nothing (a rewrite, no run). The model is
 * decoded once; every attempt rewrites the decoded model in memory.
 *
 * onnxconverter-common's auto_convert_mixed_precision bisects the node list instead, with one full
 * conversion and a new session per attempt (bench/tune-vs-greedy.mjs compares the two).
 * The result holds for the inputs it was tuned on; other inputs may need other pins.
 */
import type { Tensor } from 'onnxruntime-node';
import { encodeModel } from '../onnx/codec.js';
import { AmpError } from '../onnx/errors.js';
import { FLOAT16_MAX } from '../onnx/float16.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph } from '../onnx/graph.js';
import { ampRewrite, type AmpOptions, type AmpResult } from '../passes/amp.js';
import { FLOAT16_FLUSH_BELOW, FLUSH_SHARE_LIMIT } from '../passes/amp/weight-range.js';
import { DEFAULT_TOLERANCE, judgeTensors, numericValues, scaledTolerance, type OutputComparison } from './compare.js';
import type { Feeds } from './inputs.js';
import { instrument } from './instrument.js';
import { modelForNumerics, type Numerics } from './numerics.js';
import { openSession, type Provider } from './session.js';
import { compareText } from '../collation.js';
import type { NodeEvidence } from '../api/types.js';

// Declared once, ORT-free, with the public API's types.
export type { NodeEvidence };

export const METRICS = ['allclose', 'max-abs', 'cosine'] as const;
export type Metric = (typeof METRICS)[number];

export interface Criterion {
  atol: number;
  rtol: number;
  /**
   * allclose: every element within atol * max|reference| + rtol * |reference|;
   * max-abs: the largest error within atol * max|reference|; cosine: cosine similarity at least 1 - atol.
   * In all three a NaN or inf passes only where the reference has the same.
   */
  metric: Metric;
}

export interface TuneOptions extends Criterion {
  ampOptions: AmpOptions;
  batches: readonly Feeds[];
  providers: readonly Provider[];
  numerics: Numerics;
  /** Stop verifying after this long and return the best model found so far. */
  budgetSeconds?: number;
}

export interface Attempt {
  pinned: string[];
  pass: boolean;
  /** The worst output's figure for the metric (largest error, or smallest cosine). */
  worst: number;
}

export interface TuneResult {
  result: AmpResult;
  pass: boolean;
  /** The nodes kept fp32 beyond the lists, with their evidence, in rank order. */
  pinned: NodeEvidence[];
  /** The top of the ranking, pinned or not (for the report). */
  ranking: NodeEvidence[];
  attempts: Attempt[];
  /** Instrumented runs (one per model per batch) and full verification runs (session runs). */
  runs: { instrumented: number; full: number; sessions: number };
  wallSeconds: number;
  numerics: Numerics;
  budgetExhausted: boolean;
  /** The outputs' comparisons for the returned model. */
  outputs: OutputComparison[];
}

/** Whether one output passes the criterion, and its figure. */
export function judgeOutput(name: string, reference: Tensor, candidate: Tensor | undefined, criterion: Criterion): { pass: boolean; worst: number; comparison: OutputComparison } {
  const comparison = judgeTensors(name, reference, candidate, { atol: criterion.atol, rtol: criterion.rtol, atolFloor: DEFAULT_TOLERANCE.atolFloor });
  const nonFiniteAgree = comparison.candidateNonFinite === comparison.referenceNonFinite && !comparison.note;
  const scale = scaledTolerance(reference, criterion.atol, 0).atol;
  switch (criterion.metric) {
    case 'allclose':
      return { pass: comparison.pass, worst: comparison.maxAbsError, comparison };
    case 'max-abs':
      return { pass: nonFiniteAgree && comparison.finite > 0 && comparison.maxAbsError <= scale, worst: comparison.maxAbsError, comparison };
    case 'cosine':
      return { pass: nonFiniteAgree && comparison.cosine >= 1 - criterion.atol, worst: comparison.cosine, comparison };
  }
}

function judgeAll(references: ReadonlyArray<Record<string, Tensor>>, candidates: ReadonlyArray<Record<string, Tensor>>, names: readonly string[], criterion: Criterion) {
  let pass = true;
  let worst = criterion.metric === 'cosine' ? 1 : 0;
  const outputs: OutputComparison[] = [];
  references.forEach((reference, batch) => {
    for (const name of names) {
      const judged = judgeOutput(name, reference[name] as Tensor, candidates[batch]?.[name], criterion);
      pass &&= judged.pass;
      // An inf or NaN the reference does not have is the worst error there is.
      const broken = Number.isNaN(judged.worst) || judged.comparison.candidateNonFinite !== judged.comparison.referenceNonFinite;
      const figure = broken ? (criterion.metric === 'cosine' ? -1 : Infinity) : judged.worst;
      worst = criterion.metric === 'cosine' ? Math.min(worst, figure) : Math.max(worst, figure);
      if (batch === 0) outputs.push(judged.comparison);
    }
  });
  return { pass, worst, outputs };
}

async function runBatches(bytes: Uint8Array, batches: readonly Feeds[], providers: readonly Provider[], role: string): Promise<Array<Record<string, Tensor>>> {
  let opened;
  try {
    opened = await openSession(bytes, providers);
  } catch (error) {
    throw new AmpError('RUNTIME_FAILED', `tune: the ${role} model cannot be loaded by ONNX Runtime: ${(error as Error).message}`, { cause: error });
  }
  try {
    const results: Array<Record<string, Tensor>> = [];
    for (const feeds of batches) results.push(await opened.session.run(feeds));
    return results;
  } catch (error) {
    throw new AmpError('RUNTIME_FAILED', `tune: the ${role} model failed to run: ${(error as Error).message.split('\n')[0]}`, { cause: error });
  } finally {
    await opened.session.release();
  }
}

interface ValueFacts {
  /** Largest |error| relative to the value's largest |reference|; Infinity where the candidate is non-finite and the reference is not. */
  error: number;
  largest: number;
  nonFinite: boolean;
  flushedShare: number;
}

function valueFacts(reference: Tensor | undefined, candidate: Tensor | undefined): ValueFacts | undefined {
  const a = reference && numericValues(reference);
  const b = candidate && numericValues(candidate);
  if (!a) return undefined;
  let largest = 0;
  let mass = 0;
  let flushed = 0;
  for (const x of a) {
    const m = Math.abs(x);
    if (!Number.isFinite(m)) continue;
    largest = Math.max(largest, m);
    mass += m;
    if (m > 0 && m < FLOAT16_FLUSH_BELOW) flushed += m;
  }
  let error = 0;
  let nonFinite = false;
  if (b && b.length === a.length) {
    for (let i = 0; i < a.length; i++) {
      const x = a[i] as number;
      const y = b[i] as number;
      if (!Number.isFinite(y) && Number.isFinite(x)) nonFinite = true;
      else if (Number.isFinite(x)) error = Math.max(error, Math.abs(x - y));
    }
  }
  return { error: nonFinite ? Infinity : error / (largest || 1), largest, nonFinite, flushedShare: mass ? flushed / mass : 0 };
}

/**
 * Ranks the converted nodes of the main graph from one instrumented run of the reference and of
 * the candidate: first the nodes where an inf or NaN starts, then those near float16's limits or
 * reading values that flush to zero, then by how much the relative error grows across the node.
 */
export function rankCandidates(
  model: onnx.IModelProto,
  converted: ReadonlySet<string>,
  reference: Record<string, Tensor>,
  candidate: Record<string, Tensor>,
  feeds: Feeds,
  lowIsFloat16: boolean,
): NodeEvidence[] {
  const graph = new ModelGraph(model);
  const facts = new Map<string, ValueFacts | undefined>();
  const factsOf = (name: string): ValueFacts | undefined => {
    if (!facts.has(name)) facts.set(name, valueFacts(reference[name] ?? feeds[name], candidate[name] ?? feeds[name]));
    return facts.get(name);
  };
  const ranked: NodeEvidence[] = [];
  for (const node of graph.main.currentNodes()) {
    const name = node.name ?? '';
    if (!converted.has(name)) continue;
    const inputs = (node.input ?? []).filter(Boolean).map(factsOf).filter((f): f is ValueFacts => f !== undefined);
    const outputs = (node.output ?? []).filter(Boolean).map(factsOf).filter((f): f is ValueFacts => f !== undefined);
    if (!outputs.length) continue;
    const inputError = Math.max(0, ...inputs.map((f) => f.error));
    const outputError = Math.max(0, ...outputs.map((f) => f.error));
    const nonFiniteOrigin = outputs.some((f) => f.nonFinite) && !inputs.some((f) => f.nonFinite);
    const errorJump = Number.isFinite(inputError) ? (Number.isFinite(outputError) ? outputError - inputError : 1) : 0;
    const largest = Math.max(0, ...inputs.map((f) => f.largest), ...outputs.map((f) => f.largest));
    const nearLimit = lowIsFloat16 ? largest / FLOAT16_MAX : 0;
    const flushedShare = lowIsFloat16 ? Math.max(0, ...inputs.map((f) => f.flushedShare), ...outputs.map((f) => f.flushedShare)) : 0;
    const reasons: string[] = [];
    if (nonFiniteOrigin) reasons.push('inf/NaN starts at its output in the candidate run');
    if (nearLimit >= 0.5) reasons.push(`values reach ${largest.toExponential(3)} (${nearLimit >= 1 ? `${nearLimit.toPrecision(3)}x` : `${(nearLimit * 100).toFixed(0)}% of`} float16's max)`);
    if (flushedShare >= FLUSH_SHARE_LIMIT) reasons.push(`${(flushedShare * 100).toPrecision(2)}% of the magnitude it reads or writes is below float16's smallest subnormal`);
    reasons.push(`relative error ${Number.isFinite(inputError) ? inputError.toExponential(2) : 'inf'} on its inputs, ${Number.isFinite(outputError) ? outputError.toExponential(2) : 'inf'} on its outputs`);
    ranked.push({ node: name, op: node.op_type ?? '', evidence: reasons.join('; '), errorJump, nearLimit, nonFiniteOrigin, flushedShare });
  }
  return ranked.sort((a, b) => strength(b) - strength(a) || b.errorJump - a.errorJump || b.nearLimit - a.nearLimit || compareText(a.node, b.node));
}

/**
 * How sure the evidence is: an inf starts here; its values exceed float16's max (converted, it
 * must overflow); they come within the headroom of it, or flush to zero; or only the error grows.
 */
function strength(e: NodeEvidence): number {
  return (e.nonFiniteOrigin ? 4 : 0) + (e.nearLimit >= 1 ? 2 : 0) + (e.nearLimit >= 0.5 || e.flushedShare >= FLUSH_SHARE_LIMIT ? 1 : 0);
}

/** Nodes whose values are beyond float16's range: converted, they overflow, so each one is needed unless a neighbour's pin keeps it fp32. */
const mustPin = (e: NodeEvidence): boolean => e.nonFiniteOrigin || e.nearLimit >= 1;

const convertedNodes = (result: AmpResult): string[] => result.report.nodes.filter((n) => n.color === 'ALLOW' && n.scope === 'graph').map((n) => n.node);
const signature = (result: AmpResult): string => result.report.nodes.map((n) => n.color).join('');

export async function tune(model: onnx.IModelProto, options: TuneOptions): Promise<TuneResult> {
  const started = performance.now();
  const elapsed = (): number => (performance.now() - started) / 1000;
  const budget = options.budgetSeconds ?? Infinity;
  const runs = { instrumented: 0, full: 0, sessions: 0 };
  const attempts: Attempt[] = [];
  const basePins = options.ampOptions.forceFp32 ?? [];
  const rewrite = (pins: readonly string[]): AmpResult => ampRewrite(model, { ...options.ampOptions, forceFp32: [...basePins, ...pins] });
  const lowIsFloat16 = (options.ampOptions.mode ?? 'fp16') === 'fp16';

  // One instrumented run of each model: the reference's outputs, and every intermediate value of both.
  const probe = instrument(model);
  const references = await runBatches(encodeModel(probe.model), options.batches, options.providers, 'reference');
  runs.instrumented += options.batches.length;
  runs.sessions++;
  const outputNames = (model.graph?.output ?? []).map((o) => o.name ?? '');
  const base = rewrite([]);
  const candidateProbe = instrument(modelForNumerics(base.model, options.numerics), new Set([...probe.watched, ...outputNames]));
  const baseRuns = await runBatches(encodeModel(candidateProbe.model), options.batches, options.providers, 'rewritten');
  runs.instrumented += options.batches.length;
  runs.sessions++;
  const baseJudged = judgeAll(references, baseRuns, outputNames, options);
  attempts.push({ pinned: [], pass: baseJudged.pass, worst: baseJudged.worst });
  const ranking = rankCandidates(model, new Set(convertedNodes(base)), references[0] as Record<string, Tensor>, baseRuns[0] as Record<string, Tensor>, options.batches[0] as Feeds, lowIsFloat16);
  const finish = (result: AmpResult, pass: boolean, pinned: string[], outputs: OutputComparison[], budgetExhausted: boolean): TuneResult => ({
    result,
    pass,
    pinned: pinned.map((name) => ranking.find((e) => e.node === name) as NodeEvidence),
    ranking: ranking.slice(0, 20),
    attempts,
    runs,
    wallSeconds: elapsed(),
    numerics: options.numerics,
    budgetExhausted,
    outputs,
  });
  if (baseJudged.pass) return finish(base, true, [], baseJudged.outputs, false);

  const verify = async (pins: string[]) => {
    const result = rewrite(pins);
    const outputs = await runBatches(encodeModel(modelForNumerics(result.model, options.numerics)), options.batches, options.providers, 'tuned');
    runs.full += options.batches.length;
    runs.sessions++;
    const judged = judgeAll(references, outputs, outputNames, options);
    attempts.push({ pinned: pins, pass: judged.pass, worst: judged.worst });
    return { result, ...judged };
  };

  // Grow a prefix of the ranking: first the nodes that must be pinned (an inf starts there, or
  // their values exceed float16's max), then every node with strong evidence (near the limit,
  // flushing), then doubling. A passing must-set is not bisected: each of its nodes is needed.
  const must = ranking.filter(mustPin).length;
  const strong = ranking.filter((e) => strength(e) > 0).length;
  const sizes = [...new Set([must, strong].filter((n) => n > 0))];
  let size = sizes.shift() ?? 1;
  let best: { size: number; result: AmpResult; outputs: OutputComparison[] } | undefined;
  let lastFailed = 0;
  let lastOutputs = baseJudged.outputs;
  let exhausted = false;
  while (size <= ranking.length) {
    if (elapsed() > budget) {
      exhausted = true;
      break;
    }
    const attempt = await verify(ranking.slice(0, size).map((e) => e.node));
    lastOutputs = attempt.outputs;
    if (attempt.pass) {
      best = { size, result: attempt.result, outputs: attempt.outputs };
      break;
    }
    lastFailed = size;
    if (size === ranking.length) break;
    size = sizes.shift() ?? Math.min(ranking.length, size * 2);
  }
  if (!best) {
    const pins = ranking.slice(0, lastFailed).map((e) => e.node);
    return finish(rewrite(pins), false, pins, lastOutputs, exhausted);
  }
  // Shrink: the smallest passing prefix between the last failure and the first success (bisection).
  let low = Math.max(lastFailed + 1, must);
  let high = best.size;
  while (low < high && elapsed() <= budget) {
    const middle = Math.floor((low + high) / 2);
    const attempt = await verify(ranking.slice(0, middle).map((e) => e.node));
    if (attempt.pass) {
      high = middle;
      best = { size: middle, result: attempt.result, outputs: attempt.outputs };
    } else low = middle + 1;
  }
  // Drop pins that change no decision (the model is the same without them): a rewrite, no run.
  let pins = ranking.slice(0, best.size).map((e) => e.node);
  const target = signature(best.result);
  for (const pin of [...pins].reverse()) {
    const without = pins.filter((p) => p !== pin);
    if (signature(rewrite(without)) === target) pins = without;
  }
  return finish(rewrite(pins), true, pins, best.outputs, false);
}

/** A --rules file that reproduces the tuned model with a plain rewrite. */
export function overridesFile(result: TuneResult, inputsDescription: string): string {
  return `${JSON.stringify(
    {
      $comment: `written by amp-rewrite tune: keeps these nodes fp32 so the model passed the tolerance under ${result.numerics} numerics on ${inputsDescription}; other inputs may need other nodes`,
      forceFp32: result.pinned.map((p) => p.node),
    },
    null,
    2,
  )}\n`;
}
