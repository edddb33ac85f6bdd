/// <reference lib="dom" />
/**
 * The web page's own script (scripts/build-web.mjs inlines it into dist/web/index.html): the
 * user picks or drops a model and its external data files, chooses the options, and the rewrite
 * runs in a Worker made from the page's own code (a blob: URL, so the page works from file://);
 * the summary, the visual audit and the downloads come back. Nothing leaves the machine: the page
 * makes no request (its CSP allows none).
 */
import { MAX_PROTOBUF_BYTES } from '../onnx/byte-limits.js';
import { webgpuHasShaderF16 } from './gpu.js';
import type { RewriteRequest, WorkerMessage } from './messages.js';

/** The Worker's code, put in by the build (a string constant beside this script). */
declare const AMP_WORKER_SOURCE: string;
/** onnxruntime-web's .wasm in base64, put in by the build: the verification's runtime, carried by the page. */
declare const AMP_ORT_WASM_BASE64: string;

const $ = <T extends HTMLElement>(selector: string): T => document.querySelector(selector) as T;

/** What a phase is called on the progress line. */
const PHASE_WORDS: Record<string, string> = {
  decodeMs: 'reading the model',
  graphModelMs: 'building the graph',
  graphOrderMs: 'ordering the graph',
  typeInferenceMs: 'inferring types',
  weightRangeMs: 'scanning weights',
  paintMs: 'painting',
  castPlanMs: 'planning Casts',
  commitMs: 'writing the graph',
  typeInferenceAfterMs: 'checking types',
  validationMs: 'validating',
  shapeInferenceMs: 'inferring shapes',
  matrixFiguresMs: 'counting FLOPs',
  encodeMs: 'encoding',
  auditMs: 'building the audit',
  verifyMs: 'verifying on ONNX Runtime (WebAssembly)',
  nativeMs: 'running natively on WebGPU',
};

interface PickedFiles {
  model: File;
  dataFiles: File[];
}

let picked: PickedFiles | undefined;
let worker: Worker | undefined;
/** Whether the current Worker has onnxruntime-web's .wasm already (it keeps the first it is sent). */
let workerHasRuntime = false;

/** onnxruntime-web's .wasm, decoded from the page once. */
function runtimeWasm(): ArrayBuffer {
  const text = atob(AMP_ORT_WASM_BASE64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes.buffer;
}
const downloads: string[] = [];

/** The model among the files given: the one .onnx file (the others are its external data). */
function pickModel(files: readonly File[]): PickedFiles {
  const models = files.filter((f) => /\.onnx$/i.test(f.name));
  if (models.length !== 1) {
    throw new Error(models.length ? `${models.length} .onnx files given: give one model, with its external data files beside it` : 'no .onnx file given: pick the model (and its external data files, if it has any)');
  }
  const model = models[0] as File;
  return { model, dataFiles: files.filter((f) => f !== model) };
}

function showError(code: string, message: string): void {
  const box = $('#error');
  box.textContent = `${code === 'INTERNAL' ? 'internal error' : `[${code}]`}: ${message}`;
  box.hidden = false;
  setBusy(false, '');
}

function setBusy(busy: boolean, status: string): void {
  ($('#convert') as HTMLButtonElement).disabled = busy || !picked;
  ($('#cancel') as HTMLButtonElement).hidden = !busy;
  $('#status').textContent = status;
  ($('#progress') as HTMLProgressElement).hidden = !busy;
}

function lines(text: string): string[] {
  return text.split('\n').map((l) => l.trim()).filter(Boolean);
}

function listChanges(): Record<string, { add?: string[]; remove?: string[] }> {
  const changes: Record<string, { add?: string[]; remove?: string[] }> = {};
  const ops = (id: string): string[] => ($(`#${id}`) as HTMLInputElement).value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const list of ['allow', 'infer', 'clear', 'deny']) {
    const add = ops(`${list}-add`);
    const remove = ops(`${list}-remove`);
    if (add.length || remove.length) changes[list] = { ...(add.length ? { add } : {}), ...(remove.length ? { remove } : {}) };
  }
  return changes;
}

async function chosenOptions(): Promise<RewriteRequest['options']> {
  const value = (id: string): string => ($(`#${id}`) as HTMLSelectElement).value;
  const rulesFile = ($('#rules') as HTMLInputElement).files?.[0];
  return {
    mode: value('mode') as 'fp16' | 'bf16',
    weights: value('weights') as 'fp32' | 'fp16',
    target: value('target') as never,
    ioTypes: value('io-types') as 'keep' | 'fp16' | 'bf16',
    kvCache: value('kv-cache') as 'keep' | 'fp16',
    forceFp32: lines(($('#force-fp32') as HTMLTextAreaElement).value),
    forceFp16: lines(($('#force-fp16') as HTMLTextAreaElement).value),
    listChanges: listChanges(),
    ...(rulesFile ? { rules: { name: rulesFile.name, text: await rulesFile.text() } } : {}),
  };
}

function outputName(model: string): string {
  return `${model.replace(/\.onnx$/i, '')}.amp.onnx`;
}

function offerDownload(role: string, name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  downloads.push(url);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.textContent = name;
  link.setAttribute('data-role', role);
  $('#downloads').append(link, ' ');
}

function clearResults(): void {
  for (const url of downloads.splice(0)) URL.revokeObjectURL(url);
  $('#downloads').replaceChildren();
  $('[data-role="summary"]').textContent = '';
  ($('#audit') as HTMLIFrameElement).srcdoc = '';
  $('#results').hidden = true;
  $('#error').hidden = true;
}

