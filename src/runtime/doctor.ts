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
import { openSession, PROVIDERS, type Provider } from './session.js';

/** The provider libraries ONNX Runtime looks for beside its runtime. */
export const CUDA_PROVIDER_FILES = ['libonnxruntime_providers_cuda.so', 'libonnxruntime_providers_shared.so'] as const;

/** CUDA and cuDNN libraries the CUDA provider loads ('.'-ended names match any version). */
export const CUDA_LIBRARIES = ['libcudart.so.', 'libcublas.so.', 'libcublasLt.so.', 'libcurand.so.', 'libcufft.so.', 'libcudnn.so.'] as const;

export interface DoctorReport {
  runtime: { installed: boolean; version?: string; binaryDir?: string; problem?: string };
  providers: Array<{ provider: Provider; starts: boolean; reason?: string }>;
  cudaProvider: { dir?: string; files: Array<{ file: string; found: boolean }> };
  libraries: Array<{ library: string; path?: string }>;
  vulkan?: string;
  devices: Array<{ name: string; computeCapability: string; driver: string }>;
  missing: string[];
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
      providers.push({ provider, starts: false, reason: (error as Error).message.replace(/^no execution provider could start \(tried \w+\): /, '') });
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
        'online, ONNXRUNTIME_NODE_INSTALL=cuda12 node node_modules/onnxruntime-node/script/install.js; offline, amp-rewrite doctor --cuda-provider-dir <folder holding them> --install',
    );
  }

  const libraries = CUDA_LIBRARIES.map((library) => {
    const found = findLibrary(library, search);
    return found ? { library, path: found } : { library };
  });
  const absent = libraries.filter((l) => !l.path).map((l) => `${l.library}*`);
  if (absent.length) missing.push(`CUDA/cuDNN libraries the loader cannot find: ${absent.join(', ')} (install CUDA and cuDNN 9, or add their folders to LD_LIBRARY_PATH)`);

  const vulkan = findLibrary('libvulkan.so.1', search);
  if (!vulkan && process.platform === 'linux') missing.push('libvulkan.so.1 (the Vulkan loader the WebGPU provider needs): apt-get install libvulkan1, and a GPU driver with Vulkan');

  const devices = gpuDevices(options.env);
  if (!devices.length) missing.push('no NVIDIA GPU seen (nvidia-smi absent or found none)');

  return { runtime, providers, cudaProvider, libraries, ...(vulkan ? { vulkan } : {}), devices, missing };
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
  lines.push(report.runtime.installed ? `onnxruntime-node ${report.runtime.version} (runtime in ${report.runtime.binaryDir})` : 'onnxruntime-node: not installed');
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
