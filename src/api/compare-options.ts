/** Option checks shared by the library's compare functions (compareWithExpected, comparePerNode). */
import { AmpError } from '../onnx/errors.js';
import type { Numerics } from './types.js';

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
