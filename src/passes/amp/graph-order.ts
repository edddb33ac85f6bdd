/**
 * Puts every scope of a model in topological order before painting. Exporters and ONNX Runtime
 * accept graphs whose nodes are out of order (onnxconverter-common's own test models are), but
 * the rewrite's output is validated against ONNX's rule, so the input is sorted first: stably,
 * keeping the file order wherever it is free, so an already sorted model is left byte-identical.
 * What cannot be sorted is the input's fault and is reported as such (BAD_GRAPH, exit 2), never
 * as our own output failing validation.
 */
import { AmpError } from '../../onnx/errors.js';
import type { ModelGraph } from '../../onnx/graph.js';
import { describeNode } from './decisions.js';

export function sortGraph(graph: ModelGraph): void {
  for (const scope of graph.scopes) {
    const blocked = scope.sortTopologically();
    const first = blocked[0];
    if (first) {
      throw new AmpError(
        'BAD_GRAPH',
        `the input graph has a cycle: ${describeNode(first)} in ${scope.path} (and ${blocked.length - 1} more nodes) depend on their own outputs`,
        { subject: first.name ?? '' },
      );
    }
    // The sort has just looked every read up: only those it found no producer for can be
    // unresolved, and only when one is does the walk below run to name the first such node.
    const unproduced = scope.lastUnproducedReads();
    if (unproduced && scope.unproducedReadsVisible()) continue;
    for (const node of scope.currentNodes()) {
      for (const name of node.input ?? []) {
        if (name && !scope.isVisible(name)) {
          throw new AmpError('BAD_GRAPH', `the input graph is invalid: ${describeNode(node)} reads '${name}', which nothing in ${scope.path} or an enclosing graph defines`, {
            subject: node.name ?? '',
          });
        }
      }
    }
  }
}
