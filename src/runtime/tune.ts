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
import type { ProgressListener } from './activity.js';
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
import { AS_WRITTEN, openSession, type Provider } from './session.js';
import { compareText } from '../onnx/collation.js';
import type { NodeEvidence } from './result-types.js';

// Declared once, ORT-free, in result-types.ts (the public API re-exports it from there).
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
  /** Told as each model run ends: the reference, the plain rewrite, then each try. */
  onProgress?: ProgressListener;
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
  /**
   * How small the pinned set is: pins against the nodes the list-based rewrite converted (in every
   * scope), and whether only keeping every node fp32 passed.
   */
  extent: { pinned: number; converted: number; everything: boolean };
}

/** The pin that keeps every node fp32, named or not (a node's name '' matches it too): tune's last resort. */
export const EVERY_NODE = '/.*/';

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
    opened = await openSession(bytes, providers, AS_WRITTEN);
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
  rankInBodies(graph, converted, factsOf, ranked);
  /** Converted nodes of the main graph with no float32 output the run observed: ranked after all the others. */
  const unobserved: NodeEvidence[] = [];
  for (const node of graph.main.currentNodes()) {
    const name = node.name ?? '';
    if (!converted.has(name)) continue;
    const inputs = (node.input ?? []).filter(Boolean).map(factsOf).filter((f): f is ValueFacts => f !== undefined);
    const outputs = (node.output ?? []).filter(Boolean).map(factsOf).filter((f): f is ValueFacts => f !== undefined);
    if (!outputs.length) {
      // Every converted node can be pinned: one whose outputs the run did not see (not float32 in the
      // model, or not produced on these inputs) comes last, in graph order, rather than never.
      unobserved.push({ node: name, op: node.op_type ?? '', evidence: 'no float32 output of its own observed in the runs: ranked after every node with evidence', errorJump: 0, nearLimit: 0, nonFiniteOrigin: false, flushedShare: 0 });
      continue;
    }
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
  // Ties: the main graph's nodes first, by name; then the bodies' nodes, the first of every body,
  // then the second of every body...: of an If's two branches one runs, and an input's first
  // readers (Silero VAD's STFT Conv) are where a branch's error starts.
  const bodyOrder = new Map<NodeEvidence, number>();
  const placeInBody = new Map<string, number>();
  const bodies = [...new Set(ranked.map((e) => e.scope).filter((scope): scope is string => scope !== undefined))];
  for (const e of ranked) {
    if (e.scope === undefined) continue;
    const place = placeInBody.get(e.scope) ?? 0;
    placeInBody.set(e.scope, place + 1);
    bodyOrder.set(e, place * bodies.length + bodies.indexOf(e.scope));
  }
  ranked.sort(
    (a, b) =>
      strength(b) - strength(a) ||
      b.errorJump - a.errorJump ||
      b.nearLimit - a.nearLimit ||
      (bodyOrder.has(a) ? 1 : 0) - (bodyOrder.has(b) ? 1 : 0) ||
      (bodyOrder.has(a) ? (bodyOrder.get(a) as number) - (bodyOrder.get(b) as number) : compareText(a.node, b.node)),
  );
  return [...ranked, ...unobserved];
}

/**
 * The converted nodes inside If/Loop/Scan bodies, whose values the instrumented run cannot
 * expose: each takes the evidence of the main-graph node that holds its body (the If or Loop whose
 * outputs carry its error), and bodies are ranked by how much error grows across that node.
 */
