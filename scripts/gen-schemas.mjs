// Builds rules/schemas.json, the operator schema table, from ONNX's operator changelogs.
//
//   node scripts/gen-schemas.mjs            (reads ../shared/reference/, or $AMP_REFERENCE_DIR)
//
// Changelog.md documents the default domain (ai.onnx) and, after it, the preview domains
// (ai.onnx.preview, ai.onnx.preview.training); Changelog-ml.md documents ai.onnx.ml. Each
// operator version is a `### <a name="Op-N"></a>**Op-N**</a>` section with `#### Version`,
// `#### Attributes`, `#### Inputs`, `#### Outputs` and `#### Type Constraints` subsections,
// the last four each a <dl> of <dt>/<dd> pairs. No dependencies: plain Node.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(here, '..');
export const DEFAULT_REFERENCE_DIR = resolve(REPO_ROOT, '../shared/reference');
export const OUTPUT_PATH = join(REPO_ROOT, 'rules', 'schemas.json');

/** The changelogs read, and the domain each documents first. */
export const SOURCES = [
  { file: 'Changelog.md', domain: 'ai.onnx' },
  { file: 'Changelog-ml.md', domain: 'ai.onnx.ml' },
];

const NAMED_ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes HTML character references (`&#8734;`, `&#x221e;`, `&lt;`, ...). */
export function decodeEntities(text) {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** Splits `a, map(string, int64), b` at top-level commas only. */
export function splitTopLevel(list) {
  const parts = [];
  let depth = 0;
  let current = '';
  for (const ch of list) {
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim() !== '') parts.push(current.trim());
  return parts;
}

/** `(1 - &#8734;)` → { min: 1, max: null }; `(2 - 3)` → { min: 2, max: 3 }. */
function parseArity(headingRest) {
  const match = /^\((\d+)\s*-\s*(\S+?)\)$/.exec(decodeEntities(headingRest).trim());
  if (!match) return undefined;
  const max = match[2] === '\u221e' ? null : Number(match[2]);
  if (max !== null && !Number.isInteger(max)) throw new Error(`unreadable arity ${headingRest}`);
  return { min: Number(match[1]), max };
}

/** The `<dt>` texts of a <dl> section body, entity-decoded, `<dd>` descriptions dropped. */
function definitionTerms(lines) {
  const terms = [];
  const body = lines.join('\n');
  for (const match of body.matchAll(/<dt>([\s\S]*?)<\/dt>/g)) terms.push(match[1].replace(/\s+/g, ' ').trim());
  return terms;
}

/** `<tt>name</tt> rest` → { name, rest } (name entity-decoded). */
function splitName(term, context) {
  const match = /^<tt>([\s\S]*?)<\/tt>\s*([\s\S]*)$/.exec(term);
  if (!match) throw new Error(`${context}: cannot read <dt>${term}</dt>`);
  return { name: decodeEntities(match[1]).trim(), rest: match[2] };
}

/** An input/output: `<tt>A</tt> (optional, non-differentiable) : T`. */
function parseFormal(term, context) {
  const { name, rest } = splitName(term, context);
  const match = /^(?:\(([^)]*)\)\s*)?:\s*(.+)$/.exec(rest);
  if (!match) throw new Error(`${context}: cannot read formal parameter ${term}`);
  const tags = (match[1] ?? '').split(',').map((tag) => tag.trim()).filter(Boolean);
  const formal = { name, typeStr: decodeEntities(match[2]).trim(), option: 'single' };
  for (const tag of tags) {
    if (tag === 'optional') formal.option = 'optional';
    else if (tag === 'variadic') formal.option = 'variadic';
    else if (tag === 'heterogeneous') formal.heterogeneous = true;
    else if (tag === 'differentiable') formal.differentiable = true;
    else if (tag === 'non-differentiable') formal.differentiable = false;
    else throw new Error(`${context}: unknown tag '${tag}' on ${name}`);
  }
  if (formal.heterogeneous && formal.option !== 'variadic') throw new Error(`${context}: heterogeneous but not variadic: ${name}`);
  return formal;
}

