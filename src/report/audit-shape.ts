/**
 * The shape of an audit JSON (--report audit.json), checked before `amp-rewrite report` draws it:
 * the file is the user's, and a field of the wrong type (a node's `op` an object, a count a
 * string) would draw a broken page or crash the renderer (exit 3). The shape is data, one entry
 * per field the renderers read; the first field that does not fit is named by its path
 * (`nodes[3].op: expected a string, got an object`).
 */

/** A field's type: a leaf kind, a nullable or optional one, a list, an object, a record of one shape. */
export type Shape =
  | 'string'
  /** A finite number. */
  | 'number'
  /** Any number, NaN and the infinities included (a loss that was not finite). */
  | 'float'
  | 'boolean'
  | { readonly nullable: Shape }
  | { readonly optional: Shape }
  | { readonly list: Shape }
  | { readonly record: Shape }
  | { readonly fields: Readonly<Record<string, Shape>> };

export const optional = (shape: Shape): Shape => ({ optional: shape });
export const nullable = (shape: Shape): Shape => ({ nullable: shape });
export const list = (shape: Shape): Shape => ({ list: shape });
export const fields = (shape: Readonly<Record<string, Shape>>): Shape => ({ fields: shape });
export const recordOf = (shape: Shape): Shape => ({ record: shape });

const EDGE = fields({
  value: 'string',
  type: nullable('string'),
  typeAfter: nullable('string'),
  cast: optional('string'),
  source: optional('string'),
  range: optional('number'),
});

const VALUE = fields({ value: 'string', type: nullable('string') });

const NODE = fields({
  node: 'string',
  id: 'string',
  precision: 'string',
  inputTypes: list('string'),
  outputTypes: list('string'),
  op: 'string',
  domain: 'string',
  scope: 'string',
  list: nullable('string'),
  color: 'string',
  rule: 'string',
  reason: 'string',
  castsAdded: list('string'),
  castsOnOutputs: optional(list('string')),
  inputs: list(EDGE),
  outputs: list(EDGE),
  subgraphs: list('string'),
});

const SUMMARY = fields({
  mode: 'string',
  nothingToConvert: 'boolean',
  totalNodes: 'number',
  processable: 'number',
  recognized: 'number',
  converted: 'number',
  targetCasts: 'number',
  allowConverted: 'number',
  denyBlocking: 'number',
  blockedByDeny: 'number',
  weightCasts: 'number',
  fp32Casts: 'number',
  castsRetargeted: 'number',
  weightsConverted: list('string'),
  weightsKeptFp32: list(fields({ name: 'string', reason: 'string' })),
  matrixFlops: nullable(fields({ lowPrecision: 'number', total: 'number', unknownNodes: 'number', nodes: 'number', assumedOne: optional(list('string')) })),
  fp32Reasons: list(fields({ rule: 'string', count: 'number', example: 'string' })),
  alreadyLowPrecision: optional(list(fields({ op: 'string', type: 'string', count: 'number' }))),
  kvCacheFp16: optional(fields({ inputs: list('string'), outputs: list('string') })),
  target: optional('string'),
  targetConverted: optional('number'),
  targetWarnings: optional(list(fields({ node: 'string', op: 'string', kind: 'string', message: 'string', source: 'string' }))),
  tensorCoreLint: optional(
    nullable(
      fields({
        multiple: 'number',
        checked: 'number',
        unknown: 'number',
        source: 'string',
        findings: list(fields({ node: 'string', op: 'string', message: 'string', dims: list(fields({ role: 'string', size: 'number', padTo: 'number' })) })),
      }),
    ),
  ),
});

/** What `amp-rewrite report` reads of an audit. */
export const AUDIT_SHAPE: Shape = fields({
  pass: 'string',
  summary: SUMMARY,
  nodes: list(NODE),
  lists: { record: list(fields({ op: 'string', domain: 'string', reason: 'string', origin: 'string' })) },
  scopes: list(
    fields({
      path: 'string',
      parent: nullable('string'),
      owner: nullable('string'),
      inputs: list(VALUE),
      outputs: list(VALUE),
      weights: list(fields({ value: 'string', type: nullable('string'), dims: list('number') })),
    }),
  ),
});

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing (the field is missing)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return `a ${typeof value}`;
}

/** The first place `value` does not fit `shape`, as `path: expected X, got Y`; undefined when it fits. */
export function shapeProblem(value: unknown, shape: Shape, path: string): string | undefined {
  const at = path || '(top level)';
  if (typeof shape === 'string') {
    const fits = shape === 'number' ? typeof value === 'number' && Number.isFinite(value) : shape === 'float' ? typeof value === 'number' : typeof value === shape;
    return fits ? undefined : `${at}: expected ${shape === 'boolean' ? 'true or false' : shape === 'float' ? 'a number' : `a ${shape}`}, got ${kindOf(value)}`;
  }
  if ('optional' in shape) return value === undefined ? undefined : shapeProblem(value, shape.optional, path);
  if ('nullable' in shape) return value === null ? undefined : shapeProblem(value, shape.nullable, path);
  if ('list' in shape) {
    if (!Array.isArray(value)) return `${at}: expected a list, got ${kindOf(value)}`;
    for (let i = 0; i < value.length; i++) {
      const problem = shapeProblem(value[i], shape.list, `${path}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return `${at}: expected an object, got ${kindOf(value)}`;
  const object = value as Record<string, unknown>;
  if ('record' in shape) {
    for (const [key, entry] of Object.entries(object)) {
      const problem = shapeProblem(entry, shape.record, path ? `${path}.${key}` : key);
      if (problem) return problem;
    }
    return undefined;
  }
  for (const [key, field] of Object.entries(shape.fields)) {
    const problem = shapeProblem(object[key], field, path ? `${path}.${key}` : key);
    if (problem) return problem;
  }
  return undefined;
}
