/**
 * From colors to a typed graph. Casts sit on tensor edges: at most one per (value, type) in each
 * scope, right after the value's producer, shared by every consumer that needs it. Graph
 * inputs and outputs keep their types; weights keep fp32 masters (one shared Cast each) or,
 * with --weights fp16, get a reduced-precision copy when every consumer wants one.
 */
import { dtypeAttribute, findAttribute, setDtypeAttribute } from '../../onnx/attributes.js';
import { DataType, dataTypeName } from '../../onnx/data-types.js';
import { onnx } from '../../onnx/generated/onnx.js';
import { slotCountOf, type GraphScope, type ModelGraph } from '../../onnx/graph.js';
import { typeVariableOfInput } from '../../onnx/schema.js';
import { lowPrecisionCopy } from '../../onnx/tensor-data.js';
import { attributeTypedOps, inferOutputType, type ElemTypes } from '../../onnx/type-inference.js';
import { castNode, sharesEmptyFields } from './cast-node.js';
import type { NodeDecision } from './decisions.js';
import { isFloatInput, isFloatOutput, type PaintedNode, type ScopePaint } from './paint.js';
import type { Wiring } from './audit-graph.js';

export interface CastOptions {
  target: number;
  /** Graph inputs that hold weights (training parameters): their Casts count as weight casts. */
  weightInputs: ReadonlySet<string>;
  weights: 'fp32' | 'fp16';
  /**
   * Where to keep the wiring a node had before its first rewired edge, for the audit: copying only
   * the nodes that change saves two arrays per node of a big graph. Absent: none is kept.
   */
  wiring?: Wiring;
  /**
   * Whether to list on each decision the Casts added on its edges (castsAdded, castsOnOutputs),
   * which only the audit reads (default true): false saves an array per rewired node.
   */
  noteCasts?: boolean;
}

export interface CastStats {
  /** Casts to the target type of values that are not weights. */
  castsToTarget: number;
  /** Casts of weights (initializers, Constant outputs) to the target type. */
  weightCasts: number;
  /** Casts back to float32, graph outputs included. */
  castsToFloat32: number;
  /** Initializers and Constants stored in the target type (--weights fp16). */
  weightsConverted: string[];
  /** Weights kept fp32 with --weights fp16, and why. */
  weightsKept: Array<{ name: string; reason: string }>;
  /** Existing Casts to float32 now casting to the target type. */
  castsRetargeted: number;
  /** Inserted Casts folded into the model's own Casts (cast-fold.ts), each with the model's Cast it went into. */
  castsFolded?: Array<{ cast: string; into: string; chain: string }>;
  /** Mask fills clamped to float16's lowest finite value before a Cast to float16 (mask-fill.ts). */
  masksClamped?: Array<{ clamp: string; value: string; fill: string; cast: string }>;
  /** Mask fills left unclamped before guarded Softmaxes (mask-fill.ts). */
  masksGuarded?: Array<{ value: string; fill: string; readers: string[] }>;
  /** Activation Casts by layer (casts-per-layer.ts). */
  castsPerLayer?: Array<{ layer: string; casts: number }>;
}

/** The element type of a value once the Casts are planned: a Cast's output its `to`, a lowered value the target type. */
export type TypeAfterPlan = (scope: GraphScope, name: string) => number | undefined;

const suffixOf = (type: number): string => (type === DataType.FLOAT ? 'fp32' : type === DataType.FLOAT16 ? 'fp16' : dataTypeName(type));
/**
 * What a Cast's name adds to its value's name, `/to_fp16`: one string per type, so that each name
 * is one concatenation (one 32-byte cons string over the value's name), where a template with the
 * suffix in it made two.
 */
const castSuffix = (type: number): string => `/to_${suffixOf(type)}`;

