/**
 * ONNX Runtime in the page's Worker: onnxruntime-web's WebGPU build (the release the project pins
 * beside onnxruntime-node; its WebAssembly runs both the CPU provider and the WebGPU one), its .wasm
 * handed over as bytes (the page carries it: nothing is fetched), one thread (a page opened from
 * file:// is not cross-origin isolated), no proxy Worker. The verification opens sessions on the
 * CPU provider compiled to WebAssembly, which it names `cpu`; the native run, where the GPU has
 * shader-f16, on WebGPU.
 */
import * as ortWeb from 'onnxruntime-web/webgpu';
import type { BytesVerifier } from '../api/rewrite-bytes.js';

let started = false;

/** onnxruntime-web started on `wasm` (the first call's bytes; later calls reuse it), opening sessions on `provider`. */
export function webVerifier(wasm: ArrayBuffer, provider: 'cpu' | 'webgpu' = 'cpu'): BytesVerifier {
  if (!started) {
    ortWeb.env.wasm.wasmBinary = wasm;
    ortWeb.env.wasm.numThreads = 1;
    ortWeb.env.wasm.proxy = false;
    ortWeb.env.logLevel = 'fatal';
    started = true;
  }
  const executionProviders = [provider === 'webgpu' ? 'webgpu' : 'wasm'];
  return { ort: ortWeb, provider, open: (model, options) => ortWeb.InferenceSession.create(model, { ...options, executionProviders }) };
}
