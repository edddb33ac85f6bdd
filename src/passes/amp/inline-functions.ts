/**
 * Model-local functions (the dynamo exporter wraps every submodule in one) are inlined before
 * painting: each call is replaced by the function's nodes, with the call's values substituted
 * for the formal inputs and outputs, fresh names for the values inside, and the call's attributes
 * for the body's `ref_attr_name` references.
 *
 * Why inline rather than paint inside the bodies: a function is shared by all its calls and has
 * one body, so its internal precision would have to suit every caller (a Linear called once on the
 * fp32 residual stream and once inside attention), and a function's interface types are declared
 * by nobody, so converting inside the body would change what every caller receives. Inlined,
 * each call site is painted on its own merits, and ONNX Runtime inlines functions when it loads
 * a model anyway, so nothing is lost at run time. Functions no call uses any more are removed.
 *
 * A call that cannot be inlined (the function imports a different version of an opset the model
 * also imports) is left as it is and reported with the reason, never silently.
 */
import { cloneMessage } from '../../onnx/clone.js';
import { AmpError } from '../../onnx/errors.js';
import { printable } from '../../onnx/printable.js';
import { onnx } from '../../onnx/generated/onnx.js';
import { normalizeDomain } from '../../onnx/opsets.js';
import { forEachGraph } from '../../onnx/walk.js';

export interface InlineResult {
  /** Calls replaced by function bodies. */
  inlined: number;
  /** Functions left in place, keyed `domain:name`, with why. */
  kept: Map<string, string>;
}

const functionKey = (domain: string | null | undefined, name: string | null | undefined, overload?: string | null): string =>
  `${normalizeDomain(domain)}:${name ?? ''}:${overload ?? ''}`;

/** Calls of model-local functions, keyed like functionKey, for the audit. */
export function localFunctionKey(node: onnx.INodeProto): string {
  return functionKey(node.domain, node.op_type, node.overload);
}

export function inlineLocalFunctions(model: onnx.IModelProto): InlineResult {
  const functions = new Map<string, onnx.IFunctionProto>();
  for (const fn of model.functions ?? []) functions.set(functionKey(fn.domain, fn.name, fn.overload), fn);
  const result: InlineResult = { inlined: 0, kept: new Map() };
  if (!functions.size || !model.graph) return result;

  const imports = new Map<string, number>();
  for (const opset of model.opset_import ?? []) imports.set(normalizeDomain(opset.domain), Number(opset.version ?? 0));
  for (const [key, fn] of functions) {
    for (const opset of fn.opset_import ?? []) {
      const domain = normalizeDomain(opset.domain);
      const version = Number(opset.version ?? 0);
      const have = imports.get(domain);
      const localDomain = [...functions.values()].some((other) => normalizeDomain(other.domain) === domain);
      if (have !== undefined && have !== version && !localDomain) {
        result.kept.set(key, `function ${fn.name} imports ${domain || 'ai.onnx'} opset ${version} but the model imports ${have}: its nodes cannot be inlined; left as it is`);
      }
    }
  }

  const used = new Set<string>();
  forEachGraph(model, ({ graph }) => {
    for (const node of graph.node ?? []) {
      if (node.name) used.add(node.name);
      for (const name of [...(node.input ?? []), ...(node.output ?? [])]) if (name) used.add(name);
    }
    for (const info of [...(graph.input ?? []), ...(graph.output ?? [])]) if (info.name) used.add(info.name);
    for (const tensor of graph.initializer ?? []) if (tensor.name) used.add(tensor.name);
  });
  const unique = (base: string): string => {
    let name = base;
    for (let i = 1; used.has(name); i++) name = `${base}_${i}`;
    used.add(name);
    return name;
  };

  const expand = (nodes: onnx.INodeProto[], depth: number): onnx.INodeProto[] => {
    const out: onnx.INodeProto[] = [];
    for (const node of nodes) {
      const key = localFunctionKey(node);
      const fn = functions.get(key);
      if (!fn || result.kept.has(key)) {
        forEachSubgraph(node, (graph) => (graph.node = expand(graph.node ?? [], depth)));
        out.push(node);
        continue;
      }
      if (depth > 64) throw new AmpError('INVALID_MODEL', `function '${printable(fn.name)}' calls functions more than 64 levels deep`, { subject: fn.name ?? '' });
      result.inlined++;
      out.push(...expand(instantiate(fn, node, unique), depth + 1));
    }
    return out;
  };
  forEachGraphRoot(model, (graph) => (graph.node = expand(graph.node ?? [], 0)));

  for (const [key, fn] of functions) {
    if (result.kept.has(key)) continue;
    for (const opset of fn.opset_import ?? []) {
      const domain = normalizeDomain(opset.domain);
      if (imports.has(domain)) continue;
      imports.set(domain, Number(opset.version ?? 0));
      model.opset_import = [...(model.opset_import ?? []), onnx.OperatorSetIdProto.create({ domain: opset.domain ?? '', version: opset.version ?? 0 })];
    }
  }
  // Functions still called (kept ones) stay; the rest are gone with their calls.
  const stillCalled = new Set<string>();
  forEachGraph(model, ({ graph }) => {
    for (const node of graph.node ?? []) stillCalled.add(localFunctionKey(node));
  });
  model.functions = (model.functions ?? []).filter((fn) => stillCalled.has(functionKey(fn.domain, fn.name, fn.overload)));
  return result;
}

