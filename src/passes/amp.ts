/**
 * The automatic mixed precision pass: classify every node with the allow/deny/infer/clear lists,
 * paint the graph (paint.ts), move the painted nodes' float32 data to float16 or bfloat16 with
 * Casts only on the edges where precision changes (cast-plan.ts), validate, and report every
 * decision. A pure function: the input model is not changed.
 */
import { cloneMessage } from '../onnx/clone.js';
import { DataType, tensorTypeString } from '../onnx/data-types.js';
import { schemaFor, typesOf } from '../onnx/schema.js';
import { AmpError } from '../onnx/errors.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph, type GraphScope } from '../onnx/graph.js';
import { opsetsOf } from '../onnx/opsets.js';
import { inferElemTypes } from '../onnx/type-inference.js';
import { inferShapes } from '../onnx/shape-inference.js';
import { planCasts, type CastStats } from './amp/cast-plan.js';
import { computesOnFloat32, type NodeDecision, type RuleCode } from './amp/decisions.js';
import { buildOpLists, changesFromEnvironment, LIST_NAMES, type ListChangeLayer, type ListName, type OpLists } from './amp/op-lists.js';
import { paintScope, type NodeMatcher, type ScopePaint } from './amp/paint.js';
import { matrixFlops } from './amp/flops.js';
import { nodesReadingOutOfRangeWeights, nodesSeeingOutOfRangeActivations } from './amp/weight-range.js';
import { validateModel } from './validate.js';
import { phase } from '../onnx/phases.js';

export interface AmpOptions {
  /** 'fp16' (mixed_float16, the default) or 'bf16' (mixed_bfloat16). */
  mode?: 'fp16' | 'bf16';
  /** 'fp32' (default): fp32 master weights, one shared Cast each. 'fp16': store reduced-precision copies. */
  weights?: 'fp32' | 'fp16';
  /** Changes to the op lists, applied in order after the defaults (a --rules file, flags). */
  listChanges?: ListChangeLayer[];
  /** Environment to read AMP_REWRITE_<LIST>LIST_<ADD|REMOVE> from; none when absent (the API stays pure). */
  env?: NodeJS.ProcessEnv;
  /** Node names or /regex/ patterns kept fp32 whatever their op. */
  forceFp32?: string[];
  /** Node names or /regex/ patterns converted whatever their list (when their schema allows). */
  forceFp16?: string[];
  /**
   * Largest magnitude each main-graph value reached in an fp32 run (runtime/activation-range.ts).
   * Nodes that would see a value beyond float16's range stay fp32. Only used for fp16.
   */
  activationRanges?: ReadonlyMap<string, number>;
  /**
   * Graph inputs that hold weights (a training graph's parameters and optimizer state): like
   * initializers, they do not count as fp32 streams for the between-allow rule.
   */
  weightInputs?: readonly string[];
  /** Check the result (default true); a failure throws VALIDATION_FAILED and nothing is returned. */
  validate?: boolean;
  /**
   * Edit `input` itself instead of a copy (default false). For callers that drop the input
   * afterwards, such as the CLI: a copy of a big model's message tree costs time and memory.
   */
  inPlace?: boolean;
}

/** The pass's declaration: the CLI's --help and the README are written from it. */
export const ampPassInfo = {
  name: 'amp',
  summary: 'Automatic mixed precision: run allow-list ops (MatMul, Conv, Gemm...) in float16/bfloat16, keep fragile ops fp32',
  options: {
    mode: { default: 'fp16', choices: ['fp16', 'bf16'], help: 'target type: fp16 (mixed_float16) or bf16 (mixed_bfloat16)' },
    weights: {
      default: 'fp32',
      choices: ['fp32', 'fp16'],
      help: 'fp32: keep fp32 master weights with one shared Cast each; fp16: store converted copies (halves the file) where every reader is converted',
    },
  },
} as const;

export interface NodeAudit {
  node: string;
  op: string;
  domain: string;
  scope: string;
  list: ListName | null;
  color: NodeDecision['color'];
  rule: RuleCode;
  reason: string;
  castsAdded: string[];
}

