/**
 * A strict walk over protobuf bytes before protobufjs decodes them. protobufjs is lenient: it
 * accepts field number 0, reads a known field with whatever wire type it finds, and turns invalid
 * UTF-8 into U+FFFD, so a damaged model decodes into a different model from the one other tools
 * see (or one ONNX Runtime refuses) and a read/write cycle would not reproduce its bytes. This walk
 * rejects what protobuf's reference parser rejects; fields it does not know are only skipped (the
 * codec keeps them byte for byte).
 */
import { AmpError } from './errors.js';
import { WIRE_SCHEMA } from './wire-schema.generated.js';

/** Deeper nesting than this is refused (protobuf's default recursion limit is 100). */
const MAX_DEPTH = 100;

const WIRE_NAMES = ['varint', 'fixed64', 'length-delimited', 'start-group', 'end-group', 'fixed32', 'wire type 6', 'wire type 7'];
const EXPECTED_WIRE: Record<string, number> = { v: 0, d: 1, s: 2, b: 2, m: 2, f: 5 };

const utf8 = new TextDecoder('utf-8', { fatal: true });

class WireError extends Error {
  constructor(
    message: string,
    readonly at: number,
    /** The damage is a length that runs past the end of the whole input. */
    readonly pastEnd = false,
  ) {
    super(message);
  }
}

/**
 * Throws an AmpError (TRUNCATED or NOT_ONNX, naming the byte offset and the message type) when
 * `bytes` are not a well-formed encoding of `rootType` (e.g. 'onnx.ModelProto').
 */
export function checkWireFormat(bytes: Uint8Array, rootType: string, source: string, what = 'an ONNX ModelProto'): void {
  try {
    walk(bytes, 0, bytes.length, rootType, rulesOf(rootType), 0);
  } catch (error) {
    if (!(error instanceof WireError)) throw error;
    // A model starts with ir_version (field 1, varint); other bytes that run out are not a model at all.
    if (error.pastEnd && (rootType !== 'onnx.ModelProto' || bytes[0] === 0x08)) {
      throw new AmpError('TRUNCATED', `${source}: truncated ONNX file (a field runs past the end of the file at byte ${bytes.length})`, {
        subject: source,
      });
    }
    throw new AmpError('NOT_ONNX', `${source}: not ${what} (${error.message} at byte ${error.at})`, { subject: source });
  }
}

/** Where the varint last read by readVarint ends (a module variable, so no result object per varint). */
let varintEnd = 0;

function readVarint(bytes: Uint8Array, pos: number, end: number): number {
  // Tags and short lengths are one byte.
  if (pos < end) {
    const first = bytes[pos] as number;
    if (first < 0x80) {
      varintEnd = pos + 1;
      return first;
    }
  }
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (pos + i >= end) throw new WireError('a varint runs past the end', pos, end === bytes.length);
    const byte = bytes[pos + i] as number;
    if (i < 7) value += (byte & 0x7f) * scale; // exact up to 2^49; larger values are only lengths we reject anyway
    scale *= 128;
    if ((byte & 0x80) === 0) {
      varintEnd = pos + i + 1;
      return i < 7 ? value : Number.MAX_SAFE_INTEGER;
    }
  }
  throw new WireError('a varint longer than 10 bytes', pos);
}

/** A field of the schema, resolved once per message type instead of parsing its kind string per occurrence. */
interface FieldRule {
  kind: string;
  /** A string field: its bytes must be valid UTF-8. */
  string: boolean;
  /** The wire type the field is written with; a repeated scalar may also come packed (wire type 2). */
  wire: number;
  repeatedScalar: boolean;
  /** The message type of a message field. */
  child: string | undefined;
  /** The child's rules, looked up once (walk runs once per message: hundreds of thousands of times). */
  childRules: (FieldRule | undefined)[] | undefined;
}

const RULES = new Map<string, (FieldRule | undefined)[]>();

function rulesOf(type: string): (FieldRule | undefined)[] {
  let rules = RULES.get(type);
  if (rules === undefined) {
    rules = [];
    for (const [number, kind] of Object.entries(WIRE_SCHEMA[type] ?? {})) {
      const repeatedScalar = kind.startsWith('r');
      const base = repeatedScalar ? kind.slice(1) : kind.slice(0, 1);
      rules[Number(number)] = { kind, string: kind === 's', wire: EXPECTED_WIRE[base] as number, repeatedScalar, child: kind.startsWith('m:') ? kind.slice(2) : undefined, childRules: undefined };
    }
    RULES.set(type, rules);
  }
  return rules;
}

