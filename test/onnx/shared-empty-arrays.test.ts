/**
 * Decoded per-node messages (NodeProto's attribute list, AttributeProto, TensorProto, ...) read an
 * empty repeated field from the prototype's shared frozen empty array instead of owning one (see
 * scripts/gen-proto.mjs; it saves 32 bytes per field per message). Code that extends such a field
 * in place would throw on a decoded message that had none: it must assign a new array instead
 * (`node.attribute = [...(node.attribute ?? []), added]`). This guard finds in-place edits in src.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const generated = readFileSync(path.join(root, 'src/onnx/generated/onnx.js'), 'utf8');

/** Repeated fields that some message type leaves on the shared frozen empty array. */
function sharedEmptyFields(): string[] {
  const shared = new Set<string>();
  for (const [, type, field] of generated.matchAll(/(\w+)\.prototype\.(\w+) = \$util\.emptyArray;/g)) {
    const constructor = generated.match(new RegExp(`function ${type}\\(properties\\) \\{([^}]*)`))?.[1] ?? '';
    if (!constructor.includes(`this.${field} = [];`)) shared.add(field as string);
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
});
