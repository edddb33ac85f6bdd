// Turns a bundled ES module chunk into a script body that src/cli/code-cache.ts runs through V8's
// code cache, and the ES module left in the chunk's place: it runs the body and exports what the
// chunk exported, under the same names, so the chunks that import it are unchanged.
//
// The chunk may import Node builtins only (statically; `import()` of anything) and must export
// with one `export { local as name, ... }`, as rolldown writes a chunk. In the body:
//   import { a, b as c } from "node:x"    ->  const { a, b: c } = __ampRequire("node:x");
//   import x from "node:x" / * as x        ->  const x = __ampRequire("node:x");
//   import(specifier, options)             ->  __ampImport(specifier, options)   (the module's own import())
//   import.meta                            ->  __ampImportMeta          (the module's own import.meta)
//   export { local as name, ... }          ->  return { "name": local, ... };
// The exports are read once, when the body has run: an exported binding assigned after its
// declaration (an ES module's live binding) would go stale, so the build stops on one.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseAst } from 'rolldown/parseAst';

/**
 * Rewrites `chunkFile` in place into the module that runs `<chunk>.script.js`, and writes that body.
 * `parameters`: the body's parameter names for require, import() and import.meta, in that order.
 * Returns the body's path.
 */
export function splitScriptModule(chunkFile, parameters) {
  const [requireName, importName, metaName] = parameters;
  const source = readFileSync(chunkFile, 'utf8');
  const nonAscii = [...source].findIndex((char) => char.charCodeAt(0) > 0x7f);
  // parseAst's offsets are string offsets only where every character is one byte.
  if (nonAscii >= 0) fail(chunkFile, `a non-ASCII character (character ${nonAscii})`);
  for (const name of parameters) if (source.includes(name)) fail(chunkFile, `it already uses the name ${name}`);
  const ast = parseAst(source, { sourceType: 'module' });
  const edits = [];
  const exported = [];
  for (const statement of ast.body) {
    if (statement.type === 'ImportDeclaration') {
      edits.push([statement.start, statement.end, builtinRequire(chunkFile, statement, requireName)]);
    } else if (statement.type === 'ExportNamedDeclaration' && !statement.declaration && !statement.source) {
      for (const specifier of statement.specifiers) exported.push([specifier.local.name, specifier.exported.name ?? specifier.exported.value]);
      edits.push([statement.start, statement.end, '']);
    } else if (statement.type.startsWith('Export')) {
      fail(chunkFile, `${statement.type} at offset ${statement.start} (only one export { ... } list is supported)`);
    }
  }
  const exportedLocals = new Set(exported.map(([local]) => local));
  visit(ast, 0, (node, functionDepth) => {
    if (node.type === 'MetaProperty' && node.meta.name === 'import') edits.push([node.start, node.end, metaName]);
    else if (node.type === 'ImportExpression') edits.push([node.start, node.start + 'import'.length, importName]);
    // A function body cannot await at its top level as a module can.
    else if (functionDepth === 0 && (node.type === 'AwaitExpression' || (node.type === 'ForOfStatement' && node.await))) fail(chunkFile, `a top-level await at offset ${node.start}`);
    // Direct eval can assign any binding in scope, an exported one included, unseen by the check below.
    else if (node.type === 'CallExpression' && node.callee.type === 'Identifier' && node.callee.name === 'eval') fail(chunkFile, `a direct eval at offset ${node.start}`);
    for (const target of assignedNames(node)) {
      if (exportedLocals.has(target)) fail(chunkFile, `the exported binding ${target} is assigned after its declaration`);
    }
  });
  const returned = `return { ${exported.map(([local, name]) => `${JSON.stringify(name)}: ${local}`).join(', ')} };\n`;
  let body = source;
  for (const [start, end, text] of edits.sort((a, b) => b[0] - a[0])) body = body.slice(0, start) + text + body.slice(end);
  const bodyFile = chunkFile.replace(/\.js$/, '.script.js');
  writeFileSync(bodyFile, `${body.trimEnd()}\n${returned}`);

  // Each export read into a local of the facade's own naming and exported under its name as a
  // string: an export named like a reserved word (rolldown names them `in`, `do` once a chunk has
  // a hundred or so) or like the facade's own bindings is exported all the same.
  const facade = [
    `// The code of this chunk is ${path.basename(bodyFile)}, run through V8's code cache (code-cache.js; scripts/script-module.mjs wrote both).`,
    `import { runScriptModule } from "./code-cache.js";`,
    `const chunk = runScriptModule(new URL(${JSON.stringify(`./${path.basename(bodyFile)}`)}, import.meta.url), import.meta, (specifier, options) => import(specifier, options));`,
    ...exported.map(([, name], index) => `const export${index} = chunk[${JSON.stringify(name)}];`),
    `export { ${exported.map(([, name], index) => `export${index} as ${JSON.stringify(name)}`).join(', ')} };`,
    '',
  ].join('\n');
  writeFileSync(chunkFile, facade);
  return bodyFile;
}

function builtinRequire(chunkFile, declaration, requireName) {
  const from = declaration.source.value;
  if (!from.startsWith('node:')) fail(chunkFile, `it imports ${from} statically (only node: builtins can be)`);
  const call = `${requireName}(${JSON.stringify(from)})`;
  const named = [];
  const whole = [];
  for (const specifier of declaration.specifiers) {
    if (specifier.type === 'ImportSpecifier') {
      const imported = specifier.imported.name ?? specifier.imported.value;
      named.push(imported === specifier.local.name ? imported : `${JSON.stringify(imported)}: ${specifier.local.name}`);
    } else {
      // A builtin's default export and its namespace are both its exports object.
      whole.push(specifier.local.name);
    }
  }
  const lines = whole.map((local) => `const ${local} = ${call};`);
  if (named.length) lines.push(`const { ${named.join(', ')} } = ${call};`);
  return lines.length ? lines.join(' ') : `${call};`;
}

/** The identifiers a node assigns to: `x = ...`, `x += ...`, `x++`, `[x] = ...`, `for (x of ...)`. */
function assignedNames(node) {
  const target =
    node.type === 'AssignmentExpression' ? node.left
    : node.type === 'UpdateExpression' ? node.argument
    : (node.type === 'ForOfStatement' || node.type === 'ForInStatement') && node.left.type !== 'VariableDeclaration' ? node.left
    : undefined;
  const names = [];
  const collect = (pattern) => {
    if (!pattern) return;
    if (pattern.type === 'Identifier') names.push(pattern.name);
    else if (pattern.type === 'ArrayPattern') pattern.elements.forEach(collect);
    else if (pattern.type === 'ObjectPattern') pattern.properties.forEach((property) => collect(property.type === 'RestElement' ? property.argument : property.value));
    else if (pattern.type === 'AssignmentPattern') collect(pattern.left);
    else if (pattern.type === 'RestElement') collect(pattern.argument);
  };
  collect(target);
  return names;
}

const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** Calls enter(node, functionDepth) for every node, functionDepth counting the functions around it. */
function visit(node, functionDepth, enter) {
  if (Array.isArray(node)) {
    for (const item of node) visit(item, functionDepth, enter);
    return;
  }
  if (!node || typeof node.type !== 'string') return;
  enter(node, functionDepth);
  const depth = FUNCTIONS.has(node.type) ? functionDepth + 1 : functionDepth;
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (value && typeof value === 'object') visit(value, depth, enter);
  }
}

function fail(chunkFile, why) {
  throw new Error(`script-module: ${path.basename(chunkFile)} cannot run from the code cache: ${why}`);
}
