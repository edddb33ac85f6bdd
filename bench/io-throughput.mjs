// Bytes per second for loading and saving models with large weights (inline and as external
// data), and for converting weights to float16 (--weights fp16). Usage: node bench/io-throughput.mjs [--mib N]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { GraphBuilder, randomNormal, seededRandom } = await import(path.join(root, 'dist/builder/graph-builder.js'));
const api = await import(path.join(root, 'dist/index.js'));
export async function ioThroughput({ totalMiB = 256 } = {}) {
const layer = 1024; // 1024 x 1024 float32 = 4 MiB per weight
const layers = Math.max(1, Math.round(totalMiB / 4));
const random = seededRandom(5);
const b = new GraphBuilder('wide_mlp');
let x = b.input('x', api.DataType.FLOAT, [8, layer]);
for (let i = 0; i < layers; i++) {
  x = b.op('MatMul', [x, b.initializer(`w${i}`, [layer, layer], randomNormal(layer * layer, 0.03, random))], {}, { name: `mm${i}` });
  x = b.op('Relu', [x], {}, { name: `relu${i}` });
}
b.outputs.push(api.onnx.ValueInfoProto.create({ name: x, type: { tensor_type: { elem_type: 1 } } }));
const model = b.model();
const dir = mkdtempSync(path.join(tmpdir(), 'amp-io-'));
const time = (fn) => {
  const start = process.hrtime.bigint();
  const value = fn();
  return { value, s: Number(process.hrtime.bigint() - start) / 1e9 };
};
const inline = path.join(dir, 'inline.onnx');
const external = path.join(dir, 'external.onnx');
const saveInline = time(() => api.saveModel(model, inline));
const bytes = statSync(inline).size;
const loadInline = time(() => api.loadModel(inline));
const saveExternal = time(() => api.saveModel(model, external, { externalData: { location: 'external.onnx.data' } }));
const loadExternal = time(() => api.loadModel(external));
const readExternal = time(() => {
  let total = 0;
  api.forEachTensor(loadExternal.value, (t) => (total += api.tensorRawBytes(t)?.length ?? 0));
  return total;
});
const convert = time(() => api.ampRewrite(loadInline.value, { weights: 'fp16' }));
const mib = bytes / 2 ** 20;
const rate = (s) => `${(mib / s).toFixed(0)} MiB/s`;
const rows = {
  weightsMiB: mib,
  saveInlineMiBps: mib / saveInline.s,
  loadInlineMiBps: mib / loadInline.s,
  saveExternalMiBps: mib / saveExternal.s,
  loadExternalLazyMs: loadExternal.s * 1000,
  readExternalMiBps: mib / readExternal.s,
  convertToFp16MiBps: mib / convert.s,
  weightsConverted: convert.value.report.summary.weightsConverted.length,
};
console.log(
  `model with ${mib.toFixed(0)} MiB of weights: save ${rate(saveInline.s)}, load ${rate(loadInline.s)}, ` +
    `save as external data ${rate(saveExternal.s)}, lazy load ${(loadExternal.s * 1000).toFixed(1)} ms then read ${rate(readExternal.s)}, ` +
    `rewrite with --weights fp16 ${rate(convert.s)} (${rows.weightsConverted} weights)`,
);
rmSync(dir, { recursive: true, force: true });
return { benchmark: 'io-throughput', ...rows };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { mib: { type: 'string', default: '256' } } });
  await ioThroughput({ totalMiB: Number(values.mib) });
}
