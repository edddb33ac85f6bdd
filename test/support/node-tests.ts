/** ONNX's operator conformance tests: a model plus test_data_set_N/{input,output}_K.pb. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { onnx } from '../../src/onnx/codec.js';
import { decodeTensorProto } from '../../src/runtime/tensors.js';

export interface TestDataSet {
  dir: string;
  inputs: onnx.TensorProto[];
  outputs: onnx.TensorProto[];
}

/** The data sets of a node test; undefined when one holds something other than a tensor (a sequence, an optional). */
export function readDataSets(testDir: string): TestDataSet[] | undefined {
  const sets: TestDataSet[] = [];
  for (const entry of readdirSync(testDir).filter((e) => e.startsWith('test_data_set_')).sort()) {
    const dir = path.join(testDir, entry);
    const read = (prefix: string): onnx.TensorProto[] | undefined => {
      const files: onnx.TensorProto[] = [];
      for (let i = 0; existsSync(path.join(dir, `${prefix}_${i}.pb`)); i++) {
        const file = path.join(dir, `${prefix}_${i}.pb`);
        const tensor = decodeTensorProto(readFileSync(file), file);
        if (!tensor.data_type) return undefined;
        files.push(tensor);
      }
      return files;
    };
    const inputs = read('input');
    const outputs = read('output');
    if (!inputs || !outputs) return undefined;
    sets.push({ dir, inputs, outputs });
  }
  return sets;
}
