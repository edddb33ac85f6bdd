/**
 * A Node built-in module where the core runs in Node, read through process.getBuiltinModule (Node
 * 20.16 and later) so that the core imports no Node module and runs in a browser too; undefined
 * elsewhere.
 */
export function nodeBuiltin<T>(id: `node:${string}`): T | undefined {
  return (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(id) as T | undefined;
}
