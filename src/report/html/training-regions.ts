/**
 * The regions of a training step, for the visual audit: which nodes compute the forward pass,
 * the loss, the backward pass and the optimizer update. Read from the audit's edges and the
 * training contract the rewrite detected (loss, parameter gradients, state outputs), by reachability over the main graph
 * (linear in its nodes and edges); a body's nodes take the region of the node that holds the body.
 */
import type { AmpReport } from '../../passes/amp.js';
import type { TrainingContract } from '../../passes/training/contract.js';

export const TRAINING_REGIONS = ['forward', 'loss', 'backward', 'optimizer'] as const;
export type TrainingRegion = (typeof TRAINING_REGIONS)[number];

/** Per node of the audit, the index of its region in TRAINING_REGIONS (a body's node: its owner's), or -1 (a constant feeding nothing of these). */
export interface RegionsData {
  names: string[];
  of: number[];
}

/** Ops that carry a parameter on unchanged: their readers take the parameter too. */
const PASS_THROUGH = new Set(['Cast', 'Identity']);

export function trainingRegions(report: Pick<AmpReport, 'nodes' | 'scopes'>, contract: TrainingContract): RegionsData {
  const nodes = report.nodes;
  const root = report.scopes[0]?.path ?? nodes[0]?.scope;
  const inRoot = (i: number): boolean => nodes[i]!.scope === root;
  const producer = new Map<string, number>();
  const readers = new Map<string, number[]>();
  nodes.forEach((n, i) => {
    if (!inRoot(i)) return;
    for (const o of n.outputs) if (o.value) producer.set(o.value, i);
    for (const e of n.inputs) {
      if (!e.value) continue;
      let list = readers.get(e.value);
      if (!list) readers.set(e.value, (list = []));
      list.push(i);
    }
  });

  /** The nodes the given values depend on, their producers included. */
  const ancestorsOf = (values: Iterable<string>): Set<number> => {
    const seen = new Set<number>();
    const stack = [...values].map((v) => producer.get(v)).filter((i): i is number => i !== undefined);
    while (stack.length) {
      const i = stack.pop()!;
      if (seen.has(i)) continue;
      seen.add(i);
      for (const e of nodes[i]!.inputs) {
        const p = e.value ? producer.get(e.value) : undefined;
        if (p !== undefined && !seen.has(p)) stack.push(p);
      }
    }
    return seen;
  };
  const towardLoss = ancestorsOf([contract.loss]);
  // The forward pass ends at the last node that takes a parameter (directly or through a Cast);
  // what the loss computes after it (softmax, cross-entropy, the labels' one-hot) is the loss.
  const parameterValues = new Set(contract.params.map((p) => p.name));
  for (const pending = [...parameterValues]; pending.length; ) {
    for (const r of readers.get(pending.pop()!) ?? []) {
      if (!PASS_THROUGH.has(nodes[r]!.op)) continue;
      for (const o of nodes[r]!.outputs) if (o.value && !parameterValues.has(o.value)) pending.push(o.value), parameterValues.add(o.value);
    }
  }
  const takers: string[] = [];
  for (const i of towardLoss) if (nodes[i]!.inputs.some((e) => parameterValues.has(e.value))) takers.push(...nodes[i]!.outputs.map((o) => o.value).filter(Boolean));
  const forward = ancestorsOf(takers);
  const towardGradients = ancestorsOf(contract.params.map((p) => p.grad));
  const lossOutput = new Set([contract.loss]);
  const towardUpdates = ancestorsOf((report.scopes[0]?.outputs ?? []).map((o) => o.value).filter((v) => !lossOutput.has(v)));

  const rootRegion = (i: number): number => {
    if (towardLoss.has(i)) return TRAINING_REGIONS.indexOf(forward.has(i) ? 'forward' : 'loss');
    // Everything else the gradients need: the seed's scaling, the recomputed softmax and masks, the unscaling.
    if (towardGradients.has(i)) return TRAINING_REGIONS.indexOf('backward');
    if (towardUpdates.has(i)) return TRAINING_REGIONS.indexOf('optimizer');
    return -1;
  };
  // A body (If branch, Loop or Scan body) belongs where the node that holds it does: a Loop of
  // the forward pass computes forward, however deep its body nests.
  const ownerOf = new Map<string, number>();
  nodes.forEach((n, i) => {
    for (const path of n.subgraphs) ownerOf.set(path, i);
  });
  const of = new Array<number>(nodes.length);
  const regionOf = (i: number): number => {
    if (of[i] !== undefined) return of[i]!;
    // Settled before the owner is asked: an audit whose bodies own each other ends at -1.
    of[i] = -1;
    const owner = ownerOf.get(nodes[i]!.scope);
    of[i] = inRoot(i) ? rootRegion(i) : owner !== undefined ? regionOf(owner) : -1;
    return of[i]!;
  };
  for (let i = 0; i < nodes.length; i++) regionOf(i);
  return { names: [...TRAINING_REGIONS], of };
}
