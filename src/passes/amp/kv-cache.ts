/**
 * A decoder's key-value cache at the graph boundary. By default the pass keeps every graph input
 * and output in its declared type, the cache included. With `kvCache: 'fp16'` the cache inputs
 * and outputs are declared float16 instead (half the cache memory, which dominates a decoder's
 * memory at long context), and the graph is rewired so the types stay consistent: a Cast the
 * pass had put right behind a cache input, or right before a cache output, is dropped, and where
 * a reader or producer computes in another type one Cast is added.
 *
 * Cache values are recognised from rules/kv-cache.json: inputs that feed an attention op's
 * past_key/past_value (or past) formal, outputs written by its present formals, and names in the
 * exporters' conventions.
 */
import { boundedRegex } from './bounded-regex.js';
import { DataType } from '../../onnx/data-types.js';
import { AmpError } from '../../onnx/errors.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import type { ModelGraph } from '../../onnx/graph.js';
import { opsetsOf } from '../../onnx/opsets.js';
import { typeVariableOfInput, typeVariableOfOutput } from '../../onnx/schema.js';
import { schemaOf } from '../../onnx/type-inference.js';
import { retypeBoundary } from './io-types.js';
import { ruleFile } from '../../rules/rule-files.js';

interface KvRules {
  formalInputs: string[];
  formalOutputs: string[];
  inputPatterns: string[];
  outputPatterns: string[];
}

let rules: KvRules | undefined;
function kvRules(): KvRules {
  rules ??= ruleFile<KvRules>('kv-cache.json');
  return rules;
}

export interface KvCacheValues {
  inputs: string[];
  outputs: string[];
  /** Cache inputs and outputs already declared float16 (a model converted before): nothing to do for them. */
  alreadyFloat16: number;
}

/** The float32 graph inputs and outputs of the main graph that hold the key-value cache. */
export function findKvCache(graph: ModelGraph, model: onnx.IModelProto): KvCacheValues {
  const { formalInputs, formalOutputs, inputPatterns, outputPatterns } = kvRules();
  const inputRegexes = inputPatterns.map((p) => boundedRegex(p, '', 'rules/kv-cache.json inputPatterns'));
  const outputRegexes = outputPatterns.map((p) => boundedRegex(p, '', 'rules/kv-cache.json outputPatterns'));
  const opsets = opsetsOf(model);
  const scope = graph.main;
  const elemType = (info: onnx.IValueInfoProto | undefined) => info?.type?.tensor_type?.elem_type;
  const inputs = new Set<string>();
  const outputs = new Set<string>();
  let alreadyFloat16 = 0;
  const note = (set: Set<string>, name: string, info: onnx.IValueInfoProto) => {
    if (elemType(info) === DataType.FLOAT) set.add(name);
    else if (elemType(info) === DataType.FLOAT16) alreadyFloat16++;
  };
  for (const [name, info] of scope.inputs) {
    const type = elemType(info);
    if ((type !== DataType.FLOAT && type !== DataType.FLOAT16) || scope.initializers.has(name)) continue;
    const byName = inputRegexes.some((r) => r.test(name));
    const byFormal = scope.consumersOf(name).some((use) => {
      const schema = use.index >= 0 ? schemaOf(use.node, opsets) : undefined;
      return schema !== undefined && formalInputs.includes(typeVariableOfInput(schema, use.index)?.name ?? '');
    });
    if (byName || byFormal) note(inputs, name, info);
  }
  for (const [name, info] of scope.outputs) {
    const type = elemType(info);
    if (type !== DataType.FLOAT && type !== DataType.FLOAT16) continue;
    const producer = scope.producerOf(name);
    const schema = producer ? schemaOf(producer.node, opsets) : undefined;
    const byFormal = schema !== undefined && producer !== undefined && formalOutputs.includes(typeVariableOfOutput(schema, producer.index)?.name ?? '');
    if (byFormal || outputRegexes.some((r) => r.test(name))) note(outputs, name, info);
  }
  return { inputs: [...inputs], outputs: [...outputs], alreadyFloat16 };
}

/**
 * Declares the cache float16 on a rewritten model and rewires it (see the file comment; the
 * rewiring is io-types.ts's, for the cache values only). Returns the number of Casts added and removed.
 */
export function storeKvCacheInFloat16(
  graph: ModelGraph,
  model: onnx.IModelProto,
  cache: KvCacheValues,
  counts: { castsToTarget: number; castsToFloat32: number },
): { castsRemoved: number; castsAdded: number } {
  const { castsRemoved, castsAdded } = retypeBoundary(graph, model, cache, DataType.FLOAT16, counts, '--kv-cache fp16');
  return { castsRemoved, castsAdded };
}

/** Throws when the model has no cache at all; a cache already in float16 is fine (nothing to do). */
export function requireKvCache(cache: KvCacheValues): void {
  if (cache.inputs.length || cache.outputs.length || cache.alreadyFloat16) return;
  const { inputPatterns, outputPatterns, formalInputs } = kvRules();
  throw new AmpError(
    'BAD_OPTION',
    `--kv-cache fp16: the model has no float32 key-value cache input or output (looked for inputs feeding ${formalInputs.join('/')} or named like ${inputPatterns.join(', ')}, outputs named like ${outputPatterns.join(', ')})`,
  );
}
