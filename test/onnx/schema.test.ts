import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, it, expect } from 'vitest';
import { referenceDir as sharedReferenceDir } from '../support/corpus.js';
import {
  isKnownDomain,
  knownOpTypes,
  schemaFor,
  schemaVersions,
  typesOf,
  typeVariableOfInput,
  typeVariableOfOutput,
  type FormalParameter,
  type OpSchema,
} from '../../src/onnx/schema.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
// The shared reference as the README says: ../shared, or AMP_SHARED_DIR (one helper for every test).
const referenceDir = `${sharedReferenceDir}/`;
const tablePath = fileURLToPath(new URL('../../rules/schemas.json', import.meta.url));

/** The generator is plain JavaScript without declarations; load it by URL and type what is used. */
interface Generator {
  parseChangelog(markdownText: string, domain: string): Array<Record<string, unknown> & { domain: string; opType: string; since: number }>;
  buildSchemaTable(referenceDir: string): unknown;
}
async function loadGenerator(): Promise<Generator> {
  const url = pathToFileURL(`${repoRoot}scripts/gen-schemas.mjs`).href;
  return (await import(url)) as Generator;
}

function exact(domain: string, opType: string, since: number): OpSchema {
  const schema = schemaVersions(domain, opType).find((version) => version.since === since);
  if (!schema) throw new Error(`${opType}-${since} is not in the table`);
  return schema;
}

function input(schema: OpSchema, name: string): FormalParameter {
  const formal = schema.inputs.find((candidate) => candidate.name === name);
  if (!formal) throw new Error(`${schema.opType}-${schema.since} has no input ${name}`);
  return formal;
}

