/**
 * One node's element types against its operator schema: each typed input and output within the
 * types its formal parameter allows, and every actual bound to one type variable of one type.
 * Shared by the validator (which words the violations) and the type inference (which checks each
 * node while it has the node's types at hand, so that validating its result need not look every
 * value's type up again).
 */
import { elemTypeOfTypeString } from './type-strings.js';
import { typeVariableOfInput, typeVariableOfOutput, typesOf, type FormalParameter, type OpSchema } from './schema.js';

export type TypeConstraintViolation =
  | { kind: 'not-allowed'; role: 'input' | 'output'; name: string; type: number; formal: FormalParameter }
  | { kind: 'mixed'; bound: { name: string; type: number }; name: string; type: number; typeStr: string };

/**
 * The element types a formal parameter allows as tensors, or null when it allows no tensor type
 * (sequences, optionals: not checked here). Cached per formal: a big graph asks the same few
 * thousand times, and comparing type strings per input was a good part of validation's time.
 */
const allowedCache = new WeakMap<FormalParameter, ReadonlySet<number> | null>();

function allowedTensorTypes(schema: OpSchema, formal: FormalParameter): ReadonlySet<number> | null {
  let allowed = allowedCache.get(formal);
  if (allowed === undefined) {
    const tensorTypes = typesOf(schema, formal).filter((t) => t.startsWith('tensor('));
    allowed = tensorTypes.length ? new Set(tensorTypes.map((t) => elemTypeOfTypeString(t) ?? -1)) : null;
    allowedCache.set(formal, allowed);
  }
  return allowed;
}

/**
 * Type variables bound so far on one node: reused from node to node, no Map per node, and
 * emptied by resetting a count (setting an array's length is a call into the runtime).
 */
const boundVariables: string[] = [];
const boundTypes: number[] = [];
const boundNames: string[] = [];
let boundCount = 0;

/**
 * Checks a node whose inputs have `inputTypes` and outputs `outputTypes` (undefined: unknown, not
 * checked; entries past the node's inputs or outputs are not read). Reports each violation in input-then-output order when `report` is given; without it,
 * stops at the first. Returns whether there was none.
 */
export function checkNodeTypeConstraints(
  node: { input?: string[] | null; output?: string[] | null },
  schema: OpSchema,
  inputTypes: ArrayLike<number | undefined>,
  outputTypes: ArrayLike<number | undefined>,
  report?: (violation: TypeConstraintViolation) => void,
): boolean {
  boundCount = 0;
  let ok = true;
  const inputs = node.input;
  if (inputs) {
    for (let i = 0; i < inputs.length; i++) {
      if (!checkValue(schema, typeVariableOfInput(schema, i), inputs[i], inputTypes[i], 'input', report)) {
        ok = false;
        if (!report) return false;
      }
    }
  }
  const outputs = node.output;
  if (outputs) {
    for (let i = 0; i < outputs.length; i++) {
      if (!checkValue(schema, typeVariableOfOutput(schema, i), outputs[i], outputTypes[i], 'output', report)) {
        ok = false;
        if (!report) return false;
      }
    }
  }
  return ok;
}

function checkValue(
  schema: OpSchema,
  formal: FormalParameter | undefined,
  name: string | null | undefined,
  type: number | undefined,
  role: 'input' | 'output',
  report: ((violation: TypeConstraintViolation) => void) | undefined,
): boolean {
  if (!formal || !name || formal.heterogeneous || type === undefined) return true;
  let at = 0;
  while (at < boundCount && boundVariables[at] !== formal.typeStr) at++;
  // ONNX Runtime checks inputs against the schema and takes an output's type from inference as it
  // comes: an output whose type variable no input binds (a Constant's value, a Cast's `to`, a
  // dtype attribute) may hold any type its kernel makes, and ONNX Runtime loads a Constant-1 that
  // holds class-label strings. Its readers' inputs are checked where they are read.
  const typedByAttributes = role === 'output' && at === boundCount;
  const allowed = typedByAttributes ? null : allowedTensorTypes(schema, formal);
  if (allowed && !allowed.has(type)) {
    report?.({ kind: 'not-allowed', role, name, type, formal });
    return false;
  }
  if (!(formal.typeStr in schema.typeConstraints)) return true;
  if (at === boundCount) {
    boundVariables[at] = formal.typeStr;
    boundTypes[at] = type;
    boundNames[at] = name;
    boundCount++;
    return true;
  }
  if (boundTypes[at] === type) return true;
  report?.({ kind: 'mixed', bound: { name: boundNames[at] as string, type: boundTypes[at] as number }, name, type, typeStr: formal.typeStr });
  return false;
}

/**
 * Verdicts of checkNodeTypeConstraints() per schema and node signature (how many inputs and
 * outputs, and each one's element type or none), which is all the verdict depends on: a big
 * graph repeats a few hundred signatures, so the type inference checks each node with two lookups
 * instead of walking its formals.
 */
const verdicts = new WeakMap<OpSchema, Map<number, boolean>>();

/** checkNodeTypeConstraints() without a report, remembered per signature where it fits in a small integer. */
export function nodeTypesWithinSchema(
  node: { input?: string[] | null; output?: string[] | null },
  schema: OpSchema,
  inputTypes: ArrayLike<number | undefined>,
  outputTypes: ArrayLike<number | undefined>,
): boolean {
  const key = signatureKey(node, inputTypes, outputTypes);
  if (key < 0) return checkNodeTypeConstraints(node, schema, inputTypes, outputTypes);
  let known = verdicts.get(schema);
  if (!known) verdicts.set(schema, (known = new Map()));
  const verdict = known.get(key);
  if (verdict !== undefined) return verdict;
  const computed = checkNodeTypeConstraints(node, schema, inputTypes, outputTypes);
  known.set(key, computed);
  return computed;
}

/**
 * Up to four values in all: 3 bits for each count, 6 bits per value (0: no name or unknown type,
 * else the element type + 1, below 63), 30 bits in all so it stays a small integer. -1: too big.
 */
function signatureKey(node: { input?: string[] | null; output?: string[] | null }, inputTypes: ArrayLike<number | undefined>, outputTypes: ArrayLike<number | undefined>): number {
  const inputs = node.input;
  const outputs = node.output;
  const inputCount = inputs?.length ?? 0;
  const outputCount = outputs?.length ?? 0;
  if (inputCount + outputCount > 4) return -1;
  let key = inputCount * 8 + outputCount;
  for (let i = 0; i < inputCount; i++) {
    const code = valueCode((inputs as string[])[i], inputTypes[i]);
    if (code < 0) return -1;
    key = key * 64 + code;
  }
  for (let i = 0; i < outputCount; i++) {
    const code = valueCode((outputs as string[])[i], outputTypes[i]);
    if (code < 0) return -1;
    key = key * 64 + code;
  }
  return key;
}

function valueCode(name: string | undefined, type: number | undefined): number {
  if (!name || type === undefined) return 0;
  return Number.isInteger(type) && type >= 0 && type < 62 ? type + 1 : -1;
}
