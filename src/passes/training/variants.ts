/**
 * The variants `train --compare` trains side by side, each with an optional loss-scaling switch
 * (`amp:unscaled`, `fp32:scaled`), so a table separates what loss scaling buys from what the
 * number format and the optimizer's constants do:
 *   fp64      every float value in float64 (pure-precision.ts)
 *   fp32      the graph as given
 *   amp       the AMP rewrite, float16, dynamic loss scaling unless :unscaled
 *   amp-bf16  the AMP rewrite, bfloat16, no loss scaling unless :scaled
 *   fp16      every float op and weight in float16 (pure-precision.ts), no loss scaling
 */
import { DataType } from '../../onnx/data-types.js';
import { AmpError } from '../../onnx/errors.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import { addLossScaling, DEFAULT_DYNAMIC_SCALE } from '../loss-scaling.js';
import { rewriteModel } from '../pipeline.js';
import { purePrecision } from '../pure-precision.js';

export const VARIANT_NAMES = ['fp64', 'fp32', 'amp', 'amp-bf16', 'fp16'] as const;
export type VariantName = (typeof VARIANT_NAMES)[number];

export interface Variant {
  name: VariantName;
  /** Dynamic loss scaling on (GradScaler defaults) or off. */
  scaled: boolean;
  /** As written on the command line, e.g. `amp:unscaled`. */
  label: string;
}

const SCALED_BY_DEFAULT: Record<VariantName, boolean> = { fp64: false, fp32: false, amp: true, 'amp-bf16': false, fp16: false };

/** Why a variant cannot take loss scaling, where it cannot. */
const SCALING_REFUSED: Partial<Record<VariantName, string>> = {
  fp64: 'float64 has no range to protect',
  // The scale (2^16 by default) and its bookkeeping need a type wider than float16; with them in
  // fp32 it is mixed precision, which is the amp variant.
  fp16: 'the scale and the all-finite check need float32, so a pure float16 graph cannot carry them (amp is fp16 with fp32 loss scaling)',
};

/** Parses a --compare list such as `fp32,amp,amp:unscaled,fp16`. */
export function parseVariants(list: string): Variant[] {
  const variants = list.split(',').map((v) => v.trim()).filter(Boolean).map((label): Variant => {
    const match = /^([a-z0-9-]+)(?::(scaled|unscaled))?$/.exec(label);
    const name = match?.[1] as VariantName | undefined;
    if (!match || !name || !(VARIANT_NAMES as readonly string[]).includes(name)) {
      throw new AmpError('BAD_OPTION', `--compare ${list}: '${label}' is not one of ${VARIANT_NAMES.join(', ')} (optionally with :scaled or :unscaled)`);
    }
    const scaled = match[2] ? match[2] === 'scaled' : SCALED_BY_DEFAULT[name];
    if (scaled && SCALING_REFUSED[name]) throw new AmpError('BAD_OPTION', `--compare ${label}: no loss scaling for ${name}: ${SCALING_REFUSED[name]}`);
    return { name, scaled, label };
  });
  const labels = variants.map((v) => v.label);
  const repeated = labels.find((l, i) => labels.indexOf(l) !== i);
  if (repeated) throw new AmpError('BAD_OPTION', `--compare ${list}: '${repeated}' is listed twice`);
  return variants;
}

/** The step graph a variant trains, made from the fp32 step graph. */
export function variantGraph(model: onnx.ModelProto, variant: Variant): onnx.ModelProto {
  const lossScale = variant.scaled ? DEFAULT_DYNAMIC_SCALE : ({ kind: 'none' } as const);
  switch (variant.name) {
    case 'fp64':
      return purePrecision(model, DataType.DOUBLE);
    case 'fp32':
      return variant.scaled ? addLossScaling(model, lossScale).model : model;
    case 'amp':
      return rewriteModel(model, { training: 'on', lossScale }).model;
    case 'amp-bf16':
      return rewriteModel(model, { training: 'on', mode: 'bf16', lossScale }).model;
    case 'fp16':
      return purePrecision(model, DataType.FLOAT16);
  }
}