describe('operator schema table', () => {
  it('Resize-19: scales allows only tensor(float) while X allows float16', () => {
    const resize = exact('', 'Resize', 19);
    expect(typesOf(resize, input(resize, 'scales'))).toEqual(['tensor(float)']);
    expect(typesOf(resize, input(resize, 'X'))).toContain('tensor(float16)');
    expect(typesOf(resize, input(resize, 'sizes'))).toEqual(['tensor(int64)']);
    expect(input(resize, 'scales').option).toBe('optional');
  });

  it('BatchNormalization-15 binds scale and input_mean to different type variables', () => {
    const bn = exact('ai.onnx', 'BatchNormalization', 15);
    expect(input(bn, 'scale').typeStr).toBe('T1');
    expect(input(bn, 'input_mean').typeStr).toBe('T2');
    for (const name of ['scale', 'input_mean']) {
      expect(typesOf(bn, input(bn, name))).toEqual(
        expect.arrayContaining(['tensor(float16)', 'tensor(bfloat16)', 'tensor(float)', 'tensor(double)']),
      );
    }
    expect(bn.outputs.map((formal) => formal.option)).toEqual(['single', 'optional', 'optional']);
  });

  it('MatMul-13 accepts float16 and bfloat16; MatMul-1 has no bfloat16', () => {
    const matmul = exact('', 'MatMul', 13);
    expect(matmul.typeConstraints.T).toEqual(expect.arrayContaining(['tensor(float16)', 'tensor(bfloat16)']));
    expect(exact('', 'MatMul', 1).typeConstraints.T).not.toContain('tensor(bfloat16)');
    expect(matmul.inputs.map((formal) => [formal.name, formal.typeStr, formal.option])).toEqual([
      ['A', 'T', 'single'],
      ['B', 'T', 'single'],
    ]);
  });

  it('schemaFor picks the newest version not above the opset; "" and "ai.onnx" are one domain', () => {
    expect(schemaFor('', 'MatMul', 17)?.since).toBe(13);
    expect(schemaFor('ai.onnx', 'MatMul', 12)?.since).toBe(9);
    expect(schemaFor('ai.onnx', 'MatMul', 13)).toBe(schemaFor('', 'MatMul', 13));
    expect(schemaFor('', 'MatMul', 13)?.domain).toBe('');
    expect(schemaFor('', 'MatMul', 13)?.opType).toBe('MatMul');
    expect(schemaFor('', 'NoSuchOp', 17)).toBeUndefined();
    expect(schemaFor('com.example', 'MatMul', 17)).toBeUndefined();
  });

  it('an op that does not exist yet at an opset is undefined', () => {
    expect(schemaFor('', 'Gelu', 19)).toBeUndefined();
    expect(schemaFor('', 'Gelu', 20)?.since).toBe(20);
    // LayerNormalization exists below ONNX's 17 as ONNX Runtime's registration (see ort-registrations.test.ts).
    expect(schemaFor('', 'LayerNormalization', 16)?.since).toBe(1);
    expect(schemaFor('', 'LayerNormalization', 17)?.since).toBe(17);
  });

  it('deprecated versions remove the op until a later version brings it back', () => {
    expect(schemaFor('', 'Upsample', 9)?.since).toBe(9);
    expect(schemaFor('', 'Upsample', 10)).toBeUndefined();
    expect(schemaFor('', 'Upsample', 21)).toBeUndefined();
    expect(schemaFor('', 'Scatter', 11)).toBeUndefined();
    expect(schemaFor('', 'GroupNormalization', 18)).toBeUndefined();
    expect(schemaFor('', 'GroupNormalization', 21)?.since).toBe(21);
    expect(schemaVersions('', 'Upsample').at(-1)).toMatchObject({ since: 10, deprecated: true });
  });

  it('Cast-19 has a required int attribute "to"', () => {
    const cast = exact('', 'Cast', 19);
    expect(cast.attributes.find((attribute) => attribute.name === 'to')).toEqual({ name: 'to', type: 'int', required: true });
    expect(cast.attributes.find((attribute) => attribute.name === 'saturate')).toMatchObject({ type: 'int', required: false, default: '1' });
  });

  it('Dropout-13 binds ratio to T1 (float types), not to T', () => {
    const dropout = exact('', 'Dropout', 13);
    const ratio = input(dropout, 'ratio');
    expect(ratio.typeStr).toBe('T1');
    expect(ratio.typeStr).not.toBe(input(dropout, 'data').typeStr);
    expect(typesOf(dropout, ratio)).toEqual(expect.arrayContaining(['tensor(float16)', 'tensor(float)', 'tensor(double)']));
    expect(typesOf(dropout, input(dropout, 'training_mode'))).toEqual(['tensor(bool)']);
  });

  it("Loop's carried inputs and outputs are variadic and heterogeneous", () => {
    const loop = schemaFor('', 'Loop', 21);
    expect(loop).toBeDefined();
    const last = loop!.inputs.at(-1)!;
    expect(last).toMatchObject({ name: 'v_initial', option: 'variadic', heterogeneous: true });
    expect(loop!.outputs.at(-1)).toMatchObject({ option: 'variadic', heterogeneous: true });
    expect(loop!.inputs.slice(0, 2).map((formal) => formal.option)).toEqual(['optional', 'optional']);
    // Loop's variadic input has minimum arity 0: "Inputs (2 - ∞)".
    expect(loop!.minInputs).toBe(2);
    expect(loop!.maxInputs).toBe(Infinity);
    expect(typeVariableOfInput(loop!, 7)).toBe(last);
  });

  it('a variadic last formal governs every remaining actual', () => {
    const concat = schemaFor('', 'Concat', 13)!;
    const variadic = concat.inputs[0]!;
    expect(variadic.option).toBe('variadic');
    expect(variadic.heterogeneous).toBeUndefined();
    expect(typeVariableOfInput(concat, 0)).toBe(variadic);
    expect(typeVariableOfInput(concat, 5)).toBe(variadic);
    const split = schemaFor('', 'Split', 18)!;
    expect(typeVariableOfOutput(split, 3)).toBe(split.outputs[0]);
    expect(typeVariableOfInput(split, 1)?.name).toBe('split');
    expect(typeVariableOfInput(split, 2)).toBeUndefined();
    const matmul = schemaFor('', 'MatMul', 13)!;
    expect(typeVariableOfInput(matmul, 1)?.name).toBe('B');
    expect(typeVariableOfInput(matmul, 2)).toBeUndefined();
    expect(typeVariableOfInput(matmul, -1)).toBeUndefined();
    expect(typeVariableOfOutput(matmul, 0)?.name).toBe('Y');
  });

  it('reads ai.onnx.ml ops', () => {
    expect(isKnownDomain('ai.onnx.ml')).toBe(true);
    const classifier = schemaFor('ai.onnx.ml', 'LinearClassifier', 1)!;
    expect(classifier.domain).toBe('ai.onnx.ml');
    expect(classifier.outputs.map((formal) => formal.typeStr)).toEqual(['T2', 'tensor(float)']);
    expect(classifier.typeConstraints.T2).toEqual(['tensor(string)', 'tensor(int64)']);
    expect(classifier.attributes.find((attribute) => attribute.name === 'coefficients')).toMatchObject({ type: 'list of floats', required: true });
    expect(schemaFor('', 'LinearClassifier', 25)).toBeUndefined();
    // map(...) constraints keep their inner comma: split at top-level commas only.
    const dictVectorizer = schemaFor('ai.onnx.ml', 'DictVectorizer', 1)!;
    expect(typesOf(dictVectorizer, dictVectorizer.inputs[0]!)).toContain('map(string, int64)');
  });

  it('knows the default domain and its ops', () => {
    expect(isKnownDomain('')).toBe(true);
    expect(isKnownDomain('ai.onnx')).toBe(true);
    expect(isKnownDomain('com.microsoft')).toBe(true);
    const ops = knownOpTypes('');
    expect(ops.length).toBeGreaterThan(180);
    expect(knownOpTypes('ai.onnx')).toEqual(ops);
    expect(ops).toEqual(expect.arrayContaining(['Add', 'Conv', 'MatMul', 'Softmax', 'Constant', 'If', 'Loop', 'Scan']));
    expect(knownOpTypes('no.such.domain')).toEqual([]);
    expect(schemaVersions('', 'NoSuchOp')).toEqual([]);
  });

  it('reads ops without inputs, without type constraints, and with sequence and optional types', () => {
    const constant = schemaFor('', 'Constant', 21)!;
    expect(constant.inputs).toEqual([]);
    expect(constant.outputs).toHaveLength(1);
    const nms = schemaFor('', 'NonMaxSuppression', 11)!;
    expect(Object.keys(nms.typeConstraints)).toEqual([]);
    expect(typesOf(nms, nms.inputs[0]!)).toEqual(['tensor(float)']);
    const sequenceAt = schemaFor('', 'SequenceAt', 17)!;
    expect(typesOf(sequenceAt, sequenceAt.inputs[0]!)).toContain('seq(tensor(float16))');
    const optional = schemaFor('', 'Optional', 18)!;
    expect(typesOf(optional, optional.outputs[0]!)).toContain('optional(tensor(float))');
  });

  it('every version in the table is internally consistent', () => {
    let versions = 0;
    for (const domain of ['', 'ai.onnx.ml']) {
      for (const opType of knownOpTypes(domain)) {
        const all = schemaVersions(domain, opType);
        expect(all.length).toBeGreaterThan(0);
        all.forEach((schema, index) => {
          versions++;
          if (index > 0) expect(schema.since).toBeGreaterThan(all[index - 1]!.since);
          for (const formals of [schema.inputs, schema.outputs]) {
            formals.forEach((formal, position) => {
              if (formal.option === 'variadic') expect(position).toBe(formals.length - 1);
              if (formal.heterogeneous) expect(formal.option).toBe('variadic');
              const allowed = typesOf(schema, formal);
              expect(allowed.length).toBeGreaterThan(0);
              // A typeStr that is no constraint key must be a concrete type.
              if (!(formal.typeStr in schema.typeConstraints)) expect(formal.typeStr).toMatch(/^[a-z_]+\(.+\)$/);
            });
          }
          expect(schema.minInputs).toBeLessThanOrEqual(schema.maxInputs);
          expect(schema.minOutputs).toBeLessThanOrEqual(schema.maxOutputs);
          if (!schema.deprecated) expect(schema.outputs.length).toBeGreaterThan(0);
        });
      }
    }
    expect(versions).toBeGreaterThan(600);
  });
});

