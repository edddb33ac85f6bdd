/**
 * The verification's fixed figures, shared by the command line's worker and the web page's: no
 * runtime or file here, so the page can read them.
 */

/** Rewrite-and-run rounds at most: pins found in one round are tried in the next. */
export const MAX_VERIFY_ROUNDS = 3;

/** float16's max divided by this is the magnitude from which a value pins its nodes. */
export const DEFAULT_HEADROOM = 2;

const gib = (n: number): string => `${(n / 2 ** 30).toFixed(2)} GiB`;

/** Why a model of `bytes` cannot be run twice at all (its instrumented copy must be one protobuf message), or undefined. */
export function tooLargeToRunTwice(bytes: number): string | undefined {
  if (bytes > 1.5 * 2 ** 30) return `the model (${gib(bytes)}) is too large to run twice here: its copy with every value exposed must be one protobuf message, under 2 GiB; run amp-rewrite compare on the written model where it fits`;
  return undefined;
}