export interface AmpSummary {
  mode: 'mixed_float16' | 'mixed_bfloat16';
  nothingToConvert: boolean;
  totalNodes: number;
  processable: number;
  recognized: number;
  converted: number;
  targetCasts: number;
  allowConverted: number;
  denyBlocking: number;
  blockedByDeny: number;
  weightCasts: number;
  fp32Casts: number;
  castsRetargeted: number;
  weightsConverted: string[];
  weightsKeptFp32: Array<{ name: string; reason: string }>;
  matrixFlops: { lowPrecision: number; total: number; unknownNodes: number; nodes: number };
  fp32Reasons: Array<{ rule: RuleCode; count: number; example: string }>;
}

export interface AmpReport {
  pass: 'amp';
  summary: AmpSummary;
  nodes: NodeAudit[];
  lists: Record<ListName, Array<{ op: string; domain: string; reason: string; origin: string }>>;
}

export interface AmpResult {
  model: onnx.ModelProto;
  report: AmpReport;
  modified: boolean;
  /** The graph model of `model` as the pass left it (committed), when it was modified. */
  graph?: ModelGraph;
}

export function nodeMatcher(patterns: readonly string[]): NodeMatcher {
  const exact = new Set<string>();
  const regexes: RegExp[] = [];
  for (const pattern of patterns) {
    const match = /^\/(.*)\/([a-z]*)$/.exec(pattern);
    if (!match) {
      exact.add(pattern);
      continue;
    }
    try {
      regexes.push(new RegExp(match[1] as string, match[2]));
    } catch (error) {
      throw new AmpError('BAD_OPTION', `'${pattern}' is not a valid regular expression: ${(error as Error).message}`);
    }
  }
  return (node) => exact.has(node.name ?? '') || regexes.some((regex) => regex.test(node.name ?? ''));
}

/**
 * Why this opset cannot host the rewrite, if it cannot: Cast-1 takes its target as a string that
 * ONNX Runtime does not type, and Cast cannot produce bfloat16 before opset 13.
 */
function castUnavailable(defaultOpset: number, target: number): string | undefined {
  const cast = schemaFor('', 'Cast', defaultOpset);
  const to = cast?.attributes.find((a) => a.name === 'to');
  if (!cast || to?.type !== 'int') return `ai.onnx opset ${defaultOpset} has no Cast with an integer 'to' (opset 6 or later is needed)`;
  const output = cast.outputs[0];
  if (!output || !typesOf(cast, output).includes(tensorTypeString(target))) {
    return `Cast at ai.onnx opset ${defaultOpset} cannot produce ${tensorTypeString(target)}`;
  }
  return undefined;
}

export function effectiveLists(options: AmpOptions): OpLists {
  return buildOpLists([...(options.env ? changesFromEnvironment(options.env) : []), ...(options.listChanges ?? [])]);
}

