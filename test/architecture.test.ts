/**
 * The layers of src/ depend one way: cli -> api -> runtime, report -> passes -> builder -> onnx
 * (report may read runtime's record types; runtime never imports report). A lower layer that
 * imports a higher one makes a cycle between layers: the public declarations drag in what they
 * must not (api/types.ts and runtime/tune.ts once imported each other), and a pass starts to
 * depend on the API that wraps it (passes/ once took its option checks from api/). This reads
 * every import of every module under src/ (static, `import type`, `export ... from`, dynamic
 * `import('...')` and `import('...')` types) and fails on any that goes up.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/corpus.js';

const srcDir = path.join(repoRoot, 'src');

/** Each layer (a folder of src/) and the other layers it may import. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  // The rule tables (rules/*.json embedded at build time), read by every layer.
  rules: [],
  onnx: ['rules'],
  builder: ['onnx', 'rules'],
  passes: ['onnx', 'builder', 'rules'],
  runtime: ['onnx', 'builder', 'passes', 'rules'],
  report: ['onnx', 'builder', 'passes', 'runtime', 'rules'],
  api: ['onnx', 'builder', 'passes', 'runtime', 'report', 'rules'],
  cli: ['onnx', 'builder', 'passes', 'runtime', 'report', 'api', 'rules'],
  // The web page (page and Worker scripts), a front end like the CLI, without the runtime: it runs in a browser.
  web: ['onnx', 'builder', 'passes', 'report', 'api', 'rules'],
  // src/index.ts and src/browser.ts, the package's entries: everything but the CLI.
  '': ['onnx', 'builder', 'passes', 'runtime', 'report', 'api', 'rules'],
};

/**
 * Imports that go against MAY_IMPORT on purpose, each with the reason. An entry nothing uses any
 * more fails the test, so the list only shrinks.
 */
const ALLOWED: ReadonlyArray<{ from: string; to: string; why: string }> = [
  {
    from: 'src/builder/fixtures.ts',
    to: 'src/passes/pipeline.ts',
    why: 'the golden fixture catalog pairs each model with the rewrite options it is run with (a type-only import); only tests and scripts/update-fixtures.mjs read it, nothing under src/',
  },
];

/** Every module specifier a TypeScript source names, wherever it names one. */
function importSpecifiers(fileName: string, text: string): { specifiers: string[]; unchecked: string[] } {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  const unchecked: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) specifiers.push(argument.text);
      else unchecked.push(node.getText(source));
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      specifiers.push(node.argument.literal.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      specifiers.push(node.moduleReference.expression.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { specifiers, unchecked };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The layer of a file under src/: its first folder, or '' for a module at the root of src/. */
function layerOf(file: string): string {
  const parts = path.relative(srcDir, file).split(path.sep);
  return parts.length > 1 ? (parts[0] as string) : '';
}

const relative = (file: string): string => path.relative(repoRoot, file).split(path.sep).join('/');

interface Import {
  from: string;
  to: string;
  specifier: string;
}

/** Every import between two files under src/ (the importing file and the module it names, as .ts). */
function importsUnderSrc(): { imports: Import[]; unchecked: string[]; outside: string[] } {
  const imports: Import[] = [];
  const unchecked: string[] = [];
  const outside: string[] = [];
  for (const file of sourceFiles(srcDir)) {
    const found = importSpecifiers(file, readFileSync(file, 'utf8'));
    unchecked.push(...found.unchecked.map((call) => `${relative(file)}: ${call}`));
    for (const specifier of found.specifiers.filter((s) => s.startsWith('.'))) {
      const target = path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts');
      if (path.relative(srcDir, target).startsWith('..')) outside.push(`${relative(file)} -> ${specifier}`);
      else imports.push({ from: file, to: target, specifier });
    }
  }
  return { imports, unchecked, outside };
}

/** The imports that go up a layer, as "from -> specifier" lines, less the allowed ones (and which of those were used). */
function upwardImports(imports: readonly Import[]): { violations: string[]; allowedUsed: Set<string> } {
  const violations: string[] = [];
  const allowedUsed = new Set<string>();
  for (const { from, to, specifier } of imports) {
    const fromLayer = layerOf(from);
    const toLayer = layerOf(to);
    if (fromLayer === toLayer || MAY_IMPORT[fromLayer]?.includes(toLayer)) continue;
    const allowed = ALLOWED.find((entry) => entry.from === relative(from) && entry.to === relative(to));
    if (allowed) allowedUsed.add(`${allowed.from} -> ${allowed.to}`);
    else violations.push(`${relative(from)} (${fromLayer || 'src root'}) imports '${specifier}' (${toLayer || 'src root'})`);
  }
  return { violations, allowedUsed };
}

describe('the layers of src/', () => {
  const { imports, unchecked, outside } = importsUnderSrc();

  it('every file under src/ is in a known layer', () => {
    const layers = new Set(Object.keys(MAY_IMPORT));
    const unknown = sourceFiles(srcDir).filter((file) => !layers.has(layerOf(file)) || (layerOf(file) === '' && !['index.ts', 'browser.ts'].includes(path.basename(file))));
    expect(unknown.map(relative)).toEqual([]);
  });

  it('no module imports a layer above its own', () => {
    expect(imports.length).toBeGreaterThan(500);
    expect(upwardImports(imports).violations).toEqual([]);
  });

  it('every allowed exception is still in use (the list only shrinks)', () => {
    const { allowedUsed } = upwardImports(imports);
    expect(ALLOWED.map((entry) => `${entry.from} -> ${entry.to}`).filter((entry) => !allowedUsed.has(entry))).toEqual([]);
  });

  it('every import names a module under src/ or a package, as a literal the check can read', () => {
    expect(outside).toEqual([]);
    expect(unchecked).toEqual([]);
  });

  it('the check sees each way of importing, and an import going up', () => {
    const text = [
      "import { a } from '../api/a.js';",
      "import type { B } from '../api/b.js';",
      "export { c } from '../cli/c.js';",
      "export type * from '../report/d.js';",
      "const e = await import('../runtime/e.js');",
      "type F = typeof import('../runtime/f.js');",
      "const g = await import(name);",
      "import h from 'node:path'; // import('../not/a/comment.js')",
      "const s = \"import('../not/a/string.js')\";",
    ].join('\n');
    const found = importSpecifiers('sample.ts', text);
    expect(found.specifiers).toEqual(['../api/a.js', '../api/b.js', '../cli/c.js', '../report/d.js', '../runtime/e.js', '../runtime/f.js', 'node:path']);
    expect(found.unchecked).toEqual(['import(name)']);
    const pass = path.join(srcDir, 'passes/sample.ts');
    const upward = upwardImports([
      { from: pass, to: path.join(srcDir, 'api/types.ts'), specifier: '../api/types.js' },
      { from: pass, to: path.join(srcDir, 'onnx/graph.ts'), specifier: '../onnx/graph.js' },
      { from: path.join(srcDir, 'runtime/sample.ts'), to: path.join(srcDir, 'report/summary.ts'), specifier: '../report/summary.js' },
    ]);
    expect(upward.violations).toEqual([
      "src/passes/sample.ts (passes) imports '../api/types.js' (api)",
      "src/runtime/sample.ts (runtime) imports '../report/summary.js' (report)",
    ]);
  });
});