export function planCasts(graph: ModelGraph, paints: Map<GraphScope, ScopePaint>, types: ElemTypes, options: CastOptions): CastStats & { typeAfter: TypeAfterPlan } {
  const stats: CastStats = {
    castsToTarget: 0, weightCasts: 0, castsToFloat32: 0, weightsConverted: [], weightsKept: [], castsRetargeted: 0,
  };
  // Casts are made like the model's own nodes: sharing the frozen empty fields when those do.
  const sharedEmptyFields = sharesEmptyFields(graph.main.graph.node?.[0]);
  const noteCasts = options.noteCasts ?? true;
  const lowered = new Map<GraphScope, LoweredValues>();
  const loweredIn = (scope: GraphScope): LoweredValues => lowered.get(scope) ?? lowered.set(scope, new LoweredValues(scope)).get(scope)!;
  const isLowered = (scope: GraphScope, name: string): boolean => {
    // In the main graph every name is its own (resolve would answer the scope itself or nothing).
    if (!scope.parent) return (scope === mainScope ? mainLowered : loweredIn(scope)).has(name);
    // The scope that defines the name (resolve() without allocating its answer), else this one.
    let owner: GraphScope | undefined = scope;
    while (owner && !owner.definesLocally(name)) owner = owner.parent;
    return loweredIn(owner ?? scope).has(name);
  };
  const mainScope = graph.main;
  const mainLowered = loweredIn(mainScope);
  const target = options.target;
  const renameSuffix = `/${suffixOf(target)}`;
  const toTarget = castSuffix(target);
  const toFloat = castSuffix(DataType.FLOAT);
  const wiring = options.wiring;
  /**
   * Keeps a node's wiring before its first edit. Its outputs are copied only when they are about
   * to be renamed: a node whose inputs are rewired has had its outputs renamed already, if at all
   * (graph outputs come first in each scope), and they do not change after, so the audit reads
   * them from the node (an array less per rewired node).
   */
  const remember = (node: onnx.INodeProto, renamingOutputs = false): void => {
    if (!wiring || wiring.has(node)) return;
    // slice() copies a string array without the iterator protocol a spread goes through.
    const inputs = node.input ? node.input.slice() : [];
    wiring.set(node, renamingOutputs ? { inputs, outputs: node.output ? node.output.slice() : [] } : { inputs });
  };
  /** Casts made per scope, by type, then by value: one Cast per (value, type) in each scope. */
  const castsMade = new Map<GraphScope, Map<number, CastsMade>>();
  const castsIn = (home: GraphScope, type: number): CastsMade => {
    let byType = castsMade.get(home);
    if (!byType) castsMade.set(home, (byType = new Map()));
    let made = byType.get(type);
    if (!made) byType.set(type, (made = new CastsMade(home)));
    return made;
  };

  for (const scope of graph.scopes) {
    const paint = paints.get(scope);
    if (!paint) continue;
    const painted = paint.nodes;
    const nodes = scope.currentNodes();
    const low = loweredIn(scope);
    // Each node's painting, looked up once for the passes below (undefined for an unpainted node).
    const paintedAt: Array<PaintedNode | undefined> = new Array(nodes.length);
    for (let position = 0; position < nodes.length; position++) paintedAt[position] = painted.get(nodes[position] as onnx.INodeProto);
    // The ids of the nodes' names by position (GraphScope.valueIdHints(): each node's outputs, then
    // its inputs, checked against the name before use), so that asking whether an input is lowered
    // reads a byte by id instead of hashing the name into a Set. The loops below step through it
    // node by node (slotCountOf), every node counted, skipped or not.
    const hints = scope.valueIdHints(nodes);

    /** The type a painted node wants on input `index`; callers with many inputs look the node up once. */
    const wantsOf = (found: PaintedNode | undefined, index: number): number => {
      const schema = found?.facts.schema;
      if (found?.decision.color !== 'ALLOW' || !schema) return DataType.FLOAT;
      return found.facts.convertedVars.has(typeVariableOfInput(schema, index)?.typeStr ?? '') ? target : DataType.FLOAT;
    };
    const wants = (node: onnx.INodeProto, index: number): number => wantsOf(painted.get(node), index);
    /** Whether every reader of `name` in this scope wants the target type (none reads it from a subgraph). */
    const allReadersWantTarget = (name: string): boolean => {
      const uses = scope.consumersOf(name);
      return uses.length > 0 && !scope.isGraphOutput(name) && uses.every((use) => use.index >= 0 && wants(use.node, use.index) === target);
    };

    /** Input types of one node, reused: one list per input count, written by index, never emptied. */
    const convertedByArity: Array<Array<number | undefined>> = [];
    // Outputs of ALLOW nodes change type as the schema or the op's dtype rule says they follow
    // the converted inputs (the same inference validation runs afterwards).
    for (let position = 0, next = 0; position < nodes.length; position++) {
      const node = nodes[position] as onnx.INodeProto;
      const slotAt = next;
      if (hints) next += slotCountOf(node);
      const found = paintedAt[position];
      if (found?.decision.color !== 'ALLOW' || !found.facts.schema) continue;
      const nodeFacts = found.facts;
      const inputs = node.input ?? [];
      // Dense (undefined for an omitted input), as inferOutputType expects.
      const converted = (convertedByArity[inputs.length] ??= new Array<number | undefined>(inputs.length).fill(undefined));
      let generator = true;
      for (let index = 0; index < inputs.length; index++) {
        const name = inputs[index];
        if (!name) {
          converted[index] = undefined;
          continue;
        }
        const type = isFloatInput(found, node, index, scope, types) ? wantsOf(found, index) : types.get(scope, name);
        converted[index] = type;
        if (type === target) generator = false;
      }
      if (generator) {
        // An op that makes floats from attributes alone (on a list by the user's choice): its
        // dtype attribute or value tensor is retyped, and its float output follows.
        retypeDtypeAttribute(node, target);
        const output = node.output?.[0];
        if (output && isFloatOutput(found, node, 0, scope, types)) low.addId(scope.hintedValueId(hints ? hints[slotAt] : undefined, output), output);
        continue;
      }
      const outputs = node.output ?? [];
      for (let index = 0; index < outputs.length; index++) {
        const name = outputs[index];
        if (!name || !isFloatOutput(found, node, index, scope, types)) continue;
        if (inferOutputType(node, index, converted, nodeFacts.schema)?.elemType === target) low.addId(scope.hintedValueId(hints ? hints[slotAt + index] : undefined, name), name);
      }
    }

    // Step 7, existing Casts: a Cast to float32 that feeds only ALLOW nodes casts straight to the
    // target type, instead of gaining a second Cast after it. A Cast from fp16/bf16 stays.
    for (let position = 0; position < nodes.length; position++) {
      const node = nodes[position] as onnx.INodeProto;
      if (node.op_type !== 'Cast') continue;
      const decision = paintedAt[position]?.decision;
      if (!decision || node.domain || decision.color === 'ALLOW') continue;
      const to = findAttribute(node, 'to');
      const input = node.input?.[0];
      const output = node.output?.[0];
      if (!to || !input || !output || dtypeAttribute(node, 'to') !== DataType.FLOAT) continue;
      const from = types.get(scope, input);
      if (from === DataType.FLOAT16 || from === DataType.BFLOAT16 || !allReadersWantTarget(output)) continue;
      setDtypeAttribute(to, target);
      low.add(output);
      decision.color = 'ALLOW';
      decision.rule = 'cast-retarget';
      decision.reason = `casts to ${dataTypeName(target)} directly: every reader computes in it`;
      stats.castsRetargeted++;
    }

    // --weights fp16: store a reduced-precision copy of a weight that only target-type readers use.
    if (options.weights === 'fp16') {
      const initializers = scope.graph.initializer ?? [];
      initializers.forEach((tensor, position) => {
        const name = tensor.name ?? '';
        if (tensor.data_type !== DataType.FLOAT || scope.inputs.has(name) || !allReadersWantTarget(name)) return;
        const copy = lowPrecisionCopy(tensor, target);
        if (!copy.ok) {
          stats.weightsKept.push({ name, reason: copy.reason });
          return;
        }
        initializers[position] = copy.tensor;
        scope.initializers.set(name, copy.tensor);
        low.add(name);
        stats.weightsConverted.push(name);
      });
      for (let position = 0; position < nodes.length; position++) {
        const node = nodes[position] as onnx.INodeProto;
        const output = node.output?.[0];
        // Constant and ConstantOfShape hold their float data in a 'value' tensor attribute.
        const value = paintedAt[position]?.decision.rule === 'constant-source' ? findAttribute(node, 'value') : undefined;
        if (!output || !value?.t || value.t.data_type !== DataType.FLOAT || !allReadersWantTarget(output)) continue;
        const copy = lowPrecisionCopy(value.t, target);
        if (!copy.ok) {
          stats.weightsKept.push({ name: output, reason: copy.reason });
          continue;
        }
        value.t = copy.tensor;
        low.add(output);
        stats.weightsConverted.push(output);
      }
    }

    // Graph outputs keep their types: the producer writes a renamed low-precision value and a
    // Cast to float32 feeds the output's own name.
    const lowAlias = new Map<string, string>();
    for (const name of [...scope.outputs.keys()]) {
      if (!low.has(name)) continue;
      const producer = scope.producerOf(name);
      if (!producer) continue;
      const renamed = graph.uniqueName(name + renameSuffix);
      remember(producer.node, true);
      scope.renameNodeOutput(producer.node, producer.index, renamed);
      const cast = castNode(renamed, name, DataType.FLOAT, name === renamed ? graph.uniqueName(name) : graph.uniqueName(name + toFloat), sharedEmptyFields);
      scope.insertNodeAfter(producer.node, cast);
      const producerDecision = noteCasts ? painted.get(producer.node)?.decision : undefined;
      if (producerDecision) (producerDecision.castsOnOutputs ??= []).push(cast.name);
      stats.castsToFloat32++;
      low.delete(name);
      low.add(renamed);
      lowAlias.set(name, renamed);
      setValueInfoType(scope, renamed, name, target);
    }

    // This scope's constant sources (few), so that a Cast of a node's output asks a small Set, not
    // the Map of every painted node. The rules are final here: Casts change no decision's rule.
    const constantSources = new Set<onnx.INodeProto>();
    for (let position = 0; position < nodes.length; position++) {
      if (paintedAt[position]?.decision.rule === 'constant-source') constantSources.add(nodes[position] as onnx.INodeProto);
    }
    const isConstantSource = (owner: GraphScope, node: onnx.INodeProto): boolean =>
      owner === scope ? constantSources.has(node) : paints.get(owner)?.nodes.get(node)?.decision.rule === 'constant-source';
    // This scope's Casts by type, found once per scope instead of through two Maps per edge.
    let madeToTarget: CastsMade | undefined;
    let madeToFloat: CastsMade | undefined;
    const madeHere = (type: number): CastsMade =>
      type === target ? (madeToTarget ??= castsIn(scope, type)) : type === DataType.FLOAT ? (madeToFloat ??= castsIn(scope, type)) : castsIn(scope, type);
    // The ids of the last Cast's names as castTo() knew them, outputs then inputs as the graph
    // model's hints are laid out (checked where used): each would be hashed again by the graph
    // model's insertion and by the reader's setInput(), about six lookups per Cast on a big graph.
    const castIds = new Int32Array(2);
    /**
     * `id`: the name's id in this scope's index (-1: none), as hintedValueId() answers it. Leaves
     * the id of the Cast's output, as far as it is known, in castIds[0].
     */
    const castTo = (name: string, id: number, type: number): string => {
      // In the main graph every Cast lives in the main graph: a Cast made before is found without
      // resolving the name (most calls find one).
      if (!scope.parent) {
        const made = madeHere(type);
        const existing = made.getById(id, name);
        if (existing) {
          castIds[0] = made.outputIdById(id);
          return existing;
        }
      }
      // Where the name is defined, as resolve() would say, without allocating its answer.
      let owner: GraphScope | undefined = scope;
      let producer: onnx.INodeProto | undefined;
      let isInput = false;
      for (; owner; owner = owner.parent) {
        producer = owner === scope ? scope.producerNodeOfId(id) : owner.producerNodeOf(name);
        if (producer) break;
        if (owner.inputs.has(name)) {
          isInput = true;
          break;
        }
        if (owner.initializers.has(name)) break;
      }
      const isWeight =
        owner !== undefined &&
        (producer
          ? isConstantSource(owner, producer)
          : // An initializer (found above), or an input with a default (an initializer of the same name) or named a weight.
            !isInput || owner.initializers.has(name) || options.weightInputs.has(name));
      // A weight from an enclosing scope is cast where it is defined, once: inside a Loop or Scan
      // body the Cast would run at every iteration. Its readers see the result as an outer value.
      const home = isWeight && owner ? owner : scope;
      const made = home === scope ? madeHere(type) : castsIn(home, type);
      // The main graph's Casts were looked for above.
      if (scope.parent) {
        const existing = home === scope ? made.getById(id, name) : made.get(name);
        if (existing) return existing;
      }
      const output = graph.uniqueNameInto(name + (type === target ? toTarget : type === DataType.FLOAT ? toFloat : castSuffix(type)), castIds, 0);
      castIds[1] = home === scope ? id : -1;
      const cast = castNode(name, output, type, output, sharedEmptyFields);
      const anchor = producer && owner === home ? producer : null;
      home.insertNodeAfter(anchor, cast, castIds);
      if (type !== DataType.FLOAT) {
        if (isWeight) stats.weightCasts++;
        else stats.castsToTarget++;
      } else stats.castsToFloat32++;
      // By the id asked with, unless the name had none: the Cast's own read has indexed it now.
      if (home === scope && id >= 0) made.setById(id, name, output, castIds[0]);
      else made.set(name, output);
      return output;
    };

    const anyAlias = lowAlias.size > 0;
    for (let position = 0, next = 0; position < nodes.length; position++) {
      const node = nodes[position] as onnx.INodeProto;
      const slotAt = next;
      if (hints) next += slotCountOf(node);
      const inputs = node.input;
      if (!inputs) continue;
      const found = paintedAt[position];
      const decision = found?.decision as NodeDecision | undefined;
      const inputSlots = slotAt + (node.output ? node.output.length : 0);
      for (let index = 0; index < inputs.length; index++) {
        const name = inputs[index];
        if (!name) continue;
        // No graph output renamed (the common case): no alias lookup per input.
        const alias = anyAlias ? lowAlias.get(name) : undefined;
        if (!alias && !isFloatInput(found, node, index, scope, types)) continue;
        const want = wantsOf(found, index);
        if (want === target && alias) {
          remember(node);
          scope.setInput(node, index, alias);
          continue;
        }
        const id = scope.hintedValueId(hints ? hints[inputSlots + index] : undefined, name);
        const have = (scope.parent ? isLowered(scope, name) : low.hasId(id, name)) ? target : DataType.FLOAT;
        if (have === want) continue;
        castIds[0] = -1;
        const cast = castTo(name, id, want);
        remember(node);
        if (hints) scope.setHintedInput(node, index, cast, inputSlots + index, castIds[0], id);
        else scope.setInput(node, index, cast);
        if (decision && noteCasts) {
          // Painting shares one frozen empty list among its decisions: a list per node only when a Cast is added.
          if (decision.castsAdded.length) decision.castsAdded.push(cast);
          else decision.castsAdded = [cast];
        }
      }
    }

    const lowered = low.names();
    for (let i = 0; i < lowered.length; i++) setValueInfoType(scope, lowered[i] as string, lowered[i] as string, target);
  }
  const typeAfter: TypeAfterPlan = (scope, name) => {
    const producer = scope.producerOf(name)?.node;
    if (producer?.op_type === 'Cast' && !producer.domain) return dtypeAttribute(producer, 'to');
    return isLowered(scope, name) ? target : types.get(scope, name);
  };
  return Object.assign(stats, { typeAfter });
}

