/**
 * `amp-rewrite doctor`: what this machine can run. Which execution providers start (each tried on
 * a one-node model), which CUDA and cuDNN libraries the dynamic loader would find, the GPU and its
 * compute capability (nvidia-smi), the Vulkan loader for WebGPU, and for each gap what to do.
 * The offline CUDA route: a folder holding ONNX Runtime's CUDA provider libraries (from the
 * Microsoft.ML.OnnxRuntime.Gpu.Linux NuGet package, or an npm package that ships them) is copied
 * beside onnxruntime-node's runtime, the one place ONNX Runtime loads providers from.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants as fsConstants, existsSync, fchmodSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { encodeModel, onnx } from '../onnx/codec.js';
import { AmpError } from '../onnx/errors.js';
import { checkOutputs, entryExists, fileKind, OutputBatch, writeAll } from '../onnx/safe-write.js';
import { findLibrary, type LibrarySearch } from './native-libraries.js';
import { ORT_MISSING } from './ort.js';
import { openSession, withoutInstallHint, PROVIDERS, type Provider } from './session.js';
import { ruleFile } from '../rules/rule-files.js';

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
  cudaRules ??= ruleFile<CudaRules>('onnxruntime-cuda.json');
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

/** ELF e_machine of the architectures ONNX Runtime ships CUDA providers for. */
const ELF_MACHINES: Readonly<Record<string, { machine: number; name: string }>> = {
  x64: { machine: 62, name: 'x86_64' },
  arm64: { machine: 183, name: 'aarch64' },
};
/** A provider library is at least an ELF header and its tables; past 4 GiB it is no library. */
export const PROVIDER_MIN_BYTES = 4096;
export const PROVIDER_MAX_BYTES = 4 * 2 ** 30;
const COPY_CHUNK = 8 * 2 ** 20;

/**
 * Opens a provider library to copy: a regular file reached by no symlink (O_NOFOLLOW, checked on
 * the descriptor), of a plausible size, and a 64-bit little-endian ELF shared object for this
 * machine's architecture. Returns the open descriptor and its size; the copy reads through it.
 */
function openProviderLibrary(from: string, shown: string, arch: string): { fd: number; size: number } {
  const refuse = (why: string, code: 'READ_FAILED' | 'UNSAFE_PATH' = 'READ_FAILED'): never => {
    throw new AmpError(code, `${shown} ${why}; expected ONNX Runtime's CUDA provider library (nothing was installed)`, { subject: from });
  };
  let fd: number;
  try {
    fd = openSync(from, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | fsConstants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return refuse('is a symbolic link (copying through one could install any file, a secret included)', 'UNSAFE_PATH');
    if (code === 'ENOENT') throw new AmpError('FILE_NOT_FOUND', `${shown} not found (nothing was installed)`, { subject: from });
    return refuse(`cannot be opened (${code ?? String(error)})`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) refuse(`is ${fileKind(stats)}, not a regular file`);
    if (stats.size < PROVIDER_MIN_BYTES || stats.size > PROVIDER_MAX_BYTES) refuse(`is ${stats.size} bytes, not the size of a shared library (${PROVIDER_MIN_BYTES} bytes to 4 GiB)`);
    const header = Buffer.alloc(20);
    readSync(fd, header, 0, 20, 0);
    if (header.readUInt32BE(0) !== 0x7f454c46) refuse('is not an ELF file');
    if (header[4] !== 2 || header[5] !== 1) refuse('is not a 64-bit little-endian ELF file');
    if (header.readUInt16LE(16) !== 3) refuse('is not an ELF shared object');
    const wanted = ELF_MACHINES[arch];
    if (!wanted) refuse(`cannot be checked: ONNX Runtime ships no CUDA provider for ${arch}`);
    const machine = header.readUInt16LE(18);
    if (machine !== wanted?.machine) {
      const found = Object.values(ELF_MACHINES).find((m) => m.machine === machine)?.name ?? `ELF machine ${machine}`;
      refuse(`is built for ${found}, not for this machine (${wanted?.name})`);
    }
    return { fd, size: stats.size };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * The offline route: copies ONNX Runtime's CUDA provider libraries from `fromDir` beside the
 * runtime in `binaryDir`. Each source must be a regular file reached by no symlink, sized like a
 * library and an ELF shared object for this architecture (`arch`, default process.arch). The
 * copies get library permissions (0755), not the source's mode (a 0600 secret would otherwise
 * become readable), and the pair goes through the door (safe-write.ts): both staged, then both
 * committed, the old ones put back if the second cannot be: both or neither.
 */
export function installCudaProvider(fromDir: string, binaryDir: string, arch: string = process.arch): string[] {
  const absent = CUDA_PROVIDER_FILES.filter((file) => !entryExists(path.join(fromDir, file)));
  if (absent.length) {
    throw new AmpError('FILE_NOT_FOUND', `--cuda-provider-dir ${fromDir}: ${absent.join(', ')} not found there (expected ONNX Runtime's CUDA provider libraries)`, {
      subject: fromDir,
    });
  }
  if (!existsSync(binaryDir)) throw new AmpError('FILE_NOT_FOUND', `onnxruntime-node's runtime folder ${binaryDir} does not exist`, { subject: binaryDir });
  const copies = CUDA_PROVIDER_FILES.map((file) => ({ file, from: path.join(fromDir, file), to: path.join(binaryDir, file) }));
  // --cuda-provider-dir being the runtime folder (or linking into it) would copy a library onto itself.
  checkOutputs(
    copies.map(({ file, to }) => ({ path: to, role: `the installed ${file}` })),
    copies.map(({ file, from }) => ({ path: from, role: `--cuda-provider-dir's ${file}` })),
  );
  const opened: number[] = [];
  const batch = new OutputBatch();
  try {
    const sources = copies.map(({ file, from }) => {
      const source = openProviderLibrary(from, `--cuda-provider-dir ${fromDir}: ${file}`, arch);
      opened.push(source.fd);
      return source;
    });
    copies.forEach(({ file, to }, i) => {
      const source = sources[i] as { fd: number; size: number };
      batch.stage(to, `the installed ${file}`, (fd) => {
        const chunk = Buffer.allocUnsafe(COPY_CHUNK);
        for (let done = 0; done < source.size; ) {
          const got = readSync(source.fd, chunk, 0, Math.min(COPY_CHUNK, source.size - done), done);
          if (got === 0) throw new AmpError('READ_FAILED', `--cuda-provider-dir ${fromDir}: ${file} shrank while it was copied`, { subject: file });
          writeAll(fd, chunk.subarray(0, got), done);
          done += got;
        }
        fchmodSync(fd, 0o755);
      });
    });
    return batch.commit();
  } catch (error) {
    batch.abort();
    throw error;
  } finally {
    for (const fd of opened) closeSync(fd);
  }
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
