/**
 * Activation Casts per layer, for the summary: where the Casts of a rewrite sit, so that a
 * transformer's "4 per layer" or a CNN's "1 + 1 in all" can be read at a glance. A layer is the
 * name prefix up to the first numbered path part of the value a Cast reads, as exporters name
 * repeated blocks: '/layers.3/Add_output_0' is in '/layers.3', 'encoder.layer.11.output' in
 * 'encoder.layer.11'. Casts of weights are not counted (ONNX Runtime folds them at load).
 */
import type { onnx } from '../../onnx/generated/onnx.js';
import type { GraphScope, ModelGraph } from '../../onnx/graph.js';
import { compareText } from '../../onnx/collation.js';

export interface LayerCasts {
  /** Layers sorted by name, numbers in order; '' (last) holds the Casts outside any repeated block. */
  layers: Array<{ layer: string; casts: number }>;
}

const LAYER = /^(.*?[/.]\d+)(?=[/.]|$)/;

/** The layer a value's name places it in ('' for none). */
export function layerOf(name: string): string {
  return LAYER.exec(name)?.[1] ?? '';
}

/** Counts the inserted activation Casts of every scope by layer; undefined when no repeated block has any. */
export function castsPerLayer(
  graph: ModelGraph,
  isInserted: (scope: GraphScope, node: onnx.INodeProto) => boolean,
  isWeight: (scope: GraphScope, name: string) => boolean,
): LayerCasts | undefined {
  const counts = new Map<string, number>();
  for (const scope of graph.scopes) {
    for (const node of scope.currentNodes()) {
      if (node.op_type !== 'Cast' || node.domain || !isInserted(scope, node)) continue;
      const read = node.input?.[0] ?? '';
      if (isWeight(scope, read)) continue;
      const layer = layerOf(read);
      counts.set(layer, (counts.get(layer) ?? 0) + 1);
    }
  }
  // Repeated blocks only: a numbered prefix whose stem numbers one block ('present.0' of a
  // one-layer decoder) counts as outside any layer.
  const blocksOfStem = new Map<string, number>();
  for (const layer of counts.keys()) if (layer) blocksOfStem.set(stemOf(layer), (blocksOfStem.get(stemOf(layer)) ?? 0) + 1);
  for (const [layer, casts] of [...counts.entries()]) {
    if (!layer || (blocksOfStem.get(stemOf(layer)) ?? 0) >= 2) continue;
    counts.delete(layer);
    counts.set('', (counts.get('') ?? 0) + casts);
  }
  if (![...counts.keys()].some(Boolean)) return undefined;
  const layers = [...counts.entries()].map(([layer, casts]) => ({ layer, casts }));
  layers.sort((a, b) => (a.layer === '' ? 1 : 0) - (b.layer === '' ? 1 : 0) || compareLayer(a.layer, b.layer));
  return { layers };
}

/** A layer's name without its number: '/layers.' for '/layers.3'. */
const stemOf = (layer: string): string => layer.replace(/\d+$/, '');

/** '/layers.2' before '/layers.10'. */
function compareLayer(a: string, b: string): number {
  const number = (text: string) => Number(/(\d+)$/.exec(text)?.[1] ?? 0);
  return compareText(stemOf(a), stemOf(b)) || number(a) - number(b);
}

/** One summary line: equal layers folded into "12 layers x 4". */
export function renderLayerCasts(casts: LayerCasts): string {
  const outside = casts.layers.find((l) => l.layer === '')?.casts ?? 0;
  const inLayers = casts.layers.filter((l) => l.layer !== '');
  const groups: Array<{ first: string; last: string; count: number; casts: number }> = [];
  for (const { layer, casts: n } of inLayers) {
    const last = groups[groups.length - 1];
    if (last && last.casts === n && stemOf(last.last) === stemOf(layer)) {
      last.last = layer;
      last.count++;
    } else groups.push({ first: layer, last: layer, count: 1, casts: n });
  }
  const shown = groups.slice(0, 6).map((g) => (g.count === 1 ? `${g.first}: ${g.casts}` : `${g.first} .. ${g.last}: ${g.casts} each`));
  if (groups.length > 6) shown.push(`... (${groups.length - 6} more groups)`);
  return `Activation Casts per layer: ${shown.join('; ')}${outside ? `; outside any layer: ${outside}` : ''}`;
}