function rankInBodies(graph: ModelGraph, converted: ReadonlySet<string>, factsOf: (name: string) => ValueFacts | undefined, ranked: NodeEvidence[]): void {
  for (const scope of graph.scopes) {
    if (!scope.parent) continue;
    let holder = scope.owner;
    for (let up = scope.parent; up?.parent && up.owner; up = up.parent) holder = up.owner;
    if (!holder) continue;
    const known = (names: readonly string[] | null | undefined) => (names ?? []).filter(Boolean).map(factsOf).filter((f): f is ValueFacts => f !== undefined);
    const inputError = Math.max(0, ...known(holder.input).map((f) => f.error));
    const outputs = known(holder.output);
    const outputError = Math.max(0, ...outputs.map((f) => f.error));
    const errorJump = Number.isFinite(inputError) ? (Number.isFinite(outputError) ? outputError - inputError : 1) : 0;
    const shown = Number.isFinite(outputError) ? outputError.toExponential(2) : 'inf';
    for (const node of scope.currentNodes()) {
      const name = node.name ?? '';
      if (!name || !converted.has(name)) continue;
      ranked.push({
        node: name,
        op: node.op_type ?? '',
        scope: scope.path,
        evidence: `inside ${scope.path}, whose values are not observed; ${holder.op_type} '${holder.name || (holder.output ?? [])[0] || '?'}' that holds it shows relative error ${shown} on its outputs`,
        errorJump,
        nearLimit: 0,
        nonFiniteOrigin: false,
        flushedShare: 0,
      });
    }
  }
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

/** The converted nodes that a pin can name, in every scope (a pin matches a node's name in any body). */
const convertedNodes = (result: AmpResult): string[] => result.report.nodes.filter((n) => n.color === 'ALLOW' && n.node).map((n) => n.node);
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
  options.onProgress?.({ phase: 'reference run', done: 0 });
  const references = await runBatches(encodeModel(probe.model), options.batches, options.providers, 'reference');
  options.onProgress?.({ phase: 'rewritten run', done: 0 });
  runs.instrumented += options.batches.length;
  runs.sessions++;
  const outputNames = (model.graph?.output ?? []).map((o) => o.name ?? '');
  // Every session opens its model as written (AS_WRITTEN): with every value exposed ONNX Runtime
  // would otherwise fuse less in the instrumented reference than in the attempts, and outputs that
  // sort or threshold (a detector's TopK, score filters) could differ even with nothing converted,
  // failing the all-float32 attempt itself. As written, the instrumented run's outputs are the model's.
  const judgedAgainst = references;
  const base = rewrite([]);
  const candidateProbe = instrument(modelForNumerics(base.model, options.numerics), new Set([...probe.watched, ...outputNames]));
  const baseRuns = await runBatches(encodeModel(candidateProbe.model), options.batches, options.providers, 'rewritten');
  runs.instrumented += options.batches.length;
  runs.sessions++;
  const baseJudged = judgeAll(judgedAgainst, baseRuns, outputNames, options);
  attempts.push({ pinned: [], pass: baseJudged.pass, worst: baseJudged.worst });
  const converted = convertedNodes(base);
  const ranking = rankCandidates(model, new Set(converted), references[0] as Record<string, Tensor>, baseRuns[0] as Record<string, Tensor>, options.batches[0] as Feeds, lowIsFloat16);
  const everyNode: NodeEvidence = {
    node: EVERY_NODE,
    op: '*',
    evidence: `every node kept fp32: no smaller set of the ${converted.length} converted nodes passed`,
    errorJump: 0,
    nearLimit: 0,
    nonFiniteOrigin: false,
    flushedShare: 0,
  };
  const finish = (result: AmpResult, pass: boolean, pinned: string[], outputs: OutputComparison[], budgetExhausted: boolean): TuneResult => ({
    result,
    pass,
    extent: { pinned: pinned.includes(EVERY_NODE) ? converted.length : pinned.length, converted: converted.length, everything: pinned.includes(EVERY_NODE) },
    pinned: pinned.map((name) => (name === EVERY_NODE ? everyNode : (ranking.find((e) => e.node === name) as NodeEvidence))),
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
    options.onProgress?.({ phase: `try (${pins.length} pinned)`, done: attempts.length });
    const result = rewrite(pins);
    const outputs = await runBatches(encodeModel(modelForNumerics(result.model, options.numerics)), options.batches, options.providers, 'tuned');
    runs.full += options.batches.length;
    runs.sessions++;
    const judged = judgeAll(judgedAgainst, outputs, outputNames, options);
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
    // The guarantee: when keeping every node fp32 passes, tune passes with (at worst) that set,
    // budget or not (one run more). Pins of every ranked node can still leave nodes converted that
    // no pin names (unnamed, or converted only once their neighbours were pinned).
    const attempt = await verify([EVERY_NODE]);
    lastOutputs = attempt.outputs;
    if (attempt.pass) return finish(attempt.result, true, [EVERY_NODE], attempt.outputs, exhausted);
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
  // Pins inside bodies come with no evidence of their own (their values are not observed), so a
  // passing prefix may hold many that are not needed: each is dropped if the model still passes
  // without it (a run each, latest first, at most BODY_PRUNE_RUNS runs, within the budget).
  let pins = ranking.slice(0, best.size).map((e) => e.node);
  const inBody = new Set(ranking.filter((e) => e.scope).map((e) => e.node));
  let pruneRuns = 0;
  for (const pin of [...pins].reverse()) {
    if (!inBody.has(pin) || pruneRuns >= BODY_PRUNE_RUNS || elapsed() > budget) continue;
    const without = pins.filter((p) => p !== pin);
    pruneRuns++;
    const attempt = await verify(without);
    if (attempt.pass) {
      pins = without;
      best = { size: best.size, result: attempt.result, outputs: attempt.outputs };
    }
  }
  // Drop pins that change no decision (the model is the same without them): a rewrite, no run.
  const target = signature(best.result);
  for (const pin of [...pins].reverse()) {
    const without = pins.filter((p) => p !== pin);
    if (signature(rewrite(without)) === target) pins = without;
  }
  return finish(rewrite(pins), true, pins, best.outputs, false);
}

/** Verification runs spent at most on dropping pins inside bodies one by one. */
const BODY_PRUNE_RUNS = 64;

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
