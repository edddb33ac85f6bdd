/**
 * UTF-8 text to and from bytes (attribute strings), the same in Node and in a browser: malformed
 * bytes read as U+FFFD, as Node's Buffer reads them.
 */
const decoder = new TextDecoder();
const encoder = new TextEncoder();

export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}
