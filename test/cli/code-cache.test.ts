/**
 * The rewrite chunk runs from V8's code cache (src/cli/code-cache.ts, scripts/script-module.mjs):
 * a chunk split into a script body and the module in its place exports what the chunk did, the
 * cache is used only for the exact bytes it was made for, and the built command line takes the
 * cache its build wrote.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BODY_PARAMETERS, CODE_CACHE_HEADER_BYTES, codeCacheFileOf } from '../../src/cli/code-cache.js';
import { codeCacheStates, plainEnvironment } from '../support/code-cache-probe.js';
import { fixturesDir, repoRoot } from '../support/corpus.js';

// @ts-expect-error: a build script, plain JavaScript
const { splitScriptModule } = (await import('../../scripts/script-module.mjs')) as { splitScriptModule: (file: string, parameters: readonly string[]) => string };

const work = mkdtempSync(path.join(tmpdir(), 'amp-code-cache-test-'));

/** An ES module as rolldown writes a chunk: builtin imports of every form, import.meta, import(), one export list. */
const CHUNK = `import "node:module";
import { basename, join as joinPath } from "node:path";
import os from "node:os";
import * as util from "node:util";
const here = new URL("./data.txt", import.meta.url);
function describeHere() { return basename(here.pathname) + "|" + joinPath("a", "b") + "|" + typeof os.totalmem + "|" + typeof util.format; }
var Counter = class { count = 0; bump() { return ++this.count; } };
const loadSibling = () => import("./sibling.js");
const loadJson = () => import("./data.json", { with: { type: "json" } });
const reserved = "named like a keyword";
export { describeHere as d, Counter as C, loadSibling as l, here as h, loadJson as in, reserved as chunk, reserved as default };
`;

function writeChunk(dir: string): string {
  const chunk = path.join(dir, 'chunk.js');
  writeFileSync(chunk, CHUNK);
  writeFileSync(path.join(dir, 'sibling.js'), 'export const sibling = "found beside the chunk";\n');
  writeFileSync(path.join(dir, 'data.json'), '{ "imported": "with its attributes" }\n');
  return chunk;
}

