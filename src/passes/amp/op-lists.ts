/**
 * The four paint lists (rules/allow|deny|infer|clear.json) and the user's changes to them:
 * a --rules file, AMP_REWRITE_<LIST>_ADD/REMOVE environment variables (mirroring TensorFlow's
 * TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_<LIST>_<ADD|REMOVE>), then command-line flags.
 * An op that ends up on two lists is an error naming both: Grappler silently gives up there.
 */
import { AmpError } from '../../onnx/errors.js';
import { printable } from '../../onnx/printable.js';
import { normalizeDomain } from '../../onnx/opsets.js';
import { compareText } from '../../onnx/collation.js';
import { ruleText } from '../../rules/rule-files.js';

export const LIST_NAMES = ['allow', 'deny', 'infer', 'clear'] as const;
export type ListName = (typeof LIST_NAMES)[number];

/** An entry that applies only to nodes with certain attribute values (ScatterND with reduction 'none'). */
export interface AttributeCondition {
  attribute: string;
  in: Array<string | number>;
  default?: string | number;
}

export interface OpListEntry {
  op: string;
  onlyWhen?: AttributeCondition;
  /** '' for the default ONNX domain. */
  domain: string;
  reason: string;
  list: ListName;
  /** Where the entry came from: 'default', a rules file path, 'env AMP_REWRITE_...', or 'flag --allow-add'. */
  origin: string;
}

/** Changes to the lists; an op is `Name` or `domain:Name` (e.g. `com.microsoft:FusedMatMul`). */
export type ListChanges = Partial<Record<ListName, { add?: string[]; remove?: string[] }>>;

export interface ListChangeLayer {
  origin: string;
  changes: ListChanges;
  /** Node names or /regex/ kept fp32 (a rules file's "forceFp32", e.g. the overrides `tune` writes). */
  forceFp32?: string[];
}

interface ListFile {
  list: ListName;
  meaning: string;
  ops: Array<{ op: string; domain?: string; reason: string; since?: number; onlyWhen?: AttributeCondition }>;
}

/** An op deliberately left off the four lists, with the reason (rules/unlisted.json). */
export interface UnlistedOp {
  op: string;
  domain?: string;
  reason: string;
}

export function readUnlistedOps(): UnlistedOp[] {
  const file = JSON.parse(ruleText('unlisted.json')) as { ops: UnlistedOp[] };
  return file.ops;
}

export function readDefaultList(name: ListName): ListFile {
  return JSON.parse(ruleText(`${name}.json`)) as ListFile;
}

const key = (domain: string, op: string): string => `${normalizeDomain(domain)}:${op}`;

export function parseOpSpec(spec: string): { domain: string; op: string } {
  const at = spec.lastIndexOf(':');
  const op = at < 0 ? spec : spec.slice(at + 1);
  const domain = at < 0 ? '' : normalizeDomain(spec.slice(0, at));
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(op)) throw new AmpError('BAD_OPTION', `'${spec}' is not an op type (use Name or domain:Name)`);
  return { domain, op };
}

export class OpLists {
  private readonly byKey = new Map<string, OpListEntry>();
  readonly meanings: Record<ListName, string>;

  /** Ops deliberately on no list (rules/unlisted.json), keyed like the lists, with the reason the audit shows. */
  private readonly unlisted = new Map<string, string>();

  constructor(entries: Iterable<OpListEntry>, meanings: Record<ListName, string>, unlisted: Iterable<UnlistedOp> = []) {
    this.meanings = meanings;
    for (const entry of entries) this.byKey.set(key(entry.domain, entry.op), entry);
    for (const entry of unlisted) this.unlisted.set(key(entry.domain ?? '', entry.op), entry.reason);
  }

  /** Why an op is deliberately on no list, when rules/unlisted.json says so. */
  unlistedReason(domain: string | null | undefined, op: string | null | undefined): string | undefined {
    return this.unlisted.get(key(domain ?? '', op ?? ''));
  }

  lookup(domain: string | null | undefined, op: string | null | undefined): OpListEntry | undefined {
    return this.byKey.get(key(domain ?? '', op ?? ''));
  }

  /** Entries of one list, sorted by domain and op: the "paintbuckets" dump. */
  entries(list: ListName): OpListEntry[] {
    return [...this.byKey.values()]
      .filter((entry) => entry.list === list)
      .sort((a, b) => compareText(a.domain, b.domain) || compareText(a.op.toLowerCase(), b.op.toLowerCase()) || compareText(a.op, b.op));
  }
}

