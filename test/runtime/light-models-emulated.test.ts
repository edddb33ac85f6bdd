/**
 * The light models under emulated numerics (corpus; skipped without it). SqueezeNet's default
 * rewrite passes compare on ONNX Runtime's CPU provider although its logits reach 6.7e9, because
 * the CPU runs float16 chains in float32; emulation shows the NaN a GPU would give, --calibrate
 * and tune repair it. Inception v1 has values just under 65504: the default headroom keeps them fp32.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusAvailable, corpusDir, repoRoot } from '../support/corpus.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-light-emulated-'));
const bin = path.join(repoRoot, 'dist/cli/main.js');
const cli = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
const light = (name: string) => path.join(corpusDir, 'light-models', `light_${name}.onnx`);

describe.skipIf(!corpusAvailable)('light models under emulated numerics', () => {
  it('SqueezeNet: native CPU passes, emulation finds the NaN; the default verification, --calibrate and tune repair it', () => {
    const model = light('squeezenet');
    const amp = path.join(work, 'squeezenet.amp.onnx');
    expect(cli([model, '-o', amp, '-q', '--no-verify']).status).toBe(0);
    expect(cli(['compare', model, amp, '--numerics', 'native']).status).toBe(0);
    const emulated = cli(['compare', model, amp, '--json']);
    expect(emulated.status).toBe(1);
    const output = JSON.parse(emulated.stdout).outputs[0];
    expect(output.candidateNaN).toBe(output.elements);
    expect(output.maxAbsError).toBeNull();

    // The plain rewrite verifies by default: it keeps the overflowing nodes float32 and passes.
    const verified = path.join(work, 'squeezenet.verified.onnx');
    const run = cli([model, '-o', verified]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\nVerified: PASS on 1 batch of random inputs \(seed 0\), emulated float16 numerics on cpu [^\n]*kept FP32 the nodes of \d+ values/);
    expect(cli(['compare', model, verified]).status).toBe(0);

    const calibrated = path.join(work, 'squeezenet.cal.onnx');
    expect(cli([model, '-o', calibrated, '--calibrate', '-q']).status).toBe(0);
    expect(cli(['compare', model, calibrated]).status).toBe(0);

    const tuned = path.join(work, 'squeezenet.tuned.onnx');
    const tuning = cli(['tune', model, '-o', tuned, '-q']);
    expect(tuning.status, tuning.stderr).toBe(0);
    const report = JSON.parse(readFileSync(path.join(work, 'squeezenet.tuned.tune.json'), 'utf8'));
    expect(report.runs.sessions).toBeLessThanOrEqual(4);
    expect(report.pinned.length).toBeLessThan(15);
    expect(cli(['compare', model, tuned]).status).toBe(0);
  });

  it('Inception v1: the default headroom (2) keeps more nodes fp32 than headroom 1', () => {
    const converted = (extra: string[]) => JSON.parse(cli([light('inception_v1'), '--dry-run', '--calibrate', '--json', ...extra]).stdout).converted as number;
    expect(converted([])).toBeLessThan(converted(['--headroom', '1']));
  });
});
