/**
 * The Cast nodes the pass adds: one per converted edge, tens of thousands on a big model.
 *
 * Each is an onnx.NodeProto in every way a reader can see: the same prototype (instanceof, the
 * encoder), the same own properties in the same order as `onnx.NodeProto.create({ input, output,
 * name, op_type, attribute })` gives (so the encoded bytes and JSON.stringify are unchanged), and
 * its 'to' attribute likewise an onnx.AttributeProto. But a constructor of its own assigns every
 * field: V8 then keeps the fields inside the object. protobufjs's constructor assigns only the
 * repeated fields, so the fields set after it (name, op_type; name, i, type) spilled into a
 * separate property array, 64 bytes a message.
 *
 * Empty repeated fields (metadata_props, device_configurations; the attribute's floats, ints...):
 * own empty arrays, as protobufjs makes them, unless the model's own nodes read theirs from the
 * prototype's shared frozen empty array (decoded with sharedEmptyFields, as the command line
 * does). Then a Cast's empty fields are that same frozen array, nine arrays a Cast less, and a
 * Cast is no more (and no less) editable than the model's other nodes. There, too, the Casts to
 * one type share one frozen 'to' attribute in one frozen list (about 150 bytes a Cast less: a
 * big model gains one Cast for every two nodes); a Cast's own edges stay its own arrays.
 */
import { onnx } from '../../onnx/generated/onnx.js';

/** The frozen empty array protobufjs puts on the prototypes ($util.emptyArray). */
const SHARED_EMPTY = onnx.NodeProto.prototype.metadata_props as never[];

interface CastAttributeConstructor {
  new (to: number, shared: boolean): onnx.AttributeProto;
  prototype: onnx.AttributeProto;
}

interface CastNodeConstructor {
  new (input: string, output: string, name: string, attribute: onnx.AttributeProto[], shared: boolean): onnx.NodeProto;
  prototype: onnx.NodeProto;
}

/** `to` as an INT attribute; field order: AttributeProto's constructor's, then name, i, type. */
const CastAttribute = function (this: onnx.AttributeProto, to: number, shared: boolean) {
  this.floats = shared ? SHARED_EMPTY : [];
  this.ints = shared ? SHARED_EMPTY : [];
  this.strings = shared ? SHARED_EMPTY : [];
  this.tensors = shared ? SHARED_EMPTY : [];
  this.graphs = shared ? SHARED_EMPTY : [];
  this.sparse_tensors = shared ? SHARED_EMPTY : [];
  this.type_protos = shared ? SHARED_EMPTY : [];
  this.name = 'to';
  this.i = to as unknown as onnx.AttributeProto['i'];
  this.type = onnx.AttributeProto.AttributeType.INT;
} as unknown as CastAttributeConstructor;
CastAttribute.prototype = onnx.AttributeProto.prototype;

/** Field order: NodeProto's constructor's (input, output, attribute, metadata_props, device_configurations), then name, op_type. */
const CastNode = function (this: onnx.NodeProto, input: string, output: string, name: string, attribute: onnx.AttributeProto[], shared: boolean) {
  this.input = [input];
  this.output = [output];
  this.attribute = attribute;
  this.metadata_props = shared ? SHARED_EMPTY : [];
  this.device_configurations = shared ? SHARED_EMPTY : [];
  this.name = name;
  this.op_type = 'Cast';
} as unknown as CastNodeConstructor;
CastNode.prototype = onnx.NodeProto.prototype;

/** Whether `node` reads its empty repeated fields from the prototype's shared frozen array (a sharedEmptyFields decode). */
export function sharesEmptyFields(node: onnx.INodeProto | undefined): boolean {
  return node !== undefined && node.metadata_props === SHARED_EMPTY;
}

/** The frozen attribute list [to] shared by the Casts to each type (sharedEmptyFields only). */
const sharedAttributes = new Map<number, onnx.AttributeProto[]>();

function sharedAttributeList(to: number): onnx.AttributeProto[] {
  let list = sharedAttributes.get(to);
  if (!list) {
    list = Object.freeze([Object.freeze(new CastAttribute(to, true))]) as onnx.AttributeProto[];
    sharedAttributes.set(to, list);
  }
  return list;
}

/** A Cast of `input` to element type `to`, writing `output`, named `name`. */
export function castNode(input: string, output: string, to: number, name: string, sharedEmptyFields = false): onnx.NodeProto {
  const attribute = sharedEmptyFields ? sharedAttributeList(to) : [new CastAttribute(to, false)];
  return new CastNode(input, output, name, attribute, sharedEmptyFields);
}
