/**
 * Decoded per-node messages (NodeProto's attribute list, AttributeProto, TensorProto, ...) read an
 * empty repeated field from the prototype's shared frozen empty array instead of owning one when
 * the decode asks for it (`sharedEmptyFields`, as the command line does; see scripts/gen-proto.mjs:
 * it saves about 350 bytes a node). Code that extends such a field in place would throw on a
 * decoded message that had none: it must assign a new array instead
 * (`node.attribute = [...(node.attribute ?? []), added]`). This guard finds in-place edits in src.
 * A library user's decode and messages built with create() keep own arrays, which may be pushed into.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ampRewrite, decodeModel, encodeModel, onnx } from '../../src/index.js';
import { repoRoot } from '../support/corpus.js';

const root = path.resolve(import.meta.dirname, '../..');
const generated = readFileSync(path.join(root, 'src/onnx/generated/onnx.js'), 'utf8');

/** Repeated fields that some message type leaves on the shared frozen empty array. */
function sharedEmptyFields(): string[] {
  const shared = new Set<string>();
  for (const [, type, field] of generated.matchAll(/(\w+)\.prototype\.(\w+) = \$util\.emptyArray;/g)) {
    // The fields a constructor always gives an own array come before the guard a shared decode skips.
    const always = generated.match(new RegExp(`function ${type}\\(properties\\) \\{([^}]*?)(?:if \\(properties|\\})`))?.[1] ?? '';
    if (!always.includes(`this.${field} = [];`)) shared.add(field as string);
  }
  return [...shared].sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('shared empty repeated fields', () => {
  const fields = sharedEmptyFields();

  it('are the per-node ones (attribute lists, tensor data, dims), not the graph lists passes extend', () => {
    expect(fields).toEqual(expect.arrayContaining(['attribute', 'dims', 'floats', 'ints', 'external_data', 'metadata_props']));
    expect(fields).not.toContain('node');
    expect(fields).not.toContain('initializer');
    expect(fields).not.toContain('input');
  });

  it('are never edited in place anywhere in src', () => {
    const names = fields.join('|');
    const inPlace = new RegExp(
      `\\.(?:${names})\\??\\.(?:push|splice|unshift|pop|shift|sort|reverse|fill|copyWithin)\\(|\\.(?:${names})\\.length\\s*=[^=]|\\.(?:${names})!?\\[[^\\]]+\\]\\s*=[^=>]`,
    );
    const offenders: string[] = [];
    for (const file of sourceFiles(path.join(root, 'src'))) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (inPlace.test(line)) offenders.push(`${path.relative(root, file)}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  const model = readFileSync(path.join(repoRoot, 'fixtures/transformer-block/model.onnx'));
  const bareNode = (decoded: onnx.ModelProto): onnx.NodeProto => {
    const node = decoded.graph?.node?.find((n) => !n.attribute?.length);
    if (!node) throw new Error('the fixture has no node without attributes');
    return node as onnx.NodeProto;
  };

  it('are shared and frozen only in a decode that asks for it, which encodes to the same bytes', () => {
    const shared = decodeModel(model, { sharedEmptyFields: true });
    const node = bareNode(shared);
    expect(Object.hasOwn(node, 'attribute')).toBe(false);
    expect(Object.isFrozen(node.attribute)).toBe(true);
    expect(Buffer.from(encodeModel(shared)).equals(model)).toBe(true);
  });

  it('are own, growable arrays in a default decode and in messages built with create()', () => {
    const node = bareNode(decodeModel(model));
    expect(Object.hasOwn(node, 'attribute')).toBe(true);
    node.attribute.push(onnx.AttributeProto.create({ name: 'added', type: onnx.AttributeProto.AttributeType.INT, i: 1 }));
    expect(node.attribute).toHaveLength(1);
    const built = onnx.NodeProto.create({ op_type: 'Relu' });
    built.attribute.push(onnx.AttributeProto.create({ name: 'added' }));
    const tensor = onnx.TensorProto.create({ name: 't' });
    tensor.float_data.push(2);
    expect([built.attribute.length, tensor.float_data.length]).toEqual([1, 1]);
  });
});

describe("the pass's Casts in a shared decode", () => {
  const model = readFileSync(path.join(repoRoot, 'fixtures/transformer-block/model.onnx'));
  const castsOf = (rewritten: onnx.IModelProto): onnx.INodeProto[] => (rewritten.graph?.node ?? []).filter((n) => n.op_type === 'Cast');

  it('share one frozen attribute list per target type, and encode to the bytes of a default decode', () => {
    const shared = ampRewrite(decodeModel(model, { sharedEmptyFields: true }), { inPlace: true }).model;
    const casts = castsOf(shared);
    const byType = new Map<number, onnx.IAttributeProto[]>();
    for (const cast of casts) {
      const to = Number(cast.attribute?.[0]?.i);
      byType.set(to, byType.get(to) ?? (cast.attribute as onnx.IAttributeProto[]));
      expect(cast.attribute).toBe(byType.get(to));
    }
    expect([...byType.keys()].sort()).toEqual([1, 10]);
    for (const list of byType.values()) expect([Object.isFrozen(list), Object.isFrozen(list[0])]).toEqual([true, true]);
    // A Cast's edges stay its own: cast planning and the commit rewire them.
    expect(new Set(casts.map((cast) => cast.input)).size).toBe(casts.length);

    const own = ampRewrite(decodeModel(model)).model;
    expect(castsOf(own).every((cast) => !Object.isFrozen(cast.attribute) && !Object.isFrozen(cast.attribute?.[0]))).toBe(true);
    expect(Buffer.from(encodeModel(shared)).equals(Buffer.from(encodeModel(own)))).toBe(true);
  });
});
