/**
 * `amp-rewrite doctor`: what this machine can run. Which execution providers start (each tried on
 * a one-node model), which CUDA and cuDNN libraries the dynamic loader would find, the GPU and its
 * compute capability (nvidia-smi), the Vulkan loader for WebGPU, and for each gap what to do.
 * The offline CUDA route: a folder holding ONNX Runtime's CUDA provider libraries (from the
 * Microsoft.ML.OnnxRuntime.Gpu.Linux NuGet package, or an npm package that ships them) is copied
 * beside onnxruntime-node's runtime, the one place ONNX Runtime loads providers from.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { encodeModel, onnx } from '../onnx/codec.js';
import { AmpError } from '../onnx/errors.js';
import { assertSeparateFiles, writeFileAtomically } from '../onnx/safe-write.js';
import { findLibrary, type LibrarySearch } from './native-libraries.js';
import { ORT_MISSING } from './ort.js';
import { openSession, withoutInstallHint, PROVIDERS, type Provider } from './session.js';

/** The provider libraries ONNX Runtime looks for beside its runtime. */
export const CUDA_PROVIDER_FILES = ['libonnxruntime_providers_cuda.so', 'libonnxruntime_providers_shared.so'] as const;

/** CUDA and cuDNN libraries the CUDA provider loads ('.'-ended names match any version). */
export const CUDA_LIBRARIES = ['libcudart.so.', 'libcublas.so.', 'libcublasLt.so.', 'libcurand.so.', 'libcufft.so.', 'libcudnn.so.'] as const;

export interface DoctorReport {
  /** The Node.js running the tool (process.version). */
  node: string;
  runtime: { installed: boolean; version?: string; binaryDir?: string; problem?: string };
  /**
   * What the installed runtime's CUDA provider needs (rules/onnxruntime-cuda.json) and the CUDA
   * runtime and cuDNN majors found; absent without onnxruntime-node.
   */
  cudaVersions?: CudaVersionCheck;
  providers: Array<{ provider: Provider; starts: boolean; reason?: string }>;
  cudaProvider: { dir?: string; files: Array<{ file: string; found: boolean }> };
  libraries: Array<{ library: string; path?: string }>;
  vulkan?: string;
  devices: Array<{ name: string; computeCapability: string; driver: string }>;
  missing: string[];
}

export interface CudaVersionCheck {
  /** Null: the installed release has no entry in rules/onnxruntime-cuda.json. */
  needs: { cuda: number; cudnn: number; installFlag: string } | null;
  /** Majors of the libcudart.so.N and libcudnn.so.N the loader finds (the needed one first); null when none. */
  cudaFound: number | null;
  cudnnFound: number | null;
  ok: boolean;
}

interface CudaRules {
  releases: Record<string, { cuda: number; cudnn: number; installFlag: string; source: string }>;
}

let cudaRules: CudaRules | undefined;
/** What the CUDA provider of onnxruntime-node `version` needs, by its major.minor; null when the rules do not know it. */
export function cudaNeeds(version: string): CudaVersionCheck['needs'] {
  cudaRules ??= JSON.parse(readFileSync(new URL('../../rules/onnxruntime-cuda.json', import.meta.url), 'utf8')) as CudaRules;
  const release = cudaRules.releases[version.split('.').slice(0, 2).join('.')];
  return release ? { cuda: release.cuda, cudnn: release.cudnn, installFlag: release.installFlag } : null;
}

/** The major version in a library's file name (libcudart.so.13 -> 13; libcudart.so.12.4.127 -> 12). */
function majorOf(file: string | undefined): number | null {
  const match = file ? /\.so\.(\d+)/.exec(path.basename(file)) : null;
  return match ? Number(match[1]) : null;
}

/** The library with the needed major if the loader finds it, else whichever version it finds. */
function findMajor(prefix: string, needed: number | undefined, search: LibrarySearch): string | undefined {
  return (needed !== undefined ? findLibrary(`${prefix}${needed}`, search) : undefined) ?? findLibrary(prefix, search);
}

/** The CUDA runtime and cuDNN found, against what the installed runtime's CUDA provider needs. */
export function checkCudaVersions(runtimeVersion: string, search: LibrarySearch = {}): CudaVersionCheck {
  const needs = cudaNeeds(runtimeVersion);
  const cudaFound = majorOf(findMajor('libcudart.so.', needs?.cuda, search));
  const cudnnFound = majorOf(findMajor('libcudnn.so.', needs?.cudnn, search));
  return { needs, cudaFound, cudnnFound, ok: needs !== null && cudaFound === needs.cuda && cudnnFound === needs.cudnn };
}

export interface DoctorOptions {
  search?: LibrarySearch;
  /** Where nvidia-smi is looked up (default: PATH). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Try starting each provider (needs onnxruntime-node). Default true. */
  tryProviders?: boolean;
}

