/**
 * Cast folding, after cast planning: a Cast the pass inserted next to one of the model's own Casts
 * folds into it, so that no round trip the pass made (fp16 -> fp32 -> fp16) survives. Grappler's
 * pass removes such pairs too; we promise "Casts only where precision changes".
 *
 * Only what keeps every value exact is folded. For a chain X --P--> A --C--> Y (P casts X's type
 * tX to t1, C casts t1 to t2), C may read X directly when
 *   1. t1 holds every value of tX (fp16 or bf16 into fp32): P changed no value; or
 *   2. t1 is t2: C changed no value, so Y is P's result, which C computes from X as well.
 * fp32 -> fp16 -> fp32 is neither: the fp16 step rounds, so that chain stays.
 * Then C, when it casts tX to tX, is a copy: its readers read X and it goes (unless it writes a
 * graph output or a subgraph reads it), and P goes once nothing reads it.
 *
 * Example (--target cuda, an fp16 Softmax feeding the model's own Cast to FLOAT16):
 *   before: Softmax(fp16) -> Cast 's/to_fp32' (inserted) -> Cast 'c16' (model's, to=FLOAT16) -> MatMul
 *   after:  Softmax(fp16) -> MatMul             ('s/to_fp32' folded into 'c16', 'c16' a copy, removed)
 *
 * Only chains with at least one inserted Cast are touched: the model's own Cast pairs are the
 * user's to keep.
 */
import { dtypeAttribute } from '../../onnx/attributes.js';
import { DataType, dataTypeName } from '../../onnx/data-types.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import type { GraphScope, ModelGraph } from '../../onnx/graph.js';
import type { NodeDecision } from './decisions.js';

/** A fold, for the audit: the inserted Cast that went, and the model's Cast it went into. */
export interface FoldedCast {
  /** The inserted Cast removed (its name). */
  cast: string;
  /** The model's own Cast it folded into (its name, or its output's for an unnamed one). */
  into: string;
  /** The chain, as types: 'float16 -> float -> float16'. */
  chain: string;
}

export interface FoldContext {
  graph: ModelGraph;
  /** Each original node's decision (inserted Casts have none). */
  decisionOf: (scope: GraphScope, node: onnx.INodeProto) => NodeDecision | undefined;
  /** The element type of a value after cast planning (a Cast's output: its `to`). */
  typeOf: (scope: GraphScope, name: string) => number | undefined;
  /** Whether the graph holds weights under this name (a removed inserted Cast of one was a weight cast). */
  isWeight: (scope: GraphScope, name: string) => boolean;
}

export interface FoldStats {
  folded: FoldedCast[];
  /** Inserted Casts removed, by what cast planning counted them as. */
  removedToTarget: number;
  removedWeightCasts: number;
  removedToFloat32: number;
  /** The model's own Casts that became copies and were removed. */
  removedModelCasts: number;
}

/** Bits of precision and exponent each float type holds: a type holds another's values when it is no narrower in both. */
const FLOAT_SHAPE: ReadonlyMap<number, { mantissa: number; exponent: number }> = new Map([
  [DataType.FLOAT16, { mantissa: 10, exponent: 5 }],
  [DataType.BFLOAT16, { mantissa: 7, exponent: 8 }],
  [DataType.FLOAT, { mantissa: 23, exponent: 8 }],
  [DataType.DOUBLE, { mantissa: 52, exponent: 11 }],
]);

/** Whether every value of `from` is a value of `to` (fp16 and bf16 into fp32 and fp64; fp32 into fp64). */
export function holdsEveryValue(to: number, from: number): boolean {
  const wide = FLOAT_SHAPE.get(to);
  const narrow = FLOAT_SHAPE.get(from);
  return wide !== undefined && narrow !== undefined && wide.mantissa >= narrow.mantissa && wide.exponent >= narrow.exponent;
}

const isCast = (node: onnx.INodeProto | undefined): node is onnx.INodeProto => node?.op_type === 'Cast' && !node.domain;

/** Folds the Casts of every scope (see the module comment). Edits the graph model; commit afterwards. */
export function foldCasts(context: FoldContext): FoldStats {
  const stats: FoldStats = { folded: [], removedToTarget: 0, removedWeightCasts: 0, removedToFloat32: 0, removedModelCasts: 0 };
  for (const scope of context.graph.scopes) foldScope(scope, context, stats);
  return stats;
}

