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
import { inferElemTypes, type ElemTypes } from '../onnx/type-inference.js';
import { inferShapes } from '../onnx/shape-inference.js';
import { planCasts, type CastStats, type TypeAfterPlan } from './amp/cast-plan.js';
import { foldCasts } from './amp/cast-fold.js';
import { castsPerLayer } from './amp/casts-per-layer.js';
import { carriedFills, clampFills, readMaskFillRules, type CarriedFills, type MaskGuarded } from './amp/mask-fill.js';
import { computesOnFloat32, type NodeDecision, type RuleCode } from './amp/decisions.js';
import { buildOpLists, changesFromEnvironment, LIST_NAMES, type ListChangeLayer, type ListName, type OpLists } from './amp/op-lists.js';
import { paintScope, type NodeMatcher, type ScopePaint } from './amp/paint.js';
import { nodesReadingOutOfRangeWeights, nodesSeeingOutOfRangeActivations, type PinnedNode } from './amp/weight-range.js';
import { exactnessPins } from './amp/integer-valued.js';
import { runtimeHazardPins } from './amp/runtime-hazards.js';
import { relabelShapeReaders } from './amp/shape-readers.js';
import { validateModel } from '../onnx/validate.js';
import { phase } from '../onnx/phases.js';
import { sortGraph } from './amp/graph-order.js';
import { printable } from '../onnx/printable.js';
import { boundedRegex } from './amp/bounded-regex.js';
import { inlineLocalFunctions, localFunctionKey } from './amp/inline-functions.js';
import { findKvCache, requireKvCache, storeKvCacheInFloat16, type KvCacheValues } from './amp/kv-cache.js';
import { findFloatBoundary, retypeBoundary, type BoundaryValues } from './amp/io-types.js';
import { matrixFigures, type TensorCoreLint } from './amp/tensor-core-lint.js';
import type { MatrixFlops } from './amp/flops.js';
import { staticInputs } from './amp/static-dims.js';
import { targetPolicy, targetWarnings, type Target, type TargetWarning } from './amp/target-policy.js';
import { nodeIds, nodeTypes, type Precision } from './amp/node-types.js';
import { checkAmpOptions } from './option-checks.js';
import { auditGraph, snapshotWiring, type AuditNodeGraph, type AuditScope, type Wiring } from './amp/audit-graph.js';
import { compareText } from '../onnx/collation.js';

