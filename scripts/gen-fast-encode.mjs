// Generates src/onnx/generated/onnx-encode.js: a two-pass encoder for every message of onnx.proto
// that writes exactly the bytes protobufjs's static encoder writes, several times faster.
//
// Why: protobufjs's Writer allocates an operation object per field, forks and re-links a list per
// sub-message, and only then copies everything into the output. Here a first pass computes each
// sub-message's length once (kept in one flat array, in visiting order), and a second pass writes
// straight into one buffer of the exact size. Field order, presence rules (an optional field is
// written when it is an own property and not null; a repeated one when non-empty), the varint forms
// of int32/int64 and the string/bytes encodings copy protobufjs's encoder and writer
// (protobufjs/src/encoder.js, writer.js, writer_buffer.js), so the output is byte-identical;
// test/onnx/fast-encode.test.ts and the corpus gate compare the two.
import protobuf from 'protobufjs';

const VARINT = new Set(['int32', 'int64', 'uint64', 'uint32']);
const TAGGED = { int32: 0, int64: 0, uint64: 0, uint32: 0, float: 5, double: 1, string: 2, bytes: 2 };

const ident = (type) => type.fullName.slice(1).replace(/\./g, '_');

function varintBytes(value) {
  const out = [];
  while (value > 127) {
    out.push((value & 127) | 128);
    value >>>= 7;
  }
  out.push(value);
  return out;
}

/** The statements that count (`size`) or write (`write`) one value `ref` of scalar type `type`. */
function scalar(type, ref, mode) {
  switch (type) {
    case 'int32':
      return mode === 'size' ? `n += i32Len(${ref});` : `pos = writeI32(${ref}, buf, pos);`;
    case 'uint32':
      return mode === 'size' ? `n += vLen(${ref} >>> 0);` : `pos = writeV32(${ref} >>> 0, buf, pos);`;
    case 'int64':
    case 'uint64':
      return mode === 'size' ? `n += i64Len(${ref});` : `pos = writeI64(${ref}, buf, pos);`;
    case 'float':
      return mode === 'size' ? `n += 4;` : `writeFloatLE(${ref}, buf, pos); pos += 4;`;
    case 'double':
      return mode === 'size' ? `n += 8;` : `writeDoubleLE(${ref}, buf, pos); pos += 8;`;
    case 'string':
      return mode === 'size' ? `n += strLen(${ref});` : `pos = writeStr(${ref}, buf, pos);`;
    case 'bytes':
      return mode === 'size' ? `n += bytesLen(${ref});` : `pos = writeBytes(${ref}, buf, pos);`;
    default:
      throw new Error(`gen-fast-encode: no encoding for scalar type ${type}`);
  }
}

function tagWrite(bytes) {
  return bytes.map((b) => `buf[pos++] = ${b};`).join(' ');
}

function fieldCode(field, mode) {
  const type = field.resolvedType instanceof protobuf.Enum ? 'int32' : field.type;
  const isMessage = field.resolvedType instanceof protobuf.Type;
  if (field.map || field.delimited) throw new Error(`gen-fast-encode: maps and groups are not generated (${field.fullName})`);
  if (!isMessage && TAGGED[type] === undefined) throw new Error(`gen-fast-encode: unknown type ${type} (${field.fullName})`);
  if (field.required) throw new Error(`gen-fast-encode: required fields are not generated (${field.fullName})`);
  const ref = `m.${field.name}`;
  const lines = [];
  const wire = isMessage ? 2 : TAGGED[type];
  const tag = varintBytes(((field.id << 3) | wire) >>> 0);
  const oneValue = (value) => {
    if (isMessage) {
      const child = ident(field.resolvedType);
      return mode === 'size'
        ? `{ const slot = reserve(); const s = size_${child}(${value}, q + 1); sizes[slot] = s; n += ${tag.length} + vLen(s) + s; }`
        : `${tagWrite(tag)} pos = writeV32(sizes[cursor++], buf, pos); pos = write_${child}(${value}, buf, pos);`;
    }
    return mode === 'size' ? `n += ${tag.length}; ${scalar(type, value, mode)}` : `${tagWrite(tag)} ${scalar(type, value, mode)}`;
  };
  lines.push(`v = ${ref};`);
  if (field.repeated) {
    if (field.packed && protobuf.types.packed[type] !== undefined) {
      const packedTag = varintBytes(((field.id << 3) | 2) >>> 0);
      if (VARINT.has(type)) {
        // The packed payload's length is needed before its values: count it once, keep it in a slot.
        lines.push(
          mode === 'size'
            ? `if (v != null && v.length) { const slot = reserve(); const before = n; n = 0; for (let i = 0; i < v.length; ++i) { ${scalar(type, 'v[i]', 'size')} } sizes[slot] = n; n = before + ${packedTag.length} + vLen(n) + n; }`
            : `if (v != null && v.length) { ${tagWrite(packedTag)} pos = writeV32(sizes[cursor++], buf, pos); for (let i = 0; i < v.length; ++i) { ${scalar(type, 'v[i]', 'write')} } }`,
        );
      } else {
        const width = type === 'float' ? 4 : 8;
        lines.push(
          mode === 'size'
            ? `if (v != null && v.length) { const p = v.length * ${width}; n += ${packedTag.length} + vLen(p) + p; }`
            : `if (v != null && v.length) { ${tagWrite(packedTag)} pos = writeV32(v.length * ${width}, buf, pos); for (let i = 0; i < v.length; ++i) { ${scalar(type, 'v[i]', 'write')} } }`,
        );
      }
    } else {
      lines.push(`if (v != null && v.length) for (let i = 0; i < v.length; ++i) { ${oneValue('v[i]')} }`);
    }
  } else {
    lines.push(`if (v != null && hasOwn.call(m, ${JSON.stringify(field.name)})) { ${oneValue('v')} }`);
  }
  return lines.map((l) => `    ${l}`).join('\n');
}

