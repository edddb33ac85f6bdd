/**
 * The device check run, bench and train make before running on the CUDA provider: the GPU's name
 * and compute capability (nvidia-smi, behind an injectable query so tests can fake a device), then
 * TensorFlow's mixed-precision rule: bfloat16 needs compute capability 8.0 (Ampere) or newer, and
 * float16 runs without Tensor Cores, so slowly, below 7.0 (Volta).
 */
import { execFileSync } from 'node:child_process';
import { AmpError } from '../onnx/errors.js';
import { DataType } from '../onnx/data-types.js';
import type { onnx } from '../onnx/generated/onnx.js';
import type { Provider } from './session.js';

export interface GpuInfo {
  name: string;
  /** e.g. 9.0 for an H100 */
  computeCapability: number;
}

/** Returns the GPUs in CUDA order, or null when they cannot be queried (no nvidia-smi). */
export type DeviceQuery = () => GpuInfo[] | null;

/** bfloat16 arithmetic (and bf16 Tensor Cores) arrived with Ampere, compute capability 8.0. */
export const BF16_MIN_CAPABILITY = 8.0;
/** Tensor Cores arrived with Volta, compute capability 7.0: older GPUs run float16 with no speed-up. */
export const FP16_TENSOR_CORE_CAPABILITY = 7.0;

/** Parses `nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader`: "NVIDIA H100 80GB HBM3, 9.0" per line. */
export function parseGpuList(text: string): GpuInfo[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const comma = line.lastIndexOf(',');
      const capability = Number(line.slice(comma + 1).trim());
      return { name: line.slice(0, comma).trim(), computeCapability: capability };
    })
    .filter((gpu) => gpu.name && Number.isFinite(gpu.computeCapability));
}

export const nvidiaSmiQuery: DeviceQuery = () => {
  try {
    const out = execFileSync('nvidia-smi', ['--query-gpu=name,compute_cap', '--format=csv,noheader'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
    return parseGpuList(out);
  } catch {
    return null;
  }
};

export type LowPrecision = 'float16' | 'bfloat16';

/** Which reduced float types a model computes in: from its Casts, initializers and declared values, subgraphs included. */
export function lowPrecisionTypesOf(model: onnx.IModelProto): Set<LowPrecision> {
  const found = new Set<LowPrecision>();
  const note = (type: number | null | undefined) => {
    if (type === DataType.FLOAT16) found.add('float16');
    if (type === DataType.BFLOAT16) found.add('bfloat16');
  };
  const visit = (graph: onnx.IGraphProto | null | undefined): void => {
    if (!graph) return;
    for (const tensor of graph.initializer ?? []) note(tensor.data_type);
    for (const info of [...(graph.input ?? []), ...(graph.output ?? []), ...(graph.value_info ?? [])]) note(info.type?.tensor_type?.elem_type);
    for (const node of graph.node ?? []) {
      for (const attribute of node.attribute ?? []) {
        if (node.op_type === 'Cast' && attribute.name === 'to') note(Number(attribute.i ?? 0));
        visit(attribute.g);
        for (const sub of attribute.graphs ?? []) visit(sub);
      }
    }
  };
  visit(model.graph);
  return found;
}

export interface DeviceCheck {
  device: GpuInfo | null;
  /** Lines to print: the device, and any warning. */
  notes: string[];
}

/**
 * Checks the GPU the CUDA provider will use (device 0) against the reduced types to be run.
 * Nothing to check when CUDA is not the first provider. Throws DEVICE_UNSUPPORTED for bfloat16
 * below compute capability 8.0.
 */
export function checkCudaDevice(providers: readonly Provider[], types: ReadonlySet<LowPrecision>, subject: string, query: DeviceQuery = nvidiaSmiQuery): DeviceCheck | undefined {
  if (providers[0] !== 'cuda') return undefined;
  const gpus = query();
  const device = gpus?.[0] ?? null;
  // With fallbacks (--ep auto), a machine without nvidia-smi is most likely one without a GPU: say nothing.
  if (!device) return providers.length > 1 ? undefined : { device, notes: ['device check: nvidia-smi gave no GPU; compute capability unknown, precision not checked'] };
  const notes = [`device: ${device.name}, compute capability ${device.computeCapability.toFixed(1)}`];
  const capability = device.computeCapability;
  if (types.has('bfloat16') && capability < BF16_MIN_CAPABILITY) {
    throw new AmpError(
      'DEVICE_UNSUPPORTED',
      `${subject} computes in bfloat16, which needs compute capability ${BF16_MIN_CAPABILITY.toFixed(1)} or newer; ${device.name} has ${capability.toFixed(1)} (rewrite with --mode fp16)`,
      { subject },
    );
  }
  if (types.has('float16') && capability < FP16_TENSOR_CORE_CAPABILITY) {
    notes.push(
      `warning: ${device.name} (compute capability ${capability.toFixed(1)}) has no Tensor Cores (they need ${FP16_TENSOR_CORE_CAPABILITY.toFixed(1)}): float16 will run, but expect little or no speed-up over float32`,
    );
  }
  return { device, notes };
}
