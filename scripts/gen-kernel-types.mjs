// Regenerates targets.cpu.lowPrecisionKernels of rules/kernels.json from ONNX Runtime's
// OperatorKernels.md (default: ../shared/reference/OperatorKernels.md): the ai.onnx ops whose
// newest CPU kernel registers tensor(float16) / tensor(bfloat16). Run it, then review the diff.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = process.argv[2] ?? path.join(root, '../shared/reference/OperatorKernels.md');
const lines = readFileSync(source, 'utf8').split('\n');
const start = lines.indexOf('## Operators implemented by CPUExecutionProvider');
const end = lines.findIndex((l, i) => i > start && l.startsWith('## Operators implemented by'));
if (start < 0 || end < 0) throw new Error(`${source}: no CPUExecutionProvider section`);
const found = { float16: new Set(), bfloat16: new Set() };
let domain;
for (const line of lines.slice(start, end)) {
  const heading = /^\|\*\*Operator Domain:\*\* \*(.*?)\*/.exec(line);
  if (heading) {
    domain = heading[1];
    continue;
  }
  const cells = line.split('|');
  // Only an op's first row (its newest opset) names the op; later rows are older versions.
  if (domain !== 'ai.onnx' || cells.length < 5 || !cells[1] || line.startsWith('|Op Name') || line.startsWith('|---')) continue;
  for (const type of Object.keys(found)) if (cells[4].includes(`tensor(${type})`)) found[type].add(cells[1]);
}
const file = path.join(root, 'rules/kernels.json');
const rules = JSON.parse(readFileSync(file, 'utf8'));
rules.targets.cpu.lowPrecisionKernels = {
  source: 'OperatorKernels.md of ONNX Runtime (CPUExecutionProvider, ai.onnx, newest opset of each op), by scripts/gen-kernel-types.mjs',
  float16: [...found.float16].sort(),
  bfloat16: [...found.bfloat16].sort(),
};
writeFileSync(file, `${JSON.stringify(rules, null, 2)}\n`);
console.log(`rules/kernels.json: cpu float16 ${found.float16.size} ops, bfloat16 ${found.bfloat16.size} ops`);
