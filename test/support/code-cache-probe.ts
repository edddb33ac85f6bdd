/**
 * What became of the code cache of each script body a built command line ran (src/cli/code-cache.ts):
 * runs `<cliDir>/main.js model -o output -q` in a fresh Node, without NODE_OPTIONS (V8 takes a
 * cache only under the flags it was made with), and returns [body file, state] pairs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export function plainEnvironment(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _flags, ...rest } = process.env;
  return rest;
}

export function codeCacheStates(cliDir: string, model: string, output: string): { status: number | null; states: Array<[string, string]> } {
  const main = path.join(cliDir, 'main.js');
  // Written to a file: the command's own standard error (a warning) must not garble them.
  const statesFile = path.join(mkdtempSync(path.join(tmpdir(), 'amp-code-cache-probe-')), 'states.json');
  const script = [
    `const { scriptModuleRuns } = await import(${JSON.stringify(pathToFileURL(path.join(cliDir, 'code-cache.js')).href)});`,
    `const { writeFileSync } = await import('node:fs');`,
    `process.on('exit', () => writeFileSync(${JSON.stringify(statesFile)}, JSON.stringify([...scriptModuleRuns()].map(([file, run]) => [file, run.state]))));`,
    `process.argv = [process.execPath, ${JSON.stringify(main)}, ${JSON.stringify(model)}, '-o', ${JSON.stringify(output)}, '-q'];`,
    `await import(${JSON.stringify(pathToFileURL(main).href)});`,
  ].join('\n');
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: plainEnvironment() });
  const states = existsSync(statesFile) ? (JSON.parse(readFileSync(statesFile, 'utf8')) as Array<[string, string]>) : [];
  rmSync(path.dirname(statesFile), { recursive: true, force: true });
  return { status: result.status, states };
}
