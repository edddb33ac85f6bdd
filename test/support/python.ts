/**
 * The Python the outside-oracle tests run (torch.autograd, ONNX's checker): `AMP_PYTHON` when set,
 * else the first `python3` or `python` on the PATH, else Debian's /usr/bin/python3, taken where it
 * imports what the test needs (and, for onnx, a new enough release). `.ci/run` makes a virtual
 * environment with torch, onnx, onnxruntime and onnxscript from the machine's configured package
 * index and sets AMP_PYTHON to it, so these cross-checks run in CI; elsewhere a test without such a
 * Python skips, saying what to set.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const PYTHON_HINT = 'set AMP_PYTHON to a Python with torch, onnx and onnxruntime (.ci/run makes one), or put one on the PATH';

function candidates(): string[] {
  const listed = process.env.AMP_PYTHON ? [process.env.AMP_PYTHON] : [];
  const onPath = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .flatMap((dir) => ['python3', 'python'].map((name) => path.join(dir, name)));
  return [...new Set([...listed, ...onPath, '/usr/bin/python3'])].filter((file) => existsSync(file));
}

const found = new Map<string, string | undefined>();

/**
 * A Python that runs `probe` (Python code that exits 0 when what the test needs is there), or
 * undefined. Asked once per probe.
 */
export function pythonWhere(probe: string): string | undefined {
  if (!found.has(probe)) {
    found.set(probe, candidates().find((python) => spawnSync(python, ['-c', probe], { encoding: 'utf8', timeout: 120_000 }).status === 0));
  }
  return found.get(probe);
}

/** A Python that imports each module. */
export function pythonWith(...modules: string[]): string | undefined {
  return pythonWhere(`import ${modules.join(', ')}`);
}

/** A Python whose onnx is at least `major.minor`. */
export function pythonWithOnnx(atLeast: [number, number]): string | undefined {
  return pythonWhere(`import onnx, sys; sys.exit(0 if tuple(map(int, onnx.__version__.split(".")[:2])) >= (${atLeast[0]}, ${atLeast[1]}) else 1)`);
}
