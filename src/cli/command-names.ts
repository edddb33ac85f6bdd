/**
 * The commands besides the default rewrite, as yargs registers them (test/cli/plain-rewrite.test.ts
 * compares the two). A module of its own, importing nothing: the entry reads it before deciding
 * what else to load.
 */
export const COMMAND_NAMES: readonly string[] = ['inspect', 'run', 'compare', 'tune', 'train', 'doctor', 'report', 'example', 'bench', 'make-training'];
