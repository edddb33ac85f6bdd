/**
 * Which numerics a run uses: 'native' runs the model as ONNX Runtime runs it; 'emulate' runs its
 * emulating float32 model (passes/emulate-numerics.ts), which computes what a GPU computes. The
 * default is emulate on the CPU provider, whose float16 arithmetic is float32 inside chains, and
 * native on a GPU provider.
 */
import { AmpError } from '../onnx/errors.js';
import type { onnx } from '../onnx/generated/onnx.js';
import { emulateNumerics } from '../passes/emulate-numerics.js';
import type { Provider } from './session.js';

export const NUMERICS = ['emulate', 'native'] as const;
export type Numerics = (typeof NUMERICS)[number];

export function parseNumerics(value: string | undefined): Numerics | undefined {
  if (value === undefined || value === 'auto') return undefined;
  if (!(NUMERICS as readonly string[]).includes(value)) throw new AmpError('BAD_OPTION', `--numerics ${value}: choose emulate or native`);
  return value as Numerics;
}

/** The numerics to use on `provider` when none was asked for. */
export function defaultNumerics(provider: Provider): Numerics {
  return provider === 'cpu' ? 'emulate' : 'native';
}

/** The model to hand to ONNX Runtime under these numerics. */
export function modelForNumerics(model: onnx.IModelProto, numerics: Numerics): onnx.IModelProto {
  return numerics === 'emulate' ? emulateNumerics(model).model : model;
}

export function describeNumerics(numerics: Numerics, provider: Provider): string {
  return numerics === 'emulate'
    ? `numerics: emulated (float16/bfloat16 values rounded where produced, float32 accumulation; run on ${provider})`
    : `numerics: native (${provider}${provider === 'cpu' ? ': float16 chains are computed in float32, overflows inside them do not show' : ''})`;
}