/** onnxruntime-node's version and the folder of its native runtime, where providers must sit. */
export function locateRuntime(): DoctorReport['runtime'] {
  try {
    const require = createRequire(import.meta.url);
    const main = require.resolve('onnxruntime-node');
    const root = path.resolve(path.dirname(main), '..');
    const version = (require(path.join(root, 'package.json')) as { version: string }).version;
    return { installed: true, version, binaryDir: path.join(root, 'bin/napi-v6', process.platform, process.arch) };
  } catch {
    return { installed: false, problem: ORT_MISSING };
  }
}

export function gpuDevices(env: Readonly<Record<string, string | undefined>> = process.env): DoctorReport['devices'] {
  try {
    const out = execFileSync('nvidia-smi', ['--query-gpu=name,compute_cap,driver_version', '--format=csv,noheader'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: env as NodeJS.ProcessEnv,
    });
    return out
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => {
        const [name = '', computeCapability = '', driver = ''] = line.split(',').map((s) => s.trim());
        return { name, computeCapability, driver };
      });
  } catch {
    return [];
  }
}

/** A one-node model (y = x + x) to see whether a provider starts. */
function probeModel(): Uint8Array {
  const vi = (name: string) => onnx.ValueInfoProto.create({ name, type: { tensor_type: { elem_type: 1, shape: { dim: [{ dim_value: 4 }] } } } });
  return encodeModel(
    onnx.ModelProto.create({
      ir_version: 8,
      opset_import: [{ domain: '', version: 17 }],
      graph: { name: 'probe', node: [{ op_type: 'Add', input: ['x', 'x'], output: ['y'] }], input: [vi('x')], output: [vi('y')] },
    }),
  );
}

export async function diagnose(options: DoctorOptions = {}): Promise<DoctorReport> {
  const search = options.search ?? {};
  const runtime = locateRuntime();
  const missing: string[] = [];
  if (!runtime.installed) missing.push(ORT_MISSING);

  const providers: DoctorReport['providers'] = [];
  for (const provider of PROVIDERS) {
    if (!runtime.installed) {
      providers.push({ provider, starts: false, reason: 'onnxruntime-node is not installed' });
      continue;
    }
    if (options.tryProviders === false) continue;
    try {
      const opened = await openSession(probeModel(), [provider]);
      await opened.session.release();
      providers.push({ provider, starts: true });
    } catch (error) {
      // The route to install a provider is in the missing list, not repeated (nor pointing at doctor) here.
      const reason = (error as Error).message.replace(/^no execution provider could start \(tried \w+\): /, '');
      providers.push({ provider, starts: false, reason: withoutInstallHint(provider, reason) });
    }
  }

  const providerDir = runtime.binaryDir;
  const cudaProvider = {
    ...(providerDir ? { dir: providerDir } : {}),
    files: CUDA_PROVIDER_FILES.map((file) => ({ file, found: providerDir !== undefined && existsSync(path.join(providerDir, file)) })),
  };
  if (runtime.installed && cudaProvider.files.some((f) => !f.found)) {
    missing.push(
      `ONNX Runtime's CUDA provider (${cudaProvider.files.filter((f) => !f.found).map((f) => f.file).join(', ')}) is not beside the runtime in ${providerDir}: ` +
        'online, ONNXRUNTIME_NODE_INSTALL=cuda12 node node_modules/onnxruntime-node/script/install.js; offline, add --cuda-provider-dir <folder holding them> --install to this command',
    );
  }

  const libraries = CUDA_LIBRARIES.map((library) => {
    const found = findLibrary(library, search);
    return found ? { library, path: found } : { library };
  });
  const absent = libraries.filter((l) => !l.path).map((l) => `${l.library}*`);
  if (absent.length) missing.push(`CUDA/cuDNN libraries the loader cannot find: ${absent.join(', ')} (install CUDA and cuDNN 9, or add their folders to LD_LIBRARY_PATH)`);

  let cudaVersions: CudaVersionCheck | undefined;
  if (runtime.installed && runtime.version) {
    cudaVersions = checkCudaVersions(runtime.version, search);
    const { needs, cudaFound, cudnnFound } = cudaVersions;
    const ort = `onnxruntime-node ${runtime.version}`;
    if (!needs) {
      missing.push(`the CUDA version ${ort}'s CUDA provider needs is not known (rules/onnxruntime-cuda.json has no entry for ${runtime.version.split('.').slice(0, 2).join('.')})`);
    } else {
      if (cudaFound !== null && cudaFound !== needs.cuda) {
        missing.push(`the CUDA runtime found is CUDA ${cudaFound} (libcudart.so.${cudaFound}); ${ort}'s CUDA provider is built for CUDA ${needs.cuda} and needs libcudart.so.${needs.cuda}: install the CUDA ${needs.cuda} runtime beside it, or add its folder to LD_LIBRARY_PATH`);
      }
      if (cudnnFound !== null && cudnnFound !== needs.cudnn) {
        missing.push(`the cuDNN found is cuDNN ${cudnnFound} (libcudnn.so.${cudnnFound}); ${ort}'s CUDA provider needs cuDNN ${needs.cudnn} (libcudnn.so.${needs.cudnn})`);
      }
    }
  }

  const vulkan = findLibrary('libvulkan.so.1', search);
  if (!vulkan && process.platform === 'linux') missing.push('libvulkan.so.1 (the Vulkan loader the WebGPU provider needs): apt-get install libvulkan1, and a GPU driver with Vulkan');

  const devices = gpuDevices(options.env);
  if (!devices.length) missing.push('no NVIDIA GPU seen (nvidia-smi absent or found none)');

  return { node: process.version, runtime, ...(cudaVersions ? { cudaVersions } : {}), providers, cudaProvider, libraries, ...(vulkan ? { vulkan } : {}), devices, missing };
}

