/**
 * Named phases of a command (decode, paint, encode, …): `phase` calls its function and tells the
 * listeners. The command line's progress line listens to phase starts; its profile
 * (cli/profile.ts, AMP_REWRITE_PROFILE) times them. Without a listener, `phase` only calls its
 * function (one branch, no clock reads). No process or file here: the core runs in a browser too.
 */

let listener: ((name: string) => void) | undefined;
let timer: ((name: string) => () => void) | undefined;

/** Tells `onPhase` the name of each phase as it starts (the command line's progress line for large rewrites); undefined stops it. */
export function setPhaseListener(onPhase: ((name: string) => void) | undefined): void {
  listener = onPhase;
}

/** Calls `start(name)` as each phase starts and the function it returns as the phase ends (the profile); undefined stops it. */
export function setPhaseTimer(start: ((name: string) => () => void) | undefined): void {
  timer = start;
}

export function phase<T>(name: string, fn: () => T): T {
  listener?.(name);
  if (!timer) return fn();
  const end = timer(name);
  try {
    return fn();
  } finally {
    end();
  }
}
