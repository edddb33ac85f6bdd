/**
 * ONNX Runtime in the page's Worker: onnxruntime-web's WebAssembly build (the release the project
 * pins beside onnxruntime-node), its .wasm handed over as bytes (the page carries it: nothing is
 * fetched), one thread (a page opened from file:// is not cross-origin isolated), no proxy Worker.
 * Sessions open on its CPU provider compiled to WebAssembly, which the verification names `cpu`.
 */
import * as ortWeb from 'onnxruntime-web/wasm';
import type { BytesVerifier } from '../api/rewrite-bytes.js';

let started = false;

/** onnxruntime-web started on `wasm` (the first call's bytes; later calls reuse it). */
export function webVerifier(wasm: ArrayBuffer): BytesVerifier {
  if (!started) {
    ortWeb.env.wasm.wasmBinary = wasm;
    ortWeb.env.wasm.numThreads = 1;
    ortWeb.env.wasm.proxy = false;
    ortWeb.env.logLevel = 'fatal';
    started = true;
  }
  return { ort: ortWeb, open: (model, options) => ortWeb.InferenceSession.create(model, { ...options, executionProviders: ['wasm'] }) };
}