/**
 * The offline route: copies ONNX Runtime's CUDA provider libraries from `fromDir` beside the
 * runtime in `binaryDir` (each through a temporary file and a rename, so nothing is half-written).
 */
export function installCudaProvider(fromDir: string, binaryDir: string): string[] {
  const absent = CUDA_PROVIDER_FILES.filter((file) => !existsSync(path.join(fromDir, file)));
  if (absent.length) {
    throw new AmpError('FILE_NOT_FOUND', `--cuda-provider-dir ${fromDir}: ${absent.join(', ')} not found there (expected ONNX Runtime's CUDA provider libraries)`, {
      subject: fromDir,
    });
  }
  if (!existsSync(binaryDir)) throw new AmpError('FILE_NOT_FOUND', `onnxruntime-node's runtime folder ${binaryDir} does not exist`, { subject: binaryDir });
  const copies = CUDA_PROVIDER_FILES.map((file) => ({ file, from: path.join(fromDir, file), to: path.join(binaryDir, file) }));
  for (const { from } of copies) {
    // A FIFO would block the copy; a folder is not a library.
    if (!statSync(from).isFile()) throw new AmpError('READ_FAILED', `--cuda-provider-dir ${fromDir}: ${path.basename(from)} is not a regular file`, { subject: from });
  }
  // --cuda-provider-dir being the runtime folder (or linking into it) would copy a library onto itself.
  assertSeparateFiles(
    copies.map(({ file, to }) => ({ path: to, role: `the installed ${file}` })),
    copies.map(({ file, from }) => ({ path: from, role: `--cuda-provider-dir's ${file}` })),
  );
  return copies.map(({ file, from, to }) => {
    try {
      // Exclusive temporary + rename: a planted symlink or a half-copied library is never left behind.
      writeFileAtomically(to, readFileSync(from));
    } catch (error) {
      throw new AmpError('WRITE_FAILED', `cannot copy ${file} into ${binaryDir}: ${(error as Error).message}`, { subject: to, cause: error });
    }
    return to;
  });
}

export function renderDoctor(report: DoctorReport): string {
  const lines: string[] = [];
  lines.push(`Node.js ${report.node}`);
  lines.push(report.runtime.installed ? `onnxruntime-node ${report.runtime.version} (runtime in ${report.runtime.binaryDir})` : 'onnxruntime-node: not installed');
  const versions = report.cudaVersions;
  if (versions) {
    const found = (name: string, major: number | null) => (major === null ? `${name} not found` : `${name} ${major} found`);
    lines.push(
      versions.needs
        ? `CUDA provider needs: CUDA ${versions.needs.cuda}, cuDNN ${versions.needs.cudnn}; ${found('CUDA', versions.cudaFound)}, ${found('cuDNN', versions.cudnnFound)}${versions.ok ? '' : ' (see missing)'}`
        : 'CUDA provider needs: unknown for this onnxruntime-node release (see missing)',
    );
  }
  lines.push('execution providers:');
  for (const p of report.providers) lines.push(`  ${p.provider.padEnd(7)} ${p.starts ? 'starts' : `cannot start: ${p.reason ?? ''}`}`);
  lines.push(`CUDA provider libraries: ${report.cudaProvider.files.map((f) => `${f.file} ${f.found ? 'present' : 'missing'}`).join(', ')}`);
  lines.push('CUDA/cuDNN libraries:');
  for (const l of report.libraries) lines.push(`  ${`${l.library}*`.padEnd(18)} ${l.path ?? 'not found'}`);
  lines.push(`Vulkan loader: ${report.vulkan ?? 'not found'}`);
  lines.push(
    report.devices.length
      ? `GPUs: ${report.devices.map((d) => `${d.name} (compute capability ${d.computeCapability}, driver ${d.driver})`).join('; ')}`
      : 'GPUs: none seen (nvidia-smi absent or found none)',
  );
  if (report.missing.length) {
    lines.push('missing:');
    for (const m of report.missing) lines.push(`  - ${m}`);
  }
  return `${lines.join('\n')}\n`;
}
