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
  /** Verify first, as the command line does by default, on onnxruntime-web. */
  verify: boolean;
  /** Also run the model natively on WebGPU, beside the emulated verification (offered where the GPU has shader-f16). */
  native: boolean;
  /** onnxruntime-web's .wasm, sent with the first request that needs it (the Worker keeps it). */
  runtimeWasm?: ArrayBuffer;
}


/** Worker → page. */
export type WorkerMessage =
  | { type: 'phase'; name: string }
  | {
      type: 'done';
      /** The model to download; absent when the rewrite failed its verification (the command line writes nothing then). */
      bytes?: ArrayBuffer;
      modified: boolean;
      embeddedTensors: number;
      summaryText: string;
      /** The verdict: 'pass', 'fail' or 'not-verified'; absent without verification. */
      verification?: string;
      /** The native WebGPU run's verdict line, when one was asked for. */
      nativeVerdict?: string;
      auditJson: string;
      auditHtml: string;
      milliseconds: number;
    }
  | { type: 'error'; code: string; message: string };
