/// <reference lib="webworker" />
/**
 * The web page's Worker: the rewrite from bytes to bytes (api/rewrite-bytes.ts) off the page's
 * thread, the phases it goes through posted as it starts each, the result posted with its buffer
 * transferred. A typed error (AmpError) is posted as its code and message, as the command line
 * prints it; anything else is an internal error.
 */
import { rewriteAndVerifyBytes, rewriteBytes, type BytesRewrite, type VerifiedBytesRewrite } from '../api/rewrite-bytes.js';
import { isAmpError } from '../onnx/errors.js';
import { setPhaseListener } from '../onnx/phases.js';
import { renderVerification } from '../report/verification.js';
import type { RewriteRequest, WorkerMessage } from './messages.js';
import { webVerifier } from './web-runtime.js';

declare const self: DedicatedWorkerGlobalScope;

const post = (message: WorkerMessage, transfer: Transferable[] = []): void => self.postMessage(message, transfer);

/** onnxruntime-web's .wasm, from the first request that verifies. */
let wasm: ArrayBuffer | undefined;

self.onmessage = async (event: MessageEvent<RewriteRequest>) => {
  const request = event.data;
  if (request?.type !== 'rewrite') return;
  const started = performance.now();
  setPhaseListener((name) => post({ type: 'phase', name }));
  try {
    const externalData = new Map(request.dataFiles.map((file) => [file.name, new Uint8Array(file.bytes)]));
    const options = { ...request.options, source: request.model.name, externalData };
    const input = new Uint8Array(request.model.bytes);
    wasm ??= request.runtimeWasm;
    let result: BytesRewrite | VerifiedBytesRewrite;
    if ((request.verify || request.native) && !wasm) throw new Error('the page sent no onnxruntime-web to verify with');
    if (request.verify && wasm) {
      post({ type: 'phase', name: 'verifyMs' });
      result = await rewriteAndVerifyBytes(input, options, webVerifier(wasm));
    } else {
      result = rewriteBytes(input, options);
    }
    const verified = 'verification' in result ? result : undefined;
    // The native run, beside the verification: both models on WebGPU, judged by the same rule.
    let nativeVerdict: string | undefined;
    if (request.native && wasm) {
      post({ type: 'phase', name: 'nativeMs' });
      try {
        const native = await rewriteAndVerifyBytes(input, options, webVerifier(wasm, 'webgpu'));
        nativeVerdict = renderVerification(native.verification, native.report.amp.summary.mode).trimEnd();
      } catch (error) {
        // The GPU's run is a second opinion: its failure is said, the verified model stays.
        nativeVerdict = `could not run on WebGPU: ${isAmpError(error) ? `[${error.code}]: ${error.message}` : String((error as Error)?.message ?? error)}`;
      }
    }
    post({ type: 'phase', name: 'auditMs' });
    const auditJson = result.auditJson();
    const auditHtml = result.auditHtml();
    // The input's own buffer when nothing changed: copied, so that the page keeps its copy.
    const bytes = result.bytes.buffer === request.model.bytes ? result.bytes.slice() : result.bytes;
    const buffer = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? (bytes.buffer as ArrayBuffer) : (bytes.slice().buffer as ArrayBuffer);
    const written = !verified || verified.written;
    post(
      {
        type: 'done',
        ...(written ? { bytes: buffer } : {}),
        modified: result.modified,
        embeddedTensors: result.embeddedTensors,
        summaryText: result.summaryText,
        ...(verified ? { verification: verified.verification.status } : {}),
        ...(nativeVerdict ? { nativeVerdict } : {}),
        auditJson,
        auditHtml,
        milliseconds: performance.now() - started,
      },
      written ? [buffer] : [],
    );
  } catch (error) {
    if (isAmpError(error)) post({ type: 'error', code: error.code, message: error.message });
    else post({ type: 'error', code: 'INTERNAL', message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  } finally {
    setPhaseListener(undefined);
  }
};