function messageCode(type) {
  const fields = type.fieldsArray.slice().sort((a, b) => a.id - b.id).map((f) => f.resolve());
  const id = ident(type);
  return `
// ${type.fullName.slice(1)}
function size_${id}(m, q) {
    if (q > recursionLimit) throw Error("max depth exceeded");
    let n = 0, v;
${fields.map((f) => fieldCode(f, 'size')).join('\n')}
    v = m.$unknownFields;
    if (v != null) for (let i = 0; i < v.length; ++i) n += v[i].length;
    return n;
}
function write_${id}(m, buf, pos) {
    let v;
${fields.map((f) => fieldCode(f, 'write')).join('\n')}
    v = m.$unknownFields;
    if (v != null) for (let i = 0; i < v.length; ++i) pos = writeRaw(v[i], buf, pos);
    return pos;
}
`;
}

const RUNTIME = `
import $protobuf from "protobufjs/minimal.js";

const util = $protobuf.util;
const LongBits = util.LongBits;
const utf8 = util.utf8;
const writeFloatLE = util.float.writeFloatLE;
const writeDoubleLE = util.float.writeDoubleLE;
const hasOwn = Object.prototype.hasOwnProperty;
const recursionLimit = util.recursionLimit;

// Node's Buffer where there is one (its native UTF-8 length and write are faster); in a browser the
// same bytes through protobufjs's utf8 and base64 on a Uint8Array.
const NodeBuffer = globalThis.Buffer;
const byteLength = NodeBuffer ? (value) => NodeBuffer.byteLength(value) : (value) => utf8.length(value);
const allocate = NodeBuffer ? (size) => NodeBuffer.allocUnsafe(size) : (size) => new Uint8Array(size);

// Lengths of sub-messages and packed varint payloads, in the order the first pass meets them; the
// second pass reads them back in the same order.
let sizes = new Float64Array(4096);
let count = 0;
let cursor = 0;

function reserve() {
    if (count === sizes.length) {
        const grown = new Float64Array(sizes.length * 2);
        grown.set(sizes);
        sizes = grown;
    }
    return count++;
}

function vLen(value) {
    return value < 128 ? 1 : value < 16384 ? 2 : value < 2097152 ? 3 : value < 268435456 ? 4 : 5;
}

function writeV32(value, buf, pos) {
    while (value > 127) {
        buf[pos++] = (value & 127) | 128;
        value >>>= 7;
    }
    buf[pos++] = value;
    return pos;
}

// The low and high words of the last int64 read by int64Bits (protobufjs's LongBits, without the allocation).
let lo = 0;
let hi = 0;

function int64Bits(value) {
    if (typeof value === "number") {
        if (value === 0) { lo = 0; hi = 0; return; }
        const sign = value < 0;
        if (sign) value = -value;
        lo = value >>> 0;
        hi = (value - lo) / 4294967296 >>> 0;
        if (sign) {
            hi = ~hi >>> 0;
            lo = ~lo >>> 0;
            if (++lo > 4294967295) {
                lo = 0;
                if (++hi > 4294967295) hi = 0;
            }
        }
    } else if (value !== null && typeof value === "object") {
        lo = value.low >>> 0;
        hi = value.high >>> 0;
    } else {
        const bits = LongBits.from(value);
        lo = bits.lo;
        hi = bits.hi;
    }
}

function bitsLen() {
    const part0 = lo, part1 = (lo >>> 28 | hi << 4) >>> 0, part2 = hi >>> 24;
    return part2 === 0
        ? part1 === 0
            ? part0 < 16384 ? part0 < 128 ? 1 : 2 : part0 < 2097152 ? 3 : 4
            : part1 < 16384 ? part1 < 128 ? 5 : 6 : part1 < 2097152 ? 7 : 8
        : part2 < 128 ? 9 : 10;
}

function writeBits(buf, pos) {
    let l = lo, h = hi;
    while (h) {
        buf[pos++] = (l & 127) | 128;
        l = (l >>> 7 | h << 25) >>> 0;
        h >>>= 7;
    }
    while (l > 127) {
        buf[pos++] = (l & 127) | 128;
        l = l >>> 7;
    }
    buf[pos++] = l;
    return pos;
}

function i64Len(value) {
    int64Bits(value);
    return bitsLen();
}

function writeI64(value, buf, pos) {
    int64Bits(value);
    return writeBits(buf, pos);
}

// protobufjs writes a negative int32 as the 10-byte varint of its int64 sign extension.
function i32Len(value) {
    value |= 0;
    return value < 0 ? 10 : vLen(value);
}

function writeI32(value, buf, pos) {
    value |= 0;
    if (value >= 0) return writeV32(value, buf, pos);
    int64Bits(value);
    writeBits(buf, pos);
    return pos + 10;
}

// Strings under 40 UTF-16 units take at most 117 bytes, so their length prefix is one byte.
function strLen(value) {
    const len = value.length < 40 ? utf8.length(value) : byteLength(value);
    return vLen(len) + len;
}

function writeStr(value, buf, pos) {
    if (value.length < 40) {
        const len = utf8.write(value, buf, pos + 1);
        buf[pos] = len;
        return pos + 1 + len;
    }
    const len = byteLength(value);
    pos = writeV32(len, buf, pos);
    if (len) {
        if (NodeBuffer) buf.utf8Write(value, pos);
        else utf8.write(value, buf, pos);
    }
    return pos + len;
}

function asBytes(value) {
    if (typeof value !== "string") return value;
    if (NodeBuffer) return NodeBuffer.from(value, "base64");
    const bytes = new Uint8Array(util.base64.length(value));
    util.base64.decode(value, bytes, 0);
    return bytes;
}

function bytesLen(value) {
    const len = asBytes(value).length >>> 0;
    return vLen(len) + len;
}

function writeBytes(value, buf, pos) {
    value = asBytes(value);
    const len = value.length >>> 0;
    pos = writeV32(len, buf, pos);
    return writeRaw(value, buf, pos, len);
}

// Short copies are cheaper as a loop than as a call into TypedArray.prototype.set.
function writeRaw(value, buf, pos, len = value.length) {
    if (len < 40) for (let i = 0; i < len; ++i) buf[pos + i] = value[i];
    else buf.set(len === value.length ? value : value.subarray(0, len), pos);
    return pos + len;
}
`;

