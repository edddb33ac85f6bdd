/** ONNX Runtime's docs/OperatorKernels.md (copied to ../shared/reference): which kernels each provider registers. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { referenceDir } from './corpus.js';

export const kernelsFile = path.join(referenceDir, 'OperatorKernels.md');
export const kernelsAvailable = existsSync(kernelsFile);

/** Per "<provider> <domain>" section, each op's table rows (its first row and the version rows under it). */
export function registeredKernels(markdown = readFileSync(kernelsFile, 'utf8')): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let provider = '';
  let domain = '';
  let current: string | undefined;
  for (const line of markdown.split('\n')) {
    const heading = /^## Operators implemented by (\w+)/.exec(line);
    if (heading) provider = heading[1] as string;
    const domainLine = /^\|\*\*Operator Domain:\*\* \*([\w.]+)\*/.exec(line);
    if (domainLine) domain = domainLine[1] as string;
    const op = /^\|([A-Za-z][A-Za-z0-9_]*)\|/.exec(line);
    const key = `${provider} ${domain}`;
    if (op && provider && domain) {
      current = op[1] as string;
      const ops = sections.get(key) ?? sections.set(key, new Map()).get(key)!;
      ops.set(current, line);
    } else if (current && line.startsWith('|||')) {
      const ops = sections.get(key);
      ops?.set(current, `${ops.get(current) ?? ''}\n${line}`);
    }
  }
  return sections;
}

if (!kernelsAvailable) console.warn(`[reference] ${kernelsFile} not found: tests that read ONNX Runtime's kernel table are skipped (set AMP_SHARED_DIR)`);