/**
 * @internal The Casts made in one scope to one type: value -> the Cast's output, by the scope's value
 * ids (an index into the outputs per id), so that a caller with the id from a checked hint finds a
 * Cast made before, and records a new one, without hashing the name. Names the scope's index does
 * not know keep a Map of their own.
 */
export class CastsMade {
  /** By value id: 0 none, else 1 + the index of the Cast's output in `outputs`. */
  private slots = new Int32Array(1024);
  private readonly outputs: string[] = [];
  /** The id of each output in the scope's index when the Cast was made (-1: not known). */
  private readonly outputIds: number[] = [];
  private readonly unindexed = new Map<string, string>();

  constructor(private readonly scope: GraphScope) {}

  get(name: string): string | undefined {
    return this.getById(this.scope.valueIdOf(name), name);
  }

  /** get(name), given the name's id in the scope's index (-1: none). */
  getById(id: number, name: string): string | undefined {
    if (id < 0) return this.unindexed.get(name);
    const slot = id < this.slots.length ? (this.slots[id] as number) : 0;
    return slot === 0 ? undefined : this.outputs[slot - 1];
  }

  set(name: string, output: string): void {
    this.setById(this.scope.valueIdOf(name), name, output);
  }

  /** The id getById(id) answer's Cast output had when made (-1: not known, or no such Cast). */
  outputIdById(id: number): number {
    const slot = id >= 0 && id < this.slots.length ? (this.slots[id] as number) : 0;
    return slot === 0 ? -1 : (this.outputIds[slot - 1] as number);
  }

