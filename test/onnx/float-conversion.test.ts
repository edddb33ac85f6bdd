/**
 * The word-parallel float32 -> float16 / bfloat16 routines against the one-value reference of
 * float16.ts. All 2^32 inputs take minutes in JavaScript on a small machine, so: every edge class
 * enumerated (every sign, exponent and kept mantissa with each rounding case, every float16
 * subnormal shift, NaN payloads, infinities, the overflow threshold) plus four million random
 * bit patterns.
 */
import { describe, expect, it } from 'vitest';
import { float32BitsToBfloat16, float32BitsToFloat16, float32FromBits, largestFiniteBits } from '../../src/onnx/float-conversion.js';
import { float32ToBfloat16Bits, float32ToFloat16Bits, fitsFloat16 } from '../../src/onnx/float16.js';
import { seededRandom } from '../../src/builder/graph-builder.js';

/** Compares both routines with the reference on `inputs`; returns the first few mismatches. */
function mismatches(inputs: Uint32Array): string[] {
  const bits = new Int32Array(inputs.buffer, inputs.byteOffset, inputs.length);
  const floats = new Float32Array(inputs.buffer, inputs.byteOffset, inputs.length);
  const half = new Uint16Array(inputs.length);
  const brain = new Uint16Array(inputs.length);
  float32BitsToFloat16(bits, half);
  float32BitsToBfloat16(bits, brain);
  const found: string[] = [];
  for (let i = 0; i < inputs.length && found.length < 5; i++) {
    const value = floats[i] as number;
    const hex = (inputs[i] as number).toString(16).padStart(8, '0');
    if (half[i] !== float32ToFloat16Bits(value)) found.push(`fp16 of 0x${hex}: ${half[i]?.toString(16)} != ${float32ToFloat16Bits(value).toString(16)}`);
    if (brain[i] !== float32ToBfloat16Bits(value)) found.push(`bf16 of 0x${hex}: ${brain[i]?.toString(16)} != ${float32ToBfloat16Bits(value).toString(16)}`);
  }
  return found;
}

describe('fp32 -> fp16 / bf16 conversion of arrays', () => {
  it('every sign, exponent and kept fp16 mantissa, with each rounding case of the dropped bits', () => {
    const lowClasses = [0, 1, 0x7ff, 0xfff, 0x1000, 0x1001, 0x17ff, 0x1fff];
    const inputs = new Uint32Array(2 * 256 * 1024 * lowClasses.length);
    let n = 0;
    for (let sign = 0; sign < 2; sign++) {
      for (let exponent = 0; exponent < 256; exponent++) {
        for (let kept = 0; kept < 1024; kept++) {
          for (const low of lowClasses) inputs[n++] = ((sign << 31) | (exponent << 23) | (kept << 13) | low) >>> 0;
        }
      }
    }
    expect(mismatches(inputs)).toEqual([]);
  });

  it('every float16 subnormal shift, every kept value, each rounding case', () => {
    const values: number[] = [];
    for (let exponent = 98; exponent <= 114; exponent++) {
      const shift = Math.min(24, Math.max(1, 126 - exponent));
      const half = 2 ** (shift - 1);
      const restClasses = [0, 1, half - 1, half, half + 1, 2 ** shift - 1];
      for (let kept = 0; kept < 2 ** (24 - Math.min(shift, 24)) * 2 && kept < 4096; kept++) {
        for (const rest of restClasses) {
          const mantissa = (kept * 2 ** shift + rest) & 0x7fffff;
          for (const sign of [0, 0x80000000]) values.push((sign | (exponent << 23) | mantissa) >>> 0);
        }
      }
    }
    expect(values.length).toBeGreaterThan(10_000);
    expect(mismatches(Uint32Array.from(values))).toEqual([]);
  });

  it('every bfloat16 value with each rounding case of the low half (NaN payloads included)', () => {
    const lowClasses = [0, 1, 0x7fff, 0x8000, 0x8001, 0xffff];
    const inputs = new Uint32Array(65536 * lowClasses.length);
    let n = 0;
    for (let high = 0; high < 65536; high++) for (const low of lowClasses) inputs[n++] = ((high << 16) | low) >>> 0;
    expect(mismatches(inputs)).toEqual([]);
  });

  it('named special values', () => {
    const specials = [0, -0, Infinity, -Infinity, NaN, 65504, -65504, 65519.99, 65520, 65536, 1e38, -1e38, 2 ** -14, 2 ** -24, 2 ** -25, 2 ** -25 * 1.0000001, 2 ** -26, 1.401298464324817e-45, 5.960464477539063e-8];
    const bits = new Uint32Array(Float32Array.from(specials).buffer);
    const nans = [0x7f800001, 0x7fc00000, 0xffc00000, 0x7fbfffff, 0xff800001, 0x7fffffff, 0xffffffff];
    expect(mismatches(Uint32Array.from([...bits, ...nans]))).toEqual([]);
  });

  it('four million random bit patterns', () => {
    const random = seededRandom(13);
    const inputs = new Uint32Array(1 << 22);
    for (let i = 0; i < inputs.length; i++) inputs[i] = Math.floor(random() * 2 ** 32) >>> 0;
    expect(mismatches(inputs)).toEqual([]);
  });

  it('finds the largest finite magnitude, ignoring inf and NaN, and agrees with fitsFloat16', () => {
    const values = Float32Array.from([1, -3, Infinity, NaN, -Infinity, 2.5, -65519]);
    const bits = new Int32Array(values.buffer);
    expect(float32FromBits(largestFiniteBits(bits))).toBe(65519);
    expect(fitsFloat16(values)).toBe(true);
    values[1] = -65520;
    expect(float32FromBits(largestFiniteBits(bits))).toBe(65520);
    expect(fitsFloat16(values)).toBe(false);
    expect(largestFiniteBits(new Int32Array(Float32Array.from([NaN, Infinity]).buffer))).toBe(0);
    // The fp16 conversion finds the same largest magnitude in the same pass.
    expect(float32FromBits(float32BitsToFloat16(bits, new Uint16Array(bits.length)))).toBe(65520);
    expect(float32BitsToFloat16(new Int32Array(Float32Array.from([NaN, -Infinity, 0.5]).buffer), new Uint16Array(3))).toBe(0x3f000000);
  });
});
