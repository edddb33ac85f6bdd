/**
 * Pure precision: every float32 value of a graph in one other float type, float16 (the "pure
 * fp16" the seeds train against mixed precision) or float64 (a reference above fp32). A mode of
 * its own, not the AMP pass with its lists overridden: no op stays fp32 for safety, inputs,
 * outputs, weights and stored initial state change type with everything else, and Cast/dtype
 * attributes that produced float32 now produce the target. The only float32 left is what an
 * op's schema fixes (LayerNormalization's Mean and InvStdDev), converted by a Cast right after.
 * Main graph only: a node with a subgraph is refused. Pure: the input model is not changed.
 */
import { dtypeAttribute, findAttribute, setDtypeAttribute } from '../onnx/attributes.js';
import { cloneMessage } from '../onnx/clone.js';
import { DataType, dataTypeName } from '../onnx/data-types.js';
import { AmpError } from '../onnx/errors.js';
import { onnx } from '../onnx/generated/onnx.js';
import { ModelGraph } from '../onnx/graph.js';
import { opsetsOf } from '../onnx/opsets.js';
import { toFloat16Array } from '../onnx/float16.js';
import { readFloat32 } from '../onnx/tensor-data.js';
import { attributeTypedOps, inferElemTypes } from '../onnx/type-inference.js';
import { validateModel } from '../onnx/validate.js';
import { ruleFile } from '../rules/rule-files.js';

export type PureTarget = typeof DataType.FLOAT16 | typeof DataType.DOUBLE;

/** The float32 tensor's values in the target type, same name and dims, data in raw_data. */
function convertTensor(tensor: onnx.ITensorProto, target: PureTarget): onnx.TensorProto {
  const values = readFloat32(tensor);
  const data = target === DataType.FLOAT16 ? toFloat16Array(values) : Float64Array.from(values);
  return onnx.TensorProto.create({ name: tensor.name ?? '', dims: tensor.dims ?? [], data_type: target, raw_data: new Uint8Array(data.buffer) });
}

function retypeValueInfo(info: onnx.IValueInfoProto, target: PureTarget): void {
  const tensorType = info.type?.tensor_type;
  if (tensorType?.elem_type === DataType.FLOAT) tensorType.elem_type = target;
}

/** Retypes the attributes that make float32 values: Cast's `to`, dtype attributes, Constant and ConstantOfShape tensors. */
function retypeNode(node: onnx.INodeProto, target: PureTarget): void {
  for (const attribute of node.attribute ?? []) {
    if (attribute.g || attribute.graphs?.length) {
      throw new AmpError('BAD_OPTION', `node '${node.name ?? ''}' (${node.op_type}) has a subgraph; pure precision converts main graphs only`, { subject: node.name ?? '' });
    }
    if (attribute.t && attribute.t.data_type === DataType.FLOAT) attribute.t = convertTensor(attribute.t, target);
  }
  if (node.op_type === 'Constant') {
    const scalar = findAttribute(node, 'value_float');
    const list = findAttribute(node, 'value_floats');
    const values = scalar ? [scalar.f ?? 0] : list ? (list.floats ?? []) : undefined;
    if (values) {
      const dims = scalar ? [] : [values.length];
      const tensor = convertTensor(onnx.TensorProto.create({ dims, data_type: DataType.FLOAT, float_data: values }), target);
      node.attribute = [onnx.AttributeProto.create({ name: 'value', type: onnx.AttributeProto.AttributeType.TENSOR, t: tensor })];
    }
  }
  const rule = attributeTypedOps().get(node.op_type ?? '');
  // Ops whose type attribute the schema does not let us change (rules/pure-precision.json keepTypeAttribute).
  if (!rule?.attribute || pureRules().keepTypeAttribute[node.op_type ?? ''] !== undefined) return;
  const attribute = findAttribute(node, rule.attribute);
  if (attribute && dtypeAttribute(node, rule.attribute) === DataType.FLOAT) setDtypeAttribute(attribute, target);
  else if (!attribute && rule.otherwise && 'type' in rule.otherwise && rule.otherwise.type === 'float') {
    node.attribute = [...(node.attribute ?? []), onnx.AttributeProto.create({ name: rule.attribute, type: onnx.AttributeProto.AttributeType.INT, i: target })];
  }
  if (node.op_type === 'ConstantOfShape' && !findAttribute(node, 'value')) {
    const zero = convertTensor(onnx.TensorProto.create({ dims: [1], data_type: DataType.FLOAT, float_data: [0] }), target);
    node.attribute = [...(node.attribute ?? []), onnx.AttributeProto.create({ name: 'value', type: onnx.AttributeProto.AttributeType.TENSOR, t: zero })];
  }
}

