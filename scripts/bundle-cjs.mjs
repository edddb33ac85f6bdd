// The library for CommonJS consumers (`require('amp-rewrite')` on Node 20, which cannot require an
// ES module): dist/index.js and everything it imports bundled by rolldown into one CommonJS file,
// dist/cjs/index.js, served by package.json's `require` export condition. dist/cjs has a
// package.json of its own ({"type": "commonjs"}), so Node reads index.js there as CommonJS and
// TypeScript reads the declarations copied beside it (the same .d.ts files tsc wrote) as a
// CommonJS module's: a `.cts` consumer compiles against them without TS1479.
//
// Packages (node_modules, node:) stay external: required (protobufjs, long) or imported on demand
// (onnxruntime-node, which `import()` loads from CommonJS as well). Dynamic imports of our own
// modules are inlined. Each module's `import.meta.url` is rewritten to the URL its tsc output has,
// so files found relative to a module (rules/*.json, bench-worker.js) are found as from the ES build.
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const DIST = path.resolve('dist');
const OUT_DIR = path.join(DIST, 'cjs');

let rolldown;
try {
  ({ rolldown } = await import('rolldown'));
} catch {
  console.warn('bundle-cjs: rolldown is not installed; no CommonJS build (dist/cjs) is written');
  process.exit(0);
}

rmSync(OUT_DIR, { recursive: true, force: true });

/** `import.meta.url` of the module `id`, from code that runs in dist/cjs/index.js. */
function moduleUrlExpression(id) {
  const relative = path.relative(OUT_DIR, id).split(path.sep).join('/');
  return `new URL(${JSON.stringify(relative)}, require('node:url').pathToFileURL(__filename)).href`;
}

const bundle = await rolldown({
  input: path.join(DIST, 'index.js'),
  platform: 'node',
  external: (id) => !id.startsWith('.') && !path.isAbsolute(id) && !id.startsWith('\0'),
  plugins: [
    {
      name: 'keep-module-urls',
      transform(code, id) {
        if (!path.isAbsolute(id) || !code.includes('import.meta.url')) return null;
        return { code: code.replaceAll('import.meta.url', moduleUrlExpression(id)), map: null };
      },
    },
  ],
});
await bundle.write({ dir: OUT_DIR, format: 'cjs', entryFileNames: 'index.js', codeSplitting: false, comments: { legal: true, annotation: true, jsdoc: false } });
await bundle.close();
writeFileSync(path.join(OUT_DIR, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);

/** The declarations, the same files under dist/cjs (the CLI's are no part of the library). */
function copyDeclarations(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) {
      if (source === OUT_DIR || source === path.join(DIST, 'cli')) continue;
      copyDeclarations(source, path.join(to, entry.name));
    } else if (entry.name.endsWith('.d.ts')) {
      mkdirSync(to, { recursive: true });
      copyFileSync(source, path.join(to, entry.name));
    }
  }
}
copyDeclarations(DIST, OUT_DIR);
