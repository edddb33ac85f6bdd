/**
 * The built command line is a bundle (scripts/bundle-cli.mjs): its start-up reads a few chunks
 * instead of ~70 modules. It must behave as the unbundled modules did: files found relative to a
 * module (the rules) are found, and the HTML report embeds the page script's source text as tsc
 * wrote it (bundled, the function would be reformatted and the report's bytes would change).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fixturesDir, repoRoot } from '../support/corpus.js';

const bin = path.join(repoRoot, 'dist/cli/main.js');
const transformer = path.join(fixturesDir, 'transformer-block/model.onnx');
const work = mkdtempSync(path.join(tmpdir(), 'amp-bundle-'));

describe('bundled command line', () => {
  it('is one entry with its chunks, not the module tree', () => {
    const entry = readFileSync(bin, 'utf8');
    expect(entry.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(entry).not.toMatch(/from '\.\/plain-rewrite\.js'/);
    expect(readdirSync(path.dirname(bin)).some((file) => file.startsWith('main-chunk-'))).toBe(true);
  });

  it('loads a plain rewrite as one chunk, with protobufjs and long inside it', () => {
    // Each ES module Node loads costs a resolve, a read and a link (about 0.5 ms each), and long's
    // CommonJS copy (which protobufjs requires) the CommonJS loader's start: about 15 ms in all.
    const dir = path.dirname(bin);
    const staticImports = (file: string): string[] =>
      [...readFileSync(path.join(dir, file), 'utf8').matchAll(/^(?:import|export)\b[^;]*?from "([^"]+)";/gm)].map((match) => match[1] as string);
    const plainChunk = /import\("\.\/(main-chunk-plain-rewrite-[^"]+)"\)/.exec(readFileSync(bin, 'utf8'))?.[1];
    expect(plainChunk).toBeDefined();
    const loaded = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string): void => {
      if (loaded.has(file)) return;
      loaded.add(file);
      for (const specifier of staticImports(file)) {
        if (specifier.startsWith('./')) visit(specifier.slice(2));
        else if (!specifier.startsWith('node:')) packages.add(specifier);
      }
    };
    visit(plainChunk as string);
    // The plain rewrite's chunk, the rewrite chunk's module and the code cache's loader that runs
    // its body (test/cli/code-cache.test.ts).
    expect(loaded.size).toBeLessThanOrEqual(3);
    expect([...packages]).not.toContain('long');
    expect([...packages].filter((name) => name.startsWith('protobufjs'))).toEqual([]);
  });

  it('writes its chunks in ASCII (one-byte source strings for V8)', () => {
    const dir = path.dirname(bin);
    for (const file of readdirSync(dir).filter((name) => name === 'main.js' || (name.startsWith('main-chunk-') && name.endsWith('.js')))) {
      expect([...readFileSync(path.join(dir, file), 'latin1')].findIndex((char) => char.charCodeAt(0) > 0x7f), file).toBe(-1);
    }
  });

  it('finds the rules and writes the HTML report with the page script exactly as tsc compiled it', () => {
    const html = path.join(work, 'audit.html');
    const result = spawnSync(process.execPath, [bin, transformer, '--dry-run', '-q', '--report', html], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    // Read by Node itself: vitest would transform the modules it imports.
    const compiled = (module: string, name: string): string => {
      const url = pathToFileURL(path.join(repoRoot, `dist/report/html/${module}.js`)).href;
      const source = spawnSync(process.execPath, ['--input-type=module', '-e', `process.stdout.write((await import(${JSON.stringify(url)})).${name}.toString())`], { encoding: 'utf8' });
      expect(source.status).toBe(0);
      expect(source.stdout).toMatch(new RegExp(`^function ${name}\\(`));
      return source.stdout;
    };
    expect(readFileSync(html, 'utf8')).toContain(`(${compiled('page-script', 'reportPage')})((${compiled('page-data', 'unpackPageData')})(JSON.parse(`);
  });
});
