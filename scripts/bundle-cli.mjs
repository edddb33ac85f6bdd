// The command line as one module graph of a few files: Node 20 spends most of a small rewrite's
// start-up resolving, reading and linking the ~70 ES modules tsc writes (about 14 ms of CPU more
// than the same code bundled). Rolldown bundles dist/cli/main.js in place; the modules loaded on
// demand (yargs's commands, the report renderers, calibration) stay chunks of their own, loaded
// when they were. Packages (node_modules, node:) stay external, so each is loaded as before.
// The library (dist/index.js) and every other dist file are left as tsc wrote them.
//
// Each module's `import.meta.url` is rewritten to the URL its tsc output has, so files found
// relative to a module (rules/*.json, bench-worker.js, package.json) are found as before.
// Without rolldown (a production install) the unbundled main.js is kept: it behaves the same.
//
// The rewrite chunk is then split into a script body run through V8's code cache and the module
// left in its place (scripts/script-module.mjs, src/cli/code-cache.ts), and the cache is written.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { splitScriptModule } from './script-module.mjs';

const CLI_DIR = path.resolve('dist/cli');
const ENTRY = path.join(CLI_DIR, 'main.js');
/** Modules whose functions are written into the HTML report as source text (the page script and its data's decoder). */
const PAGE_SOURCES = new Set(['page-script.js', 'page-data.js'].map((file) => path.resolve('dist/report/html', file)));
// long is bundled too: protobufjs requires its CommonJS build, which, external, cost the start of
// Node's CommonJS loader (about 3 ms) on top of the ES module the codec imports.
const BUNDLED_PACKAGE = /^(protobufjs|@protobufjs)\/|^long$/;
/** Chunks are named so that a rebuild can find and remove the previous build's. */
const CHUNK_PREFIX = 'main-chunk-';
const PLAIN_REWRITE = path.join(CLI_DIR, 'plain-rewrite.js');
/**
 * Every module a plain rewrite loads statically (less what the entry itself imports), filled in
 * once the module graph is known: they make one chunk. Split as rolldown splits by default, they
 * were about 22 chunks, each resolved, read and linked on its own (about 12 ms of start-up).
 */
const rewriteModules = new Set();

let rolldown;
try {
  ({ rolldown } = await import('rolldown'));
} catch {
  console.warn('bundle-cli: rolldown is not installed; dist/cli/main.js stays unbundled');
  process.exit(0);
}

for (const file of readdirSync(CLI_DIR)) {
  if (file.startsWith(CHUNK_PREFIX)) rmSync(path.join(CLI_DIR, file));
}

/** The expression for `import.meta.url` of the module `id` once its code sits in a file of CLI_DIR. */
function moduleUrlExpression(id) {
  const relative = path.relative(CLI_DIR, id).split(path.sep).join('/');
  return `new URL(${JSON.stringify(relative.startsWith('.') ? relative : `./${relative}`)}, import.meta.url).href`;
}

const bundle = await rolldown({
  input: ENTRY,
  platform: 'node',
  // Bare specifiers and node: builtins: loaded by Node from node_modules, exactly as unbundled.
  // The HTML report's page script and data decoder are written into the report as their
  // functions' source text: bundled, they would be reformatted, so they stay tsc's files.
  // protobufjs's runtime is bundled: as CommonJS loaded from an ES module it cost ~10 ms (the
  // CommonJS loader, a lexer pass for its exports, 17 files resolved and wrapped one by one).
  external: (id) => (!id.startsWith('.') && !path.isAbsolute(id) && !BUNDLED_PACKAGE.test(id)) || PAGE_SOURCES.has(path.resolve(id)),
  plugins: [
    {
      name: 'plain-rewrite-modules',
      buildEnd() {
        /** Adds the modules `start` imports statically, transitively, to `into`. */
        const closure = (start, into) => {
          const stack = [start];
          while (stack.length) {
            const id = stack.pop();
            if (into.has(id)) continue;
            into.add(id);
            for (const next of this.getModuleInfo(id)?.importedIds ?? []) stack.push(next);
          }
          return into;
        };
        const entryOwn = new Set();
        for (const id of this.getModuleInfo(ENTRY).importedIds) closure(id, entryOwn);
        closure(PLAIN_REWRITE, rewriteModules);
        for (const id of entryOwn) rewriteModules.delete(id);
      },
    },
    {
      name: 'keep-module-urls',
      transform(code, id) {
        // Rolldown's own runtime (a virtual module, `\0rolldown/...`) is made for the chunk's URL.
        if (!path.isAbsolute(id) || !code.includes('import.meta.url')) return null;
        return { code: code.replaceAll('import.meta.url', moduleUrlExpression(id)), map: null };
      },
    },
  ],
});
const { output } = await bundle.write({
  dir: CLI_DIR,
  format: 'esm',
  entryFileNames: 'main.js',
  chunkFileNames: `${CHUNK_PREFIX}[name]-[hash].js`,
  codeSplitting: { groups: [{ name: 'rewrite', test: (id) => rewriteModules.has(id) }] },
  // An all-ASCII file is read into a one-byte string, which V8 scans faster than the two-byte
  // string a single '→' in a comment makes of the whole chunk (about 1-2 ms of start-up).
  charset: 'ascii',
  comments: { legal: true, annotation: true, jsdoc: false },
});
await bundle.close();
chmodSync(ENTRY, 0o755);

// The plain rewrite's chunk runs from V8's code cache (src/cli/code-cache.ts): about 20 ms of
// parsing and compiling less at every start. A training rewrite, in a process of its own, writes
// the cache; the build stops if the chunk cannot run that way or the rewrite fails.
const rewriteChunk = output.find((file) => file.type === 'chunk' && file.fileName.startsWith(`${CHUNK_PREFIX}rewrite-`));
if (!rewriteChunk) throw new Error('bundle-cli: no rewrite chunk was written');
const { BODY_PARAMETERS, codeCacheFileOf } = await import(pathToFileURL(path.resolve('dist/cli/code-cache.js')).href);
const body = splitScriptModule(path.join(CLI_DIR, rewriteChunk.fileName), BODY_PARAMETERS);
// Without NODE_OPTIONS: the cache is for `amp-rewrite` as a plain `node` runs it.
const { NODE_OPTIONS: _flags, ...plainEnvironment } = process.env;
const training = spawnSync(process.execPath, [path.resolve('scripts/train-code-cache.mjs')], { stdio: ['ignore', 'ignore', 'inherit'], env: plainEnvironment });
if (training.status !== 0 || !existsSync(codeCacheFileOf(body))) throw new Error(`bundle-cli: the code cache's training rewrite failed (status ${training.status})`);
// tsc's map describes the unbundled main.js.
rmSync(`${ENTRY}.map`, { force: true });