/** Imports a module in a fresh Node (vitest would transform it), runs `expression` on it and returns what it prints. */
function inNode(moduleFile: string, expression: string): string {
  const script = `const m = await import(${JSON.stringify(pathToFileURL(moduleFile).href)}); process.stdout.write(JSON.stringify(await (${expression})));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: plainEnvironment() });
  expect(result.stderr).toBe('');
  return result.stdout;
}

const EXPECTED = '["data.txt|a/b|function|function",2,"found beside the chunk",true,"with its attributes",["named like a keyword","named like a keyword"]]';
const PROBE =
  '[m.d(), (() => { const c = new m.C(); c.bump(); return c.bump(); })(), (await m.l()).sibling, m.h.href.endsWith("/data.txt"), (await m.in()).default.imported, [m.chunk, m.default]]';

describe('a chunk split into a script body', () => {
  it('exports what the ES module exported, with its builtins, import.meta and import() as the module had them', () => {
    const dir = mkdtempSync(path.join(work, 'split-'));
    const chunk = writeChunk(dir);
    const original = path.join(dir, 'original.js');
    writeFileSync(original, CHUNK);
    expect(inNode(original, PROBE)).toBe(EXPECTED);

    const body = splitScriptModule(chunk, BODY_PARAMETERS);
    expect(readFileSync(chunk, 'utf8')).toMatch(/^import \{ runScriptModule \} from "\.\/code-cache\.js";$/m);
    // The module in the chunk's place imports the loader beside it, as in dist/cli.
    writeFileSync(path.join(dir, 'code-cache.js'), `export * from ${JSON.stringify(pathToFileURL(path.join(repoRoot, 'dist/cli/code-cache.js')).href)};\n`);
    expect(inNode(chunk, PROBE)).toBe(EXPECTED);
    expect(readFileSync(body, 'utf8')).not.toMatch(/^\s*(import|export)\b/m);
  });

  it('refuses a chunk it cannot run the same way: a package imported statically, an exported binding assigned later', () => {
    const dir = mkdtempSync(path.join(work, 'refuse-'));
    const file = path.join(dir, 'chunk.js');
    writeFileSync(file, 'import yargs from "yargs";\nexport { yargs as y };\n');
    expect(() => splitScriptModule(file, BODY_PARAMETERS)).toThrow(/imports yargs statically/);
    writeFileSync(file, 'let state = 1;\nfunction set() { state = 2; }\nexport { state as s, set as t };\n');
    expect(() => splitScriptModule(file, BODY_PARAMETERS)).toThrow(/exported binding state is assigned/);
    writeFileSync(file, 'const __ampImport = 1;\nexport { __ampImport as a };\n');
    expect(() => splitScriptModule(file, BODY_PARAMETERS)).toThrow(/already uses the name __ampImport/);
    writeFileSync(file, 'const table = await Promise.resolve(1);\nexport { table as t };\n');
    expect(() => splitScriptModule(file, BODY_PARAMETERS)).toThrow(/top-level await/);
    writeFileSync(file, 'async function load() { return await Promise.resolve(1); }\nlet state = 1;\nfunction set() { eval("state = 2"); }\nexport { load as l, state as s, set as t };\n');
    expect(() => splitScriptModule(file, BODY_PARAMETERS)).toThrow(/direct eval/);
  });
});

describe('the code cache', () => {
  const loader = pathToFileURL(path.join(repoRoot, 'dist/cli/code-cache.js')).href;
  const bodyOf = (dir: string, value: string): string => {
    const body = path.join(dir, 'body.script.js');
    writeFileSync(body, `function answer() { return ${JSON.stringify(value)}; }\nreturn { answer };\n`);
    return body;
  };
  /**
   * Runs the body in a fresh Node (V8 keeps each script it compiled for the rest of the process,
   * and would answer a second compile from that, not from the cache), and writes its code cache
   * when `write`. Returns the body's answer and what became of the cache.
   */
  const run = (body: string, write = false): [string, string] => {
    const script = [
      `const { runScriptModule, scriptModuleRuns, writeCodeCache } = await import(${JSON.stringify(loader)});`,
      `const url = new URL(${JSON.stringify(pathToFileURL(body).href)});`,
      `const answer = runScriptModule(url, { url: url.href }, (specifier) => import(specifier)).answer();`,
      `const run = scriptModuleRuns().get(${JSON.stringify(body)});`,
      write ? `writeCodeCache(${JSON.stringify(body)}, run);` : '',
      `process.stdout.write(JSON.stringify([answer, run.state]));`,
    ].join('\n');
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: plainEnvironment() });
    expect(result.stderr).toBe('');
    return JSON.parse(result.stdout) as [string, string];
  };

  it('is taken for the bytes it was written for, and only for them', () => {
    const dir = mkdtempSync(path.join(work, 'cache-'));
    const body = bodyOf(dir, 'first');
    expect(run(body, true)).toEqual(['first', 'absent']);
    expect(run(body)).toEqual(['first', 'accepted']);
    // The same length, other bytes: V8's own check would take the cache and run the old code.
    bodyOf(dir, 'other');
    expect(run(body)).toEqual(['other', 'stale']);
  });

  it('is not given to V8 when its data was damaged, and V8 refuses data that is not a code cache', () => {
    const dir = mkdtempSync(path.join(work, 'damaged-'));
    const body = bodyOf(dir, 'source');
    run(body, true);
    const stored = readFileSync(codeCacheFileOf(body));
    // V8 checks no checksum of its own data: a flipped byte would run as bytecode.
    const flipped = Buffer.from(stored);
    flipped[CODE_CACHE_HEADER_BYTES + 100] = (flipped[CODE_CACHE_HEADER_BYTES + 100] as number) ^ 0x40;
    writeFileSync(codeCacheFileOf(body), flipped);
    expect(run(body)).toEqual(['source', 'stale']);
    const garbage = Buffer.alloc(64, 0x5a);
    const header = stored.subarray(0, CODE_CACHE_HEADER_BYTES - 32);
    writeFileSync(codeCacheFileOf(body), Buffer.concat([header, createHash('sha256').update(garbage).digest(), garbage]));
    expect(run(body)).toEqual(['source', 'rejected']);
  });

  it('written by the build, is taken by the built command line', () => {
    const cliDir = path.join(repoRoot, 'dist/cli');
    const bodies = readdirSync(cliDir).filter((file) => file.endsWith('.script.js'));
    expect(bodies).toHaveLength(1);
    const { status, states } = codeCacheStates(cliDir, path.join(fixturesDir, 'transformer-block/model.onnx'), path.join(work, 'cli.amp.onnx'));
    expect(status).toBe(0);
    expect(states).toEqual([[path.join(cliDir, bodies[0] as string), 'accepted']]);
  });
});