  /** set(name, output), given the name's id in the scope's index (-1: none) and the output's (-1: not known). */
  setById(id: number, name: string, output: string, outputId = -1): void {
    if (id < 0) {
      this.unindexed.set(name, output);
      return;
    }
    let slots = this.slots;
    if (id >= slots.length) {
      slots = new Int32Array(Math.max(slots.length * 2, id + 1));
      slots.set(this.slots);
      this.slots = slots;
    }
    this.outputs.push(output);
    this.outputIds.push(outputId);
    slots[id] = this.outputs.length;
  }
}

/**
 * @internal The values of one scope that now hold the target type, by the scope's value ids: with
 * the id from a checked hint, asking and adding cost a byte read or write, where a Set of names
 * hashed every float input's name. Names the scope's index does not know keep a Set of their own.
 */
export class LoweredValues {
  /** By value id: 1 lowered, 2 lowered once and no longer. */
  private flags = new Uint8Array(1024);
  private readonly unindexed = new Set<string>();
  /** Every name lowered at some point, once, in the order first lowered. */
  private readonly listed: string[] = [];
  /** The id each listed name had when lowered (-1: none then, so names() asks by name). */
  private readonly listedIds: number[] = [];

  constructor(private readonly scope: GraphScope) {}

  has(name: string): boolean {
    return this.hasId(this.scope.valueIdOf(name), name);
  }