describe('changelog parser', () => {
  it('reads arity ranges, HTML entities, tags and attribute defaults', async () => {
    const { parseChangelog } = await loadGenerator();
    const markdown = [
      '# ai.onnx (default)',
      '## Version 7 of the default ONNX operator set',
      '### <a name="Fancy-7"></a>**Fancy-7**</a>',
      '',
      '  A description. It mentions <dl> and #### in prose.',
      '',
      '#### Version',
      '',
      'This version of the operator has been available since version 7 of the default ONNX operator set.',
      '',
      '#### Attributes',
      '',
      '<dl>',
      '<dt><tt>axis</tt> : int (default is 1)</dt>',
      '<dd>An axis.</dd>',
      '<dt><tt>to</tt> : int (required)</dt>',
      '<dd>A type.</dd>',
      '<dt><tt>hi</tt> : float (default is (3.402823e+38))</dt>',
      '<dd>A bound.</dd>',
      '</dl>',
      '',
      '#### Inputs (3 - &#8734;)',
      '',
      '<dl>',
      '<dt><tt>A</tt> (differentiable) : T</dt>',
      '<dd>First.</dd>',
      '<dt><tt>B</tt> (optional, non-differentiable) : tensor(int64)</dt>',
      '<dd>Second.</dd>',
      '<dt><tt>rest</tt> (variadic, heterogeneous) : V</dt>',
      '<dd>Rest.</dd>',
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
      '<dt><tt>V</tt> : seq(tensor(float)), map(string, int64), optional(tensor(bool))</dt>',
      '<dd>Anything.</dd>',
      '</dl>',
      '',
      '### <a name="Gone-8"></a>**Gone-8** (deprecated)</a>',
      '',
      '#### Version',
      '',
      'This version of the operator has been deprecated since version 8 of the default ONNX operator set.',
      '',
      '# ai.onnx.preview.training',
      '## Version 1 of the \'ai.onnx.preview.training\' operator set',
      '### <a name="ai.onnx.preview.training.Adam-1"></a>**ai.onnx.preview.training.Adam-1**</a>',
      '',
      '#### Version',
      '',
      "This version of the operator has been available since version 1 of the 'ai.onnx.preview.training' operator set.",
      '',
      '#### Inputs',
      '',
      '#### Outputs',
      '',
      '<dl>',
      '<dt><tt>out</tt> : tensor(float)</dt>',
      '<dd>Out.</dd>',
      '</dl>',
      '',
    ].join('\n');
    const entries = parseChangelog(markdown, 'ai.onnx');
    expect(entries.map((entry) => [entry.domain, entry.opType, entry.since])).toEqual([
      ['ai.onnx', 'Fancy', 7],
      ['ai.onnx', 'Gone', 8],
      ['ai.onnx.preview.training', 'Adam', 1],
    ]);
    const [fancy, gone, adam] = entries;
    expect(fancy).toMatchObject({
      inputs: [
        { name: 'A', typeStr: 'T', option: 'single', differentiable: true },
        { name: 'B', typeStr: 'tensor(int64)', option: 'optional', differentiable: false },
        { name: 'rest', typeStr: 'V', option: 'variadic', heterogeneous: true },
      ],
      outputs: [{ name: 'Y', typeStr: 'T', option: 'single' }],
      minInputs: 3,
      maxInputs: null,
      typeConstraints: {
        T: ['tensor(float16)', 'tensor(float)'],
        V: ['seq(tensor(float))', 'map(string, int64)', 'optional(tensor(bool))'],
      },
      attributes: [
        { name: 'axis', type: 'int', required: false, default: '1' },
        { name: 'to', type: 'int', required: true },
        { name: 'hi', type: 'float', required: false, default: '(3.402823e+38)' },
      ],
    });
    expect(gone).toMatchObject({ deprecated: true, inputs: [], outputs: [] });
    expect(adam).toMatchObject({ inputs: [], minInputs: 0, outputs: [{ name: 'out', typeStr: 'tensor(float)' }] });
  });

  it('rejects a section it cannot read instead of guessing', async () => {
    const { parseChangelog } = await loadGenerator();
    const markdown = [
      '### <a name="Odd-1"></a>**Odd-1**</a>',
      '#### Version',
      'This version of the operator has been available since version 1 of the default ONNX operator set.',
      '#### Inputs',
      '<dl>',
      '<dt><tt>X</tt> : T</dt>',
      '</dl>',
    ].join('\n');
    expect(() => parseChangelog(markdown, 'ai.onnx')).toThrow(/unconstrained type variable T/);
  });

  it('rules/schemas.json is what the changelogs generate', async (context) => {
    if (!existsSync(`${referenceDir}Changelog.md`)) {
      const message = `ONNX changelogs not found in ${referenceDir}; cannot check rules/schemas.json is fresh`;
      if (process.env.CI === 'true') throw new Error(message);
      context.skip(message);
      return;
    }
    const { buildSchemaTable } = await loadGenerator();
    const committed: unknown = JSON.parse(readFileSync(tablePath, 'utf8'));
    expect(buildSchemaTable(referenceDir)).toEqual(committed);
  });
});
