/**
 * bench/gpu/run.mjs, the one-command GPU benchmark, checked end to end at --small sizes on the CPU
 * provider (its figures mean nothing here; the point is that a GPU run spends its time measuring).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './support/corpus.js';

describe('bench/gpu/run.mjs', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'amp-gpu-bench-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('runs every variant of a model in its own process and writes JSON and a Markdown table', () => {
    const script = path.join(repoRoot, 'bench/gpu/run.mjs');
    const result = spawnSync(process.execPath, [script, '--ep', 'cpu', '--small', '--only', 'transformer,mlp-train', '--runs', '1', '--warmup', '0', '--out', out], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    const files = readdirSync(out).sort();
    expect(files).toEqual([expect.stringMatching(/^gpu-cpu-\d{4}-\d\d-\d\d-small\.json$/), expect.stringMatching(/^gpu-cpu-\d{4}-\d\d-\d\d-small\.md$/)]);
    const record = JSON.parse(readFileSync(path.join(out, files[0] as string), 'utf8'));
    expect(record.method).toMatch(/one process per variant/);
    expect(record.cases.map((c: { name: string }) => c.name)).toEqual(['transformer', 'mlp-train']);
    const train = record.cases[1];
    const transformer = record.cases[0];
    expect(train.variants.map((v: { label: string }) => v.label)).toEqual(['fp32', 'amp', 'amp --target cuda', 'pure fp16']);
    expect(train.variants.every((v: { medianMs?: number }) => (v.medianMs ?? 0) > 0)).toBe(true);
    // --target cuda converts more of the transformer than --target any (its mid-model LayerNorms and Softmaxes).
    const converted = Object.fromEntries(transformer.variants.map((v: { label: string; converted: number }) => [v.label, v.converted]));
    expect(converted['amp --target cuda']).toBeGreaterThan(converted.amp);
    // A training step's outputs are all compared; the loss-scaling inputs had defaults, so the loss is finite.
    const loss = train.variants[1].accuracy.find((a: { name: string }) => a.name === 'loss');
    expect(loss.pass).toBe(true);
    expect(transformer.batchSearch.fp32.trials.length).toBeGreaterThan(0);
    const markdown = readFileSync(path.join(out, files[1] as string), 'utf8');
    expect(markdown).toContain('| model | fp32 ms | fp32+TF32 ms | AMP ms | AMP --target cuda ms | pure fp16 ms |');
    expect(markdown).toContain('## Largest batch that fits');
  }, 240_000);
});