  /** has(name), given the name's id in the scope's index (-1: none). */
  hasId(id: number, name: string): boolean {
    if (id < 0) return this.unindexed.has(name);
    return id < this.flags.length && this.flags[id] === 1;
  }

  add(name: string): void {
    this.addId(this.scope.valueIdOf(name), name);
  }

  /** add(name), given the name's id in the scope's index (-1: none). */
  addId(id: number, name: string): void {
    if (id < 0) {
      if (!this.unindexed.has(name)) {
        this.unindexed.add(name);
        this.listed.push(name);
        this.listedIds.push(-1);
      }
      return;
    }
    let flags = this.flags;
    if (id >= flags.length) {
      flags = new Uint8Array(Math.max(flags.length * 2, id + 1));
      flags.set(this.flags);
      this.flags = flags;
    }
    if (flags[id] === 0) {
      this.listed.push(name);
      this.listedIds.push(id);
    }
    flags[id] = 1;
  }

  delete(name: string): void {
    const id = this.scope.valueIdOf(name);
    if (id < 0) this.unindexed.delete(name);
    else if (id < this.flags.length && this.flags[id] === 1) this.flags[id] = 2;
  }

  /** The values lowered now (value_info is retyped for each; the order does not matter). */
  names(): string[] {
    // By the id each was listed with (ids are never reused): asking by name hashed every lowered
    // value's name again, a tenth of cast planning on a big graph.
    const lowered: string[] = [];
    for (let i = 0; i < this.listed.length; i++) {
      const id = this.listedIds[i] as number;
      const name = this.listed[i] as string;
      if (id >= 0 ? this.flags[id] === 1 : this.has(name)) lowered.push(name);
    }
    return lowered;
  }
}

