/** ONNX Runtime's contrib operators (com.microsoft) in the schema table: rules/schemas-com.microsoft.json. */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, it, expect } from 'vitest';
import { isKnownDomain, knownOpTypes, schemaFor, schemaVersions, typesOf, type FormalParameter, type OpSchema } from '../../src/onnx/schema.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const tablePath = fileURLToPath(new URL('../../rules/schemas-com.microsoft.json', import.meta.url));
const MS = 'com.microsoft';

/** The generator is plain JavaScript without declarations; load it by URL and type what is used. */
interface ContribGenerator {
  buildContribSchemaTable(markdownText: string): { generatedFrom: string[]; domains: Record<string, Record<string, Array<Record<string, unknown>>>> };
}
async function loadGenerator(): Promise<ContribGenerator> {
  return (await import(pathToFileURL(`${repoRoot}scripts/gen-contrib-schemas.mjs`).href)) as ContribGenerator;
}

function contrib(opType: string): OpSchema {
  const schema = schemaFor(MS, opType, 1);
  if (!schema) throw new Error(`${MS}.${opType} is not in the table at opset 1`);
  return schema;
}

function input(schema: OpSchema, name: string): FormalParameter {
  const formal = schema.inputs.find((candidate) => candidate.name === name);
  if (!formal) throw new Error(`${schema.opType} has no input ${name}`);
  return formal;
}

