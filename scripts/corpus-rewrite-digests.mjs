// The rewrite of every model in ../shared/corpus, under the option sets below, as one digest per
// (model, options): of the output bytes, the summary, the audit records and the audit scopes.
// `node scripts/corpus-rewrite-digests.mjs --write` records them in fixtures/corpus-rewrite-digests.json
// (review the diff: a changed digest is a changed output); test/passes/corpus-identity.test.ts
// checks that the build still produces them, so a change made for speed or memory that alters a
// single output byte anywhere in the corpus fails.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIGESTS_FILE = path.join(root, 'fixtures/corpus-rewrite-digests.json');
export const OPTION_SETS = { fp16: {}, bf16: { mode: 'bf16' }, 'weights-fp16': { weights: 'fp16' }, 'target-cuda': { target: 'cuda' } };

const digest = (data) => createHash('sha256').update(data).digest('hex').slice(0, 12);

function modelsUnder(dir) {
  const found = [];
  const walk = (d) => {
    for (const entry of readdirSync(d).sort()) {
      const full = path.join(d, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (entry.endsWith('.onnx')) found.push(full);
    }
  };
  walk(dir);
  return found;
}

/** { "<model relative to corpus>:<option set>": "<digest>" } for the build in dist/. */
export async function corpusDigests(corpusDir) {
  const { decodeModel, encodeModel, rewriteModel } = await import(path.join(root, 'dist/index.js'));
  const digests = {};
  for (const file of modelsUnder(corpusDir)) {
    const bytes = readFileSync(file);
    for (const [name, options] of Object.entries(OPTION_SETS)) {
      let value;
      try {
        const result = rewriteModel(decodeModel(bytes, { allowNewerIr: true }), { ...options, inPlace: true });
        const { summary, nodes, scopes } = result.report.amp;
        const output = result.modified ? encodeModel(result.model) : bytes;
        value = [output, JSON.stringify(summary), JSON.stringify(nodes), JSON.stringify(scopes)].map(digest).join(' ');
      } catch (error) {
        value = `error ${error.code ?? 'internal'} ${digest(String(error.message))}`;
      }
      digests[`${path.relative(corpusDir, file)}:${name}`] = value;
    }
  }
  return digests;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const corpusDir = path.resolve(root, process.env.AMP_SHARED_DIR ?? '../shared', 'corpus');
  if (!existsSync(corpusDir)) throw new Error(`no corpus at ${corpusDir}`);
  const digests = await corpusDigests(corpusDir);
  if (process.argv.includes('--write')) {
    writeFileSync(DIGESTS_FILE, `${JSON.stringify(digests, null, 1)}\n`);
    console.log(`wrote ${Object.keys(digests).length} digests to ${path.relative(root, DIGESTS_FILE)}`);
  } else {
    const recorded = JSON.parse(readFileSync(DIGESTS_FILE, 'utf8'));
    const changed = Object.keys({ ...recorded, ...digests }).filter((key) => recorded[key] !== digests[key]);
    for (const key of changed.slice(0, 20)) console.log(`changed: ${key}\n  recorded ${recorded[key]}\n  now      ${digests[key]}`);
    console.log(`${Object.keys(digests).length} rewrites, ${changed.length} changed`);
    process.exit(changed.length ? 1 : 0);
  }
}
