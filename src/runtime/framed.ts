/**
 * The framed protocol between a parent and a worker process (bench's isolated variants, the
 * rewrite's verification): [uint32 header length][header JSON][blobs], the blobs' lengths in the
 * header. ORT-free, so a parent that must not load ONNX Runtime can speak it.
 */
export function frame(header: object, blobs: readonly Uint8Array[]): Buffer {
  const json = Buffer.from(JSON.stringify({ ...header, blobLengths: blobs.map((b) => b.length) }), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length);
  return Buffer.concat([length, json, ...blobs.map((b) => Buffer.from(b.buffer, b.byteOffset, b.length))]);
}

export function unframe(bytes: Buffer): { header: Record<string, unknown>; blobs: Buffer[] } {
  if (bytes.length < 4) throw new Error('empty reply');
  const length = bytes.readUInt32LE(0);
  const header = JSON.parse(bytes.subarray(4, 4 + length).toString('utf8')) as Record<string, unknown> & { blobLengths: number[] };
  const blobs: Buffer[] = [];
  let at = 4 + length;
  for (const size of header.blobLengths) {
    blobs.push(bytes.subarray(at, at + size));
    at += size;
  }
  return { header, blobs };
}

