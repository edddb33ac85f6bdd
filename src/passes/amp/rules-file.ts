/** Reads a --rules file (op-lists.ts parses it): the file system's side of the list changes. */
import { readTextFile } from '../../onnx/io-text.js';
import { parseRulesText, type ListChangeLayer } from './op-lists.js';

export function readRulesFile(file: string): ListChangeLayer {
  return parseRulesText(readTextFile(file, '--rules'), file);
}