function showResult(message: Extract<WorkerMessage, { type: 'done' }>, model: string): void {
  $('[data-role="summary"]').textContent = message.summaryText + (message.nativeVerdict ? `\nNative run on WebGPU (beside the emulated verification; the model offered is the verified one): ${message.nativeVerdict}\n` : '');
  const name = outputName(model);
  // A rewrite that failed its verification is not offered, as the command line writes nothing then.
  if (message.bytes) offerDownload('download', name, new Blob([message.bytes], { type: 'application/octet-stream' }));
  offerDownload('download-audit-json', `${name}.audit.json`, new Blob([message.auditJson], { type: 'application/json' }));
  offerDownload('download-audit-html', `${name}.audit.html`, new Blob([message.auditHtml], { type: 'text/html' }));
  ($('#audit') as HTMLIFrameElement).srcdoc = message.auditHtml;
  $('#results').hidden = false;
  // The Convert button sits below the options: the results come into view at the top.
  $('#results').scrollIntoView({ block: 'start' });
  const embedded = message.embeddedTensors ? `; ${message.embeddedTensors} external tensors embedded` : '';
  const verdict = message.verification === 'fail' ? ': it failed its verification, so no model is offered (the summary says where; the command line\'s tune repairs it)' : '';
  setBusy(false, `done in ${(message.milliseconds / 1000).toFixed(2)} s${message.modified ? '' : ' (nothing to change: the model is written as it was)'}${embedded}${verdict}`);
}

function newWorker(): Worker {
  const url = URL.createObjectURL(new Blob([AMP_WORKER_SOURCE], { type: 'text/javascript' }));
  const made = new Worker(url);
  URL.revokeObjectURL(url);
  return made;
}

async function convert(): Promise<void> {
  if (!picked) return;
  clearResults();
  const { model, dataFiles } = picked;
  const total = [model, ...dataFiles].reduce((sum, f) => sum + f.size, 0);
  if (total > MAX_PROTOBUF_BYTES) {
    showError('MODEL_TOO_LARGE', `${model.name} and its data come to ${(total / 2 ** 30).toFixed(2)} GiB, over the 2 GiB one ONNX file can hold: rewrite it with the command line (npx amp-rewrite ${model.name} -o ${outputName(model.name)}), which keeps weights in external data`);
    return;
  }
  setBusy(true, 'reading the files');
  // A Worker stopped or crashed is replaced here, before the request says whether it needs the runtime.
  if (!worker) {
    worker = newWorker();
    workerHasRuntime = false;
  }
  const running = worker;
  let request: RewriteRequest;
  try {
    request = {
      type: 'rewrite',
      model: { name: model.name, bytes: await model.arrayBuffer() },
      dataFiles: await Promise.all(dataFiles.map(async (f) => ({ name: f.name, bytes: await f.arrayBuffer() }))),
      options: await chosenOptions(),
      verify: ($('[data-role="verify"]') as HTMLInputElement).checked,
      native: !($('#native-choice') as HTMLElement).hidden && ($('#native') as HTMLInputElement).checked,
    };
    if ((request.verify || request.native) && !workerHasRuntime) request.runtimeWasm = runtimeWasm();
  } catch (error) {
    showError('READ_FAILED', `cannot read the files: ${(error as Error).message}`);
    return;
  }
  running.onmessage = (event: MessageEvent<WorkerMessage>) => {
    const message = event.data;
    if (message.type === 'phase') setBusy(true, `${PHASE_WORDS[message.name] ?? message.name}…`);
    else if (message.type === 'done') showResult(message, model.name);
    else showError(message.code, message.message);
  };
  running.onerror = (event) => {
    event.preventDefault();
    worker = undefined;
    running.terminate();
    showError('INTERNAL', event.message || 'the rewrite stopped');
  };
  running.postMessage(request, [request.model.bytes, ...request.dataFiles.map((f) => f.bytes), ...(request.runtimeWasm ? [request.runtimeWasm] : [])]);
  if (request.runtimeWasm) workerHasRuntime = true;
}

function cancel(): void {
  worker?.terminate();
  worker = undefined;
  setBusy(false, 'stopped');
}

function choose(files: readonly File[]): void {
  clearResults();
  try {
    picked = pickModel(files);
  } catch (error) {
    picked = undefined;
    showError('BAD_INPUT', (error as Error).message);
    return;
  }
  const data = picked.dataFiles.length ? ` with ${picked.dataFiles.map((f) => f.name).join(', ')}` : '';
  $('#picked').textContent = `${picked.model.name} (${(picked.model.size / 2 ** 20).toFixed(1)} MiB)${data}`;
  setBusy(false, '');
}

function start(): void {
  const input = $('[data-role="model-input"]') as HTMLInputElement;
  input.addEventListener('change', () => choose(Array.from(input.files ?? [])));
  const zone = $('#drop');
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('over');
    choose(Array.from(event.dataTransfer?.files ?? []));
  });
  $('#convert').addEventListener('click', () => void convert());
  $('#cancel').addEventListener('click', cancel);
  setBusy(false, '');
  // The native run is offered where the GPU runs float16 shaders.
  void webgpuHasShaderF16().then((has) => {
    ($('#native-choice') as HTMLElement).hidden = !has;
  });
}

start();
