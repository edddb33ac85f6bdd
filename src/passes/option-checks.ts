/**
 * Run-time checks of the options JavaScript callers pass: TypeScript's types do not reach them, so
 * `ampRewrite(m, { mode: 'fp8' })` must be an error (BAD_OPTION naming the option), not fp16.
 * They live with the passes, which check their own options (amp.ts, pipeline.ts); api/ checks the
 * options of its entry points with the same helpers, importing them from here (a lower layer never
 * reaches up into api/: test/architecture.test.ts).
 */
import { AmpError } from '../onnx/errors.js';

type Options = Readonly<Record<string, unknown>> | undefined;

function fail(option: string, expected: string, value: unknown): never {
  throw new AmpError('BAD_OPTION', `option ${option}: expected ${expected}, got ${JSON.stringify(value) ?? String(value)}`, { subject: option });
}

/** Every key of `options` must be one the function takes: a misspelt option is an error, not a default. */
export function checkKnownKeys(options: Options, known: readonly string[], what: string): void {
  if (options !== undefined && (options === null || typeof options !== 'object')) fail('options', 'an object', options);
  for (const key of Object.keys(options ?? {})) {
    if (!known.includes(key) && (options as Record<string, unknown>)[key] !== undefined) {
      throw new AmpError('BAD_OPTION', `${what}: unknown option '${key}' (valid: ${known.join(', ')})`, { subject: key });
    }
  }
}

export function checkChoice(options: Options, option: string, choices: readonly string[]): void {
  const value = options?.[option];
  if (value !== undefined && !choices.includes(value as string)) fail(option, `one of ${choices.map((c) => `'${c}'`).join(', ')}`, value);
}

export function checkStrings(options: Options, option: string): void {
  const value = options?.[option];
  if (value !== undefined && !(Array.isArray(value) && value.every((v) => typeof v === 'string'))) fail(option, 'an array of strings', value);
}

export function checkBoolean(options: Options, option: string): void {
  const value = options?.[option];
  if (value !== undefined && typeof value !== 'boolean') fail(option, 'true or false', value);
}

export function checkNumber(options: Options, option: string, least: number, integer = false): void {
  const value = options?.[option];
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < least || (integer && !Number.isInteger(value))) {
    fail(option, `${integer ? 'an integer' : 'a number'} of at least ${least}`, value);
  }
}

export function checkObject(options: Options, option: string): void {
  const value = options?.[option];
  if (value !== undefined && (value === null || typeof value !== 'object')) fail(option, 'an object', value);
}

/** The AMP pass's own options (passes/amp.ts calls this first). */
export function checkAmpOptions(options: Options): void {
  if (options !== undefined && (options === null || typeof options !== 'object')) fail('options', 'an object', options);
  checkChoice(options, 'mode', ['fp16', 'bf16']);
  checkChoice(options, 'weights', ['fp32', 'fp16']);
  checkChoice(options, 'kvCache', ['keep', 'fp16']);
  checkChoice(options, 'ioTypes', ['keep', 'fp16', 'bf16']);
  checkStrings(options, 'forceFp32');
  checkStrings(options, 'forceFp16');
  checkStrings(options, 'weightInputs');
  checkBoolean(options, 'validate');
  checkBoolean(options, 'audit');
  checkBoolean(options, 'figures');
  checkObject(options, 'env');
  const layers = options?.listChanges;
  if (layers !== undefined && !(Array.isArray(layers) && layers.every((l) => l && typeof l === 'object' && typeof l.origin === 'string' && l.changes && typeof l.changes === 'object'))) {
    fail('listChanges', "an array of { origin: string, changes: { allow?: { add?, remove? }, ... } }", layers);
  }
}

/** The training part of the rewrite (passes/pipeline.ts). */
export function checkRewriteOptions(options: Options): void {
  checkAmpOptions(options);
  checkChoice(options, 'training', ['auto', 'on', 'off']);
  checkObject(options, 'contract');
  const scale = options?.lossScale as { kind?: unknown } | undefined;
  if (scale !== undefined) {
    if (!scale || typeof scale !== 'object') fail('lossScale', "{ kind: 'dynamic' | 'static' | 'none', ... }", scale);
    checkChoice(scale as Record<string, unknown>, 'kind', ['dynamic', 'static', 'none']);
  }
}
