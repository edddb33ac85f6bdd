/**
 * Where an error starts: `compare --per-node`. Both models run once more with every shared
 * intermediate value of the main graph exposed as an extra output, and each node of the reference,
 * in topological order, is judged by its outputs under the same tolerance rule as the model's
 * outputs. The first nodes that leave the tolerance say where a float16 problem begins (an
 * overflow at a Conv, a softmax whose small probabilities vanish), which the outputs alone hide.
 *
 * A value is shared when the same name holds a float value (float32, float16 or float64) in both
 * models. A rewrite keeps a converted node's output name and adds Casts beside it; where the
 * candidate's value under that name cannot be read (bfloat16 has no JavaScript tensor type), the
 * value a Cast chain from it produces is read instead. Under emulated numerics both models run as
 * their emulating float32 models, which keep every original name.
 */
import { DEFAULT_TOLERANCE } from './compare.js';
import type { Tensor } from 'onnxruntime-node';
import { cloneMessage } from '../onnx/clone.js';
import { encodeModel } from '../onnx/codec.js';
import { DataType } from '../onnx/data-types.js';
import { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph } from '../onnx/graph.js';
import { opsetsOf } from '../onnx/opsets.js';
import { inferElemTypes, type ElemTypes } from '../onnx/type-inference.js';
import type { OutputComparison } from './compare.js';
import { compareRuns, runOnce, type SingleRun as ModelRun } from './compare-models.js';
import type { Feeds } from './inputs.js';
import { defaultNumerics, modelForNumerics, type Numerics } from './numerics.js';
import type { Provider } from './session.js';

/** Float types ONNX Runtime hands back to JavaScript (bfloat16 has no typed array). */
const READABLE_FLOAT_TYPES: ReadonlySet<number> = new Set([DataType.FLOAT, DataType.FLOAT16, DataType.DOUBLE]);

/** Longest chain of Casts followed from a value to a readable copy of it. */
const MAX_CAST_HOPS = 4;

export interface NodeComparison {
  node: string;
  op: string;
  /** Position of the node in the reference's topological order (0-based). */
  position: number;
  /** Each of its float outputs shared by both models, judged as a model output is. */
  outputs: OutputComparison[];
  pass: boolean;
  /**
   * The error starts here: every shared float value the node reads is within tolerance (or is a
   * graph input), and one of its outputs is not.
   */
  origin: boolean;
}

export interface PerNodeResult {
  provider: Provider;
  numerics: Numerics;
  /** Nodes of the reference's main graph with at least one shared float output. */
  nodesCompared: number;
  valuesCompared: number;
  /** Every node whose outputs leave the tolerance, in topological order. */
  failing: NodeComparison[];
}

export interface PerNodeOptions {
  providers: readonly Provider[];
  /** Default: emulate on the CPU provider, native on a GPU provider (as compare). */
  numerics?: Numerics;
  atol: number;
  rtol: number;
  /** The absolute floor of compare's rule (default DEFAULT_TOLERANCE.atolFloor). */
  atolFloor?: number;
}

/** Where each side's copy of a value can be read: the value's name, or a Cast of it. */
export interface SharedValue {
  reference: string;
  candidate: string;
}

/**
 * The outputs of the original reference's main-graph nodes that both models as run (`referenceRun`,
 * `candidateRun`: emulating models under emulation) hold as readable floats, by name or through Casts.
 */
export function sharedValues(reference: onnx.IModelProto, referenceRun: onnx.IModelProto, candidateRun: onnx.IModelProto): Map<string, SharedValue> {
  const original = new ModelGraph(reference);
  const sides = [referenceRun, candidateRun].map((model) => {
    const graph = new ModelGraph(model);
    return { graph, types: inferElemTypes(graph, opsetsOf(model)) };
  });
  const [ref, cand] = sides as [(typeof sides)[number], (typeof sides)[number]];
  const shared = new Map<string, SharedValue>();
  for (const node of original.main.currentNodes()) {
    for (const name of node.output ?? []) {
      if (!name) continue;
      const onReference = readableCopy(ref.graph, ref.types, name);
      const onCandidate = onReference === undefined ? undefined : readableCopy(cand.graph, cand.types, name);
      if (onReference !== undefined && onCandidate !== undefined) shared.set(name, { reference: onReference, candidate: onCandidate });
    }
  }
  return shared;
}

/** `name` itself when the candidate's main graph produces it as a readable float, else the output of the shortest Cast chain from it that is. */
function readableCopy(graph: ModelGraph, types: ElemTypes, name: string): string | undefined {
  const main = graph.main;
  if (!main.producerOf(name)) return undefined;
  let frontier = [name];
  for (let hop = 0; hop <= MAX_CAST_HOPS && frontier.length; hop++) {
    const next: string[] = [];
    for (const value of frontier) {
      if (READABLE_FLOAT_TYPES.has(types.get(main, value) ?? -1)) return value;
      for (const use of main.consumersOf(value)) {
        if (use.index >= 0 && use.node.op_type === 'Cast' && !use.node.domain && use.node.output?.[0]) next.push(use.node.output[0]);
      }
    }
    frontier = next;
  }
  return undefined;
}

