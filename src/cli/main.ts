#!/usr/bin/env node
/**
 * The amp-rewrite command line: a thin shell over the library. It parses arguments, calls the
 * API, renders, and maps errors to the documented exit codes (README, "Exit codes").
 */
import { statSync } from 'node:fs';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { rerunWithLargerHeapIfNeeded } from './large-heap.js';
import { AmpError, EXIT_CODES } from '../onnx/errors.js';
import type { TrainArgs } from './train-command.js';
import type { BenchArgs, CompareArgs, RunArgs } from './execute-commands.js';
import { rewriteOptions, runRewrite, type RewriteArgs } from './rewrite-command.js';

// Commands other than the rewrite load their modules (ONNX Runtime, MNIST, training) only when run.
const inspectCommand = () => import('./inspect-command.js');
const trainCommand = () => import('./train-command.js');
const executeCommands = () => import('./execute-commands.js');

const INTERNAL_ERROR = 3;

await rerunWithLargerHeapIfNeeded();

function print(text: string): void {
  process.stdout.write(text);
}

function fail(error: unknown): never {
  if (error instanceof AmpError) {
    process.stderr.write(`amp-rewrite: error [${error.code}]: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`amp-rewrite: internal error: ${message.split('\n')[0]} (set AMP_REWRITE_DEBUG=1 for details; please report it)\n`);
  if (process.env.AMP_REWRITE_DEBUG) process.stderr.write(`${(error as Error)?.stack ?? ''}\n`);
  process.exit(INTERNAL_ERROR);
}

function run<A>(action: (args: A, print: (text: string) => void) => number | Promise<number>) {
  return async (args: unknown): Promise<void> => {
    try {
      process.exitCode = await action(args as A, print);
    } catch (error) {
      fail(error);
    }
  };
}

const epilogue = `Exit codes: 0 success (including "nothing to convert"), 1 the rewritten model failed validation
(nothing written) or compare found outputs outside tolerance, 2 bad input or options (an execution provider
that cannot start included), 3 internal error.
Environment: AMP_REWRITE_ALLOWLIST_ADD / _REMOVE (and DENYLIST, INFERLIST, CLEARLIST) change the lists
like TensorFlow's TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_* variables.`;

await yargs(hideBin(process.argv))
  .scriptName('amp-rewrite')
  .usage('$0 <model.onnx> -o <out.onnx> [options]\n\nAutomatic mixed precision for ONNX models: runs MatMul/Conv/Gemm and their neighbours in float16 or bfloat16, keeps softmax, normalisation, reductions and losses in float32, and inserts Casts only where precision changes.')
  .command('$0 <model>', 'rewrite a model to mixed precision and print the summary', rewriteOptions, run<RewriteArgs>(runRewrite))
  .command('inspect <model>', 'show ops, opsets and float tensors, and what the pass would decide', rewriteOptions, run<RewriteArgs>(async (a, p) => (await inspectCommand()).runInspect(a, p)))
  .command('run <model>', 'run a model once on ONNX Runtime and summarize its outputs', async (y) => (await executeCommands()).runOptions(y), run<RunArgs>(async (a, p) => (await executeCommands()).runRun(a, p)))
  .command('compare <reference> <candidate>', 'run two models on the same inputs and compare their outputs (exit 1 when outside tolerance)', async (y) => (await executeCommands()).compareOptions(y), run<CompareArgs>(async (a, p) => (await executeCommands()).runCompare(a, p)))
  .command('train <graph>', 'train a one-step training graph on MNIST, or compare fp32, amp and fp16 variants', async (y) => (await trainCommand()).trainOptions(y), run<TrainArgs>(async (a, p) => (await trainCommand()).runTrain(a, p)))
  .command('bench <model>', 'rewrite the model, then time fp32 and mixed precision side by side', async (y) => (await executeCommands()).benchOptions(y), run<BenchArgs>(async (a, p) => (await executeCommands()).runBench(a, p)))
  .example('$0 model.onnx -o model.amp.onnx', 'mixed float16, fp32 master weights')
  .example('$0 model.onnx -o model.amp.onnx --mode bf16 --report audit.md', 'mixed bfloat16 with a readable audit')
  .example('$0 model.onnx --dry-run --verbose', 'the summary and the effective lists, nothing written')
  .epilogue(epilogue)
  .strict()
  .help()
  .alias('h', 'help')
  .version()
  .wrap(Math.min(110, process.stdout.columns || 110))
  .fail((message, error) => {
    if (error) fail(error);
    process.stderr.write(`amp-rewrite: error [BAD_OPTION]: ${message} (see amp-rewrite --help)\n`);
    process.exit(EXIT_CODES.badInput);
  })
  .parseAsync();
