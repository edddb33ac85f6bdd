/** Writing small text files (reports) atomically, like models: exclusive temp file, then rename. */
import { closeSync, constants as fsConstants, fstatSync, openSync, readFileSync } from 'node:fs';
import { AmpError } from './errors.js';
import { printable } from './printable.js';
import { writeFileAtomically } from './safe-write.js';

/** Writes a text file through the door (safe-write.ts): refused over a device, FIFO or folder; atomic. */
export function writeTextAtomically(file: string, text: string, role = 'the output'): void {
  try {
    writeFileAtomically(file, Buffer.from(text, 'utf8'), role);
  } catch (error) {
    if (error instanceof AmpError) throw error;
    throw new AmpError('WRITE_FAILED', `${printable(file, 400)}: cannot write (${(error as NodeJS.ErrnoException).code ?? error}); nothing was written`, {
      subject: file,
      cause: error,
    });
  }
}

/** Text files this tool reads (audits, --rules) are small; past this a file is not one of them. */
const MAX_TEXT_BYTES = 256 * 2 ** 20;

/**
 * Reads a small text file a user names: a regular file only, opened without blocking (a FIFO
 * would otherwise wait forever for a writer), refused past MAX_TEXT_BYTES. `role` names it in errors.
 */
export function readTextFile(file: string, role: string): string {
  let fd: number;
  try {
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new AmpError('FILE_NOT_FOUND', `${role} ${printable(file, 400)}: no such file`, { subject: file });
    throw new AmpError('READ_FAILED', `${role} ${printable(file, 400)}: cannot read (${code ?? String(error)})`, { subject: file, cause: error });
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) throw new AmpError('READ_FAILED', `${role} ${printable(file, 400)}: is a folder, not a file`, { subject: file });
    if (!stats.isFile()) throw new AmpError('READ_FAILED', `${role} ${printable(file, 400)}: not a regular file (a FIFO, device or socket)`, { subject: file });
    if (stats.size > MAX_TEXT_BYTES) throw new AmpError('READ_FAILED', `${role} ${printable(file, 400)}: ${stats.size} bytes, more than a text file this tool reads (${MAX_TEXT_BYTES})`, { subject: file });
    return readFileSync(fd, 'utf8');
  } catch (error) {
    if (error instanceof AmpError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new AmpError('READ_FAILED', `${role} ${printable(file, 400)}: cannot read (${code ?? String(error)})`, { subject: file, cause: error });
  } finally {
    closeSync(fd);
  }
}
