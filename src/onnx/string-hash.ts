/**
 * The hash of our open-addressing name tables (the decoder's NameTable, the graph model's
 * ValueIndex, StringSet): FNV-1a from a basis drawn at random when the process starts, then mixed
 * so that the low bits (a table's slot) depend on every bit.
 *
 * Why random: with a fixed basis, FNV-1a collisions are cheap to make offline, and a file whose
 * names all land in one probe run turns every table built from it quadratic (a hundred thousand
 * such names: billions of compares while it decodes). Drawn per process, the slots a name takes
 * cannot be known when the file is written, as V8 seeds its own string hashes. Nothing outside the
 * process sees the hashes: ids follow the order names are first seen and no table is read in slot
 * order, so outputs stay byte-identical from run to run.
 */

/** This process's FNV-1a offset basis. */
export const HASH_BASIS = (Math.random() * 0x100000000) | 0;

/** FNV-1a's multiplier: each step is `hash = Math.imul(hash ^ unit, FNV_PRIME)`. */
export const FNV_PRIME = 0x01000193;

/** Spreads every bit of an FNV-1a hash into its low bits, which pick a table's slot. */
export function finishHash(hash: number): number {
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  return hash ^ (hash >>> 13);
}

/** A 32-bit hash of a string's UTF-16 units (`basis`: this process's unless a test fixes one). */
export function stringHash(text: string, basis: number = HASH_BASIS): number {
  let hash = basis ^ text.length;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  return finishHash(hash);
}

/** Slots for an open-addressing table of about `expected` entries kept at most half full: a power of two, at least `minimum`. */
export function tableSlots(expected: number, minimum: number): number {
  let slots = minimum;
  while (slots < expected * 2) slots *= 2;
  return slots;
}