/** Keeps value_info true: a value that changed type must not still be declared float32. */
function setValueInfoType(scope: GraphScope, name: string, declaredAs: string, type: number): void {
  const info = scope.valueInfo.get(declaredAs);
  const tensorType = info?.type?.tensor_type;
  if (!info || !tensorType) return;
  if (name === declaredAs) {
    tensorType.elem_type = type;
    return;
  }
  const copy = onnx.ValueInfoProto.create({ name, type: onnx.TypeProto.create({ tensor_type: onnx.TypeProto.Tensor.create({ elem_type: type }) }) });
  if (tensorType.shape) copy.type!.tensor_type!.shape = tensorType.shape;
  scope.graph.value_info = [...(scope.graph.value_info ?? []), copy];
  scope.valueInfo.set(name, copy);
}

/**
 * An ALLOW node that creates floats from attributes alone (rules/dtype-attributes.json, only
 * painted when a user puts it on a list) now creates the target type: its dtype attribute is
 * set, or its value tensor converted.
 */
function retypeDtypeAttribute(node: onnx.INodeProto, target: number): void {
  if (node.domain) return;
  const rule = attributeTypedOps().get(node.op_type ?? '');
  if (!rule || (rule.outputs && !rule.outputs.includes(0))) return;
  if (rule.attribute) {
    const attribute = findAttribute(node, rule.attribute);
    if (attribute && dtypeAttribute(node, rule.attribute) === DataType.FLOAT) setDtypeAttribute(attribute, target);
    else if (!attribute && rule.otherwise && 'type' in rule.otherwise && rule.otherwise.type === 'float') {
      node.attribute = [...(node.attribute ?? []), onnx.AttributeProto.create({ name: rule.attribute, type: onnx.AttributeProto.AttributeType.INT, i: target })];
    }
  }
  if (rule.tensorAttribute) {
    const attribute = findAttribute(node, rule.tensorAttribute);
    if (attribute?.t?.data_type === DataType.FLOAT) {
      const copy = lowPrecisionCopy(attribute.t, target);
      if (copy.ok) attribute.t = copy.tensor;
    } else if (!attribute) {
      const zero = onnx.TensorProto.create({ dims: [1], data_type: target, raw_data: new Uint8Array(2) });
      node.attribute = [...(node.attribute ?? []), onnx.AttributeProto.create({ name: rule.tensorAttribute, type: onnx.AttributeProto.AttributeType.TENSOR, t: zero })];
    }
  }
}

