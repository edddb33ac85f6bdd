/** Writing small text files (reports) atomically, like models: temp file, then rename. */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AmpError } from './errors.js';

export function writeTextAtomically(file: string, text: string): void {
  const temp = path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.tmp-${process.pid}`);
  try {
    writeFileSync(temp, text, { flag: 'w' });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new AmpError('WRITE_FAILED', `${file}: cannot write (${(error as NodeJS.ErrnoException).code ?? error})`, { subject: file, cause: error });
  }
}
