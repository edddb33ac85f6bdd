/**
 * rewriteAndVerifyBytes (api/rewrite-bytes.ts) with onnxruntime-node as the verifier the caller
 * hands it: on 'cpu' the verdict and the bytes are the command line's default run's; on 'webgpu'
 * the models run natively (the page's native run; here the sessions are CPU ones standing in for
 * the GPU, which this machine lacks), and the verdict says native numerics on webgpu.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rewriteAndVerifyBytes, type BytesVerifier } from '../../src/api/rewrite-bytes.js';
import { loadOrt } from '../../src/runtime/ort.js';
import { repoRoot } from '../support/corpus.js';

const model = path.join(repoRoot, 'test/models/ssd-overflow.onnx');

async function nodeVerifier(provider: 'cpu' | 'webgpu'): Promise<BytesVerifier> {
  const ort = await loadOrt();
  return { ort, provider, open: (bytes, options) => ort.InferenceSession.create(bytes, { ...options, executionProviders: ['cpu'] }) };
}

describe('rewriteAndVerifyBytes', () => {
  it("verifies on the caller's runtime as the command line does: the same verdict line, the same pins and bytes", async () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'amp-rewrite-bytes-')), 'out.onnx');
    const cli = spawnSync(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), model, '-o', out], { encoding: 'utf8' });
    expect(cli.status, cli.stderr).toBe(0);
    const result = await rewriteAndVerifyBytes(readFileSync(model), { source: 'ssd-overflow.onnx' }, await nodeVerifier('cpu'));
    expect(result.verification.status).toBe('pass');
    expect(result.verification.pinned?.length).toBe(2);
    expect(result.written).toBe(true);
    const verdict = (text: string) => text.split('\n').find((line) => line.startsWith('Verified'));
    expect(verdict(result.summaryText)).toBe(verdict(cli.stdout));
    expect(Buffer.from(result.bytes).equals(readFileSync(out))).toBe(true);
  }, 60_000);

  it("runs natively on the verifier's webgpu provider (the page's native run)", async () => {
    const result = await rewriteAndVerifyBytes(readFileSync(model), { source: 'ssd-overflow.onnx' }, await nodeVerifier('webgpu'));
    expect(result.verification).toMatchObject({ provider: 'webgpu', numerics: 'native' });
    expect(result.summaryText).toMatch(/^Verified: \w+ on 1 batch of random inputs \(seed 0\), native numerics on webgpu \(onnxruntime-node /m);
  }, 60_000);
});
