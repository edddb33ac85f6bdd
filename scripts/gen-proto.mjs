// Generates the static protobuf codec for src/onnx/onnx.proto with protobufjs-cli, then
// teaches it to keep unknown fields: protobufjs skips fields it does not know, which would
// make a model written by a newer ONNX lose data on a read/write cycle.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { generateFastEncoder } from './gen-fast-encode.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'src/onnx/generated');
const jsOut = path.join(outDir, 'onnx.js');
const dtsOut = path.join(outDir, 'onnx.d.ts');
const bin = (name) => path.join(root, 'node_modules/.bin', name);

mkdirSync(outDir, { recursive: true });
execFileSync(bin('pbjs'), [
  '-t', 'static-module', '-w', 'es6', '--force-long', '--no-verify', '--no-convert', '--no-delimited',
  '--no-service', '--no-typeurl', '--keep-case', '-o', jsOut, path.join(root, 'src/onnx/onnx.proto'),
], { stdio: 'inherit' });

let js = readFileSync(jsOut, 'utf8');
const decodeLoop = /let tag = reader\.uint32\(\);/g;
const skip = /default:\n(\s*)reader\.skipType\(tag & 7, long\);\n\s*break;/g;
const encodeEnd = /(\n(\s*)return writer;\n\s*};)/g;
const counts = [js.match(decodeLoop)?.length, js.match(skip)?.length, js.match(encodeEnd)?.length];
if (new Set(counts).size !== 1 || !counts[0]) {
  throw new Error(`protobufjs output changed shape; unknown-field patch does not apply (${counts})`);
}
js = js
  .replace(decodeLoop, 'let tagStart = reader.pos, tag = reader.uint32();')
  .replace(skip, 'default:\n$1reader.skipType(tag & 7, long);\n$1(message.$unknownFields || (message.$unknownFields = [])).push(reader.buf.subarray(tagStart, reader.pos));\n$1break;')
  .replace(encodeEnd, '\n$2if (message.$unknownFields != null)\n$2    for (var u = 0; u < message.$unknownFields.length; ++u)\n$2        writer._push(writeRawBytes, message.$unknownFields[u].length, message.$unknownFields[u]);$1');