interface PureRules {
  float16: Record<string, string>;
  float64: Record<string, string>;
  keepTypeAttribute: Record<string, string>;
}
let rules: PureRules | undefined;
function pureRules(): PureRules {
  rules ??= ruleFile<PureRules>('pure-precision.json');
  return rules;
}

/** Ops run in float32 between Casts for this target (rules/pure-precision.json), with the reason. */
export function float32Fallbacks(target: PureTarget): ReadonlyMap<string, string> {
  return new Map(Object.entries(pureRules()[target === DataType.FLOAT16 ? 'float16' : 'float64'] ?? {}));
}

function castNode(name: string, input: string, output: string, to: number): onnx.NodeProto {
  return onnx.NodeProto.create({ op_type: 'Cast', name, input: [input], output: [output], attribute: [onnx.AttributeProto.create({ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: to })] });
}

export function purePrecision(input: onnx.IModelProto, target: PureTarget): onnx.ModelProto {
  const model = cloneMessage(input) as onnx.ModelProto;
  const graph = model.graph;
  if (!graph) throw new AmpError('BAD_OPTION', 'the model has no graph');
  const before = new ModelGraph(model);
  const originalTypes = inferElemTypes(before, opsetsOf(model));
  for (const info of [...(graph.input ?? []), ...(graph.output ?? []), ...(graph.value_info ?? [])]) retypeValueInfo(info, target);
  graph.initializer = (graph.initializer ?? []).map((t) => (t.data_type === DataType.FLOAT ? convertTensor(t, target) : t));
  const fallbacks = float32Fallbacks(target);
  const converted: onnx.INodeProto[] = [];
  const fallbackInputs = new Set<string>();
  for (const node of graph.node ?? []) {
    if (fallbacks.has(node.op_type ?? '')) {
      // Its float inputs go back to float32; its outputs are float32 and get cast below.
      node.input = (node.input ?? []).map((name, index) => {
        if (!name || originalTypes.get(before.main, name) !== DataType.FLOAT) return name;
        const cast = `${node.name || node.output?.[0]}/input${index}_float32`;
        converted.push(castNode(cast, name, cast, DataType.FLOAT));
        fallbackInputs.add(cast);
        return cast;
      });
    } else retypeNode(node, target);
    converted.push(node);
  }
  graph.node = converted as onnx.NodeProto[];
  // Outputs a schema keeps float32 whatever its inputs: cast each to the target right where it is made.
  const after = new ModelGraph(model);
  const types = inferElemTypes(after, opsetsOf(model));
  const scope = after.main;
  const nodes: onnx.INodeProto[] = [];
  for (const node of graph.node ?? []) {
    nodes.push(node);
    (node.output ?? []).forEach((name, index) => {
      if (!name || types.get(scope, name) !== DataType.FLOAT || fallbackInputs.has(name)) return;
      const fixed = `${name}/float32`;
      (node.output as string[])[index] = fixed;
      nodes.push(castNode(`${name}/to_${dataTypeName(target).toLowerCase()}`, fixed, name, target));
    });
  }
  graph.node = nodes as onnx.NodeProto[];
  const problems = validateModel(model);
  if (problems.length) {
    const first = problems[0]!;
    throw new AmpError('VALIDATION_FAILED', `pure ${dataTypeName(target).toLowerCase()} is not possible for this model: ${first.message}`);
  }
  return model;
}
