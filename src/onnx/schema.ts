/**
 * ONNX operator schemas: formal inputs and outputs, type constraints and attributes of every
 * operator version, read from rules/schemas.json (built from ONNX's operator changelogs by
 * scripts/gen-schemas.mjs) and rules/schemas-com.microsoft.json (ONNX Runtime's contrib operators,
 * built from onnxruntime's docs/ContribOperators.md by scripts/gen-contrib-schemas.mjs). The tables
 * are read once, on first use, and merged by domain.
 */
import { ruleFile } from '../rules/rule-files.js';

export type ParameterOption = 'single' | 'optional' | 'variadic';

/** A formal input or output of an operator version. */
export interface FormalParameter {
  readonly name: string;
  /** A type variable (a key of the schema's typeConstraints) or a concrete type such as `tensor(int64)`. */
  readonly typeStr: string;
  readonly option: ParameterOption;
  /** Variadic only: each actual may have its own type (Loop's carried values); otherwise all share one. */
  readonly heterogeneous?: boolean;
  /** Present when the changelog states it. */
  readonly differentiable?: boolean;
}

/** An attribute as the changelog writes it: `int`, `float`, `string`, `list of ints`, `graph`, `tensor`, ... */
export interface AttributeSpec {
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
  /** The default exactly as documented (`1`, `NOTSET`, `['Tanh', 'Tanh']`); absent when none is documented. */
  readonly default?: string;
}

export interface OpSchema {
  /** The normalized domain: '' for the default domain (ai.onnx), otherwise e.g. 'ai.onnx.ml'. */
  readonly domain: string;
  readonly opType: string;
  /** The opset version this schema version first appears in. */
  readonly since: number;
  /** From `since` on the op is removed (until a later version brings it back). */
  readonly deprecated?: boolean;
  /** Documented as experimental, without versioning (Upsample-1, ai.onnx.preview ops, com.microsoft IsAllFinite). */
  readonly experimental?: boolean;
  readonly inputs: readonly FormalParameter[];
  readonly outputs: readonly FormalParameter[];
  readonly minInputs: number;
  /** Infinity when the last input is variadic. */
  readonly maxInputs: number;
  readonly minOutputs: number;
  /** Infinity when the last output is variadic. */
  readonly maxOutputs: number;
  /** Type variable → allowed type strings, in the changelog's order. */
  readonly typeConstraints: Readonly<Record<string, readonly string[]>>;
  readonly attributes: readonly AttributeSpec[];
}

interface StoredSchema extends Omit<OpSchema, 'domain' | 'opType' | 'maxInputs' | 'maxOutputs'> {
  readonly maxInputs: number | null;
  readonly maxOutputs: number | null;
}

interface StoredTable {
  readonly generatedFrom: readonly string[];
  readonly domains: Record<string, Record<string, StoredSchema[]>>;
}

/**
 * An op's versions as stored, made into frozen OpSchemas sorted by `since` on first use: a model
 * uses a few dozen of the 778 op versions, and freezing them all cost every run about 5 ms.
 */
interface OpEntry {
  readonly stored: readonly StoredSchema[];
  versions?: readonly OpSchema[];
}

/** domain ('' for ai.onnx) → op type → its versions. */
type Table = Map<string, Map<string, OpEntry>>;

/** The tables (rules/*.json) merged into one, each with the command that regenerates it. */
const TABLE_SOURCES: ReadonlyArray<{ readonly file: string; readonly regenerate: string }> = [
  { file: 'schemas.json', regenerate: 'npm run gen:schemas' },
  { file: 'schemas-com.microsoft.json', regenerate: 'node scripts/gen-contrib-schemas.mjs <ContribOperators.md>' },
  // ONNX Runtime's own registrations in the default domain (LayerNormalization from version 1,
  // SimplifiedLayerNormalization), written from its sources.
  { file: 'schemas-ort-default-domain.json', regenerate: 'edit it by hand from onnxruntime contrib_defs.cc' },
];
const NO_VERSIONS: readonly OpSchema[] = Object.freeze([]);
let table: Table | undefined;

function normalize(domain: string): string {
  return domain === 'ai.onnx' ? '' : domain;
}

function readStoredTable(file: string, regenerate: string): StoredTable {
  let stored: StoredTable;
  try {
    stored = ruleFile<StoredTable>(file);
  } catch (error) {
    throw new Error(`cannot read the operator schema table rules/${file} (run ${regenerate}): ${(error as Error).message}`);
  }
  if (!stored || typeof stored.domains !== 'object' || stored.domains === null) throw new Error(`rules/${file} has no 'domains' object`);
  return stored;
}

function loadTable(): Table {
  if (table) return table;
  const built: Table = new Map();
  for (const { file, regenerate } of TABLE_SOURCES) {
    const stored = readStoredTable(file, regenerate);
    for (const [domainName, ops] of Object.entries(stored.domains)) {
      const domain = normalize(domainName);
      let byOp = built.get(domain);
      if (!byOp) built.set(domain, (byOp = new Map<string, OpEntry>()));
      for (const [opType, versions] of Object.entries(ops)) {
        const earlier = byOp.get(opType);
        if (!earlier) {
          byOp.set(opType, { stored: versions });
          continue;
        }
        // ONNX Runtime registers some ops of the default domain below ONNX's first version of them
        // (LayerNormalization from 1, ONNX's from 17): the versions join, each `since` once.
        const taken = new Set(earlier.stored.map((version) => version.since));
        if (versions.some((version) => taken.has(version.since))) {
          throw new Error(`rules/${file}: ${domainName || 'ai.onnx'} ${opType} version ${versions.find((v) => taken.has(v.since))?.since} is already in another schema table`);
        }
        byOp.set(opType, { stored: [...earlier.stored, ...versions] });
      }
    }
  }
  table = built;
  return built;
}

