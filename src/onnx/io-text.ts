/** Writing small text files (reports) atomically, like models: exclusive temp file, then rename. */
import { AmpError } from './errors.js';
import { printable } from './printable.js';
import { writeFileAtomically } from './safe-write.js';

export function writeTextAtomically(file: string, text: string): void {
  try {
    writeFileAtomically(file, Buffer.from(text, 'utf8'));
  } catch (error) {
    throw new AmpError('WRITE_FAILED', `${printable(file, 400)}: cannot write (${(error as NodeJS.ErrnoException).code ?? error}); nothing was written`, {
      subject: file,
      cause: error,
    });
  }
}
