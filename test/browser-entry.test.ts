/**
 * The browser entry (src/browser.ts, `amp-rewrite/browser`): bundled for the browser it resolves
 * no Node built-in, and run where there is no Buffer, process or file system (a bare V8 context) it
 * writes the bytes the command line writes (`--no-verify`) for the same model and options: a
 * transformer, a CNN, a training step and a model with external data, under several options.
 */
import { spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { rolldown } from 'rolldown';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadModel, saveModel } from '../src/onnx/model-io.js';
import { repoRoot } from './support/corpus.js';

const cli = path.join(repoRoot, 'dist/cli/main.js');
const BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

interface BrowserEntry {
  rewriteBytes(bytes: Uint8Array, options: Record<string, unknown>): { bytes: Uint8Array; summaryText: string; auditJson(): string; auditHtml(): string };
}

/** The entry bundled for the browser, the Node built-ins it asked for, and the entry run in a context with none of Node's globals. */
async function bundleForBrowser(): Promise<{ builtins: string[]; code: string }> {
  const builtins: string[] = [];
  const bundle = await rolldown({
    input: path.join(repoRoot, 'src/browser.ts'),
    platform: 'browser',
    logLevel: 'silent',
    plugins: [
      {
        name: 'no-node-builtins',
        resolveId(source) {
          if (!BUILTINS.has(source)) return null;
          builtins.push(source);
          return { id: source, external: true };
        },
      },
    ],
  });
  const { output } = await bundle.generate({ format: 'iife', name: 'AmpRewrite' });
  return { builtins, code: (output[0] as { code: string }).code };
}

let entry: BrowserEntry;
let context: vm.Context;
let bundled: { builtins: string[]; code: string };

/** Bytes made inside the bare context, so that the entry sees its own realm's Uint8Array (as a page's code does). */
function contextBytes(bytes: Uint8Array): Uint8Array {
  const copy = vm.runInContext(`new Uint8Array(${bytes.length})`, context) as Uint8Array;
  copy.set(bytes);
  return copy;
}

function cliRewrite(model: string, out: string, args: string[]): Buffer {
  const result = spawnSync(process.execPath, [cli, model, '-o', out, '--no-verify', '-q', ...args], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return readFileSync(out);
}

beforeAll(async () => {
  bundled = await bundleForBrowser();
  // A bare V8 context: no Buffer, process, require or file system; what a page has that V8 lacks is given.
  context = vm.createContext({ TextEncoder, TextDecoder, console });
  vm.runInContext(bundled.code, context);
  entry = vm.runInContext('AmpRewrite', context) as BrowserEntry;
}, 120_000);

describe('the browser entry', () => {
  it('asks for no Node built-in, and its bundle names neither Buffer nor process where it runs', () => {
    expect(bundled.builtins).toEqual([]);
    expect(vm.runInContext('typeof Buffer + typeof process + typeof require', context)).toBe('undefinedundefinedundefined');
  });

  const cases: Array<{ model: string; args: string[]; options: Record<string, unknown> }> = [
    { model: 'test/models/torch-encoder-dynamo.onnx', args: [], options: {} },
    { model: 'test/models/llama-rotary.onnx', args: ['--mode', 'bf16', '--target', 'cuda'], options: { mode: 'bf16', target: 'cuda' } },
    { model: 'test/models/mobilenetv3-se-dynamo.onnx', args: ['--weights', 'fp16', '--io-types', 'fp16'], options: { weights: 'fp16', ioTypes: 'fp16' } },
    { model: 'test/models/bert-dedup.onnx', args: ['--force-fp32', '/MatMul/', '--infer-remove', 'Add', '--deny-add', 'Add'], options: { forceFp32: ['/MatMul/'], listChanges: { infer: { remove: ['Add'] }, deny: { add: ['Add'] } } } },
    { model: 'fixtures/torch-forward/cnn-torchscript.onnx', args: [], options: {} },
  ];
  for (const { model, args, options } of cases) {
    it(`writes the command line's bytes for ${path.basename(model)} ${args.join(' ')}`, () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'amp-browser-entry-'));
      const expected = cliRewrite(path.join(repoRoot, model), path.join(dir, 'out.onnx'), args);
      const result = entry.rewriteBytes(contextBytes(readFileSync(path.join(repoRoot, model))), { source: path.basename(model), ...options });
      expect(Buffer.from(result.bytes).equals(expected)).toBe(true);
      expect(result.summaryText).toMatch(/converted|float16|bfloat16/i);
      expect(JSON.parse(result.auditJson()).nodes.length).toBeGreaterThan(0);
      expect(result.auditHtml()).toMatch(/^<!doctype html>/i);
    }, 60_000);
  }

  it("writes the command line's --external-data embed bytes for a model whose weights are in a data file given as bytes", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-browser-entry-'));
    const source = path.join(dir, 'cnn.onnx');
    saveModel(loadModel(path.join(repoRoot, 'fixtures/torch-forward/cnn-torchscript.onnx')), source, { externalData: { location: 'cnn.onnx.data', sizeThreshold: 0 } });
    const expected = cliRewrite(source, path.join(dir, 'out.onnx'), ['--external-data', 'embed']);
    const files = new Map([['cnn.onnx.data', contextBytes(readFileSync(path.join(dir, 'cnn.onnx.data')))]]);
    const result = entry.rewriteBytes(contextBytes(readFileSync(source)), { source: 'cnn.onnx', externalData: files });
    expect(Buffer.from(result.bytes).equals(expected)).toBe(true);
    // A data file not given is a typed error naming the tensor and the file.
    expect(() => entry.rewriteBytes(contextBytes(readFileSync(source)), { source: 'cnn.onnx' })).toThrowError(/EXTERNAL_DATA_MISSING|cnn\.onnx\.data was not given/);
  }, 60_000);
});
