/**
 * A canonical text dump of a model's graphs, for golden files: one line per input, output,
 * initializer and node (in file order, which the pass keeps deterministic), each value with its
 * inferred element type, so a diff shows exactly which edges changed precision.
 */
import { dataTypeName } from '../onnx/data-types.js';
import { longToNumber } from '../onnx/external-data.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph } from '../onnx/graph.js';
import { opsetsOf } from '../onnx/opsets.js';
import { inferElemTypes } from '../onnx/type-inference.js';

export function renderGraphText(model: onnx.IModelProto): string {
  const graph = new ModelGraph(model);
  const types = inferElemTypes(graph, opsetsOf(model));
  const lines: string[] = [`opsets: ${(model.opset_import ?? []).map((o) => `${o.domain || 'ai.onnx'}=${longToNumber(o.version)}`).join(' ')}`];
  for (const scope of graph.scopes) {
    const typed = (name: string): string => {
      if (!name) return '<none>';
      const type = types.get(scope, name);
      return `${name}:${type === undefined ? '?' : dataTypeName(type)}`;
    };
    const indent = '  ';
    lines.push(`scope ${scope.path}`);
    for (const info of scope.graph.input ?? []) lines.push(`${indent}input ${typed(info.name ?? '')}`);
    for (const tensor of scope.graph.initializer ?? []) {
      lines.push(`${indent}initializer ${tensor.name}:${dataTypeName(tensor.data_type ?? 0)}[${(tensor.dims ?? []).map((d) => longToNumber(d)).join(',')}]`);
    }
    for (const node of scope.graph.node ?? []) {
      const domain = node.domain ? `${node.domain}:` : '';
      const attributes = (node.attribute ?? [])
        .filter((a) => a.name === 'to')
        .map((a) => ` to=${dataTypeName(longToNumber(a.i))}`)
        .join('');
      lines.push(`${indent}node ${node.name || '<unnamed>'} = ${domain}${node.op_type}${attributes}(${(node.input ?? []).map(typed).join(', ')}) -> ${(node.output ?? []).map(typed).join(', ')}`);
    }
    for (const info of scope.graph.output ?? []) lines.push(`${indent}output ${typed(info.name ?? '')}`);
  }
  return `${lines.join('\n')}\n`;
}