function walk(bytes: Uint8Array, start: number, end: number, type: string, rules: (FieldRule | undefined)[], depth: number): void {
  if (depth > MAX_DEPTH) throw new WireError(`nesting deeper than ${MAX_DEPTH} messages`, start);
  let pos = start;
  while (pos < end) {
    const tagAt = pos;
    // One-byte tags (fields 1 to 15) are read here: the walk starts cold on every model, where
    // each call and Math.floor costs, and most of its steps are a name's tag and length.
    let tag = bytes[pos] as number;
    if (tag < 0x80) pos++;
    else {
      tag = readVarint(bytes, pos, end);
      pos = varintEnd;
    }
    const field = tag < 0x80 ? tag >> 3 : Math.floor(tag / 8);
    const wire = tag % 8;
    if (field === 0) throw new WireError(`field number 0 in ${type}`, tagAt);
    if (field > 0x1fffffff) throw new WireError(`field number ${field} out of range in ${type}`, tagAt);
    const rule = field < rules.length ? rules[field] : undefined;
    if (rule !== undefined && wire !== rule.wire && !(rule.repeatedScalar && wire === 2)) {
      throw new WireError(`field ${field} of ${type} has wire type ${WIRE_NAMES[wire]}, expected ${WIRE_NAMES[rule.wire]}`, tagAt);
    }
    switch (wire) {
      case 0:
        readVarint(bytes, pos, end);
        pos = varintEnd;
        break;
      case 1:
      case 5: {
        const size = wire === 1 ? 8 : 4;
        if (pos + size > end) throw new WireError(`a ${WIRE_NAMES[wire]} field runs past the end of its ${type}`, tagAt, end === bytes.length);
        pos += size;
        break;
      }
      case 2: {
        let length = pos < end ? (bytes[pos] as number) : 0x80;
        let bodyStart = pos + 1;
        if (length >= 0x80) {
          length = readVarint(bytes, pos, end);
          bodyStart = varintEnd;
        }
        const bodyEnd = bodyStart + length;
        if (bodyEnd > end) {
          throw new WireError(`field ${field} of ${type} (${length} bytes) runs past the end of its message`, tagAt, bodyEnd > bytes.length || end === bytes.length);
        }
        if (rule !== undefined) {
          if (rule.child !== undefined) walk(bytes, bodyStart, bodyEnd, rule.child, (rule.childRules ??= rulesOf(rule.child)), depth + 1);
          else if (!rule.string || !isAscii(bytes, bodyStart, bodyEnd)) checkLengthDelimited(bytes, bodyStart, bodyEnd, rule.kind, field, type);
        }
        pos = bodyEnd;
        break;
      }
      case 3:
        pos = skipGroup(bytes, pos, end, field, type, depth);
        break;
      default:
        throw new WireError(`${WIRE_NAMES[wire]} (field ${field} of ${type}) is not a valid wire type here`, tagAt);
    }
  }
}

/** ASCII is valid UTF-8, and names are nearly always ASCII: only other strings go to the decoder. */
function isAscii(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if ((bytes[i] as number) >= 0x80) return false;
  return true;
}

function checkLengthDelimited(bytes: Uint8Array, start: number, end: number, kind: string, field: number, type: string): void {
  if (kind === 's') {
    if (isAscii(bytes, start, end)) return;
    try {
      utf8.decode(bytes.subarray(start, end));
    } catch {
      throw new WireError(`field ${field} of ${type} is a string with invalid UTF-8`, start);
    }
  } else if (kind === 'rv') {
    for (let pos = start; pos < end; ) {
      readVarint(bytes, pos, end);
      pos = varintEnd;
    }
  } else if ((kind === 'rf' && (end - start) % 4 !== 0) || (kind === 'rd' && (end - start) % 8 !== 0)) {
    throw new WireError(`packed field ${field} of ${type} has ${end - start} bytes, not a whole number of values`, start);
  }
}

/** Skips a group (wire types 3..4) of an unknown field; groups nest. */
function skipGroup(bytes: Uint8Array, pos: number, end: number, field: number, type: string, depth: number): number {
  if (depth > MAX_DEPTH) throw new WireError(`nesting deeper than ${MAX_DEPTH} groups`, pos);
  while (pos < end) {
    const tagAt = pos;
    const tag = readVarint(bytes, pos, end);
    pos = varintEnd;
    const inner = Math.floor(tag / 8);
    const wire = tag % 8;
    if (inner === 0) throw new WireError(`field number 0 in a group of ${type}`, tagAt);
    if (wire === 4) {
      if (inner !== field) throw new WireError(`a group of field ${field} in ${type} ends with field ${inner}`, tagAt);
      return pos;
    }
    if (wire === 0) {
      readVarint(bytes, pos, end);
      pos = varintEnd;
    }
    else if (wire === 1 || wire === 5) pos += wire === 1 ? 8 : 4;
    else if (wire === 2) {
      const length = readVarint(bytes, pos, end);
      pos = varintEnd + length;
    } else if (wire === 3) pos = skipGroup(bytes, pos, end, inner, type, depth + 1);
    else throw new WireError(`wire type ${wire} in a group of ${type}`, tagAt);
    if (pos > end) throw new WireError(`a group of field ${field} in ${type} runs past the end`, tagAt, end === bytes.length);
  }
  throw new WireError(`a group of field ${field} in ${type} is not closed`, pos, end === bytes.length);
}
