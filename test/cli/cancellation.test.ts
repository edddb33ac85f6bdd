/**
 * SIGINT/SIGTERM at several points of a rewrite of a large generated model, and the temporaries
 * a `kill -9` leaves. Before any file is staged the signal ends the process at once (nothing to
 * clean); while files are staged it ends the run before the commit, temporaries removed; after
 * the commit it still ends the process, and the message says what was written. A shell sees 130
 * (SIGINT) or 143 (SIGTERM) every time.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeModel, onnx } from '../../src/onnx/codec.js';
import { DataType } from '../../src/onnx/data-types.js';
import { isTemporaryName, STALE_TEMPORARY_MS } from '../../src/onnx/safe-write.js';
import { repoRoot } from '../support/corpus.js';
import { floatTensor, model, node, valueInfo } from '../support/models.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');
const dist = (file: string) => JSON.stringify(path.join(repoRoot, 'dist', file));
const temporaries = (dir: string) => readdirSync(dir).filter(isTemporaryName);

/** A chain of `count` MatMul+Relu pairs on 8x8 weights: a rewrite of seconds, converted throughout. */
function chain(count: number): Buffer {
  const nodes: onnx.NodeProto[] = [];
  const initializer: onnx.TensorProto[] = [];
  let previous = 'x';
  for (let i = 0; i < count; i++) {
    if (i % 50 === 0) initializer.push(floatTensor(`w${i}`, [8, 8], new Array(64).fill(0.01)));
    nodes.push(node('MatMul', [previous, `w${i - (i % 50)}`], [`m${i}`], `mm${i}`), node('Relu', [`m${i}`], [`r${i}`], `relu${i}`));
    previous = `r${i}`;
  }
  return Buffer.from(encodeModel(model({ node: nodes, input: [valueInfo('x', DataType.FLOAT, [1, 8])], output: [valueInfo(previous, DataType.FLOAT, [1, 8])], initializer })));
}

function setup(count: number): { dir: string; input: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-cancel-'));
  const input = path.join(dir, 'model.onnx');
  writeFileSync(input, chain(count));
  return { dir, input };
}

/** Runs the command line in-process with a hook that sends `signal` to itself at write step `step`. */
function signalledAt(step: string, signal: 'SIGINT' | 'SIGTERM' | 'SIGKILL', args: string[]) {
  return spawnSync(process.execPath, ['--input-type=module', '-e', `
    const { setWriteFaultHook } = await import(${dist('onnx/safe-write.js')});
    const { runPlainRewrite, exitOnceWritten } = await import(${dist('cli/plain-rewrite.js')});
    setWriteFaultHook((at) => { if (at === ${JSON.stringify(step)}) process.kill(process.pid, ${JSON.stringify(signal)}); });
    if (await runPlainRewrite(${JSON.stringify(args)})) exitOnceWritten();
  `], { encoding: 'utf8', timeout: 60_000 });
}

describe('SIGINT and SIGTERM during a rewrite', () => {
  it('during the load and the pass: the process ends at once (a shell sees 130 / 143), nothing written', async () => {
    const { dir, input } = setup(30_000);
    for (const [signal, delay, status] of [['INT', 300, 130], ['TERM', 900, 143]] as const) {
      const out = path.join(dir, `out-${signal}.onnx`);
      // Through a shell, as a user's Ctrl-C or `kill` is seen: the status a script would test.
      const started = Date.now();
      const shell = spawn('/bin/sh', ['-c', `"${process.execPath}" "${bin}" "${input}" -o "${out}" --report "${dir}/a-${signal}.json" & pid=$!; sleep ${delay / 1000}; kill -${signal} $pid; wait $pid; echo status=$?`]);
      let stdout = '';
      shell.stdout.on('data', (chunk) => (stdout += chunk));
      await new Promise((resolve) => shell.on('close', resolve));
      expect(stdout.trim(), signal).toBe(`status=${status}`);
      // Long before the run's own end (seconds): the signal was not left waiting for the pass.
      expect(Date.now() - started, signal).toBeLessThan(delay + 1500);
      expect(existsSync(out), signal).toBe(false);
    }
    expect(readdirSync(dir)).toEqual(['model.onnx']);
  }, 60_000);

  it('while the files are staged: ends before the commit, temporaries removed, "nothing was written"', () => {
    const { dir, input } = setup(200);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const out = path.join(dir, 'out.onnx');
      const child = signalledAt('model-written', signal, [input, '-o', out, '--report', path.join(dir, 'a.html'), '-q']);
      expect(child.signal, child.stderr).toBe(signal);
      expect(child.stderr).toContain(`cancelled by ${signal} before anything was committed; nothing was written (2 temporary files removed)`);
      expect(readdirSync(dir)).toEqual(['model.onnx']);
    }
  });

  it('during the commit: the commit completes, and the message names what was written', () => {
    const { dir, input } = setup(200);
    const out = path.join(dir, 'out.onnx');
    const child = signalledAt('model-committed', 'SIGTERM', [input, '-o', out, '--report', path.join(dir, 'a.json'), '-q']);
    expect(child.signal, child.stderr).toBe('SIGTERM');
    expect(child.stderr).toContain(`cancelled by SIGTERM after the outputs were written (${path.join(dir, 'a.json')}, ${out})`);
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'model.onnx', 'out.onnx']);
  });
});

describe('temporaries left by kill -9', () => {
  it('are named .<file>.amp-rewrite-<pid>-<random>.tmp, and a later run removes those of a dead process once stale', () => {
    const { dir, input } = setup(200);
    const killed = signalledAt('model-written', 'SIGKILL', [input, '-o', path.join(dir, 'out.onnx'), '--report', path.join(dir, 'a.json'), '-q']);
    expect(killed.signal).toBe('SIGKILL');
    const left = temporaries(dir);
    expect(left).toHaveLength(2);
    for (const name of left) expect(name).toMatch(new RegExp(`^\\.(out\\.onnx|a\\.json)\\.amp-rewrite-${killed.pid}-[a-z0-9]+\\.tmp$`));
    // A fresh temporary of a dead process may belong to a live one in another PID namespace: kept.
    // One of a live process (this one), however old: kept.
    const live = `.b.json.amp-rewrite-${process.pid}-abc.tmp`;
    writeFileSync(path.join(dir, live), 'x');
    const aged = (Date.now() - STALE_TEMPORARY_MS - 5_000) / 1000;
    utimesSync(path.join(dir, live), aged, aged);
    const rerun = spawnSync(process.execPath, [bin, input, '-o', path.join(dir, 'out.onnx'), '-q'], { encoding: 'utf8' });
    expect(rerun.status, rerun.stderr).toBe(0);
    expect(temporaries(dir).sort()).toEqual([...left, live].sort());
    // Once unchanged for STALE_TEMPORARY_MS, the dead process's are removed by the next run.
    for (const name of left) utimesSync(path.join(dir, name), aged, aged);
    const again = spawnSync(process.execPath, [bin, input, '-o', path.join(dir, 'out2.onnx'), '-q'], { encoding: 'utf8' });
    expect(again.status, again.stderr).toBe(0);
    expect(temporaries(dir)).toEqual([live]);
  });
});
