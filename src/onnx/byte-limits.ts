/**
 * The most bytes one array may hold in this JavaScript engine: Node's Buffer limit where the core
 * runs in Node (2^32 on Node 20, 2^53 - 1 from Node 22), read through process.getBuiltinModule so
 * that the core imports no Node module; elsewhere (a browser) V8's 2^32.
 */
import { nodeBuiltin } from './node-builtins.js';

type BufferModule = { constants: { MAX_LENGTH: number } };
const nodeBuffer = nodeBuiltin<BufferModule>('node:buffer');

/** protobuf's limit on one message: a larger model must keep its weights in external data. */
export const MAX_PROTOBUF_BYTES = 2 ** 31 - 1;

export const MAX_BUFFER_BYTES: number = nodeBuffer?.constants.MAX_LENGTH ?? 2 ** 32;
