/**
 * The large-heap re-run: the child gets the larger heap, its status becomes the command's, signals
 * sent to the parent reach it, and it does not outlive a parent killed outright.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpus.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-heap-'));
const children: number[] = [];
afterAll(() => {
  // A child left running (the behaviour under test broken) is ended here, not left behind.
  for (const pid of children) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(work, { recursive: true, force: true });
});
const model = path.join(work, 'model.onnx');
writeFileSync(model, 'not read, only its size matters');
const script = path.join(work, 'command.mjs');
writeFileSync(
  script,
  `import { writeFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { rerunWithLargerHeapIfNeeded } from ${JSON.stringify(path.join(repoRoot, 'dist/cli/large-heap.js'))};
const [report, model, mode] = process.argv.slice(2);
const parentLimit = getHeapStatistics().heap_size_limit;
process.env.PARENT_HEAP ??= String(parentLimit);
await rerunWithLargerHeapIfNeeded({ args: [model], thresholdBytes: 0, wantedMiB: Math.ceil(parentLimit / 2 ** 20) + 256 });
// Only the child gets here.
writeFileSync(report, JSON.stringify({ pid: process.pid, heap: getHeapStatistics().heap_size_limit, parentHeap: Number(process.env.PARENT_HEAP), execArgv: process.execArgv }));
if (mode === 'exit') process.exit(7);
setInterval(() => {}, 1000);
`,
);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, ms = 20_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (check()) return true;
  return check();
}

function start(name: string, mode = 'wait') {
  const report = path.join(work, `${name}.json`);
  const parent = spawn(process.execPath, [script, report, model, mode], { stdio: 'ignore' });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => parent.on('exit', (code, signal) => resolve({ code, signal })));
  const child = async () => {
    expect(await waitFor(() => existsSync(report) && readFileSync(report, 'utf8').length > 0)).toBe(true);
    const found = JSON.parse(readFileSync(report, 'utf8')) as { pid: number; heap: number; parentHeap: number; execArgv: string[] };
    children.push(found.pid);
    return found;
  };
  return { parent, exited, child };
}

describe('large-heap re-run', () => {
  it('runs the command in a child with the larger heap and exits with its status', async () => {
    const run = start('status', 'exit');
    const child = await run.child();
    expect(child.pid).not.toBe(run.parent.pid);
    expect(child.heap).toBeGreaterThan(child.parentHeap + 128 * 2 ** 20);
    expect(child.execArgv.some((arg) => arg.startsWith('--max-old-space-size='))).toBe(true);
    expect(await run.exited).toEqual({ code: 7, signal: null });
  });

  it('forwards SIGTERM to the child and exits with its status', async () => {
    const run = start('sigterm');
    const { pid } = await run.child();
    run.parent.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 143, signal: null });
    expect(await waitFor(() => !alive(pid))).toBe(true);
  });

  it('the child exits when its parent is killed outright', async () => {
    const run = start('sigkill');
    const { pid } = await run.child();
    run.parent.kill('SIGKILL');
    await run.exited;
    expect(await waitFor(() => !alive(pid))).toBe(true);
  });
});
