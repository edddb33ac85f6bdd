/** `amp-rewrite doctor`: which execution providers this machine can start, and what is missing. */
import type { Argv } from 'yargs';
import { AmpError } from '../onnx/errors.js';
import { diagnose, installCudaProvider, locateRuntime, renderDoctor } from '../runtime/doctor.js';
import { ORT_MISSING } from '../runtime/ort.js';

export interface DoctorArgs {
  cudaProviderDir?: string;
  install: boolean;
  json: boolean;
}

export function doctorOptions(yargs: Argv): Argv<DoctorArgs> {
  return yargs
    .option('cuda-provider-dir', {
      type: 'string',
      describe: "a folder holding ONNX Runtime's CUDA provider libraries (default: $AMP_REWRITE_CUDA_PROVIDER_DIR)",
    })
    .option('install', { type: 'boolean', default: false, describe: "copy them beside onnxruntime-node's runtime, where ONNX Runtime loads providers from" })
    .option('json', { type: 'boolean', default: false, describe: 'print the report as JSON' }) as unknown as Argv<DoctorArgs>;
}

export async function runDoctor(args: DoctorArgs, print: (text: string) => void): Promise<number> {
  const providerDir = args.cudaProviderDir ?? process.env.AMP_REWRITE_CUDA_PROVIDER_DIR;
  const installed: string[] = [];
  if (args.install) {
    if (!providerDir) throw new AmpError('BAD_OPTION', '--install needs --cuda-provider-dir <folder> (or AMP_REWRITE_CUDA_PROVIDER_DIR)');
    const runtime = locateRuntime();
    if (!runtime.binaryDir) throw new AmpError('RUNTIME_UNAVAILABLE', ORT_MISSING);
    installed.push(...installCudaProvider(providerDir, runtime.binaryDir));
  }
  const report = await diagnose();
  if (args.json) {
    print(`${JSON.stringify({ ...report, ...(installed.length ? { installed } : {}) }, null, 2)}\n`);
  } else {
    if (installed.length) print(`installed: ${installed.join(', ')}\n`);
    print(renderDoctor(report));
  }
  return 0;
}
