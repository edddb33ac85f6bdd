/**
 * `amp-rewrite doctor` on a faked machine: CUDA/cuDNN libraries in a folder on LD_LIBRARY_PATH, an
 * nvidia-smi that reports an H100, and a folder holding ONNX Runtime's CUDA provider libraries.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCudaVersions, cudaNeeds, CUDA_PROVIDER_FILES, diagnose, installCudaProvider, locateRuntime, renderDoctor } from '../../src/runtime/doctor.js';
import { repoRoot } from '../support/corpus.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');

function fakeMachine() {
  const root = mkdtempSync(path.join(tmpdir(), 'amp-doctor-'));
  const libs = path.join(root, 'cuda-libs');
  const tools = path.join(root, 'bin');
  mkdirSync(libs);
  mkdirSync(tools);
  for (const lib of ['libcudart.so.12', 'libcublas.so.12', 'libcublasLt.so.12', 'libcudnn.so.9']) writeFileSync(path.join(libs, lib), '');
  const smi = path.join(tools, 'nvidia-smi');
  writeFileSync(smi, '#!/bin/sh\necho "NVIDIA H100 80GB HBM3, 9.0, 550.54.15"\n');
  chmodSync(smi, 0o755);
  return { root, libs, tools };
}

describe('amp-rewrite doctor', () => {
  it('reports the libraries found, the device and its compute capability, and what is missing', async () => {
    const machine = fakeMachine();
    const report = await diagnose({
      search: { env: { LD_LIBRARY_PATH: machine.libs }, ldconfig: false, systemDirs: [] },
      env: { PATH: `${machine.tools}:/usr/bin:/bin` },
      tryProviders: false,
    });
    expect(report.devices).toEqual([{ name: 'NVIDIA H100 80GB HBM3', computeCapability: '9.0', driver: '550.54.15' }]);
    expect(report.libraries.find((l) => l.library === 'libcudnn.so.')?.path).toBe(path.join(machine.libs, 'libcudnn.so.9'));
    expect(report.libraries.find((l) => l.library === 'libcudart.so.')?.path).toBe(path.join(machine.libs, 'libcudart.so.12'));
    const missing = report.missing.join('\n');
    expect(missing).toMatch(/CUDA\/cuDNN libraries the loader cannot find: libcurand\.so\.\*, libcufft\.so\.\*/);
    expect(missing).not.toMatch(/cudnn/);
    expect(missing).toMatch(/libvulkan\.so\.1/);
    expect(missing).not.toMatch(/no NVIDIA GPU/);
    expect(renderDoctor(report)).toContain('GPUs: NVIDIA H100 80GB HBM3 (compute capability 9.0, driver 550.54.15)');
    const bare = await diagnose({ search: { env: {}, ldconfig: false, systemDirs: [] }, env: { PATH: '/nonexistent' }, tryProviders: false });
    expect(bare.devices).toEqual([]);
    expect(bare.missing.join('\n')).toMatch(/no NVIDIA GPU seen/);
  });

  it('the command says which providers start here, as text and as JSON', () => {
    const machine = fakeMachine();
    const env = { ...process.env, LD_LIBRARY_PATH: machine.libs, PATH: `${machine.tools}:${process.env.PATH}` };
    const json = spawnSync(process.execPath, [bin, 'doctor', '--json'], { encoding: 'utf8', env });
    expect(json.status).toBe(0);
    const report = JSON.parse(json.stdout);
    // The release installed here (CI runs this file against each onnxruntime-node it supports).
    const installed = locateRuntime().version as string;
    expect(installed).toMatch(/^1\.(29|30)\./);
    expect(report.runtime).toMatchObject({ installed: true, version: installed });
    expect(report.node).toBe(process.version);
    expect(report.cudaVersions).toEqual({ needs: { cuda: 12, cudnn: 9, installFlag: 'cuda12' }, cudaFound: 12, cudnnFound: 9, ok: true });
    expect(report.providers.find((p: { provider: string }) => p.provider === 'cpu')).toEqual({ provider: 'cpu', starts: true });
    expect(report.devices[0].computeCapability).toBe('9.0');
    expect(report.libraries.find((l: { library: string }) => l.library === 'libcudnn.so.').path).toBe(path.join(machine.libs, 'libcudnn.so.9'));
    const text = spawnSync(process.execPath, [bin, 'doctor'], { encoding: 'utf8', env });
    expect(text.stdout.split('\n').slice(0, 3)).toEqual([
      `Node.js ${process.version}`,
      expect.stringMatching(new RegExp(`^onnxruntime-node ${installed.replaceAll('.', '\\.')} \\(runtime in `)),
      'CUDA provider needs: CUDA 12, cuDNN 9; CUDA 12 found, cuDNN 9 found',
    ]);
    // Doctor's report is where its pointers lead: it never sends the reader to itself.
    expect(text.stdout).not.toMatch(/amp-rewrite doctor/);
    expect(text.stdout).toMatch(/ {2}cpu {5}starts/);
    expect(spawnSync(process.execPath, [bin, 'doctor', '--install'], { encoding: 'utf8' }).stderr).toMatch(/--install needs --cuda-provider-dir/);
  });

  it('the offline route copies the CUDA provider libraries beside the runtime, and refuses a folder without them', () => {
    const machine = fakeMachine();
    const provider = path.join(machine.root, 'ort-cuda');
    const runtime = path.join(machine.root, 'runtime');
    mkdirSync(provider);
    mkdirSync(runtime);
    expect(() => installCudaProvider(provider, runtime)).toThrow(/libonnxruntime_providers_cuda\.so, libonnxruntime_providers_shared\.so not found there/);
    for (const file of CUDA_PROVIDER_FILES) writeFileSync(path.join(provider, file), `fake ${file}`);
    const copied = installCudaProvider(provider, runtime);
    expect(copied).toEqual(CUDA_PROVIDER_FILES.map((f) => path.join(runtime, f)));
    expect(readFileSync(path.join(runtime, 'libonnxruntime_providers_cuda.so'), 'utf8')).toBe('fake libonnxruntime_providers_cuda.so');
    // Installing from the runtime folder itself (or a link to it) would copy each library onto itself.
    symlinkSync(runtime, path.join(machine.root, 'runtime-link'));
    expect(() => installCudaProvider(path.join(machine.root, 'runtime-link'), runtime)).toThrow(/is --cuda-provider-dir's libonnxruntime_providers_cuda\.so/);
    expect(readFileSync(path.join(runtime, 'libonnxruntime_providers_cuda.so'), 'utf8')).toBe('fake libonnxruntime_providers_cuda.so');
  });

  it('checks the CUDA runtime major against what the installed provider needs: CUDA 13 is not CUDA 12', async () => {
    const machine = fakeMachine();
    const cuda13 = path.join(machine.root, 'cuda13');
    mkdirSync(cuda13);
    for (const lib of ['libcudart.so.13', 'libcublas.so.13', 'libcudnn.so.9']) writeFileSync(path.join(cuda13, lib), '');
    const only13 = { env: { LD_LIBRARY_PATH: cuda13 }, ldconfig: false, systemDirs: [] };
    expect(checkCudaVersions('1.29.0', only13)).toEqual({ needs: { cuda: 12, cudnn: 9, installFlag: 'cuda12' }, cudaFound: 13, cudnnFound: 9, ok: false });
    const report = await diagnose({ search: only13, env: { PATH: '/nonexistent' }, tryProviders: false });
    expect(report.cudaVersions?.ok).toBe(false);
    expect(report.missing.join('\n')).toMatch(/the CUDA runtime found is CUDA 13 \(libcudart\.so\.13\); onnxruntime-node 1\.\d+\.\d+'s CUDA provider is built for CUDA 12 and needs libcudart\.so\.12/);
    expect(renderDoctor(report)).toContain('CUDA provider needs: CUDA 12, cuDNN 9; CUDA 13 found, cuDNN 9 found (see missing)');
    // Both installed: the loader finds the one the provider needs.
    const both = { env: { LD_LIBRARY_PATH: `${cuda13}:${machine.libs}` }, ldconfig: false, systemDirs: [] };
    expect(checkCudaVersions('1.30.0', both)).toMatchObject({ cudaFound: 12, ok: true });
    // The data is per release: 1.29 and 1.30 are known, a release the rules do not list is unknown, never assumed.
    expect(cudaNeeds('1.29.0')).toEqual({ cuda: 12, cudnn: 9, installFlag: 'cuda12' });
    expect(cudaNeeds('1.30.0')).toEqual({ cuda: 12, cudnn: 9, installFlag: 'cuda12' });
    expect(cudaNeeds('1.31.0')).toBeNull();
    expect(checkCudaVersions('1.31.0', only13).ok).toBe(false);
  });
});
