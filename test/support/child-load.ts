/**
 * Loads models in onnxruntime-node at its default session options in a child process
 * (load-session.mjs), so that a crash inside ONNX Runtime is a test result, not a dead runner.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ChildLoad {
  file: string;
  loaded: boolean;
  /** ONNX Runtime's refusal, when it refused. */
  error?: string;
  /** The signal that ended the child while it opened this model (SIGSEGV: ONNX Runtime crashed). */
  signal?: string;
}

const SCRIPT = fileURLToPath(new URL('./load-session.mjs', import.meta.url));

/** Each file's outcome; after a crash the files left are loaded by a fresh child. */
export function loadInChild(files: readonly string[], timeoutMs = 120_000): ChildLoad[] {
  const results: ChildLoad[] = [];
  let left = [...files];
  while (left.length) {
    const child = spawnSync(process.execPath, [SCRIPT], { input: left.join('\n'), encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 2 ** 20 });
    const lines = child.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { file: string; opening?: boolean; loaded?: boolean; error?: string });
    const done = lines.filter((line) => !line.opening);
    for (const line of done) results.push({ file: line.file, loaded: Boolean(line.loaded), ...(line.error ? { error: line.error } : {}) });
    left = left.slice(done.length);
    if (!left.length) break;
    // The child died opening the next file: that file's outcome is the signal (or exit status).
    const opening = left[0] as string;
    results.push({ file: opening, loaded: false, signal: child.signal ?? `exit ${child.status}`, ...(child.error ? { error: String(child.error.message) } : {}) });
    left = left.slice(1);
  }
  return results;
}

/** The onnxruntime-node release the child loads (the one test/ resolves). */
export function childRuntimeVersion(): string {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', "import ort from 'onnxruntime-node'; process.stdout.write(ort.env.versions.node)"], {
    encoding: 'utf8',
    cwd: fileURLToPath(new URL('.', import.meta.url)),
  });
  return child.stdout.trim();
}
