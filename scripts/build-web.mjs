// The web page, dist/web/index.html: one file that works opened from file:// and from any static
// host, offline. Rolldown bundles the Worker (src/web/worker.ts: the rewrite, the summary, the
// audits) and the page's script (src/web/page.ts) for the browser; the Worker's code rides in the
// page as a string and starts from a blob: URL. The page's Content-Security-Policy allows its own
// script, the Worker from blob:, and the two scripts of the visual audit it shows in a sandboxed
// frame, by hash, and nothing else: no request can leave the page.
//
// The audit's scripts are the Worker bundle's own text (the audit writes its page functions as
// source), so their hashes are taken from an audit the bundle renders here, in a bare V8 context,
// of a small model: the build also proves the bundle runs without Node.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = path.join(root, 'dist/web');
/** Any small model: its audit gives the audit scripts' text. */
const PROBE_MODEL = path.join(root, 'fixtures/torch-forward/mlp-torchscript.onnx');

let rolldown;
try {
  ({ rolldown } = await import('rolldown'));
} catch {
  console.warn('build-web: rolldown is not installed; no web page (dist/web) is written');
  process.exit(0);
}

async function bundle(entry) {
  // onnxruntime-web finds its files through import.meta.url; the page hands it the .wasm as bytes and
  // starts no Worker of its, so an empty import.meta (what an IIFE has) is what it gets, said here once.
  const built = await rolldown({ input: path.join(root, entry), platform: 'browser', logLevel: 'warn', transform: { define: { 'import.meta': '{}' } } });
  const { output } = await built.generate({ format: 'iife', minify: true });
  return output[0].code;
}

const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The executable inline scripts of an HTML text (not data blocks). */
function inlineScripts(html) {
  return [...html.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/g)].filter((m) => !/type="application\/json"/.test(m[1] ?? '')).map((m) => m[2]);
}

/** The Worker bundle run in a bare V8 context on PROBE_MODEL: its audit's scripts. */
function auditScripts(workerCode) {
  let reply;
  const self = { postMessage: (message) => (reply = message.type === 'phase' ? reply : message), onmessage: null };
  const context = vm.createContext({ self, TextEncoder, TextDecoder, performance, console });
  vm.runInContext(workerCode, context);
  const bytes = readFileSync(PROBE_MODEL);
  const buffer = vm.runInContext(`new ArrayBuffer(${bytes.length})`, context);
  new Uint8Array(buffer).set(bytes);
  self.onmessage({ data: { type: 'rewrite', model: { name: 'probe.onnx', bytes: buffer }, dataFiles: [], options: {} } });
  if (reply?.type !== 'done') throw new Error(`build-web: the Worker bundle did not rewrite ${PROBE_MODEL}: ${JSON.stringify(reply)}`);
  return inlineScripts(reply.auditHtml);
}

/** A JavaScript string literal safe inside a <script> element. */
const scriptSafeString = (text) => JSON.stringify(text).replace(/<\//g, '<\\/').replace(/<!--/g, '<\\!--');

const workerCode = await bundle('src/web/worker.ts');
// onnxruntime-web's WebAssembly runtime: the build its WebGPU entry loads (asyncify), which runs both the CPU
// provider (the verification) and the WebGPU one (the native run), carried by the page.
const ortWasm = readFileSync(path.join(root, 'node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.asyncify.wasm')).toString('base64');
const pageCode = `const AMP_WORKER_SOURCE = ${scriptSafeString(workerCode)};\nconst AMP_ORT_WASM_BASE64 = "${ortWasm}";\n${await bundle('src/web/page.ts')}`;
if (/<\/script/i.test(pageCode)) throw new Error('build-web: the page script holds "</script", which would end its element');
const { webPageHtml } = await import(path.join(root, 'dist/web/page-html.js'));
const csp = [
  "default-src 'none'",
  // WebAssembly compiles only with 'wasm-unsafe-eval' (onnxruntime-web in the Worker, which inherits this policy); no JavaScript eval.
  `script-src 'wasm-unsafe-eval' ${[pageCode, ...auditScripts(workerCode)].map(sha256).join(' ')}`,
  'worker-src blob:',
  "style-src 'unsafe-inline'",
  'img-src data: blob:',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
mkdirSync(OUT_DIR, { recursive: true });
const version = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version;
writeFileSync(path.join(OUT_DIR, 'index.html'), webPageHtml({ csp, pageCode, version }));
