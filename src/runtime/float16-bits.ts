/**
 * float16 crosses ONNX Runtime as its raw bits, a Uint16Array, both ways (tensors.ts): no value
 * is rounded again on the way. On JavaScript runtimes that have Float16Array (Node.js 24 and
 * later), onnxruntime-common 1.29 wraps those bits in a Float16Array view, both ways:
 * - going in, onnxruntime-node 1.29's binding takes a Float16Array's byte length for 0, and every
 *   float16 input fails with "not enough space: expected 24, got 0" (microsoft/onnxruntime PR
 *   #32323, open);
 * - coming out, a float16 output's `data` is a Float16Array, whose elements are numbers rather than
 *   bits, so every reader of the bits would read values instead.
 * The sessions this tool opens therefore hand the binding each float16 input's bits and give back
 * each float16 output's bits: a view of the same memory, nothing copied or rounded. Where the
 * runtime has no Float16Array the tensors already hold bits, and nothing changes.
 */
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import type { Ort } from './ort.js';

type Run = InferenceSession['run'];

/** The bits of float16 data: the data itself when it is bits already, else a Uint16Array view of its memory. */
export function float16Bits(data: Tensor['data']): Uint16Array {
  if (data instanceof Uint16Array) return data;
  if (ArrayBuffer.isView(data) && (data as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT === 2) {
    const view = data as unknown as { buffer: ArrayBufferLike; byteOffset: number; length: number };
    return new Uint16Array(view.buffer, view.byteOffset, view.length);
  }
  throw new TypeError(`float16 tensor data is a ${Object.prototype.toString.call(data)}, not 16-bit elements`);
}

/** Whether a tensor is a float16 one in CPU memory whose data is not bits (a GPU tensor's data cannot be read). */
function wrapsBits(tensor: Tensor): boolean {
  const inCpuMemory = tensor.location === undefined || tensor.location === 'cpu' || tensor.location === 'cpu-pinned';
  return tensor.type === 'float16' && inCpuMemory && !(tensor.data instanceof Uint16Array);
}

/** A float16 tensor whose data is not bits, seen with its bits as `data`; any other value as it is. */
function withBitsIn<T>(value: T): T {
  const tensor = value as unknown as Tensor | null | undefined;
  if (!tensor || typeof tensor !== 'object' || !wrapsBits(tensor)) return value;
  // The caller's tensor stays as it is: the binding reads `data` off a view of it.
  return Object.create(tensor, { data: { value: float16Bits(tensor.data), enumerable: true } }) as T;
}

/** Sets a float16 tensor's `data` to its bits (a tensor this tool made, or a run's output handed to no one yet). */
function holdBits(tensor: Tensor): void {
  if (!wrapsBits(tensor)) return;
  Object.defineProperty(tensor, 'data', { value: float16Bits(tensor.data), enumerable: true, configurable: true });
}

/**
 * `new ort.Tensor(type, data, dims)`, whose `data` stays the bits given for a float16 tensor on
 * every runtime: the tool reads its own inputs back (summaries, calibration) as bits.
 */
export function newTensor(ort: Ort, type: Tensor.Type, data: unknown, dims: readonly number[]): Tensor {
  const tensor = new ort.Tensor(type as never, data as never, dims);
  holdBits(tensor);
  return tensor;
}

/** The feeds with each float16 input's `data` as bits (a new object only when one needed it). */
export function feedsWithFloat16Bits<F extends object>(feeds: F): F {
  let mended: Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(feeds)) {
    const bits = withBitsIn(value);
    if (bits === value) continue;
    mended ??= { ...(feeds as Record<string, unknown>) };
    mended[name] = bits;
  }
  return (mended ?? feeds) as F;
}

/**
 * Makes `session.run` hand float16 to ONNX Runtime as bits and return float16 outputs as bits
 * (see the top of this file). Changes this session object alone, never ONNX Runtime's classes,
 * which a library user's own sessions share.
 */
export function withFloat16Bits<S extends { run: Run }>(session: S): S {
  const run = session.run.bind(session) as (...args: unknown[]) => ReturnType<Run>;
  const mended = async (feeds: Parameters<Run>[0], ...rest: unknown[]) => {
    const results = await run(feedsWithFloat16Bits(feeds), ...rest);
    for (const tensor of Object.values(results)) holdBits(tensor as Tensor);
    return results;
  };
  session.run = mended as Run;
  return session;
}