/** Reads AMP_REWRITE_ALLOWLIST_ADD and friends (comma-separated op types). */
export function changesFromEnvironment(env: Readonly<Record<string, string | undefined>>): ListChangeLayer[] {
  const layers: ListChangeLayer[] = [];
  for (const list of LIST_NAMES) {
    for (const action of ['remove', 'add'] as const) {
      const variable = `AMP_REWRITE_${list.toUpperCase()}LIST_${action.toUpperCase()}`;
      const value = env[variable];
      if (value?.trim()) layers.push({ origin: `env ${variable}`, changes: { [list]: { [action]: splitOps(value) } } });
    }
  }
  return layers;
}

export function splitOps(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

/**
 * A --rules file's text (`file` names it in errors): `{ "allow": { "add": [...], "remove": [...] }, "deny": ...,
 * "forceFp32": [node names] }`. Keys starting with '$' ($schema, $comment) are notes.
 */
export function parseRulesText(text: string, file: string): ListChangeLayer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new AmpError('BAD_OPTION', `--rules ${file}: ${(error as Error).message}`, { subject: file });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new AmpError('BAD_OPTION', `--rules ${file}: expected an object with keys among ${LIST_NAMES.join(', ')}`, { subject: file });
  }
  const changes: ListChanges = {};
  let forceFp32: string[] | undefined;
  for (const [name, value] of Object.entries(parsed)) {
    if (name.startsWith('$')) continue;
    if (name === 'forceFp32') {
      if (!(Array.isArray(value) && value.every((v) => typeof v === 'string'))) {
        throw new AmpError('BAD_OPTION', `--rules ${file}: forceFp32 must be an array of node names or /regex/`, { subject: file });
      }
      forceFp32 = value as string[];
      continue;
    }
    if (!(LIST_NAMES as readonly string[]).includes(name)) {
      throw new AmpError('BAD_OPTION', `--rules ${file}: unknown list '${name}' (expected ${LIST_NAMES.join(', ')}, or forceFp32)`, { subject: file });
    }
    const entry = value as { add?: unknown; remove?: unknown };
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      throw new AmpError('BAD_OPTION', `--rules ${file}: ${name} must be an object {"add": [...], "remove": [...]}`, { subject: file });
    }
    const unknown = Object.keys(entry).find((key) => key !== 'add' && key !== 'remove' && !key.startsWith('$'));
    if (unknown !== undefined) {
      throw new AmpError('BAD_OPTION', `--rules ${file}: ${name}.${printable(unknown, 80)} is not a change (expected add or remove)`, { subject: file });
    }
    for (const action of ['add', 'remove'] as const) {
      const ops = entry?.[action];
      if (ops !== undefined && !(Array.isArray(ops) && ops.every((op) => typeof op === 'string'))) {
        throw new AmpError('BAD_OPTION', `--rules ${file}: ${name}.${action} must be an array of op types`, { subject: file });
      }
    }
    changes[name as ListName] = entry as { add?: string[]; remove?: string[] };
  }
  return { origin: file, changes, ...(forceFp32 ? { forceFp32 } : {}) };
}

/** The default lists with every layer of changes applied in order. */
export function buildOpLists(layers: readonly ListChangeLayer[] = []): OpLists {
  const placed = new Map<string, OpListEntry[]>();
  const meanings = {} as Record<ListName, string>;
  const add = (entry: OpListEntry): void => {
    const k = key(entry.domain, entry.op);
    const current = placed.get(k) ?? [];
    if (!current.some((e) => e.list === entry.list)) placed.set(k, [...current, entry]);
  };
  for (const list of LIST_NAMES) {
    const file = readDefaultList(list);
    meanings[list] = file.meaning;
    for (const op of file.ops) {
      add({ op: op.op, domain: normalizeDomain(op.domain), reason: op.reason, list, origin: 'default', ...(op.onlyWhen ? { onlyWhen: op.onlyWhen } : {}) });
    }
  }
  for (const layer of layers) {
    for (const list of LIST_NAMES) {
      for (const spec of layer.changes[list]?.remove ?? []) {
        const { domain, op } = parseOpSpec(spec);
        const k = key(domain, op);
        placed.set(k, (placed.get(k) ?? []).filter((e) => e.list !== list));
      }
    }
    for (const list of LIST_NAMES) {
      for (const spec of layer.changes[list]?.add ?? []) {
        const { domain, op } = parseOpSpec(spec);
        add({ op, domain, list, reason: `added to the ${list} list by ${layer.origin}`, origin: layer.origin });
      }
    }
  }
  const entries: OpListEntry[] = [];
  for (const list of placed.values()) {
    if (list.length > 1) {
      const [first, second] = list as [OpListEntry, OpListEntry];
      const name = first.domain ? `${first.domain}:${first.op}` : first.op;
      throw new AmpError(
        'BAD_OPTION',
        `op ${name} is on two lists: ${first.list} (${first.origin}) and ${second.list} (${second.origin}); remove it from one`,
        { subject: name },
      );
    }
    if (list[0]) entries.push(list[0]);
  }
  return new OpLists(entries, meanings, readUnlistedOps());
}