function foldScope(scope: GraphScope, context: FoldContext, stats: FoldStats): void {
  const { typeOf } = context;
  const decisionOf = (node: onnx.INodeProto): NodeDecision | undefined => context.decisionOf(scope, node);
  const nodes = scope.currentNodes();
  const removed = new Set<onnx.INodeProto>();
  const isInserted = (node: onnx.INodeProto): boolean => decisionOf(node) === undefined;
  const unread = (name: string): boolean => scope.consumerCount(name) === 0 && !scope.isGraphOutput(name);
  const remove = (node: onnx.INodeProto): void => {
    scope.removeNode(node);
    removed.add(node);
    if (!isInserted(node)) {
      stats.removedModelCasts++;
      return;
    }
    const to = dtypeAttribute(node, 'to');
    if (to === DataType.FLOAT) stats.removedToFloat32++;
    else if (context.isWeight(scope, node.input?.[0] ?? '')) stats.removedWeightCasts++;
    else stats.removedToTarget++;
  };

  /** A model's Cast that folding made useless: its decision says where it went. */
  const noteRemoved = (node: onnx.INodeProto, why: string): void => {
    const decision = decisionOf(node);
    if (!decision) return;
    decision.rule = 'cast-folded';
    decision.reason = `removed by Cast folding: ${why}`;
    decision.processable = false;
    decision.color = 'NONE';
  };
  /** Casts whose input folding rewired: a copy among them (tX -> tX) is removed too. */
  const rewired = new Set<onnx.INodeProto>();
  const foldedNames = new Set<string>();

  // In order: a Cast's readers come after it, so a chain folds link by link from its start.
  for (const cast of nodes) {
    if (!isCast(cast) || removed.has(cast)) continue;
    const read = cast.input?.[0];
    const output = cast.output?.[0];
    const to = dtypeAttribute(cast, 'to');
    if (!read || !output || to === undefined) continue;
    const producer = scope.producerOf(read)?.node;
    let source = read;
    let sourceType = typeOf(scope, read);
    if (isCast(producer) && !removed.has(producer) && (isInserted(producer) || isInserted(cast))) {
      const first = producer;
      const chainSource = first.input?.[0];
      const chainType = chainSource ? typeOf(scope, chainSource) : undefined;
      const middle = dtypeAttribute(first, 'to');
      if (
        chainSource &&
        chainType !== undefined &&
        middle !== undefined &&
        FLOAT_SHAPE.has(chainType) &&
        FLOAT_SHAPE.has(to) &&
        (holdsEveryValue(middle, chainType) || middle === to)
      ) {
        // The cast reads the chain's source: it computes the same values in one step.
        scope.setInput(cast, 0, chainSource);
        source = chainSource;
        sourceType = chainType;
        const chain = `${dataTypeName(chainType)} -> ${dataTypeName(middle)} -> ${dataTypeName(to)}`;
        const [inserted, model] = isInserted(first) ? [first, cast] : [cast, first];
        noteFold(stats, foldedNames, decisionOf(model), { cast: nameOf(inserted), into: nameOf(model), chain });
        if (unread(read)) {
          remove(first);
          noteRemoved(first, `'${nameOf(cast)}' reads its input '${chainSource}' directly (${chain})`);
        }
        rewired.add(cast);
      }
    }
    if (!rewired.has(cast) || sourceType !== to) continue;

    // A copy (tX -> tX): its readers read the source, unless it writes a graph output or a subgraph reads it.
    if (scope.isGraphOutput(output)) continue;
    const uses = scope.consumersOf(output).slice();
    if (uses.some((use) => use.index < 0)) continue;
    for (const use of uses) {
      scope.setInput(use.node, use.index, source);
      if (isCast(use.node)) rewired.add(use.node);
    }
    remove(cast);
    noteRemoved(cast, `it cast ${dataTypeName(sourceType)} '${source}' to ${dataTypeName(to)}, a copy; its readers read '${source}'`);
  }
  if (!removed.size) return;
  // The audit names only Casts that are still in the model.
  const gone = new Set([...removed].map((node) => node.name ?? ''));
  for (const node of nodes) {
    const decision = decisionOf(node);
    if (!decision?.castsAdded.length || !decision.castsAdded.some((name) => gone.has(name))) continue;
    decision.castsAdded = decision.castsAdded.filter((name) => !gone.has(name));
  }
}

const nameOf = (node: onnx.INodeProto): string => node.name || (node.output ?? [])[0] || '?';

function noteFold(stats: FoldStats, foldedNames: Set<string>, decision: NodeDecision | undefined, fold: FoldedCast): void {
  // An inserted Cast between two of the model's folds into both: counted once.
  if (!foldedNames.has(fold.cast)) {
    foldedNames.add(fold.cast);
    stats.folded.push(fold);
  }
  if (decision) (decision.castsFolded ??= []).push(fold.cast);
}
