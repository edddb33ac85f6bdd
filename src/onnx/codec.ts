/**
 * Decoding and encoding of ONNX ModelProto bytes. The codec is generated from our onnx.proto
 * (IR version 14) by scripts/gen-proto.mjs; it keeps field presence and unknown fields, so a
 * decode/encode cycle reproduces the input bytes.
 */
import Long from 'long';
import protobuf from 'protobufjs/minimal.js';
import { onnx } from './generated/onnx.js';
import { encodeMessage } from './generated/onnx-encode.js';
import { AmpError } from './errors.js';
import { MAX_PROTOBUF_BYTES } from './byte-limits.js';
import { printable } from './printable.js';
import { phase } from './phases.js';
import { checkWireFormat } from './strict-wire.js';
import { NameTable } from './name-table.js';

// protobufjs only represents int64 exactly when it can find the long package.
protobuf.util.Long = Long;
protobuf.configure();

export { onnx };

const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;
export type ModelProto = onnx.ModelProto;

/** The newest IR version whose every field this codec knows. */
export const SUPPORTED_IR_VERSION = 14;

export interface DecodeOptions {
  /** Accept a model whose ir_version is newer than SUPPORTED_IR_VERSION. Its unknown fields are kept. */
  allowNewerIr?: boolean;
  /** Name used in error messages (a file path); defaults to "input". */
  source?: string;
  /**
   * Let the messages that exist once per node, attribute or tensor read an empty repeated field
   * from one shared frozen empty array instead of an own array each: about 350 bytes a node less
   * on a big graph (the command line decodes this way). Such a field cannot be pushed into; give
   * the message a new array instead. Default false: every field is an own array, as protobufjs makes it.
   */
  sharedEmptyFields?: boolean;
}

const MODEL_FIELD_IR_VERSION_TAG = 0x08; // field 1, varint

export function decodeModel(bytes: Uint8Array, options: DecodeOptions = {}): onnx.ModelProto {
  const source = options.source ?? 'input';
  if (bytes.length === 0) {
    throw new AmpError('EMPTY_FILE', `${source}: empty file, not an ONNX model`, { subject: source });
  }
  // A Node Buffer over the same memory: protobufjs's BufferReader and the name table read names
  // from it natively. In a browser the bytes are read as they are.
  const buffer = NodeBuffer === undefined || NodeBuffer.isBuffer(bytes) ? bytes : NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // protobufjs alone accepts field 0, wrong wire types and invalid UTF-8; refuse them first.
  checkWireFormat(buffer, 'onnx.ModelProto', source);
  let model: onnx.ModelProto;
  try {
    model = phase('decodeMs', () => decodeSharingNames(buffer, options.sharedEmptyFields === true));
  } catch (error) {
    throw describeDecodeFailure(error, buffer, source);
  }
  if (model.graph == null && !Object.hasOwn(model, 'ir_version')) {
    throw new AmpError('NOT_ONNX', `${source}: not an ONNX ModelProto (no ir_version and no graph)`, { subject: source });
  }
  const irVersion = Long.fromValue(model.ir_version).toNumber();
  if (irVersion > SUPPORTED_IR_VERSION && !options.allowNewerIr) {
    throw new AmpError(
      'NEWER_IR',
      `${source}: ir_version ${irVersion} is newer than ${SUPPORTED_IR_VERSION}, the newest this tool knows; ` +
        'fields it does not know would be carried blind (pass --allow-newer-ir to accept)',
      { subject: source },
    );
  }
  return model;
}

/** The generated decoder reads value names and op types through this table while it is installed. */
const decoderUtil = protobuf.util as typeof protobuf.util & { onnxNameTable?: NameTable | null; onnxSharedEmptyFields?: boolean };

function decodeSharingNames(buffer: Uint8Array, sharedEmptyFields: boolean): onnx.ModelProto {
  decoderUtil.onnxNameTable = new NameTable(buffer.length);
  decoderUtil.onnxSharedEmptyFields = sharedEmptyFields;
  try {
    return onnx.ModelProto.decode(buffer);
  } finally {
    decoderUtil.onnxNameTable = null;
    decoderUtil.onnxSharedEmptyFields = false;
  }
}

function describeDecodeFailure(error: unknown, bytes: Uint8Array, source: string): AmpError {
  const reason = error instanceof Error ? error.message : String(error);
  const runsPastEnd = /index out of range/.test(reason);
  if (runsPastEnd && bytes[0] === MODEL_FIELD_IR_VERSION_TAG) {
    return new AmpError(
      'TRUNCATED',
      `${source}: truncated ONNX model (a field runs past the end of the file at byte ${bytes.length})`,
      { subject: source, cause: error },
    );
  }
  return new AmpError('NOT_ONNX', `${source}: not an ONNX ModelProto (${reason})`, { subject: source, cause: error });
}

/**
 * The generated two-pass encoder (scripts/gen-fast-encode.mjs) writes the same bytes as
 * `onnx.ModelProto.encode(model).finish()` without protobufjs's per-field operation list.
 */
export function encodeModel(model: onnx.IModelProto): Uint8Array {
  return phase('encodeMs', () => encodeMessage('onnx.ModelProto', model));
}

/**
 * The bytes of one .onnx file: `unchanged` (the bytes a model no pass changed was read from) or the
 * model encoded, at most protobuf's 2 GiB. What cannot be encoded or is larger is MODEL_TOO_LARGE,
 * naming `file` (printable, as it is shown) and saying `advice`; a typed error of the encoding
 * itself (a pending float16 copy whose source is unreadable) passes as it is.
 */
export function encodeModelFile(model: onnx.IModelProto, file: string, advice: string, unchanged?: Uint8Array): Uint8Array {
  let encoded: Uint8Array;
  try {
    encoded = unchanged ?? encodeModel(model);
  } catch (error) {
    if (error instanceof AmpError) throw error;
    throw new AmpError('MODEL_TOO_LARGE', `${printable(file, 400)}: cannot encode the model (${(error as Error).message}); ${advice}`, { subject: file, cause: error });
  }
  if (encoded.length > MAX_PROTOBUF_BYTES) {
    throw new AmpError('MODEL_TOO_LARGE', `${printable(file, 400)}: the model is ${encoded.length} bytes, over protobuf's 2 GiB limit; ${advice}`, { subject: file });
  }
  return encoded;
}
