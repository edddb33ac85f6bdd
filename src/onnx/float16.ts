/**
 * float32 <-> float16 / bfloat16 bit conversions with round-to-nearest-even, the rounding ONNX
 * Runtime's Cast uses. Values outside the fp16 range become ±inf here; callers that must not
 * clamp or overflow silently check `fitsFloat16` first.
 */
import { float32BitsToBfloat16, float32BitsToFloat16, FLOAT16_OVERFLOW_BITS, largestFiniteBits } from './float-conversion.js';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export const FLOAT16_MAX = 65504;

export function float32ToFloat16Bits(value: number): number {
  f32[0] = value;
  const x = u32[0] as number;
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  let mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 | (mantissa >>> 13) : 0); // inf / NaN (quiet)
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow
  if (e <= 0) {
    if (e < -10) return sign; // underflows to signed zero
    mantissa |= 0x800000; // implicit leading one
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = mantissa & ((1 << shift) - 1);
    let result = mantissa >>> shift;
    if (rest > half || (rest === half && (result & 1))) result += 1;
    return sign | result;
  }
  let result = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (result & 1))) result += 1; // may carry into the exponent: correct
  return sign | result;
}

export function float16BitsToFloat32(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

export function float32ToBfloat16Bits(value: number): number {
  f32[0] = value;
  const x = u32[0] as number;
  if ((x & 0x7f800000) === 0x7f800000 && x & 0x7fffff) return (x >>> 16) | 0x40; // keep NaN a NaN
  const rounding = 0x7fff + ((x >>> 16) & 1);
  return ((x + rounding) >>> 16) & 0xffff;
}

export function bfloat16BitsToFloat32(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0] as number;
}

/** True when every finite value survives conversion to fp16 without becoming infinite. */
export function fitsFloat16(values: Float32Array): boolean {
  return largestFiniteBits(bitsOf(values)) < FLOAT16_OVERFLOW_BITS; // 65520 and above round to inf
}

/** Whole arrays take the word-parallel routines of float-conversion.ts (bit-identical to the functions above). */
export function toFloat16Array(values: Float32Array): Uint16Array {
  const out = new Uint16Array(values.length);
  float32BitsToFloat16(bitsOf(values), out);
  return out;
}

export function toBfloat16Array(values: Float32Array): Uint16Array {
  const out = new Uint16Array(values.length);
  float32BitsToBfloat16(bitsOf(values), out);
  return out;
}

function bitsOf(values: Float32Array): Int32Array {
  return new Int32Array(values.buffer, values.byteOffset, values.length);
}
