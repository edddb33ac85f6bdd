// Generates the static protobuf codec for src/onnx/onnx.proto with protobufjs-cli, then
// teaches it to keep unknown fields: protobufjs skips fields it does not know, which would
// make a model written by a newer ONNX lose data on a read/write cycle.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

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
// Node's ESM loader needs the file extension, and the default import is protobufjs's CommonJS exports.
js = js.replace('import * as $protobuf from "protobufjs/minimal";', 'import $protobuf from "protobufjs/minimal.js";');
if (!js.includes('"protobufjs/minimal.js"')) throw new Error('could not rewrite the protobufjs import');
js = js.replace(
  /(const \$Reader = \$protobuf\.Reader, \$Writer = \$protobuf\.Writer, \$util = \$protobuf\.util;)/,
  '$1\n\n// Copies already-encoded bytes (an unknown field with its tag) into the output unchanged.\nfunction writeRawBytes(val, buf, pos) {\n    for (var i = 0; i < val.length; ++i) buf[pos + i] = val[i];\n}',
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