describe('com.microsoft contrib operator schemas', () => {
  it('knows the com.microsoft domain and at least 100 of its ops', () => {
    expect(isKnownDomain(MS)).toBe(true);
    const ops = knownOpTypes(MS);
    expect(ops.length).toBeGreaterThanOrEqual(100);
    expect(ops).toEqual(
      expect.arrayContaining([
        'Attention',
        'BiasAdd',
        'BiasGelu',
        'BiasSoftmax',
        'EmbedLayerNormalization',
        'FastGelu',
        'FusedConv',
        'FusedGemm',
        'FusedMatMul',
        'Gelu',
        'GroupQueryAttention',
        'MultiHeadAttention',
        'QuickGelu',
        'RotaryEmbedding',
        'SkipLayerNormalization',
        'SkipSimplifiedLayerNormalization',
      ]),
    );
    // The default domain is unchanged by the merge.
    expect(knownOpTypes('')).not.toContain('FusedMatMul');
    expect(schemaFor('', 'MatMul', 13)?.since).toBe(13);
  });

  it('FusedMatMul at com.microsoft opset 1 has inputs A and B and accepts float16 and bfloat16 for T', () => {
    const fused = contrib('FusedMatMul');
    expect(fused.domain).toBe(MS);
    expect(fused.opType).toBe('FusedMatMul');
    expect(fused.since).toBe(1);
    expect(fused.inputs.map((formal) => [formal.name, formal.typeStr, formal.option])).toEqual([
      ['A', 'T', 'single'],
      ['B', 'T', 'single'],
    ]);
    expect(fused.typeConstraints.T).toEqual(expect.arrayContaining(['tensor(float16)', 'tensor(bfloat16)', 'tensor(float)']));
    expect(typesOf(fused, input(fused, 'B'))).toContain('tensor(bfloat16)');
    expect(fused.attributes.map((attribute) => attribute.name)).toEqual(['alpha', 'transA', 'transB', 'transBatchA', 'transBatchB']);
    // A later com.microsoft opset still resolves to the one documented version.
    expect(schemaFor(MS, 'FusedMatMul', 5)).toBe(fused);
    expect(schemaFor(MS, 'FusedMatMul', 0)).toBeUndefined();
  });

  it("Attention's mask_index is bound to an integer type variable M, not to T", () => {
    const attention = contrib('Attention');
    const mask = input(attention, 'mask_index');
    expect(mask.typeStr).toBe('M');
    expect(mask.option).toBe('optional');
    expect(mask.typeStr).not.toBe(input(attention, 'input').typeStr);
    expect(typesOf(attention, mask)).toEqual(['tensor(int32)']);
    expect(typesOf(attention, input(attention, 'input'))).toEqual(expect.arrayContaining(['tensor(float16)', 'tensor(float)']));
    expect(attention).toMatchObject({ minInputs: 2, maxInputs: 7, minOutputs: 1, maxOutputs: 2 });
    expect(attention.attributes.find((attribute) => attribute.name === 'num_heads')).toEqual({ name: 'num_heads', type: 'int', required: true });
  });

  it('SkipLayerNormalization exists, T allows float16, and its saved statistics stay float (U)', () => {
    const skip = contrib('SkipLayerNormalization');
    expect(skip.typeConstraints.T).toContain('tensor(float16)');
    expect(skip.inputs.map((formal) => formal.name)).toEqual(['input', 'skip', 'gamma', 'beta', 'bias']);
    expect(skip).toMatchObject({ minInputs: 3, maxInputs: 5, minOutputs: 1, maxOutputs: 4 });
    expect(skip.outputs.map((formal) => formal.typeStr)).toEqual(['T', 'U', 'U', 'T']);
    expect(skip.typeConstraints.U).toEqual(['tensor(float)']);
  });

  it('GroupQueryAttention keeps its KV cache, its scales and its lengths on their own type variables', () => {
    const gqa = contrib('GroupQueryAttention');
    expect(input(gqa, 'past_key').typeStr).toBe('T_CACHE');
    expect(input(gqa, 'k_scale').typeStr).toBe('T_KV_SCALE');
    expect(typesOf(gqa, input(gqa, 'seqlens_k'))).toEqual(['tensor(int32)']);
    expect(typesOf(gqa, input(gqa, 'position_ids'))).toEqual(['tensor(int64)']);
    expect(gqa).toMatchObject({ minInputs: 7, maxInputs: 16 });
  });

  it('reads variadic, heterogeneous and experimental contrib ops', () => {
    const epContext = contrib('EPContext');
    expect(epContext.inputs).toEqual([{ name: 'inputs', typeStr: 'T', option: 'variadic', heterogeneous: true }]);
    // "Inputs (0 - ∞)": a variadic formal whose minimum arity is 0.
    expect(epContext).toMatchObject({ minInputs: 0, maxInputs: Infinity, minOutputs: 1, maxOutputs: Infinity });
    const isAllFinite = contrib('IsAllFinite');
    expect(isAllFinite.experimental).toBe(true);
    expect(isAllFinite.inputs[0]).toMatchObject({ option: 'variadic', typeStr: 'V' });
    expect(contrib('FusedMatMul').experimental).toBeUndefined();
  });

  it('every com.microsoft op has one consistent version since 1', () => {
    for (const opType of knownOpTypes(MS)) {
      const all = schemaVersions(MS, opType);
      expect(all, opType).toHaveLength(1);
      const schema = all[0]!;
      expect(schema.since, opType).toBe(1);
      expect(schema.domain).toBe(MS);
      expect(schema.deprecated).toBeUndefined();
      for (const formals of [schema.inputs, schema.outputs]) {
        formals.forEach((formal, position) => {
          if (formal.option === 'variadic') expect(position, opType).toBe(formals.length - 1);
          if (formal.heterogeneous) expect(formal.option, opType).toBe('variadic');
          expect(typesOf(schema, formal).length, `${opType}.${formal.name}`).toBeGreaterThan(0);
          if (!(formal.typeStr in schema.typeConstraints)) expect(formal.typeStr, `${opType}.${formal.name}`).toMatch(/^[a-z_]+\(.+\)$/);
        });
      }
      expect(schema.minInputs, opType).toBeLessThanOrEqual(schema.maxInputs);
      expect(schema.minOutputs, opType).toBeLessThanOrEqual(schema.maxOutputs);
      expect(schema.outputs.length, opType).toBeGreaterThan(0);
    }
  });

  it('the committed table names its source and lists ops sorted', () => {
    const stored = JSON.parse(readFileSync(tablePath, 'utf8')) as { generatedFrom: string[]; domains: Record<string, Record<string, unknown>> };
    expect(stored.generatedFrom).toEqual(['onnxruntime docs/ContribOperators.md']);
    expect(Object.keys(stored.domains)).toEqual([MS]);
    const names = Object.keys(stored.domains[MS]!);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });
});