function forEachGraphRoot(model: onnx.IModelProto, visit: (graph: onnx.IGraphProto) => void): void {
  if (model.graph) visit(model.graph);
}

function forEachSubgraph(node: onnx.INodeProto, visit: (graph: onnx.IGraphProto) => void): void {
  for (const attribute of node.attribute ?? []) {
    if (attribute.g) visit(attribute.g);
    for (const graph of attribute.graphs ?? []) visit(graph);
  }
}

/** The function's nodes for one call: values renamed, attribute references resolved. */
function instantiate(fn: onnx.IFunctionProto, call: onnx.INodeProto, unique: (base: string) => string): onnx.INodeProto[] {
  const callName = call.name || call.output?.[0] || fn.name || 'call';
  const rename = new Map<string, string>();
  (fn.input ?? []).forEach((formal, i) => rename.set(formal, call.input?.[i] ?? ''));
  (fn.output ?? []).forEach((formal, i) => rename.set(formal, call.output?.[i] ?? ''));
  const valueName = (name: string): string => {
    if (!name) return name;
    const known = rename.get(name);
    if (known !== undefined) return known;
    const fresh = unique(`${callName}/${name}`);
    rename.set(name, fresh);
    return fresh;
  };
  const attributes = new Map<string, onnx.IAttributeProto>();
  for (const attribute of fn.attribute_proto ?? []) if (attribute.name) attributes.set(attribute.name, attribute);
  for (const attribute of call.attribute ?? []) if (attribute.name) attributes.set(attribute.name, attribute);

  const copyNode = (node: onnx.INodeProto): onnx.INodeProto => {
    const copy = cloneMessage(node);
    copy.input = (node.input ?? []).map(valueName);
    copy.output = (node.output ?? []).map(valueName);
    copy.name = unique(`${callName}/${node.name || node.op_type}`);
    copy.attribute = (copy.attribute ?? []).flatMap((attribute): onnx.IAttributeProto[] => {
      if (!attribute.ref_attr_name) return [attribute];
      const actual = attributes.get(attribute.ref_attr_name);
      if (!actual) return [];
      const resolved = cloneMessage(actual);
      resolved.name = attribute.name;
      return [resolved];
    });
    // Subgraphs may read the function's values from the enclosing scope.
    for (const attribute of copy.attribute ?? []) {
      for (const graph of [...(attribute.g ? [attribute.g] : []), ...(attribute.graphs ?? [])]) renameOuterReads(graph, rename);
    }
    return copy;
  };
  return (fn.node ?? []).map(copyNode);
}

function renameOuterReads(graph: onnx.IGraphProto, rename: ReadonlyMap<string, string>): void {
  const local = new Set<string>([...(graph.input ?? []).map((i) => i.name ?? ''), ...(graph.initializer ?? []).map((t) => t.name ?? '')]);
  for (const node of graph.node ?? []) for (const name of node.output ?? []) local.add(name);
  for (const node of graph.node ?? []) {
    node.input = (node.input ?? []).map((name) => (!local.has(name) && rename.has(name) ? (rename.get(name) as string) : name));
    for (const attribute of node.attribute ?? []) {
      for (const sub of [...(attribute.g ? [attribute.g] : []), ...(attribute.graphs ?? [])]) renameOuterReads(sub, rename);
    }
  }
  for (const output of graph.output ?? []) {
    const name = output.name ?? '';
    if (!local.has(name) && rename.has(name)) output.name = rename.get(name) as string;
  }
}
