/**
 * Finding the native libraries that ONNX Runtime's GPU providers load (the Vulkan loader for
 * WebGPU, CUDA and cuDNN for CUDA) the way the dynamic loader would: LD_LIBRARY_PATH, the ldconfig
 * cache, then the system folders. Used to skip a provider that cannot start before starting it
 * (Dawn prints a raw warning when Vulkan is missing) and by `amp-rewrite doctor`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

const SYSTEM_DIRS = ['/lib', '/usr/lib', '/lib64', '/usr/lib64', '/lib/x86_64-linux-gnu', '/usr/lib/x86_64-linux-gnu', '/usr/local/lib', '/usr/local/cuda/lib64'];

export interface LibrarySearch {
  env?: Readonly<Record<string, string | undefined>>;
  /** Folders searched after LD_LIBRARY_PATH and before the system folders. */
  extraDirs?: readonly string[];
  /** Read the ldconfig cache (default true; tests turn it off to fake a machine). */
  ldconfig?: boolean;
  systemDirs?: readonly string[];
}

function ldconfigEntries(): Map<string, string> {
  const entries = new Map<string, string>();
  try {
    const out = execFileSync('ldconfig', ['-p'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    for (const line of out.split('\n')) {
      const match = /^\s*(\S+) .*=> (\S+)$/.exec(line);
      if (match && !entries.has(match[1] as string)) entries.set(match[1] as string, match[2] as string);
    }
  } catch {
    // No ldconfig (a container without it): the folders alone decide.
  }
  return entries;
}

export function searchDirs(search: LibrarySearch = {}): string[] {
  const env = search.env ?? process.env;
  return [...(env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean), ...(search.extraDirs ?? []), ...(search.systemDirs ?? SYSTEM_DIRS)];
}

/**
 * Where a library is found: an exact file name (libvulkan.so.1), or a prefix ending in '.' that
 * matches any version (libcudart.so. finds libcudart.so.12 or .13).
 */
export function findLibrary(name: string, search: LibrarySearch = {}): string | undefined {
  const matches = (file: string) => (name.endsWith('.') ? file.startsWith(name) : file === name);
  for (const dir of searchDirs(search)) {
    if (!name.endsWith('.')) {
      if (existsSync(path.join(dir, name))) return path.join(dir, name);
      continue;
    }
    try {
      const file = readdirSync(dir).filter(matches).sort()[0];
      if (file) return path.join(dir, file);
    } catch {
      // A folder that does not exist finds nothing.
    }
  }
  if (search.ldconfig === false) return undefined;
  for (const [file, where] of ldconfigEntries()) if (matches(file)) return where;
  return undefined;
}

/** Libraries a provider cannot start without, per platform: data, so a new provider adds a line. */
const REQUIRED: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  linux: { webgpu: ['libvulkan.so.1'] },
};

/** Why a provider cannot start on this machine, when a library it needs is missing; undefined otherwise. */
export function providerUnavailable(provider: string, search: LibrarySearch = {}): string | undefined {
  const missing = (REQUIRED[process.platform]?.[provider] ?? []).filter((lib) => !findLibrary(lib, search));
  return missing.length ? `${missing.join(', ')} not found (the ${provider} provider loads it)` : undefined;
}
