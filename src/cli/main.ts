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
import { printableLine, printableText } from '../onnx/printable.js';
import type { TrainArgs } from './train-command.js';
import { exampleOptions, runExample, type ExampleArgs } from './example-command.js';
import type { BenchArgs, CompareArgs, RunArgs } from './execute-commands.js';
import { rewriteOptions, runRewrite, type RewriteArgs } from './rewrite-command.js';
import { doctorOptions, runDoctor, type DoctorArgs } from './doctor-command.js';
import { checkOptionsApply, givenOptions, SHORT_ALIASES, unknownCommand, withoutNotApplicable } from './option-scope.js';
import { reportWarnings, unknownEnvironment } from './warnings.js';
import { setRuntimeVerbose } from '../runtime/ort.js';
import { reportOptions, runReport, type ReportArgs } from './report-command.js';
import { runTune, tuneOptions, type TuneArgs } from './tune-command.js';

// Commands other than the rewrite load their modules (ONNX Runtime, MNIST, training) only when run.
const inspectCommand = () => import('./inspect-command.js');
const trainCommand = () => import('./train-command.js');
const executeCommands = () => import('./execute-commands.js');

const INTERNAL_ERROR = 3;

await rerunWithLargerHeapIfNeeded();

// A reader that goes away (`amp-rewrite bench ... | head -2`) ends the command normally.
let stdoutClosed = false;
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  stdoutClosed = true;
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
});

/** Everything printed passes the escaping of model-supplied names: no terminal escapes reach the screen. */
function print(text: string): void {
  if (!stdoutClosed) process.stdout.write(printableText(text));
}

