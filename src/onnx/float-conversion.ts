/**
 * float32 -> float16 / bfloat16 over whole arrays, on the bit patterns (Int32Array views: V8
 * keeps int32s unboxed), so that no value passes through a floating-point number: integer adds do
 * the rounding. Results are
 * bit-identical to float16.ts's one-value reference (round to nearest even; NaN stays NaN with
 * its payload's top bits and sign; overflow gives ±inf; fp16 subnormals rounded exactly), which
 * test/onnx/float-conversion.test.ts checks on every float32 input.
 */

/** Bits of 65520, the smallest float32 magnitude that rounds to float16 infinity. */
export const FLOAT16_OVERFLOW_BITS = 0x477ff000;
const INFINITY_BITS = 0x7f800000;
/** 2^16: from here float16's exponent field overflows whatever the rounding. */
const FLOAT16_INFINITE_BITS = 0x47800000;
/** Below 2^-25 a value rounds to zero in float16. */
const FLOAT16_UNDERFLOW_BITS = 0x33000000;

/**
 * Converts `source[i]` (float32 bits) to float16 bits in `target[i]`, for i < source.length, and
 * returns the largest finite magnitude seen, as bits, at least `largest` (the range scan, fused).
 */
export function float32BitsToFloat16(source: Int32Array, target: Uint16Array, largest = 0): number {
  const n = source.length;
  for (let i = 0; i < n; i++) {
    const x = source[i] as number;
    const abs = x & 0x7fffffff;
    const sign = (x >>> 16) & 0x8000;
    if (abs > largest && abs < 0x7f800000) largest = abs; // finite only
    // Literal constants in the hot loops (module constants cost a check per use): 0x38800000 is
    // 2^-14, float16's smallest normal; 0x47800000 is 2^16 (FLOAT16_INFINITE_BITS); -939520001 is
    // -(112 << 23) + 0xfff: rebias the exponent from 127 to 15 and add just under half an fp16 ulp.
    if (abs >= 0x38800000 && abs < 0x47800000) {
      // Normal: the +0xfff (+1 when the kept mantissa is odd) carries exactly when RNE rounds up,
      // and a carry out of the mantissa moves into the exponent, which is right (65520 -> inf).
      target[i] = sign | ((abs - 939520001 + ((abs >>> 13) & 1)) >>> 13);
    } else {
      target[i] = sign | float16OutsideNormal(abs);
    }
  }
  return largest;
}

/** The rare cases, out of the hot loop: inf, NaN, overflow, subnormal and zero. */
function float16OutsideNormal(abs: number): number {
  if (abs >= INFINITY_BITS) return abs > INFINITY_BITS ? 0x7e00 | ((abs >>> 13) & 0x3ff) : 0x7c00;
  if (abs >= FLOAT16_INFINITE_BITS) return 0x7c00;
  if (abs < FLOAT16_UNDERFLOW_BITS) return 0;
  // Subnormal in float16: the value in units of 2^-24 is mantissa >> shift, rounded to even.
  const mantissa = (abs & 0x7fffff) | 0x800000;
  const shift = 126 - (abs >>> 23);
  const kept = mantissa >>> shift;
  const rest = mantissa & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  return rest > half || (rest === half && kept & 1) ? kept + 1 : kept;
}

/** Converts float32 bits to bfloat16 bits (round to nearest even; NaN stays a quiet NaN). */
export function float32BitsToBfloat16(source: Int32Array, target: Uint16Array): void {
  const n = source.length;
  for (let i = 0; i < n; i++) {
    const x = source[i] as number;
    if ((x & 0x7fffffff) > 0x7f800000) target[i] = (x >>> 16) | 0x40; // NaN
    else target[i] = (x + 0x7fff + ((x >>> 16) & 1)) >>> 16;
  }
}

/**
 * The largest finite magnitude among float32 bit patterns, as bits (0 when there is none).
 * For non-negative floats the order of the bit patterns is the order of the values.
 */
export function largestFiniteBits(source: Int32Array, start = 0): number {
  let largest = start;
  const n = source.length;
  for (let i = 0; i < n; i++) {
    const abs = (source[i] as number) & 0x7fffffff;
    if (abs > largest && abs < 0x7f800000) largest = abs; // finite only
  }
  return largest;
}

const bitsView = new Uint32Array(1);
const floatView = new Float32Array(bitsView.buffer);

export function float32FromBits(bits: number): number {
  bitsView[0] = bits;
  return floatView[0] as number;
}

/**
 * The shortest decimal that reads back as the same float32 (3.4028235e+38, not the float64
 * expansion 3.4028234663852886e+38): how a float32 weight is quoted in messages.
 */
export function shortestFloat32(value: number): string {
  if (!Number.isFinite(value) || value === 0) return String(value);
  const exact = Math.fround(value);
  for (let digits = 1; digits < 9; digits++) {
    const text = exact.toPrecision(digits);
    if (Math.fround(Number(text)) === exact) return String(Number(text));
  }
  return String(Number(exact.toPrecision(9)));
}
