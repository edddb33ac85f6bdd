/**
 * The command line's rewrite chunk run from V8's code cache. Node 20 compiles an ES module from
 * its source on every start: parsing the 580 KB chunk and compiling to bytecode each function a
 * rewrite calls cost about 20 ms of every command (a third of a small model's time after Node's
 * own start-up), and Node 20 has no compile cache for ES modules. A script compiled by node:vm
 * can take V8's code cache instead: the build (scripts/bundle-cli.mjs) turns the chunk into a
 * script body and a small ES module that runs it through here, runs one rewrite, and stores the
 * bytecode of every function that rewrite compiled next to the body.
 *
 * The cache only ever saves time. It is used when it was written for exactly this source and
 * its data is intact (its header holds the SHA-256 of both: V8's own check compares only the
 * source's length, and it checks no checksum of its data) and V8 accepts it (the same V8 version
 * and flags: a `node --max-old-space-size=...` run compiles afresh). Otherwise, or when it is
 * missing, the body is compiled from its source as the module was, and runs the same.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

/** What became of a body's code cache: used, refused by V8, none written, or written for other bytes (or damaged). */
export type CodeCacheState = 'accepted' | 'rejected' | 'absent' | 'stale';

/** A body's run: its compiled script (the build writes its cache from it) and what became of its cache. */
export interface ScriptModuleRun {
  readonly script: vm.Script;
  /** SHA-256 of the source compiled: the body inside its wrapper. */
  readonly digest: Buffer;
  readonly state: CodeCacheState;
}

/**
 * The parameters a body is compiled with, in place of what an ES module has from its host: the
 * builtins its static imports named, `import()` and `import.meta` of the module it stands for.
 * Names no bundled module declares (the build checks).
 */
export const BODY_PARAMETERS = ['__ampRequire', '__ampImport', '__ampImportMeta'] as const;

/** The module's own `import(specifier, options)`. */
export type ModuleImporter = (specifier: string, options?: object) => Promise<unknown>;

const MAGIC = Buffer.from('amp-rewrite code cache 2\n', 'latin1');
const DIGEST_BYTES = 32;
/**
 * What a cache file holds before V8's data: a magic line, the SHA-256 of the source it was made
 * for and that of V8's data itself (V8 checks neither the source's bytes nor its data's: bytecode
 * from a damaged file would run).
 */
export const CODE_CACHE_HEADER_BYTES = MAGIC.length + 2 * DIGEST_BYTES;

/** The body is compiled inside these, on the body's first line: stack traces keep its line numbers. Strict, as the module was. */
const WRAPPER_START = `(function (${BODY_PARAMETERS.join(', ')}) {"use strict";`;
const WRAPPER_END = '\n})';

/** Every body run in this process, by file: read by the build's training run. */
const runs = new Map<string, ScriptModuleRun>();

export function scriptModuleRuns(): ReadonlyMap<string, ScriptModuleRun> {
  return runs;
}

/** Where a body's code cache is stored. */
export function codeCacheFileOf(bodyFile: string): string {
  return `${bodyFile}.cache`;
}

/**
 * Runs the script body `bodyUrl` (the statements of an ES module whose static imports were of
 * Node builtins only and whose exports were made one `return { name: binding, ... }` at its end)
 * and returns what it exports. `meta` and `importModule` are those of the module it stands for:
 * its `import.meta` and an `import()` of that module's own, so that relative URLs and specifiers
 * resolve as they did.
 */
export function runScriptModule(bodyUrl: URL, meta: ImportMeta, importModule: ModuleImporter): Record<string, unknown> {
  const file = fileURLToPath(bodyUrl);
  const body = readFileSync(file);
  const digest = createHash('sha256').update(WRAPPER_START).update(body).update(WRAPPER_END).digest();
  const { cachedData, state } = readCodeCache(file, digest);
  const source = `${WRAPPER_START}${body.toString('utf8')}${WRAPPER_END}`;
  const script = new vm.Script(source, { filename: file, ...(cachedData ? { cachedData } : {}) });
  // V8 says false only when it took the cache (undefined when it was given none).
  runs.set(file, { script, digest, state: cachedData ? (script.cachedDataRejected === false ? 'accepted' : 'rejected') : state });
  const run = script.runInThisContext() as (require: NodeJS.Require, importModule: ModuleImporter, meta: ImportMeta) => Record<string, unknown>;
  return run(createRequire(meta.url), importModule, meta);
}

function readCodeCache(file: string, digest: Buffer): { cachedData?: Buffer; state: CodeCacheState } {
  let stored: Buffer;
  try {
    stored = readFileSync(codeCacheFileOf(file));
  } catch {
    return { state: 'absent' };
  }
  const data = stored.subarray(CODE_CACHE_HEADER_BYTES);
  const matches =
    stored.length > CODE_CACHE_HEADER_BYTES &&
    stored.subarray(0, MAGIC.length).equals(MAGIC) &&
    stored.subarray(MAGIC.length, MAGIC.length + DIGEST_BYTES).equals(digest) &&
    stored.subarray(MAGIC.length + DIGEST_BYTES, CODE_CACHE_HEADER_BYTES).equals(createHash('sha256').update(data).digest());
  return matches ? { cachedData: data, state: 'accepted' } : { state: 'stale' };
}

/**
 * Writes the code cache of a body run in this process: the bytecode of every function compiled
 * so far (so after a run, not after the compile), behind the digests of its source and its data.
 */
export function writeCodeCache(file: string, run: ScriptModuleRun): void {
  const data = run.script.createCachedData();
  writeFileSync(codeCacheFileOf(file), Buffer.concat([MAGIC, run.digest, createHash('sha256').update(data).digest(), data]));
}
