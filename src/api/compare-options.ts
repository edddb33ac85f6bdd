/** Option checks shared by the library's compare functions (compareWithExpected, comparePerNode). */
import { AmpError } from '../onnx/errors.js';
import { DEFAULT_TOLERANCE } from '../runtime/compare.js';
import { checkChoice, checkNumber } from '../passes/option-checks.js';
import { checkInputOptions, providersOf, type ExecuteOptions } from './execute.js';
import type { Numerics, Provider } from './types.js';

/** compare's numerics: 'auto' (default) emulates on the CPU provider and runs natively on a GPU provider. */
export type NumericsChoice = 'auto' | Numerics;

/** A key the function does not read is a mistake (a typo would silently change nothing): BAD_OPTION naming it. */
export function checkKnownOptions(fn: string, options: Readonly<Record<string, unknown>> | undefined, known: readonly string[]): void {
  if (options === undefined) return;
  if (options === null || typeof options !== 'object') throw new AmpError('BAD_OPTION', `${fn}: options must be an object`);
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown.length) {
    throw new AmpError('BAD_OPTION', `${fn}: unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')} (it takes ${known.join(', ')})`, { subject: unknown[0] });
  }
}

/** The numerics to ask for: undefined lets the provider decide. */
export function numericsOption(choice: NumericsChoice | undefined): Numerics | undefined {
  return choice === undefined || choice === 'auto' ? undefined : choice;
}

/** The keys both diagnostics take: the inputs, the provider, compare's tolerance rule and numerics. */
const DIAGNOSTIC_KEYS = ['inputs', 'dims', 'seed', 'ep', 'atol', 'atolFloor', 'rtol', 'numerics'] as const;

export interface DiagnosticOptions extends ExecuteOptions {
  atol?: number;
  /** The absolute floor of compare's rule (default 1e-5). */
  atolFloor?: number;
  rtol?: number;
  numerics?: NumericsChoice;
}

/**
 * The checked settings of a diagnostic (compareWithExpected, comparePerNode): unknown keys, the
 * inputs, the numbers and the numerics refused as compareModels refuses them; compare's defaults.
 */
export function diagnosticSettings(fn: string, options: DiagnosticOptions): { providers: Provider[]; numerics?: Numerics; atol: number; rtol: number; atolFloor: number } {
  const untyped = options as Record<string, unknown>;
  checkKnownOptions(fn, untyped, DIAGNOSTIC_KEYS);
  checkInputOptions(untyped);
  for (const key of ['atol', 'rtol', 'atolFloor']) checkNumber(untyped, key, 0);
  checkChoice(untyped, 'numerics', ['auto', 'emulate', 'native']);
  const numerics = numericsOption(options.numerics);
  return {
    providers: providersOf(options),
    ...(numerics ? { numerics } : {}),
    atol: options.atol ?? DEFAULT_TOLERANCE.atol,
    rtol: options.rtol ?? DEFAULT_TOLERANCE.rtol,
    atolFloor: options.atolFloor ?? DEFAULT_TOLERANCE.atolFloor,
  };
}
