/** The operator set versions a model imports, by domain. */
import type { onnx } from './generated/onnx.js';
import { longToNumber } from './external-data.js';

export type OpsetMap = ReadonlyMap<string, number>;

/** ONNX writes the default domain as '' or 'ai.onnx'; both mean the same set. */
export function normalizeDomain(domain: string | null | undefined): string {
  return !domain || domain === 'ai.onnx' ? '' : domain;
}

export function opsetsOf(model: onnx.IModelProto): OpsetMap {
  const opsets = new Map<string, number>();
  for (const entry of model.opset_import ?? []) opsets.set(normalizeDomain(entry.domain), longToNumber(entry.version));
  return opsets;
}
