/**
 * Quiet by default: ONNX Runtime's warnings only with --verbose, no raw Dawn warning for a WebGPU
 * provider that cannot start, and a reader that closes the pipe early ends the command normally.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeModel, onnx } from '../../src/onnx/codec.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { findLibrary, providerUnavailable } from '../../src/runtime/native-libraries.js';
import { fixturesDir, repoRoot } from '../support/corpus.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');
const transformer = path.join(fixturesDir, 'transformer-block/model.onnx');
const work = mkdtempSync(path.join(tmpdir(), 'amp-quiet-'));

function cli(args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
}

describe('quiet by default', () => {
  it("ONNX Runtime's warnings appear only with --verbose", () => {
    // An initializer no node reads: ONNX Runtime warns that it removes it.
    const model = loadModel(transformer);
    model.graph!.initializer!.push(onnx.TensorProto.create({ name: 'unused_weight', data_type: 1, dims: [1], float_data: [1] }));
    const file = path.join(work, 'unused.onnx');
    writeFileSync(file, encodeModel(model));
    const quiet = cli([file, '--dry-run', '-q', '--calibrate']);
    expect(quiet.status).toBe(0);
    expect(quiet.stderr).toBe('');
    const verbose = cli([file, '--dry-run', '-q', '--calibrate', '--verbose']);
    expect(verbose.status).toBe(0);
    expect(verbose.stderr).toMatch(/Removing initializer 'unused_weight'/);
    expect(cli(['run', file]).stderr).toBe('');
    expect(cli(['run', file, '--verbose']).stderr).toMatch(/Removing initializer 'unused_weight'/);
  });

  it.skipIf(findLibrary('libvulkan.so.1') !== undefined)('--ep auto on a machine without Vulkan prints no Dawn warning, only which providers ran', () => {
    const result = cli(['run', transformer, '--ep', 'auto']);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^execution provider: cpu \(cuda unavailable, webgpu unavailable\)/);
  });

  it('a provider whose library is missing is skipped before it starts', () => {
    const empty = path.join(work, 'empty-lib');
    const fake = path.join(work, 'fake-lib');
    mkdirSync(empty);
    mkdirSync(fake);
    writeFileSync(path.join(fake, 'libvulkan.so.1'), '');
    const none = { env: {}, ldconfig: false, systemDirs: [empty] };
    if (process.platform === 'linux') {
      expect(providerUnavailable('webgpu', none)).toMatch(/libvulkan\.so\.1 not found/);
      expect(providerUnavailable('webgpu', { env: { LD_LIBRARY_PATH: fake }, ldconfig: false, systemDirs: [empty] })).toBeUndefined();
    }
    expect(providerUnavailable('cpu', none)).toBeUndefined();
  });

  it('a reader that closes the pipe early (| head) ends the command normally', async () => {
    const child = spawn(process.execPath, [bin, 'inspect', transformer, '--verbose'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
  });
});