// Memory per decoded node (see docs in the issue "Scale"): protobufjs gives every message an own
// empty array per repeated field (32 bytes each; 7 per AttributeProto, 8 per TensorProto) and grows
// each repeated field by push, which reserves 17 slots (152 bytes) for a node's one or two inputs.
// 1. Messages that exist once per node, attribute or tensor can read an absent repeated field from the
//    prototype's shared frozen empty array instead, when the decode asks for it (codec.ts's
//    `sharedEmptyFields`, which the command line uses: nothing in src pushes into those fields in
//    place; a pass that adds an attribute assigns a new array). Messages built with `new`/`create()`,
//    and decodes that do not ask, keep an own array per field, as protobufjs makes them, so a library
//    user may push into any field. The graph-level messages, whose lists passes do extend, and
//    NodeProto's input/output always keep their own arrays.
const SHARED_EMPTY_KEEP = new Map([['ModelProto', null], ['GraphProto', null], ['FunctionProto', null], ['TrainingInfoProto', null], ['NodeProto', ['input', 'output']]]);
let constructorsPatched = 0;
js = js.replace(/function (\w+)\(properties\) \{\n((?:\s*this\.\w+ = \[\];\n)+)/g, (whole, name, inits) => {
  if (SHARED_EMPTY_KEEP.has(name) && SHARED_EMPTY_KEEP.get(name) === null) return whole;
  const keep = SHARED_EMPTY_KEEP.get(name) ?? [];
  constructorsPatched++;
  const lines = inits.split('\n').filter((line) => line.trim());
  const kept = lines.filter((line) => keep.some((field) => line.trim() === `this.${field} = [];`));
  const optional = lines.filter((line) => !kept.includes(line));
  const indent = /^\s*/.exec(optional[0] ?? '')?.[0] ?? '';
  const guarded = optional.length
    ? `${indent}if (properties !== SHARED_EMPTY_FIELDS) {\n${optional.map((line) => `    ${line}\n`).join('')}${indent}}\n`
    : '';
  return `function ${name}(properties) {\n${kept.map((line) => `${line}\n`).join('')}${guarded}`;
});
const decodeConstructions = js.match(/message = new \$root\.onnx\.(\w+)\(\);/g)?.length;
js = js.replace(/message = new \$root\.onnx\.(\w+)\(\);/g, 'message = new $root.onnx.$1($util.onnxSharedEmptyFields ? SHARED_EMPTY_FIELDS : undefined);');
if (!decodeConstructions || decodeConstructions < 10) throw new Error('protobufjs output changed shape; no message constructions in decode');
if (constructorsPatched < 10) throw new Error(`protobufjs output changed shape; shared-empty patch applied to ${constructorsPatched} constructors`);
// 2. Repeated fields grow through exact-size array literals up to four values (pushExact), so a
//    node's inputs cost 16 + 8 bytes per name instead of a 152-byte store.
const initBeforePush = /^[ \t]*if \(!\(message\.(\w+) && message\.\1\.length\)\)\n\s*message\.\1 = \[\];\n/gm;
const pushLine = /message\.(\w+)\.push\((.*)\);$/gm;
const pushCount = js.match(pushLine)?.filter((line) => !line.includes('$unknownFields')).length;
js = js.replace(initBeforePush, '').replace(pushLine, (whole, field, value) => `message.${field} = pushExact(message.${field}, ${value});`);
if (!pushCount || js.includes('message.input.push(') || /message\.\w+ = \[\];\n\s*message/.test(js)) {
  throw new Error('protobufjs output changed shape; the exact-array patch does not apply');
}
// 3. int64 values (tensor dims, attribute ints) decode to one long.js object each (48 bytes); small
//    non-negative ones, nearly all of them, are shared instances instead (Long objects are immutable).
const int64Reads = js.match(/reader\.int64\(\)/g)?.length;
js = js.replace(/reader\.int64\(\)/g, 'readInt64(reader)');
if (!int64Reads || js.includes('reader.int64()')) throw new Error('protobufjs output changed shape; the shared-int64 patch does not apply');
// 4. Value names and op types go through the name table codec.ts installs while a model decodes
//    (src/onnx/name-table.ts): one string per distinct name instead of one per occurrence.
const NAME_FIELDS = { NodeProto: ['input', 'output', 'op_type', 'domain'], ValueInfoProto: ['name'], TensorProto: ['name'] };
for (const [type, fields] of Object.entries(NAME_FIELDS)) {
  const start = js.indexOf(`${type}.decode = function decode(`);
  const end = js.indexOf('return message;', start);
  if (start < 0 || end < 0) throw new Error(`protobufjs output changed shape; no ${type}.decode`);
  let body = js.slice(start, end);
  for (const field of fields) {
    const plain = `message.${field} = reader.string();`;
    const repeated = `message.${field} = pushExact(message.${field}, reader.string());`;
    if (body.includes(plain)) body = body.replace(plain, `message.${field} = readName(reader);`);
    else if (body.includes(repeated)) body = body.replace(repeated, `message.${field} = pushExact(message.${field}, readName(reader));`);
    else throw new Error(`protobufjs output changed shape; no string read of ${type}.${field}`);
  }
  js = js.slice(0, start) + body + js.slice(end);
}
// Node's ESM loader needs the file extension, and the default import is protobufjs's CommonJS exports.
js = js.replace('import * as $protobuf from "protobufjs/minimal";', 'import $protobuf from "protobufjs/minimal.js";');
if (!js.includes('"protobufjs/minimal.js"')) throw new Error('could not rewrite the protobufjs import');
js = js.replace(
  /(const \$Reader = \$protobuf\.Reader, \$Writer = \$protobuf\.Writer, \$util = \$protobuf\.util;)/,
  '$1\n\n// A name through the decode\'s name table when codec.ts installed one (src/onnx/name-table.ts), else as protobufjs reads it.\nfunction readName(reader) {\n    const names = $util.onnxNameTable;\n    return names != null && reader.buf.utf8Slice !== undefined ? names.read(reader) : reader.string();\n}\n\n// Passed as `properties` by a decode that shares empty repeated fields (codec.ts): the constructor then leaves those fields to the prototype\'s frozen empty array.\nconst SHARED_EMPTY_FIELDS = Object.freeze({});\n\n// Signed int64 values 0..4095 as shared Long instances, filled on first use.\nconst SHARED_INT64 = new Array(4096);\nconst SHARED_INT64_LIMIT = SHARED_INT64.length;\n\n// reader.int64(), except that a small non-negative value is a shared instance; a one-byte varint is read here directly.\nfunction readInt64(reader) {\n    const pos = reader.pos;\n    if ($util.Long && pos < reader.len && reader.buf[pos] < 128) {\n        const low = reader.buf[pos];\n        reader.pos = pos + 1;\n        return SHARED_INT64[low] || (SHARED_INT64[low] = new $util.Long(low, 0, false));\n    }\n    const value = reader.int64();\n    if (value.high !== 0 || value.low < 0 || value.low >= SHARED_INT64_LIMIT) return value;\n    return SHARED_INT64[value.low] || (SHARED_INT64[value.low] = value);\n}\n\n// Appends to a decoded repeated field; up to four values the array is an exact-size literal (a push\n// would reserve 17 slots), and a field still on the prototype\'s frozen empty array gets its own.\nfunction pushExact(array, value) {\n    switch (array.length) {\n    case 0: return [value];\n    case 1: return [array[0], value];\n    case 2: return [array[0], array[1], value];\n    case 3: return [array[0], array[1], array[2], value];\n    default: array.push(value); return array;\n    }\n}\n\n// Copies already-encoded bytes (an unknown field with its tag) into the output unchanged.\nfunction writeRawBytes(val, buf, pos) {\n    for (var i = 0; i < val.length; ++i) buf[pos + i] = val[i];\n}',
);
if (!js.includes('function writeRawBytes')) throw new Error('could not insert writeRawBytes');
writeFileSync(jsOut, js);

execFileSync(bin('pbts'), ['--no-comments', '-o', dtsOut, jsOut], { stdio: 'inherit' });
let dts = readFileSync(dtsOut, 'utf8');
// Every message may carry the unknown fields it was decoded with.
dts = dts.replace(/(\n(\s*)interface I\w+ \{)/g, '$1\n$2    $unknownFields?: Uint8Array[];');
if (!dts.includes('$unknownFields')) throw new Error('could not declare $unknownFields');
// Decoding always yields Long (exact int64); building a message may also pass plain numbers,
// which the encoder accepts.
dts = dts.replace(/\?: \(Long\|null\);/g, '?: (number|Long|null);').replace(/\?: \(Long\[\]\|null\);/g, '?: ((number|Long)[]|null);');
writeFileSync(dtsOut, dts);
console.log(`wrote ${path.relative(root, jsOut)} and ${path.relative(root, dtsOut)}`);

// The wire-format table for the strict pre-decode check (src/onnx/strict-wire.ts): for each
// message, each field number's wire kind, so that bytes protobuf's reference parser rejects
// (wrong wire type for a known field, invalid UTF-8 in a string) are rejected here too.
const protobuf = (await import('protobufjs')).default;
const protoRoot = protobuf.loadSync(path.join(root, 'src/onnx/onnx.proto')).resolveAll();
const kindOf = (field) => {
  if (field.resolvedType instanceof protobuf.Type) return `m:${field.resolvedType.fullName.slice(1)}`;
  if (field.resolvedType instanceof protobuf.Enum) return field.repeated ? 'rv' : 'v';
  const scalar = {
    int32: 'v', int64: 'v', uint32: 'v', uint64: 'v', sint32: 'v', sint64: 'v', bool: 'v',
    fixed32: 'f', sfixed32: 'f', float: 'f', fixed64: 'd', sfixed64: 'd', double: 'd', string: 's', bytes: 'b',
  }[field.type];
  if (!scalar) throw new Error(`unknown field type ${field.type}`);
  return field.repeated && 'vfd'.includes(scalar) ? `r${scalar}` : scalar;
};
const table = {};
const visit = (ns) => {
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Type) {
      table[nested.fullName.slice(1)] = Object.fromEntries(nested.fieldsArray.map((f) => [f.id, kindOf(f)]));
    }
    if (nested.nestedArray) visit(nested);
  }
};
visit(protoRoot);
// The two-pass encoder codec.ts writes models with (byte-identical to protobufjs's, faster).
const encodeOut = path.join(outDir, 'onnx-encode.js');
// Field names as written in onnx.proto (pbjs ran with --keep-case), not camelCased.
const keepCaseRoot = new protobuf.Root().loadSync(path.join(root, 'src/onnx/onnx.proto'), { keepCase: true }).resolveAll();
writeFileSync(encodeOut, generateFastEncoder(keepCaseRoot));
writeFileSync(
  path.join(outDir, 'onnx-encode.d.ts'),
  '// Generated by scripts/gen-proto.mjs; do not edit.\n' +
    '/** Encodes `message` as the protobuf type `typeName` (e.g. "onnx.ModelProto"), byte for byte as protobufjs does. */\n' +
    'export function encodeMessage(typeName: string, message: object): Buffer;\n',
);
console.log(`wrote ${path.relative(root, encodeOut)}`);

const tableOut = path.join(root, 'src/onnx/wire-schema.generated.ts');
writeFileSync(
  tableOut,
  `// Generated by scripts/gen-proto.mjs from src/onnx/onnx.proto; do not edit.\n` +
    `// Per message, per field number: v varint, f fixed32, d fixed64, s string, b bytes, m:<type> message; r = repeated (may be packed).\n` +
    `export const WIRE_SCHEMA: Record<string, Record<number, string>> = ${JSON.stringify(table, null, 2)};\n`,
);
console.log(`wrote ${path.relative(root, tableOut)}`);
