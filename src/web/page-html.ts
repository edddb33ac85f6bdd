/**
 * The web page's markup and style (scripts/build-web.mjs fills in the script and its CSP): the
 * file picker and drop zone, the options, the progress line, the summary, the downloads, the
 * visual audit in a sandboxed frame, and what the page lacks of the command line. The test hooks
 * are data-role attributes: model-input, verify, summary, download.
 */
import { ampPassInfo } from '../passes/amp.js';
import { TARGETS } from '../passes/amp/target-policy.js';

export interface WebPageParts {
  /** The Content-Security-Policy (script hashes included). */
  csp: string;
  /** The page's script, the Worker's code inside it. */
  pageCode: string;
  version: string;
}

const options = (values: readonly string[], chosen: string): string => values.map((v) => `<option value="${v}"${v === chosen ? ' selected' : ''}>${v}</option>`).join('');

const STYLE = `
[hidden] { display: none !important; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1d2430; background: #f6f7f9; }
header { padding: 14px 24px; background: #1d2430; color: #fff; }
header h1 { font-size: 18px; margin: 0; }
header p { margin: 4px 0 0; color: #c9d1dc; }
main { padding: 16px 24px; display: grid; grid-template-columns: minmax(320px, 420px) 1fr; gap: 20px; }
section { margin-bottom: 16px; background: #fff; border: 1px solid #dde2e8; border-radius: 6px; padding: 12px 16px; }
#drop { border: 2px dashed #9aa7b6; border-radius: 6px; padding: 18px; text-align: center; }
#drop.over { border-color: #2f6fde; background: #eef4ff; }
label { display: block; margin: 6px 0 2px; font-weight: 600; }
select, input[type=text], textarea { width: 100%; box-sizing: border-box; font: inherit; }
textarea { height: 3.2em; }
fieldset { border: 1px solid #dde2e8; margin: 8px 0; }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 0 12px; }
.lists { display: grid; grid-template-columns: auto 1fr 1fr; gap: 4px 8px; align-items: center; }
button { font: inherit; padding: 6px 16px; margin-top: 10px; }
#status { margin-left: 10px; color: #4a5564; }
#error { color: #a1141e; white-space: pre-wrap; }
pre[data-role=summary] { white-space: pre-wrap; font-size: 12.5px; background: #f3f5f8; padding: 10px; overflow: auto; }
#downloads a { margin-right: 14px; }
iframe#audit { display: block; width: calc(100% - 48px); height: 820px; margin: 0 24px 24px; border: 1px solid #dde2e8; background: #fff; }
.lacks { color: #4a5564; font-size: 13px; }
`;

export function webPageHtml(parts: WebPageParts): string {
  const mode = ampPassInfo.options.mode;
  const weights = ampPassInfo.options.weights;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${parts.csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>amp-rewrite: mixed precision for ONNX models, in the browser</title>
<style>${STYLE}</style>
</head>
<body>
<header>
  <h1>amp-rewrite ${parts.version}: mixed precision for ONNX models</h1>
  <p>Drop a model, get its float16 or bfloat16 rewrite and the audit of every decision. Everything runs on this machine: nothing is uploaded, and the page makes no request.</p>
</header>
<main>
<div>
  <section>
    <div id="drop">
      <p>Drop the model here (with its external data files, if it has any), or</p>
      <input type="file" multiple accept=".onnx,.data,.bin,.weights,.pb" data-role="model-input">
      <p id="picked"></p>
    </div>
    <fieldset>
      <legend>Options (the command line's)</legend>
      <div class="grid2">
        <div><label for="mode">--mode</label><select id="mode">${options(mode.choices, mode.default)}</select></div>
        <div><label for="target">--target</label><select id="target">${options(TARGETS, 'any')}</select></div>
        <div><label for="weights">--weights</label><select id="weights">${options(weights.choices, weights.default)}</select></div>
        <div><label for="io-types">--io-types</label><select id="io-types">${options(['keep', 'fp16', 'bf16'], 'keep')}</select></div>
        <div><label for="kv-cache">--kv-cache</label><select id="kv-cache">${options(['keep', 'fp16'], 'keep')}</select></div>
      </div>
      <label for="force-fp32">--force-fp32 (node names or /regex/, one a line)</label><textarea id="force-fp32"></textarea>
      <label for="force-fp16">--force-fp16</label><textarea id="force-fp16"></textarea>
      <label>op lists (comma-separated op types)</label>
      <div class="lists">
        <span></span><span>add</span><span>remove</span>
        ${['allow', 'infer', 'clear', 'deny'].map((list) => `<span>${list}</span><input type="text" id="${list}-add" aria-label="--${list}-add"><input type="text" id="${list}-remove" aria-label="--${list}-remove">`).join('\n        ')}
      </div>
      <label for="rules">--rules file</label><input type="file" id="rules" accept=".json">
      <label><input type="checkbox" data-role="verify" id="verify" checked> verify before offering the model (the command line's default): the float32 model and the rewrite run on ONNX Runtime (WebAssembly) under emulated float16 numerics; a rewrite that fails is not offered</label>
      <label id="native-choice" hidden><input type="checkbox" id="native"> also run natively on WebGPU (this GPU has shader-f16): both models on the GPU, judged by the same rule, beside the emulated verification</label>
    </fieldset>
    <button id="convert" disabled>Convert</button><button id="cancel" hidden>Stop</button>
    <progress id="progress" hidden></progress><span id="status"></span>
    <p id="error" hidden></p>
  </section>
</div>
<div>
  <section id="results" hidden>
    <div id="downloads"></div>
    <pre data-role="summary"></pre>
  </section>
  <section class="lacks">
    <h3>What this page does not do (the command line does)</h3>
    <ul>
      <li>Verification on CUDA (the command line verifies <code>--target cuda</code> natively where CUDA starts): the page verifies on ONNX Runtime's CPU provider compiled to WebAssembly, under emulated numerics, and offers a native WebGPU run beside it where the GPU has shader-f16; <code>--inputs</code>, <code>--numerics</code>, <code>--headroom</code> and <code>--input-scale</code>.</li>
      <li><code>--calibrate</code>, <code>tune</code>, <code>compare</code>, <code>bench</code>.</li>
      <li><code>make-training</code> and <code>train</code>; the loss-scaling options of a training graph (the defaults apply).</li>
      <li>Models over 2 GiB, and keeping weights in external data: the page embeds them in one file (<code>--external-data embed</code>).</li>
      <li><code>--dim</code>, <code>--inputs</code>, and op list changes from the environment (<code>AMP_REWRITE_*LIST_ADD</code>).</li>
    </ul>
  </section>
</div>
</main>
<iframe id="audit" title="the visual audit" sandbox="allow-scripts"></iframe>
<script>${parts.pageCode}</script>
</body>
</html>
`;
}