export interface AmpOptions {
  /** 'fp16' (mixed_float16, the default) or 'bf16' (mixed_bfloat16). */
  mode?: 'fp16' | 'bf16';
  /** 'fp32' (default): fp32 master weights, one shared Cast each. 'fp16': store reduced-precision copies. */
  weights?: 'fp32' | 'fp16';
  /** Changes to the op lists, applied in order after the defaults (a --rules file, flags). */
  listChanges?: ListChangeLayer[];
  /** Environment to read AMP_REWRITE_<LIST>LIST_<ADD|REMOVE> from; none when absent (the API stays pure). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Node names or /regex/ patterns kept fp32 whatever their op. */
  forceFp32?: string[];
  /** Node names or /regex/ patterns converted whatever their list (when their schema allows). */
  forceFp16?: string[];
  /**
   * Largest magnitude each main-graph value reached in an fp32 run (runtime/activation-range.ts).
   * Nodes that would see a value beyond float16's range stay fp32. Only used for fp16.
   */
  activationRanges?: ReadonlyMap<string, number>;
  /** Magnitude from which a calibrated value pins its nodes (default 65520; --calibrate passes 65504 / headroom). */
  activationLimit?: number;
  /** Share of each value's magnitude in elements float16 rounds to zero (calibration); 1e-4 or more pins its nodes. */
  flushedShares?: ReadonlyMap<string, number>;
  /**
   * Graph inputs that hold weights (a training graph's parameters and optimizer state): like
   * initializers, they do not count as fp32 streams for the between-allow rule.
   */
  weightInputs?: readonly string[];
  /**
   * The decoder's key-value cache at the graph boundary: 'keep' (default) keeps its declared type;
   * 'fp16' declares the past/present inputs and outputs float16 (half the cache memory).
   */
  kvCache?: 'keep' | 'fp16';
  /**
   * The main graph's float32 inputs and outputs: 'keep' (default) keeps their declared type;
   * 'fp16' or 'bf16' (the type of `mode`) declares them in it, with the Casts at the model's edges
   * removed (onnxconverter-common's keep_io_types=False). An edge Cast stays only where a node
   * computing float32 reads an input or writes an output itself; the summary names it.
   */
  ioTypes?: 'keep' | 'fp16' | 'bf16';
  /**
   * The execution provider the model will run on (rules/kernels.json): 'cuda' runs ops whose CUDA
   * kernel accumulates in float32 (LayerNormalization, Softmax) in the low type in the middle of
   * the model; 'cpu' warns where ONNX Runtime's CPU provider has no or a slow low-precision kernel.
   * 'any' (default) assumes nothing.
   */
  target?: Target;
  /** Sizes of symbolic input dimensions, for the static shapes of the FLOPs share and the Tensor Core lint (--dim). */
  dims?: ReadonlyMap<string, number>;
  /** Check the result (default true); a failure throws VALIDATION_FAILED and nothing is returned. */
  validate?: boolean;
  /**
   * Compute the summary's matrix FLOPs share and Tensor Core lint (default true). They need the
   * model's static shapes, a shape inference over every node. false, for a caller that reads
   * neither (the command line with -q and no --report): summary.matrixFlops and
   * summary.tensorCoreLint are then null. The model and the rest of the report are the same either way.
   */
  figures?: boolean;
  /**
   * Gather what the per-node audit (report.nodes, report.scopes) is built from (default true):
   * each graph's node order, the wiring of the nodes the Casts rewire, the element types before
   * and after the rewrite, the Casts on each node's edges. false, for a caller that reads only the
   * summary and the op lists (the command line without --report): the pass keeps none of it, and
   * reading report.nodes or report.scopes throws AmpError AUDIT_NOT_GATHERED. The model, the
   * summary and report.lists are the same either way.
   */
  audit?: boolean;
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
  /** The node's name, or `Op#index` (its position in its graph) for an unnamed node. */
  id: string;
  /** What the node computes in after the rewrite: fp16/bf16 converted, fp32 kept, '-' no float data. */
  precision: Precision;
  /** Element types of its inputs and outputs after the rewrite (f32, f16, bf16, i64...; '' an omitted input). */
  inputTypes: string[];
  outputTypes: string[];
  op: string;
  domain: string;
  scope: string;
  list: ListName | null;
  color: NodeDecision['color'];
  rule: RuleCode;
  reason: string;
  castsAdded: string[];
  /** Casts added after the node's outputs: a graph output it writes keeps its type through them. */
  castsOnOutputs: string[];
  /** Casts the pass inserted next to this (the model's own) Cast and folded into it; present only when some were. */
  castsFolded?: string[];
  /** Clamps of mask fills the pass put before the float16 Casts this node reads (or is); present only when some were. */
  masksClamped?: string[];
  /** Input slots with types before and after, Casts on the edge, calibration range (audit-graph.ts). */
  inputs: AuditNodeGraph['inputs'];
  outputs: AuditNodeGraph['outputs'];
  /** Scope paths of this node's subgraphs (If/Loop/Scan bodies). */
  subgraphs: string[];
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
  /** Inserted Casts folded into the model's own Casts next to them (present only when some were). */
  castsFolded?: Array<{ cast: string; into: string; chain: string }>;
  /**
   * Values carrying a mask fill below float16's lowest finite value (finfo(float32).min), clamped
   * to it by a Max before the Cast that takes them into float16 (rules/mask-fill.json); present only when some were.
   */
  masksClamped?: Array<{ clamp: string; value: string; fill: string; cast: string }>;
  /**
   * Mask fills left unclamped because they reach only Softmaxes whose fully masked rows the exporter
   * guards (IsNaN -> Where): the row turns NaN and the guard zeroes it, as in float32; present only when some were.
   */
  masksGuarded?: Array<{ value: string; fill: string; readers: string[] }>;
  /** Activation Casts (not of weights) by layer, the name prefix of repeated blocks ('' outside any); present when two or more layers have some. */
  castsPerLayer?: Array<{ layer: string; casts: number }>;
  weightsConverted: string[];
  weightsKeptFp32: Array<{ name: string; reason: string }>;
  /** Null when the caller asked for no figures (AmpOptions.figures false). */
  matrixFlops: MatrixFlops | null;
  fp32Reasons: Array<{ rule: RuleCode; count: number; example: string }>;
  /**
   * Allow-list ops that stay fp32, by the rule that kept them (pinned by --calibrate or --force-fp32,
   * a schema or an opset without the target type, unknown input types...): why little or nothing converted.
   */
  allowKept?: Array<{ rule: RuleCode; count: number; example: string }>;
  /** Faults of the input that ONNX Runtime tolerates, repaired before the pass (src/onnx/repair.ts), one sentence each. */
  repairs?: string[];
  /** Ops the pass could not process (no schema: custom and gradient ops; unknown types; kept functions), by op and rule. */
  unprocessedOps?: Array<{ op: string; rule: RuleCode; count: number }>;
  /** Allow-list ops that already computed in float16/bfloat16 before the pass (a converted model), by op and type. */
  alreadyLowPrecision: Array<{ op: string; type: string; count: number }>;
  /** With kvCache 'fp16': the cache inputs and outputs now declared float16. */
  kvCacheFp16?: { inputs: string[]; outputs: string[] };
  /** With ioTypes 'fp16'/'bf16': the graph inputs and outputs now declared in the low type, and the edge Casts. */
  ioTypes?: IoTypesSummary;
  /** The --target painted for ('any': no provider assumed). */
  target: Target;
  /** Nodes converted because the target's kernel accumulates in float32 (rule target-kernel). */
  targetConverted: number;
  /** Converted nodes the target's provider has no fast kernel for. */
  targetWarnings: TargetWarning[];
  /**
   * Converted matrix ops whose dimensions are not multiples of 8; null under --target cpu (no
   * Tensor Cores) and when the caller asked for no figures (AmpOptions.figures false).
   */
  tensorCoreLint: TensorCoreLint | null;
}

export interface IoTypesSummary {
  type: 'float16' | 'bfloat16';
  inputs: string[];
  outputs: string[];
  /** The pass's Casts behind the inputs and before the outputs that the retyping removed. */
  edgeCastsRemoved: number;
  /**
   * Why edge Casts stay: a node computing float32 reads the input or writes the output itself. One
   * entry per such node; readers of one input share its one Cast.
   */
  edgeCastsKept: Array<{ value: string; side: 'input' | 'output'; node: string; op: string; rule: RuleCode }>;
}

