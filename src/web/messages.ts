/** What the page and its Worker say to each other (page.ts, worker.ts). */
import type { BytesRewriteOptions } from '../api/rewrite-bytes.js';

export interface NamedBytes {
  name: string;
  bytes: ArrayBuffer;
}

/** Page → Worker: rewrite this model (its external data files beside it) with these options. */
export interface RewriteRequest {
  type: 'rewrite';
  model: NamedBytes;
  dataFiles: NamedBytes[];
  options: Omit<BytesRewriteOptions, 'externalData' | 'source'>;
}

/** Worker → page. */
export type WorkerMessage =
  | { type: 'phase'; name: string }
  | { type: 'done'; bytes: ArrayBuffer; modified: boolean; embeddedTensors: number; summaryText: string; auditJson: string; auditHtml: string; milliseconds: number }
  | { type: 'error'; code: string; message: string };
