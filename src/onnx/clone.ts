/**
 * Structural copy of protobuf messages. Byte buffers (raw_data) and Long values are immutable in
 * this code base and shared, so copying a model with large weights costs only its message tree.
 * Presence is kept: only own properties are copied, onto an object of the same message class.
 */
import Long from 'long';
import { attachExternalRef, externalRefOf } from './external-data.js';
import { copyPendingConversion } from './pending-conversion.js';

export function cloneMessage<T>(message: T): T {
  if (message === null || typeof message !== 'object') return message;
  if (Array.isArray(message)) return message.map((item) => cloneMessage(item)) as T;
  if (ArrayBuffer.isView(message) || Long.isLong(message)) return message;
  const source = message as Record<string, unknown>;
  const copy = Object.create(Object.getPrototypeOf(message)) as Record<string, unknown>;
  // A pending float16 copy stays pending: reading its raw_data here would convert it whole.
  const pending = copyPendingConversion(source, copy);
  for (const key of Object.keys(source)) if (!(pending && key === 'raw_data')) copy[key] = cloneMessage(source[key]);
  const ref = externalRefOf(source);
  if (ref) attachExternalRef(copy, ref);
  return copy as T;
}