export interface AmpReport {
  pass: 'amp';
  summary: AmpSummary;
  /**
   * Built on first read (with `scopes`), from the model and graph as the pass returned them: read
   * it before editing the returned model. A caller that never reads it never pays for it.
   */
  nodes: NodeAudit[];
  lists: Record<ListName, Array<{ op: string; domain: string; reason: string; origin: string }>>;
  /** The graphs the nodes live in, for drawing them (the HTML report). */
  scopes: AuditScope[];
}

export interface AmpResult {
  model: onnx.ModelProto;
  report: AmpReport;
  modified: boolean;
  /** The graph model of `model` as the pass left it (committed), when it was modified. */
  graph?: ModelGraph;
}

/** `option` names where the patterns came from in errors (--force-fp32, a --rules file). */
export function nodeMatcher(patterns: readonly string[], option = 'pattern'): NodeMatcher {
  const exact = new Set<string>();
  const regexes: RegExp[] = [];
  for (const pattern of patterns) {
    const match = /^\/(.*)\/([a-z]*)$/.exec(pattern);
    if (!match) {
      exact.add(pattern);
      continue;
    }
    regexes.push(boundedRegex(match[1] as string, match[2] as string, option));
  }
  // No pattern (the usual case): painting asks for every node, so skip hashing its name.
  if (!exact.size && !regexes.length) return NO_NODE;
  return (node) => exact.has(node.name ?? '') || regexes.some((regex) => regex.test(node.name ?? ''));
}

/** A matcher matching what any of `matchers` matches (those of no pattern dropped). */
function anyMatcher(matchers: readonly NodeMatcher[]): NodeMatcher {
  const live = matchers.filter((matcher) => matcher !== NO_NODE);
  if (live.length <= 1) return live[0] ?? NO_NODE;
  return (node) => live.some((matcher) => matcher(node));
}

