/** `amp-rewrite make-training`: writes a step graph `train` and the rewrite take; refuses mistakes with exit 2 and one line, writing nothing. */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpus.js';

const cli = (args: string[]) => spawnSync(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), ...args], { encoding: 'utf8', cwd: dir });
const dir = mkdtempSync(path.join(tmpdir(), 'amp-make-training-'));
const forward = path.join(dir, 'cnn.onnx');
copyFileSync(path.join(repoRoot, 'fixtures/torch-forward/cnn-torchscript.onnx'), forward);

function refused(result: ReturnType<typeof cli>, code: string, text: string): void {
  expect(result.status).toBe(2);
  expect(result.stderr).toMatch(new RegExp(`^amp-rewrite: error \\[${code}\\]: .*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
}

describe('amp-rewrite make-training', () => {
  it('writes the step graph, says what trains and what stays frozen, and the rewrite and train take it', () => {
    const result = cli(['make-training', forward, '-o', 'step.onnx', '--optimizer', 'momentum', '--momentum', '0.8', '--lr', '0.02']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('parameters: 9 trainable (2010 values), 4 frozen');
    expect(result.stdout).toContain('  trainable:\n    conv1.weight [8, 1, 3, 3]\n');
    expect(result.stdout).toMatch(/\n {4}bn1\.running_mean \[8\]: read by BatchNormalization/);
    // --train-also and --untie reach the pass: a tied decoder's output projection, and a scalar it freezes.
    const decoder = path.join(repoRoot, 'fixtures/torch-parameters/decoder-dynamo.onnx');
    const tied = JSON.parse(cli(['make-training', decoder, '-o', 'tied.onnx', '--json']).stdout);
    expect(tied.frozen.map((f: { name: string }) => f.name)).toContain('val_6');
    const untied = JSON.parse(cli(['make-training', decoder, '-o', 'untied.onnx', '--json', '--untie', '--train-also', 'val_6']).stdout);
    expect(untied.trainable.map((p: { name: string }) => p.name)).toContain('val_6');
    const torchscript = JSON.parse(cli(['make-training', path.join(repoRoot, 'fixtures/torch-parameters/decoder-torchscript.onnx'), '-o', 'ts.onnx', '--json']).stdout);
    expect(torchscript.tied).toEqual([expect.objectContaining({ parameter: 'emb.weight', transposed: true })]);
    const torchscriptUntied = JSON.parse(cli(['make-training', path.join(repoRoot, 'fixtures/torch-parameters/decoder-torchscript.onnx'), '-o', 'ts2.onnx', '--json', '--untie']).stdout);
    expect(torchscriptUntied.tied).toEqual([]);
    expect(cli(['make-training', decoder, '-o', 'x.onnx', '-q']).stdout).toBe('');
    const json = cli(['make-training', forward, '-o', 'step2.onnx', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ wrote: 'step2.onnx', loss: 'loss', lossGrad: 'loss_grad' });
    const rewrite = cli(['step.onnx', '-o', 'step.amp.onnx']);
    expect(rewrite.status).toBe(0);
    expect(rewrite.stdout).toContain('Loss scaling: dynamic');
    const train = cli(['train', 'step.amp.onnx', '--max-steps', '3', '--batch', '8']);
    expect(train.stderr).toBe('');
    expect(train.status).toBe(0);
    expect(train.stdout).toMatch(/loss/);
    // -q prints nothing, as on every command.
    const quiet = cli(['train', 'step.amp.onnx', '--max-steps', '3', '--batch', '8', '-q']);
    expect({ status: quiet.status, stdout: quiet.stdout, stderr: quiet.stderr }).toEqual({ status: 0, stdout: '', stderr: '' });
  }, 120_000);

  it('refuses an output that is the input, an option the optimizer does not read, and an op without a gradient rule; nothing written', () => {
    const before = readFileSync(forward);
    refused(cli(['make-training', forward, '-o', forward]), 'UNSAFE_PATH', 'is the input model');
    expect(readFileSync(forward).equals(before)).toBe(true);
    refused(cli(['make-training', forward, '-o', 'bad.onnx', '--optimizer', 'adam', '--momentum', '0.9']), 'BAD_OPTION', '--momentum does not apply to --optimizer adam');
    refused(cli(['make-training', forward, '-o', 'bad.onnx', '--loss', 'output']), 'BAD_OPTION', '--loss output needs --model-output');
    refused(cli(['make-training', forward, '-o', 'bad.onnx', '--frozen', 'nothing*']), 'BAD_OPTION', "'nothing*' names no float32 initializer");
    expect(existsSync(path.join(dir, 'bad.onnx'))).toBe(false);
  });
});
