/**
 * Progress of a long job, as the job sees it: which step it is on and how many there are. The
 * runtime reports it; the command line decides whether and how to draw it (cli/progress.ts), so
 * the library stays silent and the API can pass its own listener.
 */

export interface ProgressEvent {
  /** What is being done, e.g. 'calibration batch', 'try', 'reference run'. */
  phase: string;
  /** Steps finished (of this phase, or of the job when the phase is one step among others). */
  done: number;
  /** Steps in all, when known: the line shows an ETA only then. */
  total?: number;
}

export type ProgressListener = (event: ProgressEvent) => void;
