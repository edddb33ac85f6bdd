/**
 * Numeric options checked before use: yargs turns `--atol abc` into NaN, and a NaN tolerance
 * makes every comparison false, so `compare` would report PASS on models that differ.
 */
import { AmpError } from '../onnx/errors.js';
import { printable } from '../onnx/printable.js';

export interface NumberRule {
  min?: number;
  integer?: boolean;
}

export function requireNumber(option: string, value: unknown, rule: NumberRule = {}): number {
  const number = typeof value === 'number' ? value : Number.NaN;
  const shown = printable(String(value), 40);
  if (!Number.isFinite(number)) throw new AmpError('BAD_OPTION', `--${option} ${shown}: not a number`);
  if (rule.integer && !Number.isInteger(number)) throw new AmpError('BAD_OPTION', `--${option} ${shown}: must be a whole number`);
  if (rule.min !== undefined && number < rule.min) throw new AmpError('BAD_OPTION', `--${option} ${shown}: must be at least ${rule.min}`);
  return number;
}
