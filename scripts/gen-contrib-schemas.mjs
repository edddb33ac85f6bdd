// Builds rules/schemas-com.microsoft.json, the schema table of ONNX Runtime's contrib operators
// (the com.microsoft domain), from onnxruntime's docs/ContribOperators.md.
//
//   node scripts/gen-contrib-schemas.mjs /path/to/ContribOperators.md
//
// The upstream document is not kept in this repository; fetch it from the microsoft/onnxruntime
// repository (docs/ContribOperators.md) and pass its path. The committed table was generated from
// the version at commit 004b79eda305a216ab8d0e21eabe81d7713eb768.
//
// ContribOperators.md is written by onnxruntime's tools/python/gen_contrib_doc.py and has the same
// section structure as ONNX's Changelog.md (`#### Version`, `#### Attributes`, `#### Inputs (m - n)`,
// `#### Outputs`, `#### Type Constraints`, each a <dl> of <dt>/<dd> pairs), so the parsing and all
// the consistency checks are gen-schemas.mjs's parseChangelog. Only the op headings differ: contrib
// ops carry no `-N` version suffix and use a second anchor,
//   ### <a name="com.microsoft.FusedMatMul"></a><a name="com.microsoft.fusedmatmul">**com.microsoft.FusedMatMul**</a>
//   ### <sub>experimental</sub> <a name="com.microsoft.IsAllFinite"></a><a name=...>**com.microsoft.IsAllFinite**</a>
// so each heading is rewritten into the changelog form (`**com.microsoft.FusedMatMul-1**`) first, the
// version number taken from the op's own `#### Version` text ("available since version 1 of the
// 'com.microsoft' operator set"; experimental ops say "No versioning maintained" and get 1).
// No dependencies: plain Node.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, parseChangelog, serializeSchemaTable } from './gen-schemas.mjs';

export const DOMAIN = 'com.microsoft';
export const OUTPUT_PATH = join(REPO_ROOT, 'rules', `schemas-${DOMAIN}.json`);
export const GENERATED_FROM = ['onnxruntime docs/ContribOperators.md'];

const OP_HEADING = /^###\s+(<sub>experimental<\/sub>\s+)?<a name="([^"]+)"><\/a>(?:<a name="[^"]*">)?\*\*([^*]+)\*\*(?:<\/a>)?\s*$/;

/** Sorts by name with a locale-free comparison so output does not depend on the machine. */
function byName(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The op names the document's table of contents (before the first op heading) lists, in order. */
function tableOfContents(lines) {
  const names = [];
  for (const line of lines) {
    if (/^###\s/.test(line)) break;
    const match = /^\s+\*\s+(?:<sub>experimental<\/sub>\s+)?<a href="#([^"]+)">/.exec(line);
    if (match) names.push(match[1]);
  }
  return names;
}

/**
 * Rewrites contrib op headings into the changelog form parseChangelog reads, and returns the
 * rewritten text with what each heading said: [{ anchor, full, experimental, version }].
 */