/** An attribute: `<tt>axis</tt> : int (default is 1)` / `: int (required)` / `: list of ints`. */
function parseAttribute(term, context) {
  const { name, rest } = splitName(term, context);
  const match = /^:\s*(.+)$/.exec(decodeEntities(rest).trim());
  if (!match) throw new Error(`${context}: cannot read attribute ${term}`);
  const type = match[1].trim();
  const attribute = { name, type, required: false };
  const required = /^(.*?)\s*\(required\)$/.exec(type);
  const withDefault = /^(.*?)\s*\(default is ?([\s\S]*)\)$/.exec(type);
  if (required) {
    attribute.type = required[1];
    attribute.required = true;
  } else if (withDefault) {
    attribute.type = withDefault[1];
    attribute.default = withDefault[2];
  }
  if (!/^(list of )?[a-z_]+$/.test(attribute.type)) throw new Error(`${context}: unknown attribute type '${attribute.type}' on ${name}`);
  return attribute;
}

/** `<tt>T</tt> : tensor(float16), tensor(float)` → ['T', [...]]. */
function parseConstraint(term, context) {
  const { name, rest } = splitName(term, context);
  const match = /^:\s*(.*)$/.exec(decodeEntities(rest).trim());
  if (!match) throw new Error(`${context}: cannot read type constraint ${term}`);
  return [name, splitTopLevel(match[1])];
}

/** Reads `#### Version`: since, deprecated, experimental. */
function parseVersion(lines, headingVersion, context) {
  const text = lines.join(' ').replace(/\s+/g, ' ').trim();
  const available = /available since version (\d+)/.exec(text);
  const deprecated = /deprecated since version (\d+)/.exec(text);
  if (available) return { since: Number(available[1]) };
  if (deprecated) return { since: Number(deprecated[1]), deprecated: true };
  // "No versioning maintained for experimental ops.": the heading's number is all there is.
  if (/experimental/i.test(text)) return { since: headingVersion, experimental: true };
  throw new Error(`${context}: cannot read version text '${text}'`);
}

/** `# ai.onnx (default)` / `# ai.onnx.preview.training` → the domain name. */
function domainHeading(line) {
  const match = /^#\s+([A-Za-z0-9_.]+)(?:\s+\(default\))?\s*$/.exec(line);
  return match ? match[1] : undefined;
}

/**
 * Parses one changelog. `domain` is the file's first domain; `# <domain>` headings switch it
 * (Changelog.md moves on to ai.onnx.preview and ai.onnx.preview.training near its end), and an
 * op heading's `<domain>.` prefix is removed from the op name.
 * Returns one entry per op version, in file order:
 *   { domain, opType, since, deprecated?, experimental?, inputs, outputs, minInputs, maxInputs,
 *     minOutputs, maxOutputs, typeConstraints, attributes }
 */