export function ampRewrite(input: onnx.IModelProto, options: AmpOptions = {}): AmpResult {
  const mode = options.mode ?? 'fp16';
  const target = mode === 'bf16' ? DataType.BFLOAT16 : DataType.FLOAT16;
  const lists = effectiveLists(options);
  const model = options.inPlace ? (input as onnx.ModelProto) : phase('cloneMs', () => cloneMessage(input) as onnx.ModelProto);
  const graph = phase('graphModelMs', () => new ModelGraph(model));
  const opsets = opsetsOf(model);
  const types = phase('typeInferenceMs', () => inferElemTypes(graph, opsets));
  const paintOptions = {
    target,
    mode,
    forceFp32: nodeMatcher(options.forceFp32 ?? []),
    pinned:
      target === DataType.FLOAT16
        ? phase('weightRangeMs', () => new Map([...nodesSeeingOutOfRangeActivations(graph, options.activationRanges ?? new Map()), ...nodesReadingOutOfRangeWeights(graph)]))
        : new Map(),
    forceFp16: nodeMatcher(options.forceFp16 ?? []),
    weightInputs: new Set(options.weightInputs ?? []),
  };

  const castProblem = castUnavailable(opsets.get('') ?? 0, target);
  const paints = new Map<GraphScope, ScopePaint>();
  phase('paintMs', () => {
    for (const scope of graph.scopes) paints.set(scope, paintScope(scope, types, opsets, lists, paintOptions));
  });
  if (castProblem) {
    // Without a Cast that can reach the target type, nothing may be converted.
    for (const paint of paints.values()) {
      for (const decision of paint.decisions.values()) {
        if (decision.color === 'NONE' && !decision.processable) continue;
        Object.assign(decision, { color: 'NONE', rule: 'schema-forbids', reason: castProblem });
      }
    }
  }
  const decisions = [...paints.values()].flatMap((paint) => [...paint.decisions.values()]);
  const anyAllow = decisions.some((d) => d.color === 'ALLOW');
  // Before the casts rename edges: shapes are looked up by the model's own value names.
  const flops = phase('shapeInferenceMs', () => matrixFlops(decisions, inferShapes(graph)));

  let stats: CastStats | undefined;
  let result: onnx.ModelProto = model;
  if (anyAllow) {
    stats = phase('castPlanMs', () => planCasts(graph, paints, types, { target, weights: options.weights ?? 'fp32', weightInputs: paintOptions.weightInputs }));
    phase('commitMs', () => graph.commit());
    if (options.validate ?? true) {
      const problems = phase('validationMs', () => validateModel(model, graph));
      if (problems.length) {
        const first = problems[0] as { node: string; message: string };
        throw new AmpError(
          'VALIDATION_FAILED',
          `the rewritten model is invalid: ${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more problems)` : ''}`,
          { subject: first.node },
        );
      }
    }
  } else {
    // Nothing to convert is a result, not an error: the model is returned as it came.
    result = input as onnx.ModelProto;
    for (const decision of decisions) {
      if (decision.processable && (decision.rule === 'not-between-allow' || decision.rule === 'unlisted')) {
        decision.rule = 'no-allow-ops';
        decision.reason = 'no allow-list op in the model: nothing to convert';
      }
    }
  }

  const report: AmpReport = {
    pass: 'amp',
    summary: summarize(decisions, stats, mode, anyAllow, flops),
    nodes: decisions.map((d) => ({
      node: d.node.name ?? '',
      op: d.node.op_type ?? '',
      domain: d.node.domain ?? '',
      scope: d.scope.path,
      list: d.list ?? null,
      color: d.color,
      rule: d.rule,
      reason: d.reason,
      castsAdded: d.castsAdded,
    })),
    lists: Object.fromEntries(
      LIST_NAMES.map((list) => [list, lists.entries(list).map(({ op, domain, reason, origin }) => ({ op, domain, reason, origin }))]),
    ) as AmpReport['lists'],
  };
  return { model: result, report, modified: anyAllow, ...(anyAllow ? { graph } : {}) };
}

function summarize(
  decisions: NodeDecision[],
  stats: CastStats | undefined,
  mode: 'fp16' | 'bf16',
  anyAllow: boolean,
  flops: AmpSummary['matrixFlops'],
): AmpSummary {
  const processable = decisions.filter((d) => d.processable);
  const reasons = new Map<RuleCode, { count: number; example: string }>();
  for (const d of decisions) {
    if (d.color === 'ALLOW' || !computesOnFloat32(d)) continue;
    const entry = reasons.get(d.rule) ?? { count: 0, example: `${d.node.op_type} '${d.node.name ?? ''}': ${d.reason}` };
    entry.count++;
    reasons.set(d.rule, entry);
  }
  return {
    mode: mode === 'bf16' ? 'mixed_bfloat16' : 'mixed_float16',
    nothingToConvert: !anyAllow,
    totalNodes: decisions.length,
    processable: processable.length,
    recognized: processable.filter((d) => d.list !== undefined).length,
    converted: decisions.filter((d) => d.color === 'ALLOW').length,
    targetCasts: stats?.castsToTarget ?? 0,
    allowConverted: decisions.filter((d) => d.color === 'ALLOW' && d.list === 'allow').length,
    denyBlocking: processable.filter((d) => d.list === 'deny').length,
    blockedByDeny: decisions.filter((d) => d.rule === 'deny-upstream').length,
    weightCasts: stats?.weightCasts ?? 0,
    fp32Casts: stats?.castsToFloat32 ?? 0,
    castsRetargeted: stats?.castsRetargeted ?? 0,
    weightsConverted: stats?.weightsConverted ?? [],
    weightsKeptFp32: stats?.weightsKept ?? [],
    matrixFlops: flops,
    fp32Reasons: [...reasons.entries()]
      .map(([rule, { count, example }]) => ({ rule, count, example }))
      .sort((a, b) => b.count - a.count || a.rule.localeCompare(b.rule)),
  };
}
