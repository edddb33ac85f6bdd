/**
 * The graph half of the audit: every decided node's edges with their element types before and
 * after the rewrite, the Casts the pass put on them, the value ranges a calibration saw, and the
 * scopes (main graph, If/Loop/Scan bodies) that hold them. The HTML report draws the graph from
 * this alone, so `amp-rewrite report audit.json` needs nothing but the JSON.
 */
import { dataTypeName } from '../../onnx/data-types.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import type { GraphScope, ModelGraph } from '../../onnx/graph.js';
import type { ElemTypes } from '../../onnx/type-inference.js';
import type { NodeDecision } from './decisions.js';

/** One input or output slot of a node, as the original model named it. */
export interface AuditEdge {
  /** The value's name in the input model ('' for an absent optional input). */
  value: string;
  /** Element type before the rewrite ('float', 'float16'...), null when unknown. */
  type: string | null;
  /** Element type the node reads or writes after the rewrite. */
  typeAfter: string | null;
  /** The Cast the pass put on this edge: on an input, the Cast the node now reads; on an output, the Cast that restores the old name. */
  cast?: string;
  /** Where the value comes from: a node's output, a graph input, a weight (initializer), or an enclosing scope. */
  source?: 'node' | 'input' | 'weight' | 'outer';
  /** Largest magnitude the calibration run saw on this value (main graph only). */
  range?: number;
}

export interface AuditNodeGraph {
  inputs: AuditEdge[];
  outputs: AuditEdge[];
  /** Paths of the scopes held by this node's graph attributes (If branches, Loop/Scan bodies). */
  subgraphs: string[];
}

export interface AuditScope {
  path: string;
  /** Path of the enclosing scope; null for the main graph. */
  parent: string | null;
  /** Name (or op type) of the node whose attribute holds this graph; null for the main graph. */
  owner: string | null;
  inputs: Array<{ value: string; type: string | null }>;
  outputs: Array<{ value: string; type: string | null }>;
  /** Initializers: collapsed by the HTML report unless asked for. */
  weights: Array<{ value: string; type: string | null; dims: number[] }>;
}

/**
 * The wiring of the decided nodes before the Casts rename their edges: the inputs, and the
 * outputs when they were renamed (absent: the node's outputs now are the ones it had). A node
 * not in the map kept its wiring.
 */
export type Wiring = Map<onnx.INodeProto, { inputs: string[]; outputs?: string[] }>;

export function snapshotWiring(decisions: readonly NodeDecision[]): Wiring {
  return new Map(decisions.map((d) => [d.node, { inputs: [...(d.node.input ?? [])], outputs: [...(d.node.output ?? [])] }]));
}

const typeName = (type: number | undefined): string | null => (type === undefined ? null : dataTypeName(type));

function sourceOf(scope: GraphScope, name: string): AuditEdge['source'] {
  const definition = scope.resolve(name);
  if (!definition) return undefined;
  if (definition.scope !== scope) return 'outer';
  return definition.kind === 'initializer' ? 'weight' : definition.kind;
}

/**
 * Reads the committed graph (`graph`, after planCasts) against the wiring taken before it.
 * `typesAfter` is an inference over the committed graph; for an unchanged model pass `typesBefore`.
 */
export function auditGraph(
  graph: ModelGraph,
  decisions: readonly NodeDecision[],
  wiring: Wiring,
  typesBefore: ElemTypes,
  typesAfter: ElemTypes,
  ranges: ReadonlyMap<string, number>,
): { nodes: Map<onnx.INodeProto, AuditNodeGraph>; scopes: AuditScope[] } {
  const nodes = new Map<onnx.INodeProto, AuditNodeGraph>();
  const castProducing = (scope: GraphScope, name: string): string | undefined => {
    const definition = scope.resolve(name);
    if (definition?.kind !== 'node' || definition.producer.node.op_type !== 'Cast') return undefined;
    return definition.producer.node.name ?? undefined;
  };
  for (const { node, scope } of decisions) {
    const after = { inputs: node.input ?? [], outputs: node.output ?? [] };
    const kept = wiring.get(node);
    const before = kept ? { inputs: kept.inputs, outputs: kept.outputs ?? after.outputs } : after;
    const calibrated = scope.parent ? undefined : ranges;
    // One object per edge, optional fields only when present: a 50,000-node audit holds ~150,000 of them.
    const edge = (value: string, now: string, cast: string | undefined, source: AuditEdge['source']): AuditEdge => {
      const result: AuditEdge = {
        value,
        type: value ? typeName(typesBefore.get(scope, value)) : null,
        typeAfter: now ? typeName(typesAfter.get(scope, now)) : null,
      };
      if (cast) result.cast = cast;
      if (source) result.source = source;
      const range = calibrated?.get(value);
      if (range !== undefined) result.range = range;
      return result;
    };
    const inputs = before.inputs.map((value, i) => {
      const now = after.inputs[i] ?? value;
      return edge(value, now, now !== value ? castProducing(scope, now) : undefined, value ? sourceOf(scope, value) : undefined);
    });
    // A renamed output: the old name now comes out of a Cast back to the type the graph promised.
    const outputs = before.outputs.map((value, i) => {
      const now = after.outputs[i] ?? value;
      return edge(value, now, now !== value ? castProducing(scope, value) : undefined, undefined);
    });
    nodes.set(node, { inputs, outputs, subgraphs: scope.subgraphsOf(node).map((child) => child.path) });
  }
  const scopes = graph.scopes.map((scope) => ({
    path: scope.path,
    parent: scope.parent?.path ?? null,
    owner: scope.owner ? scope.owner.name || scope.owner.op_type || null : null,
    inputs: (scope.graph.input ?? []).map((info) => ({ value: info.name ?? '', type: typeName(typesBefore.get(scope, info.name ?? '')) })),
    outputs: (scope.graph.output ?? []).map((info) => ({ value: info.name ?? '', type: typeName(typesBefore.get(scope, info.name ?? '')) })),
    weights: [...scope.initializers.values()].map((tensor) => ({
      value: tensor.name ?? '',
      type: typeName(typesBefore.get(scope, tensor.name ?? '')),
      dims: (tensor.dims ?? []).map(Number),
    })),
  }));
  return { nodes, scopes };
}