export function parseChangelog(markdownText, domain) {
  const lines = markdownText.replace(/\r\n?/g, '\n').split('\n');
  const entries = [];
  let currentDomain = domain;
  let entry;
  let section;
  let sectionLines = [];

  const flushSection = () => {
    if (!entry || !section) return;
    const context = `${entry.domain}.${entry.opType}-${entry.headingVersion}`;
    const name = section.name;
    if (name === 'Version') Object.assign(entry, parseVersion(sectionLines, entry.headingVersion, context));
    else if (name === 'Attributes') entry.attributes = definitionTerms(sectionLines).map((t) => parseAttribute(t, context));
    else if (name === 'Inputs' || name === 'Outputs') {
      const formals = definitionTerms(sectionLines).map((t) => parseFormal(t, context));
      const key = name === 'Inputs' ? 'inputs' : 'outputs';
      entry[key] = formals;
      entry[`${key}Arity`] = section.arity;
    } else if (name === 'Type Constraints') {
      const constraints = {};
      for (const term of definitionTerms(sectionLines)) {
        const [variable, types] = parseConstraint(term, context);
        if (variable in constraints) throw new Error(`${context}: type variable ${variable} constrained twice`);
        constraints[variable] = types;
      }
      entry.typeConstraints = constraints;
    } else throw new Error(`${context}: unknown subsection '#### ${name}'`);
    section = undefined;
    sectionLines = [];
  };

  const flushEntry = () => {
    flushSection();
    if (entry) entries.push(finishEntry(entry));
    entry = undefined;
  };

  for (const line of lines) {
    // Descriptions (fenced code included) are indented; structure starts at column 0.
    const opHeading = /^###\s+<a name="([^"]+)"><\/a>\*\*([^*]+)\*\*(.*)$/.exec(line);
    if (opHeading) {
      flushEntry();
      const full = decodeEntities(opHeading[2]).trim();
      const versioned = /^(.+)-(\d+)$/.exec(full);
      if (!versioned) throw new Error(`cannot read op heading ${line}`);
      let opType = versioned[1];
      if (opType.startsWith(`${currentDomain}.`)) opType = opType.slice(currentDomain.length + 1);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(opType)) throw new Error(`op name '${opType}' in ${line} (domain ${currentDomain})`);
      entry = { domain: currentDomain, opType, headingVersion: Number(versioned[2]), headingDeprecated: /\(deprecated\)/.test(opHeading[3]) };
      continue;
    }
    const subsection = /^####\s+(Version|Attributes|Inputs|Outputs|Type Constraints)\b\s*(.*)$/.exec(line);
    if (subsection && entry) {
      flushSection();
      const rest = subsection[2].trim();
      const arity = rest ? parseArity(rest) : undefined;
      if (rest && !arity) throw new Error(`${entry.opType}: cannot read '${line}'`);
      section = { name: subsection[1], arity };
      continue;
    }
    if (/^####\s/.test(line) && entry) throw new Error(`${entry.opType}: unknown subsection '${line}'`);
    if (/^#{1,2}\s/.test(line)) {
      flushEntry();
      const next = domainHeading(line);
      if (next) currentDomain = next;
      continue;
    }
    if (section) sectionLines.push(line);
  }
  flushEntry();
  return entries;
}

/** Fills defaults, derives arity, checks the entry is consistent. */
function finishEntry(raw) {
  const context = `${raw.domain}.${raw.opType}-${raw.headingVersion}`;
  if (raw.since === undefined) throw new Error(`${context}: no #### Version section`);
  if (raw.since !== raw.headingVersion) throw new Error(`${context}: heading version differs from 'since ${raw.since}'`);
  if (raw.headingDeprecated !== (raw.deprecated === true)) throw new Error(`${context}: heading and version text disagree on deprecation`);
  const inputs = raw.inputs ?? [];
  const outputs = raw.outputs ?? [];
  const typeConstraints = raw.typeConstraints ?? {};
  const entry = { domain: raw.domain, opType: raw.opType, since: raw.since };
  if (raw.deprecated) entry.deprecated = true;
  if (raw.experimental) entry.experimental = true;
  entry.inputs = inputs;
  entry.outputs = outputs;
  Object.assign(entry, arityOf('Inputs', inputs, raw.inputsArity, context));
  Object.assign(entry, arityOf('Outputs', outputs, raw.outputsArity, context));
  entry.typeConstraints = typeConstraints;
  entry.attributes = raw.attributes ?? [];

  for (const [list, label] of [[inputs, 'input'], [outputs, 'output']]) {
    list.forEach((formal, index) => {
      if (formal.option === 'variadic' && index !== list.length - 1) throw new Error(`${context}: variadic ${label} ${formal.name} is not last`);
      if (looksLikeTypeVariable(formal.typeStr) && !(formal.typeStr in typeConstraints)) {
        throw new Error(`${context}: ${label} ${formal.name} uses unconstrained type variable ${formal.typeStr}`);
      }
    });
  }
  for (const [variable, types] of Object.entries(typeConstraints)) {
    if (types.length === 0) throw new Error(`${context}: type variable ${variable} allows no type`);
  }
  return entry;
}

/** A concrete type string is `tensor(...)`, `seq(...)`, `map(...)`, `optional(...)`, `sparse_tensor(...)`. */
function looksLikeTypeVariable(typeStr) {
  return !/^[a-z_]+\(.*\)$/.test(typeStr);
}

/**
 * Arity as ONNX's OpSchema::Finalize computes it: a single formal raises both bounds, an optional
 * one only the maximum, a variadic one makes the maximum unbounded and adds its minimum arity
 * (1 unless the heading's range says otherwise; Loop's v_initial has 0). The documentation generator
 * prints `(min - max)` exactly when the two differ, so the heading is checked against this.
 */
