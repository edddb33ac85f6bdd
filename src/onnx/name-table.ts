/**
 * One string per distinct name while a model decodes. A value's name is stored once in its
 * producer's output list, once per consumer's input list and again in its initializer or
 * value_info; the decoder would make a new string of each. Here the name's bytes are hashed and
 * compared in the input buffer, so a repeated name returns the string made for its first
 * occurrence: no new string, no garbage, and the pass's name-keyed maps then hash each distinct
 * name once. Strings are immutable and compared by value, so sharing them changes nothing else.
 */

import { FNV_PRIME, HASH_BASIS, finishHash } from './string-hash.js';

/** What the generated decoder reads a name from: protobufjs's BufferReader (the generated code checks for a Buffer). */
interface NameReader {
  buf: Buffer & { utf8Slice(start: number, end: number): string };
  pos: number;
  len: number;
  uint32(): number;
}

/** Longer names are rare and not worth hashing. */
const MAX_SHARED_BYTES = 255;

/** Input bytes per distinct name a graph's table is sized for; transformer graphs have about 100. */
const BYTES_PER_NAME = 64;
const MIN_SLOTS = 1 << 12;
/** A model of big weights has few names for its size: the table grows from here if it must. */
const MAX_INITIAL_SLOTS = 1 << 20;

export class NameTable {
  private slots: Int32Array<ArrayBuffer>;
  private mask: number;
  private count = 0;
  private readonly names: string[] = [];
  private starts: Int32Array<ArrayBuffer>;
  private lengths: Int32Array<ArrayBuffer>;
  private hashes: Int32Array<ArrayBuffer>;

  /**
   * Sized for the names `inputBytes` of model hold, so that a big graph's table is not grown and
   * rehashed a dozen times while it decodes (rehashing was 3 ms of a 12k-node decode).
   */
  constructor(inputBytes = 0) {
    let slots = MIN_SLOTS;
    while (slots < MAX_INITIAL_SLOTS && slots * BYTES_PER_NAME < inputBytes * 2) slots *= 2;
    this.slots = new Int32Array(slots);
    this.mask = slots - 1;
    this.starts = new Int32Array(slots / 2);
    this.lengths = new Int32Array(slots / 2);
    this.hashes = new Int32Array(slots / 2);
  }

  /** The same bytes and result as protobufjs's BufferReader.string(), from the table when seen before. */
  read(reader: NameReader): string {
    const length = reader.uint32();
    const buf = reader.buf;
    const start = reader.pos;
    const end = Math.min(start + length, reader.len);
    if (end - start > MAX_SHARED_BYTES) {
      reader.pos = end;
      return buf.utf8Slice(start, end);
    }
    // This process's basis (see string-hash.ts): a file cannot be made to crowd one probe run.
    let hash = HASH_BASIS;
    // FNV-1a written out: a call per byte would cost the decode's first, unoptimized runs.
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ (buf[i] as number), FNV_PRIME);
    hash = finishHash(hash);
    let slot = hash & this.mask;
    for (;;) {
      const entry = this.slots[slot] as number;
      if (entry === 0) break;
      const index = entry - 1;
      if (this.hashes[index] === hash && this.lengths[index] === end - start && sameBytes(buf, this.starts[index] as number, start, end - start)) {
        reader.pos = end;
        return this.names[index] as string;
      }
      slot = (slot + 1) & this.mask;
    }
    reader.pos = end;
    const name = buf.utf8Slice(start, end);
    this.add(slot, name, start, end - start, hash);
    return name;
  }

  private add(slot: number, name: string, start: number, length: number, hash: number): void {
    const index = this.count++;
    if (index === this.starts.length) {
      this.starts = grow(this.starts);
      this.lengths = grow(this.lengths);
      this.hashes = grow(this.hashes);
    }
    this.names.push(name);
    this.starts[index] = start;
    this.lengths[index] = length;
    this.hashes[index] = hash;
    this.slots[slot] = index + 1;
    // Kept at most half full, so probes stay short.
    if (this.count * 2 > this.slots.length) this.rehash();
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let index = 0; index < this.count; index++) {
      let slot = (this.hashes[index] as number) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = index + 1;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

function sameBytes(buf: Uint8Array, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (buf[a + i] !== buf[b + i]) return false;
  return true;
}

function grow(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(array.length * 2);
  grown.set(array);
  return grown;
}
