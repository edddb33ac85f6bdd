/**
 * Regular expressions from users (--force-fp32/--force-fp16 `/regex/`, a --rules file's
 * forceFp32) run with bounded cost: on V8's linear-time engine (the `l` flag, enabled by
 * --enable-experimental-regexp-engine), so `/(a+)+$/` against a 35-character node name takes
 * microseconds, not minutes of backtracking. What that engine cannot run in linear time
 * (backreferences, lookaround; on Node 20 also the `u` and `i` flags) is refused as BAD_OPTION, except `i`,
 * which is rewritten into character classes ([aA]) where the engine does not take it. A pattern is
 * at most MAX_PATTERN_CHARS long: V8 compiles a 1 MB pattern into a 1 MB automaton per match.
 *
 * Outside Node (the web page) no engine flag can be set: a pattern compiles on the backtracking
 * engine, and what bounds it there is the Worker the page runs the pass in, which it can stop.
 */
import { AmpError } from '../../onnx/errors.js';
import { printable } from '../../onnx/printable.js';
import { nodeBuiltin } from '../../onnx/node-builtins.js';

export const MAX_PATTERN_CHARS = 4096;

let linearEngine: boolean | undefined;

/**
 * Turns the linear engine on for this process where it can be (Node's v8 module, read through
 * process.getBuiltinModule so that the core imports no Node module); whether it is on. The flag
 * only makes the `l` flag available: no other regular expression changes.
 */
function enableLinearEngine(): boolean {
  if (linearEngine !== undefined) return linearEngine;
  const v8 = nodeBuiltin<{ setFlagsFromString(flags: string): void }>('node:v8');
  v8?.setFlagsFromString('--enable-experimental-regexp-engine');
  try {
    linearEngine = new RegExp('', 'l').flags.includes('l');
  } catch {
    linearEngine = false;
  }
  return linearEngine;
}

/**
 * The pattern with ASCII letters made case-insensitive by classes: `a` → `[aA]`, and inside a
 * class `a-f` → `a-fA-F`. Escapes (`\w`, `\d`, `\x41`, `\u{...}`, `\p{...}`) are copied as written.
 */
export function foldAsciiCase(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i] as string;
    if (char === '\\') {
      // An escape and what it takes: \xHH, \uHHHH, \u{...}, \p{...}, \cX, or one character.
      const next = source[i + 1] ?? '';
      let end = i + 2;
      if (next === 'x') end = i + 4;
      else if (next === 'u' && source[i + 2] === '{') end = source.indexOf('}', i) + 1 || source.length;
      else if (next === 'u') end = i + 6;
      else if ((next === 'p' || next === 'P') && source[i + 2] === '{') end = source.indexOf('}', i) + 1 || source.length;
      else if (next === 'c') end = i + 3;
      else if (next === 'k' && source[i + 2] === '<') end = source.indexOf('>', i) + 1 || source.length;
      out += source.slice(i, end);
      i = end - 1;
      continue;
    }
    if (!inClass && char === '(' && source[i + 1] === '?' && source[i + 2] === '<' && source[i + 3] !== '=' && source[i + 3] !== '!') {
      // A named group: its name is no text to match.
      const end = source.indexOf('>', i) + 1 || source.length;
      out += source.slice(i, end);
      i = end - 1;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      const last = source[i + 2];
      if (/[A-Za-z]/.test(char) && source[i + 1] === '-' && last !== undefined && /[A-Za-z]/.test(last)) {
        const range = `${char}-${last}`;
        const other = char === char.toLowerCase() && last === last.toLowerCase() ? range.toUpperCase() : char === char.toUpperCase() && last === last.toUpperCase() ? range.toLowerCase() : '';
        out += range + other;
        i += 2;
        continue;
      }
      out += /[A-Za-z]/.test(char) ? char.toLowerCase() + char.toUpperCase() : char;
      continue;
    }
    if (char === '[') {
      inClass = true;
      out += char;
      if (source[i + 1] === '^') {
        out += '^';
        i++;
      }
      continue;
    }
    // A letter in a quantifier's braces cannot occur ({2,3}); elsewhere a letter is a literal.
    out += /[A-Za-z]/.test(char) ? `[${char.toLowerCase()}${char.toUpperCase()}]` : char;
  }
  return out;
}

/**
 * A user's `/source/flags` compiled on the linear-time engine; BAD_OPTION (naming `option`) for a
 * pattern that is too long, invalid, or not runnable in linear time. `g` and `y` are dropped:
 * they make test() remember where it stopped, so a pattern would match every other node.
 */
export function boundedRegex(source: string, flags: string, option: string): RegExp {
  const shown = `/${printable(source, 80)}/${printable(flags, 10)}`;
  if (source.length > MAX_PATTERN_CHARS) {
    throw new AmpError('BAD_OPTION', `${option} ${shown}: a pattern is at most ${MAX_PATTERN_CHARS} characters (this one has ${source.length})`, { subject: option });
  }
  const kept = [...new Set(flags.replace(/[gy]/g, ''))].join('');
  const bad = kept.replace(/[imsu]/g, '');
  if (bad) throw new AmpError('BAD_OPTION', `${option} ${shown}: flag '${printable(bad, 10)}' is not supported (use i, m, s or u)`, { subject: option });
  if (!enableLinearEngine()) return compileOrRefuse(source, kept, option, shown);
  try {
    return new RegExp(source, `${kept}l`);
  } catch (error) {
    const message = (error as Error).message;
    if (!/linear time/.test(message)) throw new AmpError('BAD_OPTION', `${option} ${shown} is not a valid regular expression: ${printable(message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, ''), 200)}`, { subject: option });
    if (kept.includes('i') && !kept.includes('u')) {
      // Node 20's engine takes no `i`: the same pattern with its letters as [aA] classes.
      try {
        return new RegExp(foldAsciiCase(source), `${kept.replace('i', '')}l`);
      } catch {
        // Not linear without `i` either: the reason below.
      }
    }
    throw new AmpError(
      'BAD_OPTION',
      `${option} ${shown}: this pattern cannot be matched in linear time (no backreferences or lookaround${kept.includes('u') ? ', and on this Node no u flag' : ''}); patterns run on a linear-time engine so that no name can make one run for minutes`,
      { subject: option },
    );
  }
}

/** Outside Node: the pattern as written on the engine there is, or BAD_OPTION when it is invalid. */
function compileOrRefuse(source: string, flags: string, option: string, shown: string): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (error) {
    throw new AmpError('BAD_OPTION', `${option} ${shown} is not a valid regular expression: ${printable((error as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, ''), 200)}`, { subject: option });
  }
}
