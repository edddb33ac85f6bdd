/** The paint lists are data with reasons: valid against their JSON Schema, disjoint, sorted, and made of real ops. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { isKnownDomain, schemaVersions } from '../../src/onnx/schema.js';
import { buildOpLists, changesFromEnvironment, LIST_NAMES, readDefaultList } from '../../src/passes/amp/op-lists.js';
import { readRulesFile } from '../../src/passes/amp/rules-file.js';
import { repoRoot } from '../support/corpus.js';

const schema = JSON.parse(readFileSync(path.join(repoRoot, 'rules/op-list.schema.json'), 'utf8'));
const ajv = new Ajv2020.default({ allErrors: true });
const validate = ajv.compile(schema);

describe('rules/ op lists', () => {
  for (const list of LIST_NAMES) {
    const file = readDefaultList(list);
    it(`${list}.json follows op-list.schema.json`, () => {
      const ok = validate(file);
      expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
      expect(ok).toBe(true);
      expect(file.list).toBe(list);
    });
    it(`${list}.json is sorted by domain then op`, () => {
      const keys = file.ops.map((o) => `${o.domain ?? ''}\u0000${o.op.toLowerCase()}`);
      expect(keys).toEqual([...keys].sort());
    });
    it(`${list}.json names only ops the schema table knows`, () => {
      const unknown = file.ops.filter((o) => {
        const domain = o.domain ?? '';
        return !isKnownDomain(domain) || schemaVersions(domain, o.op).length === 0;
      });
      expect(unknown.map((o) => o.op)).toEqual([]);
    });
  }

  it('no op is on two default lists', () => {
    expect(() => buildOpLists()).not.toThrow();
    const seen = new Map<string, string>();
    for (const list of LIST_NAMES) {
      for (const op of readDefaultList(list).ops) {
        const key = `${op.domain ?? ''}:${op.op}`;
        expect(seen.get(key), `${key} on ${seen.get(key)} and ${list}`).toBeUndefined();
        seen.set(key, list);
      }
    }
  });

  it('the validator rejects an entry without a reason and an unknown list name', () => {
    expect(validate({ list: 'allow', meaning: 'a meaning of some length', ops: [{ op: 'MatMul' }] })).toBe(false);
    expect(validate({ list: 'maybe', meaning: 'a meaning of some length', ops: [] })).toBe(false);
  });

  it('the mission keeps softmax, normalisation, reductions and losses on the deny list', () => {
    const deny = new Set(readDefaultList('deny').ops.map((o) => o.op));
    for (const op of ['Softmax', 'LogSoftmax', 'LayerNormalization', 'ReduceSum', 'ReduceMean', 'SoftmaxCrossEntropyLoss', 'NegativeLogLikelihoodLoss', 'Exp', 'Log']) {
      expect(deny.has(op), op).toBe(true);
    }
  });
});

describe('list changes', () => {
  it('reads a --rules file and rejects a malformed one', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'amp-rules-'));
    const good = path.join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ allow: { remove: ['Einsum'] }, clear: { add: ['Einsum'] } }));
    const lists = buildOpLists([readRulesFile(good)]);
    expect(lists.lookup('', 'Einsum')?.list).toBe('clear');
    expect(lists.lookup('', 'Einsum')?.origin).toBe(good);
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ allowlist: { add: ['X'] } }));
    expect(() => readRulesFile(bad)).toThrowError(/unknown list 'allowlist'/);
    const notJson = path.join(dir, 'not.json');
    writeFileSync(notJson, '{ allow');
    expect(() => readRulesFile(notJson)).toThrowError(/--rules/);
  });

  it('maps AMP_REWRITE_<LIST>LIST_<ADD|REMOVE> like TensorFlow’s variables, removes before adds', () => {
    const layers = changesFromEnvironment({ AMP_REWRITE_INFERLIST_REMOVE: 'Tanh', AMP_REWRITE_CLEARLIST_ADD: 'Tanh, com.microsoft:Unique' });
    const lists = buildOpLists(layers);
    expect(lists.lookup('', 'Tanh')?.list).toBe('clear');
    expect(lists.lookup('com.microsoft', 'Unique')?.list).toBe('clear');
    expect(lists.lookup('', 'Tanh')?.origin).toBe('env AMP_REWRITE_CLEARLIST_ADD');
  });
});

describe("a deny node's reason carries its list entry's why", () => {
  it('LayerNormalization: the deny list entry\'s reason, not only "on the deny list"', async () => {
    const { ampRewrite } = await import('../../src/passes/amp.js');
    const { FIXTURE_CASES } = await import('../../src/builder/fixtures.js');
    const model = FIXTURE_CASES.find((c) => c.name === 'transformer-block')!.build();
    const ln = ampRewrite(model).report.nodes.find((n) => n.op === 'LayerNormalization');
    expect(ln?.reason).toBe('LayerNormalization is on the deny list: mean and variance over the features need fp32 accumulation (PyTorch autocast keeps layer_norm in fp32)');
  });
});