function fail(error: unknown): never {
  if (error instanceof AmpError) {
    process.stderr.write(`amp-rewrite: error [${error.code}]: ${printableLine(error.message)}\n`);
    process.exit(error.exitCode);
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`amp-rewrite: internal error: ${printableLine(message.split('\n')[0] ?? '')} (set AMP_REWRITE_DEBUG=1 for details; please report it)\n`);
  if (process.env.AMP_REWRITE_DEBUG) process.stderr.write(`${(error as Error)?.stack ?? ''}\n`);
  process.exit(INTERNAL_ERROR);
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The registered commands, read once before parsing (yargs keeps its command table behind an internal accessor). */
let knownCommands: string[] = [];
function commandNames(): string[] {
  return knownCommands;
}

/** yargs's "Unknown argument: mode" in terms of the command: `--mode is not an option of train`. */
function unknownOptionMessage(message: string): string {
  const unknown = /^Unknown arguments?: (.*)$/.exec(message);
  if (!unknown) return message;
  const first = hideBin(process.argv)[0];
  const command = first !== undefined && knownCommands.includes(first) ? first : 'the rewrite';
  const names = (unknown[1] as string).split(', ').map((name) => (name.length === 1 ? `-${name}` : /^[\w-]+$/.test(name) ? `--${name}` : name));
  return `${names.join(', ')} ${names.length > 1 ? 'are not options' : 'is not an option'} of ${command}`;
}

function run<A>(action: (args: A, print: (text: string) => void) => number | Promise<number>) {
  return async (args: unknown): Promise<void> => {
    try {
      const parsed = args as { _: unknown[]; strict?: boolean; verbose?: unknown; model?: unknown };
      const command = String(parsed._[0] ?? 'rewrite');
      if (command === 'rewrite' && typeof parsed.model === 'string') {
        const mistyped = unknownCommand(parsed.model, commandNames(), isFile);
        if (mistyped) throw mistyped;
      }
      checkOptionsApply(command, givenOptions(hideBin(process.argv), SHORT_ALIASES));
      setRuntimeVerbose(parsed.verbose === true);
      reportWarnings(unknownEnvironment(process.env), Boolean(parsed.strict));
      process.exitCode = await action(args as A, print);
    } catch (error) {
      fail(error);
    }
  };
}

const epilogue = `Exit codes: 0 success (including "nothing to convert"), 1 the rewritten model failed validation
(nothing written), compare or bench found outputs outside tolerance, or tune found no set of fp32 nodes that
passes, 2 bad input or options (an execution provider that cannot start included), 3 internal error.
Environment: AMP_REWRITE_ALLOWLIST_ADD / _REMOVE (and DENYLIST, INFERLIST, CLEARLIST) change the lists
like TensorFlow's TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_* variables.`;

const parser = yargs(hideBin(process.argv))
  .scriptName('amp-rewrite')
  .usage('$0 <model.onnx> -o <out.onnx> [options]\n\nAutomatic mixed precision for ONNX models: runs MatMul/Conv/Gemm and their neighbours in float16 or bfloat16, keeps softmax, normalisation, reductions and losses in float32, and inserts Casts only where precision changes.')
  .command('$0 <model>', 'rewrite a model to mixed precision and print the summary', rewriteOptions, run<RewriteArgs>(runRewrite))
  .command('inspect <model>', 'show ops, opsets and float tensors, and what the pass would decide', withoutNotApplicable('inspect', rewriteOptions), run<RewriteArgs>(async (a, p) => (await inspectCommand()).runInspect(a, p)))
  .command('run <model>', 'run a model once on ONNX Runtime and summarize its outputs', async (y) => (await executeCommands()).runOptions(y), run<RunArgs>(async (a, p) => (await executeCommands()).runRun(a, p)))
  .command('compare <reference> <candidate>', 'run two models on the same inputs and compare their outputs (exit 1 when outside tolerance)', async (y) => (await executeCommands()).compareOptions(y), run<CompareArgs>(async (a, p) => (await executeCommands()).runCompare(a, p)))
  .command('tune <model>', 'rewrite, then keep the fewest nodes fp32 that make the model pass a tolerance (emulated numerics on cpu)', withoutNotApplicable('tune', tuneOptions), run<TuneArgs>(runTune))
  .command('train <graph>', 'train a one-step training graph on MNIST, or compare fp32, amp and fp16 variants', async (y) => (await trainCommand()).trainOptions(y), run<TrainArgs>(async (a, p) => (await trainCommand()).runTrain(a, p)))
  .command('doctor', 'say which execution providers can start here, which CUDA/cuDNN libraries and GPUs were found, and what is missing', doctorOptions, run<DoctorArgs>(runDoctor))
  .command('report <audit>', 'draw an audit JSON (--report audit.json) as a self-contained HTML page', reportOptions, run<ReportArgs>(runReport))
  .command('example <kind>', "write one of the recipes' training-step graphs (the README's MNIST experiment)", exampleOptions, run<ExampleArgs>(runExample))
  .command('bench <model>', 'rewrite the model, then time fp32 and mixed precision side by side', withoutNotApplicable('bench', async (y) => (await executeCommands()).benchOptions(y)), run<BenchArgs>(async (a, p) => (await executeCommands()).runBench(a, p)))
  .example('$0 model.onnx -o model.amp.onnx', 'mixed float16, fp32 master weights')
  .example('$0 model.onnx -o model.amp.onnx --mode bf16 --report audit.md', 'mixed bfloat16 with a readable audit')
  .example('$0 model.onnx --dry-run --verbose', 'the summary and the effective lists, nothing written')
  .option('strict', { type: 'boolean', default: false, global: true, describe: 'treat warnings (a pattern or op that matches nothing, an unknown AMP_REWRITE_ variable) as errors' })
  .epilogue(epilogue)
  .strict()
  .help()
  .alias('h', 'help')
  .version()
  .wrap(Math.min(110, process.stdout.columns || 110))
  .fail((message, error) => {
    if (error) fail(error);
    const mistyped = /^Unknown argument/.test(message) ? unknownCommand(hideBin(process.argv)[0], commandNames(), isFile) : undefined;
    if (mistyped) fail(mistyped);
    // yargs writes some messages over two lines ("Invalid values:\n  Argument: ..."): errors are one line.
    const oneLine = unknownOptionMessage(message).replace(/:?\s*\n\s*/g, ': ');
    process.stderr.write(`amp-rewrite: error [BAD_OPTION]: ${oneLine} (see amp-rewrite --help)\n`);
    process.exit(EXIT_CODES.badInput);
  });
knownCommands = (parser as unknown as { getInternalMethods(): { getCommandInstance(): { getCommands(): string[] } } })
  .getInternalMethods()
  .getCommandInstance()
  .getCommands()
  .filter((name) => name !== '$0');
await parser.parseAsync();
