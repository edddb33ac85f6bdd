/**
 * The large-heap re-run: the child gets the larger heap, its status becomes the command's, signals
 * sent to the parent reach it, and it does not outlive a parent killed outright.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FatalReportFilter, workerThreadsFor } from '../../src/cli/large-heap.js';
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

function start(name: string, mode = 'wait', nodeFlags: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const report = path.join(work, `${name}.json`);
  const parent = spawn(process.execPath, [...nodeFlags, script, report, model, mode], { stdio: 'ignore', env: { ...process.env, ...env } });
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
    expect(child.execArgv).toContain(`--v8-pool-size=${workerThreadsFor()}`);
    expect(await run.exited).toEqual({ code: 7, signal: null });
  });

  it("gives the child one V8 worker fewer than the cores, at most Node's default of 4", () => {
    expect([1, 2, 3, 4, 5, 16, 128].map((cores) => workerThreadsFor(cores))).toEqual([1, 1, 2, 3, 4, 4, 4]);
  });

  it('keeps a pool size the user gave, and adds none of its own', async () => {
    const run = start('own-pool', 'exit', ['--v8-pool-size=3']);
    const child = await run.child();
    expect(child.execArgv.filter((arg) => arg.startsWith('--v8-pool-size'))).toEqual(['--v8-pool-size=3']);
    expect(await run.exited).toEqual({ code: 7, signal: null });
    // Given in NODE_OPTIONS, which the child inherits (and execArgv does not show): none added either.
    const inherited = start('own-pool-env', 'exit', [], { NODE_OPTIONS: '--v8-pool-size=3' });
    expect((await inherited.child()).execArgv.filter((arg) => arg.startsWith('--v8-pool-size'))).toEqual([]);
    expect(await inherited.exited).toEqual({ code: 7, signal: null });
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

  it('ends a child that ran out of heap with one typed line and exit 2, its earlier output passed on', () => {
    const oom = path.join(work, 'oom.mjs');
    writeFileSync(
      oom,
      `import { rerunWithLargerHeapIfNeeded } from ${JSON.stringify(path.join(repoRoot, 'dist/cli/large-heap.js'))};
await rerunWithLargerHeapIfNeeded({ args: [${JSON.stringify(model)}], thresholdBytes: 0, wantedMiB: 384 });
import { getHeapStatistics } from 'node:v8';
process.stderr.write('heap limit ' + Math.round(getHeapStatistics().heap_size_limit / 2 ** 20) + ' MiB\\n');
const kept = [];
for (;;) kept.push(new Array(100000).fill(kept.length + 0.5));
`,
    );
    // The parent's own smaller heap flag must not reach the child (V8 takes the last of two).
    const run = spawnSync(process.execPath, ['--max-old-space-size=32', oom], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(2);
    const lines = run.stderr.trimEnd().split('\n');
    // The child's heap: the 384 MiB asked for (plus V8's young generation), not the parent's 32. The
    // parent's whole heap must be under what it asks for, young generation included: 48 MiB on Node
    // 20, 224 MiB on Node 24, whose young generation is 192 MiB.
    expect(Number(/^heap limit (\d+) MiB$/.exec(lines[0] as string)?.[1])).toBeGreaterThanOrEqual(384);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^amp-rewrite: error \[MODEL_TOO_LARGE\]: the command ran out of memory in the 384 MiB heap it was given \(this machine has \d+ MiB\); run it on a machine with more memory$/),
    ]);
  });

  it('passes on any other fatal report whole, and lines split across chunks as written', () => {
    const other = filtered('first li', 'ne\n\nsecond\n\nFATAL ERROR: v8::ToLocalChecked Empty MaybeLocal\n 1: 0xabc node::Abort', '()\n');
    expect(other).toEqual({ outOfMemory: false, text: 'first line\n\nsecond\n\nFATAL ERROR: v8::ToLocalChecked Empty MaybeLocal\n 1: 0xabc node::Abort()\n' });
    const exhausted = filtered(
      'kept\n\n\n<--- Last few GCs --->\n[1:0x1]  100 ms: Mark-Compact 95.1 (97.0) -> 95.0 (97.0) MB\n',
      'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n',
    );
    expect(exhausted).toEqual({ outOfMemory: true, text: 'kept\n' });
    expect(filtered('no newline at the end')).toEqual({ outOfMemory: false, text: 'no newline at the end' });
  });
});

/** What a FatalReportFilter passes on of `chunks` written one by one, and whether it saw V8 run out of memory. */
function filtered(...chunks: string[]): { outOfMemory: boolean; text: string } {
  const seen: string[] = [];
  const filter = new FatalReportFilter((text) => seen.push(text));
  for (const chunk of chunks) filter.write(chunk);
  filter.end();
  return { outOfMemory: filter.outOfMemory, text: seen.join('') };
}