function freezeSchema(domain: string, opType: string, stored: StoredSchema): OpSchema {
  // A null-prototype record, so `typeStr in typeConstraints` never finds Object.prototype's keys.
  const typeConstraints: Record<string, readonly string[]> = Object.create(null) as Record<string, readonly string[]>;
  for (const [variable, types] of Object.entries(stored.typeConstraints)) typeConstraints[variable] = Object.freeze([...types]);
  const schema: OpSchema = {
    ...stored,
    domain,
    opType,
    inputs: Object.freeze(stored.inputs.map((formal) => Object.freeze({ ...formal }))),
    outputs: Object.freeze(stored.outputs.map((formal) => Object.freeze({ ...formal }))),
    maxInputs: stored.maxInputs ?? Infinity,
    maxOutputs: stored.maxOutputs ?? Infinity,
    typeConstraints: Object.freeze(typeConstraints),
    attributes: Object.freeze(stored.attributes.map((attribute) => Object.freeze({ ...attribute }))),
  };
  return Object.freeze(schema);
}

/**
 * The schema an `opsetVersion` import of `domain` gives `opType`: the version with the highest
 * `since` not above the opset. Undefined when the op does not exist yet at that opset, or when
 * that version marks it deprecated (removed).
 */
export function schemaFor(domain: string, opType: string, opsetVersion: number): OpSchema | undefined {
  const versions = schemaVersions(domain, opType);
  for (let i = versions.length - 1; i >= 0; i--) {
    const schema = versions[i] as OpSchema;
    if (schema.since <= opsetVersion) return schema.deprecated ? undefined : schema;
  }
  return undefined;
}

/**
 * The opset version a node of `domain` is read at: the model's import, or, for a domain other
 * than the default one that the model does not import, the newest version the table knows. This
 * is what ONNX Runtime does when it loads a model: a domain it has registered but the model does
 * not import is added at its latest version (onnxruntime/core/graph/model.cc), so an Attention
 * node of com.microsoft runs whether or not the model imports com.microsoft. Undefined for an
 * unimported default domain and for domains the table does not know.
 */
export function effectiveOpsetVersion(opsets: ReadonlyMap<string, number>, domain: string): number | undefined {
  const normalized = normalize(domain);
  const imported = opsets.get(normalized);
  if (imported !== undefined || normalized === '') return imported;
  return latestVersionOf(normalized);
}

const latestVersions = new Map<string, number | undefined>();

/** The highest `since` of any op the table documents for a domain. */
function latestVersionOf(domain: string): number | undefined {
  if (latestVersions.has(domain)) return latestVersions.get(domain);
  let latest: number | undefined;
  for (const entry of loadTable().get(domain)?.values() ?? []) {
    for (const version of entry.stored) latest = Math.max(latest ?? 0, version.since);
  }
  latestVersions.set(domain, latest);
  return latest;
}

/** Every documented version of an op, oldest first (deprecation markers included). */
export function schemaVersions(domain: string, opType: string): readonly OpSchema[] {
  const normalized = normalize(domain);
  const entry = loadTable().get(normalized)?.get(opType);
  if (!entry) return NO_VERSIONS;
  entry.versions ??= Object.freeze(entry.stored.map((version) => freezeSchema(normalized, opType, version)).sort((a, b) => a.since - b.since));
  return entry.versions;
}

/** The op types documented for a domain, sorted. */
export function knownOpTypes(domain: string): string[] {
  return [...(loadTable().get(normalize(domain))?.keys() ?? [])].sort();
}

/** Whether the table documents `domain` ('' and 'ai.onnx' both name the default domain). */
export function isKnownDomain(domain: string): boolean {
  return loadTable().has(normalize(domain));
}

/** The type strings a formal parameter allows: its type variable's constraint list, or its concrete type. */
export function typesOf(schema: OpSchema, param: FormalParameter): readonly string[] {
  return Object.hasOwn(schema.typeConstraints, param.typeStr) ? (schema.typeConstraints[param.typeStr] as readonly string[]) : [param.typeStr];
}

/** The formal input that governs actual input `index`; a variadic last formal absorbs all remaining actuals. */
export function typeVariableOfInput(schema: OpSchema, index: number): FormalParameter | undefined {
  return formalAt(schema.inputs, index);
}

/** The formal output that governs actual output `index`; a variadic last formal absorbs all remaining actuals. */
export function typeVariableOfOutput(schema: OpSchema, index: number): FormalParameter | undefined {
  return formalAt(schema.outputs, index);
}

function formalAt(formals: readonly FormalParameter[], index: number): FormalParameter | undefined {
  if (!Number.isInteger(index) || index < 0 || formals.length === 0) return undefined;
  if (index < formals.length) return formals[index];
  const last = formals[formals.length - 1] as FormalParameter;
  return last.option === 'variadic' ? last : undefined;
}
