/**
 * The rotary embedding of a Hugging Face LlamaForCausalLM export (test/models/llama-rotary.onnx,
 * scripts/export-llama-rotary.py) at large positions: float16 holds integers exactly only up to
 * 2048 and bfloat16 up to 256, so a rewrite that converted the Cast of position_ids or the
 * inv_freq x positions MatMul passed at positions 0..47 and failed at 4000..4047. The default
 * rewrite keeps them float32 (rules/integer-valued.json), and compare against float32 on ONNX
 * Runtime with emulated numerics passes at both.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareModels } from '../../src/api/execute.js';
import { loadModel, saveModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { repoRoot } from '../support/corpus.js';

const work = mkdtempSync(path.join(tmpdir(), 'amp-rotary-positions-'));
const reference = path.join(repoRoot, 'test/models/llama-rotary.onnx');
const SEQUENCE = 48;

/** input_ids, attention_mask and position_ids files for one sequence starting at `start`. */
function inputsAt(start: number): string[] {
  const ids = Array.from({ length: SEQUENCE }, (_, i) => (i * 37 + 11) % 64);
  const tensors = { input_ids: [ids], attention_mask: [ids.map(() => 1)], position_ids: [ids.map((_, i) => start + i)] };
  return Object.entries(tensors).map(([name, values]) => {
    const file = path.join(work, `${name}-${start}.json`);
    writeFileSync(file, JSON.stringify(values));
    return `${name}=${file}`;
  });
}

describe('a Hugging Face LLaMA export at positions 0..47 and 4000..4047', () => {
  it.each(['fp16', 'bf16'] as const)('the default %s rewrite passes compare against float32 at both (emulated numerics)', async (mode) => {
    const candidate = path.join(work, `llama-rotary.${mode}.onnx`);
    const { model, report } = ampRewrite(loadModel(reference), { mode });
    saveModel(model, candidate);
    // The rewrite converts the layers: a pass at 4000 is not a rewrite that converted nothing.
    expect(report.nodes.filter((n) => n.op === 'MatMul' && n.color === 'ALLOW').length).toBeGreaterThanOrEqual(10);
    for (const start of [0, 4000]) {
      const result = await compareModels(reference, candidate, { inputs: inputsAt(start), numerics: 'emulate', ep: 'cpu' });
      expect(result.candidateRefused).toBeNull();
      expect(result.outputs[0]?.elements).toBe(SEQUENCE * 64);
      expect(result.outputs[0]?.mismatched, `${mode} at ${start}: ${JSON.stringify(result.outputs[0])}`).toBe(0);
      expect(result.pass, `${mode} at ${start}`).toBe(true);
    }
  }, 120_000);
});