export function toChangelogForm(markdownText) {
  const lines = markdownText.replace(/\r\n?/g, '\n').split('\n');
  const headings = [];
  const headingAt = new Map();
  lines.forEach((line, index) => {
    if (!/^###\s/.test(line)) return;
    const match = OP_HEADING.exec(line);
    if (!match) throw new Error(`line ${index + 1}: cannot read op heading ${line}`);
    const [, experimentalMark, anchor, full] = match;
    if (anchor !== full.trim()) throw new Error(`line ${index + 1}: anchor ${anchor} names another op than ${full}`);
    const heading = { anchor, full: full.trim(), experimental: Boolean(experimentalMark), version: undefined, line: index };
    headings.push(heading);
    headingAt.set(index, heading);
  });
  // The version each op's own `#### Version` section states (up to the next op heading).
  headings.forEach((heading, n) => {
    const end = n + 1 < headings.length ? headings[n + 1].line : lines.length;
    const versionText = [];
    let inVersion = false;
    for (let i = heading.line + 1; i < end; i++) {
      if (/^####\s/.test(lines[i])) {
        if (inVersion) break;
        inVersion = /^####\s+Version\s*$/.test(lines[i]);
        continue;
      }
      if (inVersion) versionText.push(lines[i]);
    }
    const text = versionText.join(' ').replace(/\s+/g, ' ').trim();
    const available = /available since version (\d+) of the '([^']+)' operator set/.exec(text);
    if (available) {
      if (available[2] !== DOMAIN) throw new Error(`${heading.full}: version text names operator set '${available[2]}'`);
      heading.version = Number(available[1]);
    } else if (/No versioning maintained for experimental ops/i.test(text)) {
      heading.version = 1;
    } else {
      throw new Error(`${heading.full}: cannot read version text '${text}'`);
    }
  });
  const rewritten = lines.map((line, index) => {
    const heading = headingAt.get(index);
    if (!heading) return line;
    const name = `${heading.full}-${heading.version}`;
    return `### <a name="${name}"></a>**${name}**</a>`;
  });
  return { text: rewritten.join('\n'), headings, contents: tableOfContents(lines) };
}

/** Parses ContribOperators.md into the table written to rules/schemas-com.microsoft.json. */
export function buildContribSchemaTable(markdownText) {
  const { text, headings, contents } = toChangelogForm(markdownText);
  const entries = parseChangelog(text, DOMAIN);
  if (entries.length !== headings.length) throw new Error(`${headings.length} op headings but ${entries.length} parsed ops`);

  const ops = new Map();
  entries.forEach((entry, index) => {
    const heading = headings[index];
    if (entry.domain !== DOMAIN) throw new Error(`${heading.full}: parsed into domain ${entry.domain}`);
    if (`${DOMAIN}.${entry.opType}` !== heading.full) throw new Error(`${heading.full}: parsed as ${entry.opType}`);
    if (Boolean(entry.experimental) !== heading.experimental) {
      throw new Error(`${heading.full}: the heading and the version text disagree on whether it is experimental`);
    }
    if (ops.has(entry.opType)) throw new Error(`${heading.full} documented twice`);
    const { domain: _domain, opType: _opType, ...rest } = entry;
    ops.set(entry.opType, [rest]);
  });

  // The table of contents at the top of the document lists every op once; check nothing was lost.
  const listed = [...contents].sort(byName);
  const parsed = [...ops.keys()].map((opType) => `${DOMAIN}.${opType}`).sort(byName);
  if (listed.length === 0) throw new Error('no table of contents found');
  if (JSON.stringify(listed) !== JSON.stringify(parsed)) {
    const missing = listed.filter((name) => !parsed.includes(name));
    const extra = parsed.filter((name) => !listed.includes(name));
    throw new Error(`parsed ops differ from the table of contents: missing ${missing.join(', ') || '-'}; not listed ${extra.join(', ') || '-'}`);
  }

  const sortedOps = {};
  for (const opType of [...ops.keys()].sort(byName)) sortedOps[opType] = ops.get(opType);
  return { generatedFrom: GENERATED_FROM, domains: { [DOMAIN]: sortedOps } };
}

const invokedAsScript = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invokedAsScript) {
  const source = process.argv[2];
  if (!source) {
    console.error('usage: node scripts/gen-contrib-schemas.mjs /path/to/ContribOperators.md');
    process.exit(2);
  }
  const table = buildContribSchemaTable(readFileSync(resolve(source), 'utf8'));
  writeFileSync(OUTPUT_PATH, serializeSchemaTable(table));
  const ops = table.domains[DOMAIN];
  const experimental = Object.values(ops).filter((versions) => versions.some((v) => v.experimental)).length;
  console.log(`wrote ${OUTPUT_PATH}\n  ${DOMAIN}: ${Object.keys(ops).length} ops (${experimental} experimental)`);
}