describe('contrib operator document parser', () => {
  const doc = (body: string[]): string =>
    [
      '## Contrib Operator Schemas',
      '* com.microsoft',
      '  * <a href="#com.microsoft.Fancy">com.microsoft.Fancy</a>',
      '  * <sub>experimental</sub> <a href="#com.microsoft.Trial">com.microsoft.Trial</a>',
      '',
      '## com.microsoft',
      ...body,
    ].join('\n');
  const fancy = [
    '### <a name="com.microsoft.Fancy"></a><a name="com.microsoft.fancy">**com.microsoft.Fancy**</a>',
    '',
    '  A description that mentions #### and <dl> in prose.',
    '',
    '#### Version',
    '',
    "This version of the operator has been available since version 1 of the 'com.microsoft' operator set.",
    '',
    '#### Attributes',
    '',
    '<dl>',
    '<dt><tt>alpha</tt> : float</dt>',
    '<dd>A scale.</dd>',
    '</dl>',
    '',
    '#### Inputs (1 - 2)',
    '',
    '<dl>',
    '<dt><tt>X</tt> : T</dt>',
    '<dd>In.</dd>',
    '<dt><tt>mask</tt> (optional) : M</dt>',
    '<dd>Mask.</dd>',
    '</dl>',
    '',
    '#### Outputs',
    '',
    '<dl>',
    '<dt><tt>Y</tt> : T</dt>',
    '<dd>Out.</dd>',
    '</dl>',
    '',
    '#### Type Constraints',
    '',
    '<dl>',
    '<dt><tt>T</tt> : tensor(float16), tensor(float)</dt>',
    '<dd>Floats.</dd>',
    '<dt><tt>M</tt> : tensor(int32)</dt>',
    '<dd>Ints.</dd>',
    '</dl>',
    '',
  ];
  const trial = [
    '### <sub>experimental</sub> <a name="com.microsoft.Trial"></a><a name="com.microsoft.trial">**com.microsoft.Trial**</a>',
    '',
    '#### Version',
    '',
    'No versioning maintained for experimental ops.',
    '#### Outputs',
    '',
    '<dl>',
    '<dt><tt>out</tt> : tensor(bool)</dt>',
    '<dd>Out.</dd>',
    '</dl>',
    '',
  ];

  it('rewrites contrib headings and parses them with the changelog parser', async () => {
    const { buildContribSchemaTable } = await loadGenerator();
    const table = buildContribSchemaTable(doc([...trial, ...fancy]));
    expect(table.generatedFrom).toEqual(['onnxruntime docs/ContribOperators.md']);
    expect(Object.keys(table.domains[MS]!)).toEqual(['Fancy', 'Trial']);
    expect(table.domains[MS]!.Fancy).toEqual([
      {
        since: 1,
        inputs: [
          { name: 'X', typeStr: 'T', option: 'single' },
          { name: 'mask', typeStr: 'M', option: 'optional' },
        ],
        outputs: [{ name: 'Y', typeStr: 'T', option: 'single' }],
        minInputs: 1,
        maxInputs: 2,
        minOutputs: 1,
        maxOutputs: 1,
        typeConstraints: { T: ['tensor(float16)', 'tensor(float)'], M: ['tensor(int32)'] },
        attributes: [{ name: 'alpha', type: 'float', required: false }],
      },
    ]);
    expect(table.domains[MS]!.Trial).toEqual([
      { since: 1, experimental: true, inputs: [], outputs: [{ name: 'out', typeStr: 'tensor(bool)', option: 'single' }], minInputs: 0, maxInputs: 0, minOutputs: 1, maxOutputs: 1, typeConstraints: {}, attributes: [] },
    ]);
  });

  it('fails loudly on an op the table of contents does not list, or on a heading it cannot read', async () => {
    const { buildContribSchemaTable } = await loadGenerator();
    expect(() => buildContribSchemaTable(doc(fancy))).toThrow(/table of contents: missing com\.microsoft\.Trial/);
    const odd = ['### <a name="com.microsoft.Fancy"></a>Fancy, without the bold name', ...fancy.slice(1)];
    expect(() => buildContribSchemaTable(doc([...odd, ...trial]))).toThrow(/cannot read op heading/);
    const unconstrained = fancy.filter((line) => !line.includes('<tt>M</tt>'));
    expect(() => buildContribSchemaTable(doc([...unconstrained, ...trial]))).toThrow(/unconstrained type variable M/);
  });

  it('rules/schemas-com.microsoft.json is what ContribOperators.md generates (when the document is at hand)', async (context) => {
    const source = process.env.AMP_CONTRIB_OPERATORS_MD;
    if (!source || !existsSync(source)) {
      context.skip('set AMP_CONTRIB_OPERATORS_MD to onnxruntime docs/ContribOperators.md to check rules/schemas-com.microsoft.json is fresh');
      return;
    }
    const { buildContribSchemaTable } = await loadGenerator();
    expect(buildContribSchemaTable(readFileSync(source, 'utf8'))).toEqual(JSON.parse(readFileSync(tablePath, 'utf8')));
  });
});