const NO_NODE: NodeMatcher = () => false;

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
  checkAmpOptions(options as Record<string, unknown>);
  const mode = options.mode ?? 'fp16';
  const target = mode === 'bf16' ? DataType.BFLOAT16 : DataType.FLOAT16;
  const lists = effectiveLists(options);
  const audit = options.audit ?? true;
  const validate = options.validate ?? true;
  const model = options.inPlace ? (input as onnx.ModelProto) : phase('cloneMs', () => cloneMessage(input) as onnx.ModelProto);
  // Emptied once the summary is taken: see below.
  let plan: PlannedRewrite | undefined = planRewrite(model, options, { target, mode, lists, audit });
  const { graph, opsets, kvCache, boundary, stats } = plan;
  const modified = plan.anyAllow || kvCache !== undefined || boundary !== undefined;
  let result: onnx.ModelProto = model;
  let ioTypes: IoTypesSummary | undefined;
  if (stats) {
    phase('commitMs', () => graph.commit());
    if (boundary) ioTypes = retypeIo(graph, model, boundary, plan.decisions, mode, stats);
    else if (kvCache) storeKvCacheInFloat16(graph, model, kvCache, stats);
    if (kvCache || boundary) {
      // The audit names only Casts that are still in the model.
      if (audit) {
        const present = new Set<string>();
        for (const scope of graph.scopes) for (const node of scope.currentNodes()) present.add(node.name ?? '');
        for (const d of plan.decisions) {
          d.castsAdded = d.castsAdded.filter((c) => present.has(c));
          if (d.castsOnOutputs) d.castsOnOutputs = d.castsOnOutputs.filter((c) => present.has(c));
        }
      }
    }
    // Casts hoisted out of subgraphs change what the subgraphs read from outside.
    phase('commitMs', () => graph.refreshOuterReferences());
  } else {
    // Nothing to convert is a result, not an error: the model is returned as it came.
    result = input as onnx.ModelProto;
    // Allow-list ops kept fp32 (pinned, unknown types, an opset without the target type) are not "none in the model".
    const allowPresent = plan.decisions.some((decision) => decision.list === 'allow' && decision.rule !== 'already-low-precision');
    const reason = allowPresent ? 'no allow-list op was converted (see theirs): nothing to convert' : 'no allow-list op in the model: nothing to convert';
    for (const decision of plan.decisions) {
      if (decision.processable && (decision.rule === 'not-between-allow' || decision.rule === 'unlisted')) {
        decision.rule = 'no-allow-ops';
        decision.reason = reason;
      }
    }
  }

  // The decisions are final: the summary is taken now. Without the audit nothing reads them (nor
  // the rest of the plan) after it, so the plan is let go before the types after the rewrite and
  // the validation, where the pass's heap peaks.
  const summary = { ...summaryOf(plan, mode, modified, options.target ?? 'any'), ...(ioTypes ? { ioTypes } : {}) };
  const auditSources = audit
    ? {
        graph,
        decisions: plan.decisions,
        wiring: plan.wiring as Wiring,
        fileOrder: plan.fileOrder,
        typesBefore: plan.typesBefore as ElemTypes,
        ranges: options.activationRanges ?? new Map<string, number>(),
        target,
      }
    : undefined;
  plan = undefined;

  // Unmodified, the audit reads the types before as the types after too.
  let typesAfter = auditSources?.typesBefore;
  if (stats) {
    // Once, on the pass's own graph model: the audit and the validation both use these types;
    // with neither, nothing reads them.
    typesAfter = validate || audit ? phase('typeInferenceAfterMs', () => inferElemTypes(graph, opsets)) : undefined;
    if (validate) {
      const problems = phase('validationMs', () => validateModel(model, graph, typesAfter as ElemTypes));
      if (problems.length) {
        const first = problems[0] as { node: string; message: string };
        throw new AmpError(
          'VALIDATION_FAILED',
          `the rewritten model is invalid: ${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more problems)` : ''}`,
          { subject: first.node },
        );
      }
    }
  }
  const report = lazyAuditReport({ pass: 'amp', summary }, lists, auditSources && { ...auditSources, typesAfter: typesAfter as ElemTypes });
  return { model: result, report, modified, ...(modified ? { graph } : {}) };
}

/** Retypes the graph's float32 inputs and outputs (io-types.ts) and says which edge Casts went and which stayed, and why. */
function retypeIo(graph: ModelGraph, model: onnx.ModelProto, boundary: BoundaryValues, decisions: NodeDecision[], mode: 'fp16' | 'bf16', stats: CastStats): IoTypesSummary {
  const lowType = mode === 'bf16' ? DataType.BFLOAT16 : DataType.FLOAT16;
  const rewiring = retypeBoundary(graph, model, boundary, lowType, stats, `--io-types ${mode}`);
  const byNode = new Map(rewiring.kept.length ? decisions.map((d) => [d.node, d] as const) : []);
  return {
    type: mode === 'bf16' ? 'bfloat16' : 'float16',
    inputs: boundary.inputs,
    outputs: boundary.outputs,
    edgeCastsRemoved: rewiring.castsRemoved,
    edgeCastsKept: rewiring.kept.map(({ value, side, node }) => ({
      value,
      side,
      node: node.name ?? '',
      op: node.op_type ?? '',
      rule: byNode.get(node)?.rule ?? 'unlisted',
    })),
  };
}

/** Rules that keep a node fp32 before painting: by the user (--force-fp32), a weight's range, a calibration. */
const PINNED_RULES: ReadonlySet<RuleCode> = new Set<RuleCode>(['force-fp32', 'weight-out-of-range', 'activation-out-of-range', 'integer-valued', 'angle-input', 'runtime-hazard']);

/** The report's summary of a finished plan (its decisions final, its Casts counted). */
function summaryOf(plan: PlannedRewrite, mode: 'fp16' | 'bf16', modified: boolean, target: Target): AmpSummary {
  const { decisions, stats, kvCache } = plan;
  return {
    ...summarize(decisions, stats, mode, modified, plan.flops),
    ...(kvCache ? { kvCacheFp16: { inputs: kvCache.inputs, outputs: kvCache.outputs } } : {}),
    target,
    targetConverted: decisions.filter((d) => d.rule === 'target-kernel').length,
    targetWarnings: targetWarnings(decisions, target, mode === 'bf16' ? 'bfloat16' : 'float16'),
    tensorCoreLint: plan.lint,
  };
}

/** The pass up to its Casts (planRewrite's answer). */
interface PlannedRewrite {
  graph: ModelGraph;
  opsets: ReturnType<typeof opsetsOf>;
  decisions: NodeDecision[];
  anyAllow: boolean;
  kvCache: KvCacheValues | undefined;
  /** With ioTypes 'fp16'/'bf16': the float32 graph inputs and outputs to retype (undefined when there are none). */
  boundary: BoundaryValues | undefined;
  /** Undefined when nothing was to be converted (no Cast planned, the model untouched). */
  stats: CastStats | undefined;
  /** The audit's: the wiring before the Casts, each scope's node order, the element types before. */
  wiring: Wiring | undefined;
  fileOrder: ReadonlyArray<readonly onnx.INodeProto[]>;
  typesBefore: ElemTypes | undefined;
  flops: AmpSummary['matrixFlops'];
  lint: TensorCoreLint | null;
}

/**
 * The graph model, the element types, the painting, the shapes' figures and the Casts, edited
 * into `graph` (not yet committed). A function of its own so that what only these steps read
 * (the painting's per-node records, about 270 bytes a node; the element types before the
 * rewrite unless the audit wants them; the pins) is let go when it returns, before the types
 * after the rewrite and the validation, where the pass's heap peaks.
 */
function planRewrite(
  model: onnx.ModelProto,
  options: AmpOptions,
  { target, mode, lists, audit }: { target: number; mode: 'fp16' | 'bf16'; lists: OpLists; audit: boolean },
): PlannedRewrite {
  const inlining = inlineLocalFunctions(model);
  const graph = phase('graphModelMs', () => new ModelGraph(model));
  phase('graphOrderMs', () => sortGraph(graph));
  const opsets = opsetsOf(model);
  const types = phase('typeInferenceMs', () => inferElemTypes(graph, opsets));
  const weightPins = target === DataType.FLOAT16 ? phase('weightRangeMs', () => nodesReadingOutOfRangeWeights(graph)) : new Map<onnx.INodeProto, PinnedNode>();
  const forceFp16 = nodeMatcher(options.forceFp16 ?? [], 'forceFp16 (--force-fp16)');
  // Integer-valued floats and angles (integer-valued.ts) in both modes, but where --force-fp16 names
  // the node: a hazard of the values, not of the type's range, so the user's pin wins. A weight's pin names the weight.
  const exactPins = exactnessPins(graph, types, mode);
  // Patterns a released ONNX Runtime crashes on in the low type (runtime-hazards.ts), the user's pin winning too.
  for (const [node, pin] of runtimeHazardPins(graph)) if (!exactPins.has(node)) exactPins.set(node, pin);
  for (const node of [...exactPins.keys()]) if (forceFp16(node)) exactPins.delete(node);
  const staticPins = new Map([...exactPins, ...weightPins]);
  const weightInputs = new Set(options.weightInputs ?? []);
  const paintOptions = {
    target,
    mode,
    forceFp32: anyMatcher([
      nodeMatcher(options.forceFp32 ?? [], 'forceFp32 (--force-fp32)'),
      ...(options.listChanges ?? []).map((layer) => nodeMatcher(layer.forceFp32 ?? [], `${printable(layer.origin, 200)}: forceFp32`)),
    ]),
    pinned: staticPins,
    forceFp16,
    weightInputs: weightInputs as ReadonlySet<string>,
    targetPolicy: targetPolicy(options.target ?? 'any', mode === 'bf16' ? 'bfloat16' : 'float16'),
  };
  const paintAll = (): Map<GraphScope, ScopePaint> => new Map(graph.scopes.map((scope) => [scope, paintScope(scope, types, opsets, lists, paintOptions)]));
  // Calibration pins only nodes the lists would convert: a deny-list node stays deny-list (its reason
  // names the value it sees), so the Grappler counts mean what they mean without calibration.
  const activationPins =
    target === DataType.FLOAT16
      ? nodesSeeingOutOfRangeActivations(graph, options.activationRanges ?? new Map(), { limit: options.activationLimit, flushedShares: options.flushedShares })
      : new Map<onnx.INodeProto, PinnedNode>();
  const alsoSeen = new Map<onnx.INodeProto, PinnedNode>();
  if (activationPins.size) {
    const converted = new Set([...paintAll().values()].flatMap((paint) => paint.decisions).filter((d) => d.color === 'ALLOW').map((d) => d.node));
    const newlyPinned = new Map(staticPins);
    for (const [node, pin] of activationPins) {
      if (converted.has(node) && !staticPins.has(node)) newlyPinned.set(node, pin);
      else alsoSeen.set(node, pin);
    }
    paintOptions.pinned = newlyPinned;
  }

  let kvCache: KvCacheValues | undefined;
  if (options.kvCache === 'fp16') {
    const found = findKvCache(graph, model);
    requireKvCache(found);
    // A cache already declared float16 (the pass's own output) needs nothing: the rewrite stays idempotent.
    if (found.inputs.length || found.outputs.length) kvCache = found;
  }
  const boundary = ioBoundary(graph, options, mode);
  // An input that arrives in the low type is no fp32 stream for the between-allow rule (paint.ts).
  if (boundary) paintOptions.weightInputs = new Set([...paintOptions.weightInputs, ...boundary.inputs]);

  const castProblem = castUnavailable(opsets.get('') ?? 0, target);
  const paints = phase('paintMs', () => paintAll());
  // Only with a calibration that saw nodes the weights already pinned: a walk over every decision otherwise.
  if (alsoSeen.size) {
    for (const paint of paints.values()) {
      for (const decision of paint.decisions) {
        const seen = alsoSeen.get(decision.node);
        if (seen && decision.color !== 'ALLOW') decision.reason = `${decision.reason}; also seen: ${seen.reason}`;
      }
    }
  }
  if (castProblem) {
    // Without a Cast that can reach the target type, nothing may be converted.
    for (const paint of paints.values()) {
      for (const decision of paint.decisions) {
        if (decision.color === 'NONE' && !decision.processable) continue;
        Object.assign(decision, { color: 'NONE', rule: 'schema-forbids', reason: castProblem });
      }
    }
  }
  const decisions = [...paints.values()].flatMap((paint) => paint.decisions);
  // Only when some local function was kept: the key is a string built per node.
  if (inlining.kept.size) {
    for (const decision of decisions) {
      const kept = inlining.kept.get(localFunctionKey(decision.node));
      if (kept) Object.assign(decision, { color: 'NONE', rule: 'local-function', reason: kept, processable: false });
    }
  }
  relabelShapeReaders(decisions, mode === 'bf16' ? 'bfloat16' : 'float16');
  const anyAllow = decisions.some((d) => d.color === 'ALLOW' && d.rule !== 'shape-only');
  const { flops, lint } = options.figures === false ? { flops: null, lint: null } : shapeFigures(model, graph, decisions, options);

  // What the lazily built audit needs from before the Casts: each scope's nodes in file order
  // (ids of unnamed nodes are their indices) and the wiring of the nodes the Casts rewire. A copy
  // of each node list costs a pointer per node; the wiring is copied only for nodes that change.
  const fileOrder = audit ? graph.scopes.map((scope) => (scope.graph.node ?? []).slice()) : [];
  // The kv-cache rewrite rewires nodes of its own: before it, the wiring of every node is kept.
  const rewired = kvCache !== undefined || boundary !== undefined;
  const wiring: Wiring | undefined = !audit ? undefined : rewired ? snapshotWiring(decisions) : new Map();
  // Mask fills beyond float16's range, found before the Casts rename edges (bf16 keeps fp32's range).
  const carried: CarriedFills = anyAllow && target === DataType.FLOAT16 ? phase('castPlanMs', () => carriedFills(graph, readMaskFillRules().lowest.float16)) : new Map();
  const stats =
    anyAllow || rewired
      ? phase('castPlanMs', () => {
          const planned = planCasts(graph, paints, types, {
            target,
            weights: options.weights ?? 'fp32',
            weightInputs,
            wiring: rewired ? undefined : wiring,
            noteCasts: audit,
          });
          return tidyPlannedCasts(graph, paints, planned, { weightInputs: paintOptions.weightInputs, carried, opset: opsets.get('') ?? 0 });
        })
      : undefined;
  // Unmodified, the audit reads the types before as the types after too.
  return { graph, opsets, decisions, anyAllow, kvCache, boundary, stats, wiring, fileOrder, typesBefore: audit ? types : undefined, flops, lint };
}

/** The graph inputs and outputs --io-types retypes, or undefined (keep, or none in float32). */
function ioBoundary(graph: ModelGraph, options: AmpOptions, mode: 'fp16' | 'bf16'): BoundaryValues | undefined {
  const ioTypes = options.ioTypes ?? 'keep';
  if (ioTypes === 'keep') return undefined;
  if (ioTypes !== mode) {
    throw new AmpError('BAD_OPTION', `--io-types ${ioTypes} needs --mode ${ioTypes}: the graph's inputs and outputs take the type the model computes in (here ${mode})`, { subject: 'ioTypes' });
  }
  const boundary = findFloatBoundary(graph);
  return boundary.inputs.length || boundary.outputs.length ? boundary : undefined;
}

/**
 * After the Casts are planned: folds the inserted Casts into the model's own Casts next to them
 * (cast-fold.ts) and takes the removed ones off the counts, then clamps the mask fills that enter
 * float16 (mask-fill.ts). The type oracle is dropped from the stats here: only these steps read it.
 */
function tidyPlannedCasts(
  graph: ModelGraph,
  paints: Map<GraphScope, ScopePaint>,
  planned: CastStats & { typeAfter?: TypeAfterPlan },
  { weightInputs, carried, opset }: { weightInputs: ReadonlySet<string>; carried: CarriedFills; opset: number },
): CastStats {
  const { typeAfter, ...stats } = planned;
  if (!typeAfter) return stats;
  const decisionOf = (scope: GraphScope, node: onnx.INodeProto) => paints.get(scope)?.nodes.get(node)?.decision;
  const isWeight = (scope: GraphScope, name: string): boolean => {
    const definition = scope.resolve(name);
    return definition?.kind === 'initializer' || weightInputs.has(name) || (definition?.kind === 'node' && definition.producer.node.op_type === 'Constant');
  };
  const folds = foldCasts({
    graph,
    decisionOf,
    typeOf: typeAfter,
    isWeight,
  });
  if (folds.folded.length) {
    stats.castsToTarget -= folds.removedToTarget;
    stats.weightCasts -= folds.removedWeightCasts;
    stats.castsToFloat32 -= folds.removedToFloat32;
    stats.castsFolded = folds.folded;
  }
  const guarded: MaskGuarded[] = [];
  const clamps = clampFills({ graph, carried, lowest: readMaskFillRules().lowest.float16, decisionOf, typeOf: typeAfter, opset }, guarded);
  if (clamps.length) stats.masksClamped = clamps;
  if (guarded.length) stats.masksGuarded = guarded;
  const perLayer = castsPerLayer(graph, (scope, node) => decisionOf(scope, node) === undefined, isWeight);
  if (perLayer) stats.castsPerLayer = perLayer.layers;
  return stats;
}

/**
 * The summary's FLOPs share and Tensor Core lint, the only readers of the static shapes: a
 * function of its own so that the shapes (about 270 bytes a node) are let go before cast planning,
 * not held by ampRewrite's frame until it returns.
 */
function shapeFigures(
  model: onnx.ModelProto,
  graph: ModelGraph,
  decisions: NodeDecision[],
  options: AmpOptions,
): { flops: AmpSummary['matrixFlops']; lint: TensorCoreLint | null } {
  // Before the casts rename edges: shapes are looked up by the model's own value names.
  const given = options.dims ?? new Map<string, number>();
  const shapes = phase('shapeInferenceMs', () => inferShapes(graph, given.size ? { inputs: staticInputs(model, given) } : {}));
  const figures = phase('matrixFiguresMs', () => matrixFigures(decisions, shapes, options.target !== 'cpu'));
  // A symbolic batch or sequence (every PyTorch export with a dynamic axis) left the FLOPs unknown:
  // the share is taken at 1 for each such dimension, and the summary says so. The lint keeps the
  // sizes the user gave: a batch of 1 is no multiple of 8, and saying so would be noise.
  const assumed = figures.flops.unknownNodes ? symbolicInputDims(model).filter((name) => !given.has(name)) : [];
  if (!assumed.length) return figures;
  const atOne = new Map([...given, ...assumed.map((name) => [name, 1] as const)]);
  const assumedShapes = phase('shapeInferenceMs', () => inferShapes(graph, { inputs: staticInputs(model, atOne) }));
  const flops = phase('matrixFiguresMs', () => matrixFigures(decisions, assumedShapes, false)).flops;
  return { flops: { ...flops, assumedOne: assumed }, lint: figures.lint };
}

/** The symbolic dimension names of the main graph's inputs, in order of first appearance. */
function symbolicInputDims(model: onnx.IModelProto): string[] {
  const initializers = new Set((model.graph?.initializer ?? []).map((t) => t.name));
  const names = new Set<string>();
  for (const input of model.graph?.input ?? []) {
    if (initializers.has(input.name)) continue;
    for (const dim of input.type?.tensor_type?.shape?.dim ?? []) if (dim.dim_param) names.add(dim.dim_param);
  }
  return [...names];
}

/** What the audit is built from, kept by the report until it is read. */
interface AuditSources {
  graph: ModelGraph;
  decisions: readonly NodeDecision[];
  wiring: Wiring;
  fileOrder: ReadonlyArray<readonly onnx.INodeProto[]>;
  typesBefore: ElemTypes;
  typesAfter: ElemTypes;
  ranges: ReadonlyMap<string, number>;
  target: number;
}

/**
 * The report's dump of the op lists, every entry of every list sorted by domain and op. Sorting
 * them made the collator (starting ICU) and cost about 10 ms a run; only --verbose and the
 * report files read it, so the report builds it on first read.
 */
function listDump(lists: OpLists): AmpReport['lists'] {
  return Object.fromEntries(
    LIST_NAMES.map((list) => [list, lists.entries(list).map(({ op, domain, reason, origin }) => ({ op, domain, reason, origin }))]),
  ) as AmpReport['lists'];
}

/** Reading the audit of a pass that was asked not to gather it. */
function auditNotGathered(field: 'nodes' | 'scopes'): AmpError {
  return new AmpError(
    'AUDIT_NOT_GATHERED',
    `report.${field}: the per-node audit was not gathered (the pass ran with audit: false); run it with audit: true (the default) to read it`,
    { subject: field },
  );
}

/**
 * The report with its per-node audit (`nodes`, `scopes`) and its op list dump (`lists`) built on
 * first read and kept: the audit holds about a kilobyte per node, and the CLI without --report
 * never reads it; the dump sorts every list entry. The getters are
 * enumerable and in the report's key order, so JSON.stringify and spreads see the same object as
 * an eagerly built one. The build reads the model and graph as the pass returned them.
 * Without `sources` (audit: false) reading `nodes` or `scopes` throws AUDIT_NOT_GATHERED, unless
 * a caller has assigned them.
 * A function of its own so that the getters' closure holds the sources alone, not every local of
 * ampRewrite (the paint maps, the shapes) as a closure made there would.
 */
function lazyAuditReport(head: Omit<AmpReport, 'nodes' | 'scopes' | 'lists'>, lists: OpLists, sources: AuditSources | undefined): AmpReport {
  let nodes: NodeAudit[] | undefined;
  let scopes: AuditScope[] | undefined;
  let pending: AuditSources | undefined = sources;
  // Its own source: the audit lets go of the graph when built, the op lists stay until dumped.
  let opLists: OpLists | undefined = lists;
  let dumped: AmpReport['lists'] | undefined;
  const build = (field: 'nodes' | 'scopes'): void => {
    if (!pending) throw auditNotGathered(field);
    const built = buildAudit(pending);
    // Lets go of the graph and the types.
    pending = undefined;
    nodes ??= built.nodes;
    scopes ??= built.scopes;
  };
  return {
    pass: head.pass,
    summary: head.summary,
    get nodes(): NodeAudit[] {
      if (!nodes) build('nodes');
      return nodes as NodeAudit[];
    },
    set nodes(assigned: NodeAudit[]) {
      // The other half is built from the same sources before they go, if it can be.
      if (!scopes && pending) build('scopes');
      nodes = assigned;
    },
    get lists(): AmpReport['lists'] {
      if (!dumped) {
        dumped = listDump(opLists as OpLists);
        opLists = undefined;
      }
      return dumped;
    },
    set lists(assigned: AmpReport['lists']) {
      dumped = assigned;
      opLists = undefined;
    },
    get scopes(): AuditScope[] {
      if (!scopes) build('scopes');
      return scopes as AuditScope[];
    },
    set scopes(assigned: AuditScope[]) {
      if (!nodes && pending) build('nodes');
      scopes = assigned;
    },
  };
}

function buildAudit({ graph, decisions, wiring, fileOrder, typesBefore, typesAfter, ranges, target }: AuditSources): Pick<AmpReport, 'nodes' | 'scopes'> {
  const drawn = auditGraph(graph, decisions, wiring, typesBefore, typesAfter, ranges);
  const ids = nodeIds(fileOrder);
  // Fields written out one by one, not spread: spreading two objects into each of 50,000
  // literals was a slow generic copy, and the objects came out in dictionary mode.
  const nodes = decisions.map((d): NodeAudit => {
    const nodeTypesAfter = nodeTypes(d, typesAfter, target);
    const edges = drawn.nodes.get(d.node) as AuditNodeGraph;
    const audit: NodeAudit = {
      node: d.node.name ?? '',
      id: ids.get(d.node) ?? d.node.name ?? '',
      precision: nodeTypesAfter.precision,
      inputTypes: nodeTypesAfter.inputTypes,
      outputTypes: nodeTypesAfter.outputTypes,
      op: d.node.op_type ?? '',
      domain: d.node.domain ?? '',
      scope: d.scope.path,
      list: d.list ?? null,
      color: d.color,
      rule: d.rule,
      reason: d.reason,
      castsAdded: d.castsAdded,
      castsOnOutputs: d.castsOnOutputs ?? [],
      inputs: edges.inputs,
      outputs: edges.outputs,
      subgraphs: edges.subgraphs,
    };
    if (d.castsFolded) audit.castsFolded = d.castsFolded;
    if (d.masksClamped) audit.masksClamped = d.masksClamped;
    return audit;
  });
  return { nodes, scopes: drawn.scopes };
}

function summarize(
  decisions: NodeDecision[],
  stats: CastStats | undefined,
  mode: 'fp16' | 'bf16',
  anyAllow: boolean,
  flops: AmpSummary['matrixFlops'],
): Omit<AmpSummary, 'target' | 'targetConverted' | 'targetWarnings' | 'tensorCoreLint'> {
  // One walk over the decisions for every count (a filter per count walked them eight times).
  let processable = 0;
  let recognized = 0;
  let converted = 0;
  let allowConverted = 0;
  let denyBlocking = 0;
  let blockedByDeny = 0;
  const reasons = new Map<RuleCode, { count: number; example: string }>();
  // Indexed: see inferScope (type-inference.ts) on for...of in a command.
  for (let i = 0; i < decisions.length; i++) {
    const d = decisions[i] as NodeDecision;
    // A pinned node is painted before the steps and so not marked processable, yet it computes in
    // float32 like any processable node: without it, pinning 4 nodes made the total drop by 4.
    if (d.processable || PINNED_RULES.has(d.rule)) {
      processable++;
      if (d.list !== undefined) recognized++;
      if (d.list === 'deny' && d.color !== 'ALLOW') denyBlocking++;
    }
    if (d.color === 'ALLOW' && d.rule !== 'shape-only') {
      converted++;
      if (d.list === 'allow') allowConverted++;
    }
    if (d.rule === 'deny-upstream') blockedByDeny++;
    if (d.color === 'ALLOW' || !computesOnFloat32(d)) continue;
    const entry = reasons.get(d.rule) ?? { count: 0, example: `${d.node.op_type} '${d.node.name ?? ''}': ${d.reason}` };
    entry.count++;
    reasons.set(d.rule, entry);
  }
  return {
    mode: mode === 'bf16' ? 'mixed_bfloat16' : 'mixed_float16',
    nothingToConvert: !anyAllow,
    totalNodes: decisions.length,
    processable,
    recognized,
    converted,
    targetCasts: stats?.castsToTarget ?? 0,
    allowConverted,
    denyBlocking,
    blockedByDeny,
    weightCasts: stats?.weightCasts ?? 0,
    fp32Casts: stats?.castsToFloat32 ?? 0,
    castsRetargeted: stats?.castsRetargeted ?? 0,
    ...(stats?.castsFolded?.length ? { castsFolded: stats.castsFolded } : {}),
    ...(stats?.masksClamped?.length ? { masksClamped: stats.masksClamped } : {}),
    ...(stats?.masksGuarded?.length ? { masksGuarded: stats.masksGuarded } : {}),
    ...(stats?.castsPerLayer ? { castsPerLayer: stats.castsPerLayer } : {}),
    weightsConverted: stats?.weightsConverted ?? [],
    weightsKeptFp32: stats?.weightsKept ?? [],
    matrixFlops: flops,
    fp32Reasons: [...reasons.entries()]
      .map(([rule, { count, example }]) => ({ rule, count, example }))
      .sort((a, b) => b.count - a.count || compareText(a.rule, b.rule)),
    alreadyLowPrecision: countAlreadyLowPrecision(decisions),
    // Present only when there is something to say: a summary without them reads as before.
    ...nonEmpty('allowKept', countAllowKept(decisions)),
    ...nonEmpty('unprocessedOps', countUnprocessedOps(decisions)),
  };
}

function nonEmpty<K extends string, T>(key: K, values: T[]): { [k in K]?: T[] } {
  return (values.length ? { [key]: values } : {}) as { [k in K]?: T[] };
}

/** Rules under which the pass left a node unprocessed for want of knowledge (not by choice). */
const UNPROCESSED_RULES: ReadonlySet<RuleCode> = new Set<RuleCode>(['no-schema', 'unknown-type', 'non-tensor-types', 'local-function']);

/** Rules that keep an allow-list op out of painting although it computes on float32 data. */
const ALLOW_KEPT_UNPROCESSED: ReadonlySet<RuleCode> = new Set<RuleCode>(['schema-forbids', 'quantized-unit']);

function countAllowKept(decisions: NodeDecision[]): NonNullable<AmpSummary['allowKept']> {
  const counts = new Map<RuleCode, { rule: RuleCode; count: number; example: string }>();
  for (let i = 0; i < decisions.length; i++) {
    const d = decisions[i] as NodeDecision;
    if (d.list !== 'allow' || d.color === 'ALLOW' || !(computesOnFloat32(d) || ALLOW_KEPT_UNPROCESSED.has(d.rule))) continue;
    const entry = counts.get(d.rule) ?? counts.set(d.rule, { rule: d.rule, count: 0, example: `${d.node.op_type} '${d.node.name ?? ''}': ${d.reason}` }).get(d.rule)!;
    entry.count++;
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || compareText(a.rule, b.rule));
}

function countUnprocessedOps(decisions: NodeDecision[]): NonNullable<AmpSummary['unprocessedOps']> {
  const counts = new Map<string, { op: string; rule: RuleCode; count: number }>();
  for (let i = 0; i < decisions.length; i++) {
    const d = decisions[i] as NodeDecision;
    if (!UNPROCESSED_RULES.has(d.rule)) continue;
    const op = d.node.domain ? `${d.node.domain}:${d.node.op_type}` : (d.node.op_type ?? '');
    const key = `${op} ${d.rule}`;
    const entry = counts.get(key) ?? counts.set(key, { op, rule: d.rule, count: 0 }).get(key)!;
    entry.count++;
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || compareText(a.op, b.op) || compareText(a.rule, b.rule));
}

function countAlreadyLowPrecision(decisions: NodeDecision[]): AmpSummary['alreadyLowPrecision'] {
  const counts = new Map<string, { op: string; type: string; count: number }>();
  for (let i = 0; i < decisions.length; i++) {
    const d = decisions[i] as NodeDecision;
    if (d.rule !== 'already-low-precision' || d.list !== 'allow' || !d.computesIn) continue;
    const op = d.node.domain ? `${d.node.domain}:${d.node.op_type}` : (d.node.op_type ?? '');
    const key = `${op} ${d.computesIn}`;
    const entry = counts.get(key) ?? counts.set(key, { op, type: d.computesIn, count: 0 }).get(key)!;
    entry.count++;
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || compareText(a.op, b.op) || compareText(a.type, b.type));
}