const ENTRY = (types) => `
const encoders = {
${types.map((t) => `    ${JSON.stringify(t.fullName.slice(1))}: [size_${ident(t)}, write_${ident(t)}],`).join('\n')}
};

/** Encodes \`message\` as the protobuf type \`typeName\` (e.g. "onnx.ModelProto"), byte for byte as protobufjs does. */
export function encodeMessage(typeName, message) {
    const pair = encoders[typeName];
    if (pair === undefined) throw new Error("no encoder for " + typeName);
    count = 0;
    cursor = 0;
    const total = pair[0](message, 0);
    const buf = allocate(total);
    const end = pair[1](message, buf, 0);
    if (end !== total || cursor !== count) throw new Error("encoder wrote " + end + " of " + total + " bytes");
    return buf;
}
`;

/** Returns the source of src/onnx/generated/onnx-encode.js for the resolved protobufjs root. */
export function generateFastEncoder(root) {
  const types = [];
  const visit = (ns) => {
    for (const nested of ns.nestedArray) {
      if (nested instanceof protobuf.Type) types.push(nested);
      if (nested.nestedArray) visit(nested);
    }
  };
  visit(root);
  return (
    `// Generated by scripts/gen-fast-encode.mjs from src/onnx/onnx.proto; do not edit.\n` +
    RUNTIME +
    types.map(messageCode).join('') +
    ENTRY(types)
  );
}