/** A copy of `model` whose values `names` are also graph outputs, each with its element type. */
export function exposeValues(model: onnx.IModelProto, names: Iterable<string>): onnx.ModelProto {
  const exposed = cloneMessage(model) as onnx.ModelProto;
  const graph = new ModelGraph(exposed);
  const types = inferElemTypes(graph, opsetsOf(exposed));
  const outputs = exposed.graph!.output ?? (exposed.graph!.output = []);
  const existing = new Set(outputs.map((o) => o.name));
  for (const name of names) {
    if (existing.has(name)) continue;
    existing.add(name);
    const elemType = types.get(graph.main, name) ?? DataType.FLOAT;
    outputs.push(onnx.ValueInfoProto.create({ name, type: onnx.TypeProto.create({ tensor_type: onnx.TypeProto.Tensor.create({ elem_type: elemType }) }) }));
  }
  return exposed;
}

/**
 * Runs both models (each under `numerics`, as compare does) with every shared value exposed and
 * judges each reference node by its outputs. The outputs' own figures are compare's business;
 * this says where the difference starts.
 */
export async function comparePerNode(reference: onnx.IModelProto, candidate: onnx.IModelProto, feeds: Feeds, options: PerNodeOptions): Promise<PerNodeResult> {
  const asked = options.numerics;
  // 'auto' resolves once the reference has opened on some provider: emulate first (the CPU's default).
  let numerics: Numerics = asked ?? 'emulate';
  const runReference = async (providers: readonly Provider[]) => {
    const referenceModel = modelForNumerics(reference, numerics);
    const candidateModel = modelForNumerics(candidate, numerics);
    const shared = sharedValues(reference, referenceModel, candidateModel);
    const exposed = exposeValues(referenceModel, [...shared.values()].map((v) => v.reference));
    return { candidateModel, shared, run: await runOnce(encodeModel(exposed), feeds, providers, 'reference') };
  };
  let side = await runReference(options.providers);
  if (asked === undefined && defaultNumerics(side.run.provider) !== numerics) {
    numerics = defaultNumerics(side.run.provider);
    side = await runReference([side.run.provider]);
  }
  const exposedCandidate = exposeValues(side.candidateModel, [...side.shared.values()].map((v) => v.candidate));
  const candidateRun = await runOnce(encodeModel(exposedCandidate), feeds, [side.run.provider], 'candidate');
  const judged = judgeValues(side.run, candidateRun, side.shared, options);
  return { provider: side.run.provider, numerics, ...judgeNodes(reference, judged, feeds) };
}

/** Every shared value judged: the reference's value against the candidate's copy, under compare's rule. */
function judgeValues(referenceRun: ModelRun, candidateRun: ModelRun, shared: ReadonlyMap<string, SharedValue>, options: PerNodeOptions): Map<string, OutputComparison> {
  const present = [...shared].filter(([, copy]) => referenceRun.outputs[copy.reference] && candidateRun.outputs[copy.candidate]);
  const names = present.map(([name]) => name);
  const byName = (run: ModelRun, side: keyof SharedValue): ModelRun => ({
    ...run,
    outputs: Object.fromEntries(present.map(([name, copy]) => [name, run.outputs[copy[side]] as Tensor])),
    outputNames: names,
  });
  const reference = byName(referenceRun, 'reference');
  const candidate = byName(candidateRun, 'candidate');
  return new Map(compareRuns(reference, candidate, { atol: options.atol, rtol: options.rtol, atolFloor: options.atolFloor ?? DEFAULT_TOLERANCE.atolFloor }).map((row) => [row.name, row]));
}

/** Each node of the reference (as written) with judged outputs, in topological order: the failing ones, and whether the error starts there. */
function judgeNodes(referenceModel: onnx.IModelProto, judged: ReadonlyMap<string, OutputComparison>, feeds: Feeds): Omit<PerNodeResult, 'provider' | 'numerics'> {
  const graph = new ModelGraph(referenceModel);
  const failing: NodeComparison[] = [];
  let nodesCompared = 0;
  // An unnamed node is `Op#index`, its index in the file's node list, as in the audit.
  const fileIndex = new Map(graph.main.currentNodes().map((node, index) => [node, index]));
  graph.main.topologicalOrder().order.forEach((node, position) => {
    const outputs = (node.output ?? []).map((name) => judged.get(name)).filter((row): row is OutputComparison => row !== undefined);
    if (!outputs.length) return;
    nodesCompared++;
    if (outputs.every((row) => row.pass)) return;
    // Reads that are judged values must all pass; graph inputs and weights are the same on both sides.
    const reads = (node.input ?? []).filter((name) => name && !Object.hasOwn(feeds, name)).map((name) => judged.get(name));
    const origin = reads.every((row) => row === undefined || row.pass);
    failing.push({ node: node.name || `${node.op_type ?? '?'}#${fileIndex.get(node) ?? position}`, op: node.op_type ?? '', position, outputs, pass: false, origin });
  });
  return { nodesCompared, valuesCompared: judged.size, failing };
}