function arityOf(label, formals, arity, context) {
  let min = 0;
  let max = 0;
  for (const formal of formals) {
    if (formal.option === 'single') min = ++max;
    else if (formal.option === 'optional') ++max;
    else {
      min = max + 1;
      max = null;
    }
  }
  if (arity) {
    // A variadic formal's minimum arity may be 0 (Loop's v_initial) or more than 1.
    const variadicMinOk = max === null && arity.min >= min - 1;
    if (arity.max !== max || (arity.min !== min && !variadicMinOk) || arity.min === arity.max) {
      throw new Error(`${context}: ${label} (${arity.min} - ${arity.max ?? 'inf'}) does not fit its formals (${min} - ${max ?? 'inf'})`);
    }
    min = arity.min;
  } else if (min !== max) {
    throw new Error(`${context}: ${label} has no arity range but its formals allow ${min} - ${max ?? 'inf'}`);
  }
  return { [`min${label}`]: min, [`max${label}`]: max };
}

/** Sorts by name with a locale-free comparison so output does not depend on the machine. */
function byName(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Reads both changelogs from `referenceDir` and returns the whole table. */
export function buildSchemaTable(referenceDir = process.env.AMP_REFERENCE_DIR || DEFAULT_REFERENCE_DIR) {
  const grouped = new Map();
  for (const { file, domain } of SOURCES) {
    const text = readFileSync(join(referenceDir, file), 'utf8');
    for (const entry of parseChangelog(text, domain)) {
      let ops = grouped.get(entry.domain);
      if (!ops) grouped.set(entry.domain, (ops = new Map()));
      let versions = ops.get(entry.opType);
      if (!versions) ops.set(entry.opType, (versions = []));
      const { domain: _domain, opType: _opType, ...rest } = entry;
      if (versions.some((v) => v.since === rest.since)) throw new Error(`${entry.domain}.${entry.opType}-${rest.since} documented twice`);
      versions.push(rest);
    }
  }
  const domains = {};
  for (const domain of [...grouped.keys()].sort(byName)) {
    const ops = grouped.get(domain);
    const sortedOps = {};
    for (const opType of [...ops.keys()].sort(byName)) sortedOps[opType] = ops.get(opType).sort((a, b) => a.since - b.since);
    domains[domain] = sortedOps;
  }
  return { generatedFrom: SOURCES.map((source) => source.file), domains };
}

/**
 * The table as written to disk: JSON indented by one space per level, except that an array or
 * object holding only primitives (a formal, an attribute, a type list) stays on one line, which
 * keeps the file about a third the size and its diffs one line per changed parameter.
 */
export function serializeSchemaTable(table) {
  return `${serializeValue(table, '')}\n`;
}

function serializeValue(value, indent) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const isArray = Array.isArray(value);
  const items = isArray ? value : Object.values(value);
  if (items.length === 0) return isArray ? '[]' : '{}';
  if (items.every((item) => item === null || typeof item !== 'object')) {
    return isArray
      ? `[${value.map((item) => JSON.stringify(item)).join(', ')}]`
      : `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${JSON.stringify(item)}`).join(', ')}}`;
  }
  const inner = `${indent} `;
  const lines = isArray
    ? value.map((item) => `${inner}${serializeValue(item, inner)}`)
    : Object.entries(value).map(([key, item]) => `${inner}${JSON.stringify(key)}: ${serializeValue(item, inner)}`);
  return `${isArray ? '[' : '{'}\n${lines.join(',\n')}\n${indent}${isArray ? ']' : '}'}`;
}

const invokedAsScript = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invokedAsScript) {
  const referenceDir = process.env.AMP_REFERENCE_DIR ? resolve(process.env.AMP_REFERENCE_DIR) : DEFAULT_REFERENCE_DIR;
  const table = buildSchemaTable(referenceDir);
  writeFileSync(OUTPUT_PATH, serializeSchemaTable(table));
  const counts = Object.entries(table.domains).map(
    ([domain, ops]) => `${domain}: ${Object.keys(ops).length} ops, ${Object.values(ops).reduce((n, v) => n + v.length, 0)} versions`,
  );
  console.log(`wrote ${OUTPUT_PATH}\n  ${counts.join('\n  ')}`);
}
