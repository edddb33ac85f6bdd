/**
 * The full command line, parsed by yargs: every command, --help, --version and the messages for
 * a bad command line. Each command's module (and its option builder) is loaded only when that
 * command runs or shows its help, so a command pays for no other command's modules.
 */
import yargs, { type Argv } from 'yargs';
import { EXIT_CODES } from '../onnx/errors.js';
import type { BenchArgs, CompareArgs, RunArgs } from './execute-commands.js';
import type { DoctorArgs } from './doctor-command.js';
import type { ExampleArgs } from './example-command.js';
import type { MakeTrainingArgs } from './make-training-command.js';
import type { ReportArgs } from './report-command.js';
import type { TrainArgs } from './train-command.js';
import type { TuneArgs } from './tune-command.js';
import { commandHandler, COMMAND_NAMES, fail, isFile, STRICT_OPTION, type CommandAction } from './command-runner.js';
import { valuesRequired, withoutNotApplicable, unknownCommand } from './option-scope.js';
import { rewriteOptions, runRewrite, type RewriteArgs } from './rewrite-command.js';

const inspectCommand = () => import('./inspect-command.js');
const trainCommand = () => import('./train-command.js');
const executeCommands = () => import('./execute-commands.js');
const tuneCommand = () => import('./tune-command.js');
const doctorCommand = () => import('./doctor-command.js');
const reportCommand = () => import('./report-command.js');
const exampleCommand = () => import('./example-command.js');
const makeTrainingCommand = () => import('./make-training-command.js');

export interface CommandLineHooks {
  /** The yargs handler of a command: the CLI's runs the shared checks, then the action. */
  handler<A>(command: string, action: CommandAction<A>): (args: unknown) => Promise<void>;
  /** A command line yargs rejects: the CLI prints one line and exits 2. */
  fail(message: string, error: Error | undefined): void;
}

const epilogue = `Exit codes: 0 success (including "nothing to convert"), 1 the rewritten model failed validation
(nothing written), compare or bench found outputs outside tolerance, or tune found no set of fp32 nodes that
passes, 2 bad input or options (an execution provider that cannot start included), 3 internal error.
Environment: AMP_REWRITE_ALLOWLIST_ADD / _REMOVE (and DENYLIST, INFERLIST, CLEARLIST) change the lists
like TensorFlow's TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_* variables.
Every command also takes --strict (warnings are errors), --version and -h/--help.`;

/** The parser of `tokens` (the command line without node and the script), not yet run. */
export function commandLineParser(tokens: readonly string[], hooks: CommandLineHooks): Argv {
  const { handler } = hooks;
  return yargs([...tokens])
    .scriptName('amp-rewrite')
    .usage('$0 <model.onnx> -o <out.onnx> [options]\n\nAutomatic mixed precision for ONNX models: runs MatMul/Conv/Gemm and their neighbours in float16 or bfloat16, keeps softmax, normalisation, reductions and losses in float32, and inserts Casts only where precision changes.')
    .command('$0 <model>', 'rewrite a model to mixed precision and print the summary', valuesRequired(rewriteOptions), handler<RewriteArgs>('rewrite', runRewrite))
    .command('inspect <model>', 'show ops, opsets and float tensors, and what the pass would decide', valuesRequired(withoutNotApplicable('inspect', (y) => rewriteOptions(y, 'ONNX model to inspect'))), handler<RewriteArgs>('inspect', async (a, p) => (await inspectCommand()).runInspect(a, p)))
    .command('run <model>', 'run a model once on ONNX Runtime and summarize its outputs', valuesRequired(async (y) => (await executeCommands()).runOptions(y)), handler<RunArgs>('run', async (a, p) => (await executeCommands()).runRun(a, p)))
    .command('compare <reference> [candidate]', 'run two models on the same inputs and compare their outputs, or one model against saved outputs with --expected (exit 1 when outside tolerance)', valuesRequired(async (y) => (await executeCommands()).compareOptions(y)), handler<CompareArgs>('compare', async (a, p) => (await executeCommands()).runCompare(a, p)))
    .command('tune <model>', 'rewrite, then keep the fewest nodes fp32 that make the model pass a tolerance (emulated numerics on cpu)', valuesRequired(withoutNotApplicable('tune', async (y) => (await tuneCommand()).tuneOptions(y))), handler<TuneArgs>('tune', async (a, p) => (await tuneCommand()).runTune(a, p)))
    .command('train <graph>', 'train a one-step training graph on MNIST, or compare fp32, amp and fp16 variants', valuesRequired(async (y) => (await trainCommand()).trainOptions(y), ['json']), handler<TrainArgs>('train', async (a, p) => (await trainCommand()).runTrain(a, p)))
    .command('doctor', 'say which execution providers can start here, which CUDA/cuDNN libraries and GPUs were found, and what is missing', valuesRequired(async (y) => (await doctorCommand()).doctorOptions(y)), handler<DoctorArgs>('doctor', async (a, p) => (await doctorCommand()).runDoctor(a, p)))
    .command('report <audit>', 'draw an audit JSON (--report audit.json) as a self-contained HTML page', valuesRequired(async (y) => (await reportCommand()).reportOptions(y)), handler<ReportArgs>('report', async (a, p) => (await reportCommand()).runReport(a, p)))
    .command('example <kind>', "write one of the recipes' training-step graphs (the MNIST experiment of docs/training.md)", valuesRequired(async (y) => (await exampleCommand()).exampleOptions(y)), handler<ExampleArgs>('example', async (a, p) => (await exampleCommand()).runExample(a, p)))
    .command('bench <model>', 'rewrite the model, then time fp32 and mixed precision side by side', valuesRequired(withoutNotApplicable('bench', async (y) => (await executeCommands()).benchOptions(y))), handler<BenchArgs>('bench', async (a, p) => (await executeCommands()).runBench(a, p)))
    .command('make-training <model>', 'make a one-step training graph from a forward model: loss, backward pass and optimizer in standard ONNX ops', valuesRequired(async (y) => (await makeTrainingCommand()).makeTrainingOptions(y)), handler<MakeTrainingArgs>('make-training', async (a, p) => (await makeTrainingCommand()).runMakeTraining(a, p)))
    .example('$0 model.onnx -o model.amp.onnx', 'mixed float16, fp32 master weights')
    .example('$0 model.onnx -o model.amp.onnx --mode bf16 --report audit.md', 'mixed bfloat16 with a readable audit')
    .example('$0 model.onnx --dry-run --verbose', 'the summary and the effective lists, nothing written')
    .option('strict', STRICT_OPTION)
    .epilogue(epilogue)
    .strict()
    .help()
    .alias('h', 'help')
    .version()
    // The options every command shares are named once, at the end of each help, not ahead of the
    // command's own (yargs lists global options first).
    .hide('strict')
    .hide('version')
    .wrap(Math.min(110, process.stdout.columns || 110))
    .fail((message, error) => hooks.fail(message, error));
}

/** The commands a parser registered, besides the default one (yargs keeps its table behind an internal accessor). */
export function registeredCommands(parser: Argv): string[] {
  return (parser as unknown as { getInternalMethods(): { getCommandInstance(): { getCommands(): string[] } } })
    .getInternalMethods()
    .getCommandInstance()
    .getCommands()
    .filter((name) => name !== '$0');
}

/** An option as typed: `o` → `-o`, `weights` → `--weights`. */
function flagName(name: string): string {
  return name.length === 1 ? `-${name}` : /^[\w-]+$/.test(name) ? `--${name}` : name;
}

/** yargs's "Unknown argument: mode" in terms of the command: `--mode is not an option of train`. */
function unknownOptionMessage(message: string, tokens: readonly string[]): string {
  const valueless = /^Not enough arguments following: (.+)$/.exec(message);
  if (valueless) return `${flagName(valueless[1] as string)} needs a value`;
  const unknown = /^Unknown arguments?: (.*)$/.exec(message);
  if (!unknown) return message;
  const first = tokens[0];
  const command = first !== undefined && COMMAND_NAMES.includes(first) ? first : 'the rewrite';
  const names = (unknown[1] as string).split(', ').map(flagName);
  return `${names.join(', ')} ${names.length > 1 ? 'are not options' : 'is not an option'} of ${command}`;
}

/** The usage line of the rewrite, as --help opens with it. */
const REWRITE_USAGE = 'amp-rewrite <model.onnx> -o <out.onnx> [options]';

/**
 * What the user probably meant, for the yargs messages that say only what went wrong: no arguments
 * at all (the usage line), a second path given to the rewrite (a forgotten -o), a value outside
 * an option's choices (our one line instead of yargs's "Invalid values: Argument: ...").
 * Undefined when the message is not one of these.
 */
export function likelyMeaning(message: string, tokens: readonly string[]): string | undefined {
  const first = tokens[0];
  const command = first !== undefined && COMMAND_NAMES.includes(first) ? first : undefined;
  if (/^Not enough non-option arguments: got 0/.test(message)) {
    return command
      ? `amp-rewrite ${command} needs its positional argument (amp-rewrite ${command} --help shows its usage)`
      : `no model given; usage: ${REWRITE_USAGE} (amp-rewrite --help lists every command and option)`;
  }
  const unknown = /^Unknown arguments?: (.*)$/.exec(message);
  if (unknown && !command) {
    const names = (unknown[1] as string).split(', ');
    const extra = names.find((name) => tokens.includes(name) && !name.startsWith('-'));
    const outputGiven = tokens.some((t) => t === '-o' || t === '--output' || t.startsWith('--output=') || t.startsWith('-o='));
    if (extra !== undefined && !outputGiven) return `the rewrite takes one model, and '${extra}' is a second path: did you mean -o ${extra}?`;
  }
  const invalid = /^Invalid values:\s*Argument: ([\w-]+), Given: ("(?:[^"\\]|\\.)*"|\S+), Choices: (.*)$/m.exec(message);
  if (invalid) {
    const choices = (invalid[3] as string).split(/,\s*/).map((c) => c.replace(/^"|"$/g, '')).join(', ');
    const given = (invalid[2] as string).replace(/^"|"$/g, '');
    const name = invalid[1] as string;
    // A positional is named by what the user typed where it stands (`example foo`), not by an option they never typed.
    const positional = command && !tokens.some((t) => t === `--${name}` || t.startsWith(`--${name}=`));
    if (positional) return `amp-rewrite ${command} ${given}: '${given}' is not one of ${choices}`;
    return `${flagName(name)} must be one of ${choices} (got '${given}')`;
  }
  // yargs's "Missing required argument: output": the option as the user would type it, and what it is for.
  const missing = /^Missing required arguments?: (.*)$/.exec(message);
  if (missing) {
    const names = (missing[1] as string).split(/,\s*/);
    const flags = names.map((name) => (name === 'output' ? '-o <file>' : flagName(name)));
    return `${command ? `amp-rewrite ${command}` : 'amp-rewrite'} needs ${flags.join(' and ')}${names.includes('output') ? ': where to write its result' : ''} (amp-rewrite ${command ?? ''} --help shows its usage)`.replace('  --help', ' --help');
  }
  return undefined;
}

/**
 * A short option glued to its value (`-oout.onnx`) as its own two tokens (`-o out.onnx`), as
 * getopt reads it; yargs would read the letters as a cluster of flags (-o -u -t ...). Only for -o,
 * the one short option that takes a value; tokens after `--` are left alone.
 */
export function splitGluedOutput(tokens: readonly string[]): string[] {
  const end = tokens.indexOf('--');
  return tokens.flatMap((token, at) => (end >= 0 && at > end) || !/^-o[^=\s-]/.test(token) ? [token] : ['-o', token.slice(2)]);
}

/** Parses `tokens` and runs the command they name. */
export async function runCommandLine(given: readonly string[]): Promise<void> {
  const tokens = splitGluedOutput(given);
  const failOnCommandLine = (message: string, error?: Error): never => {
    if (error) fail(error);
    const mistyped = /^Unknown argument/.test(message) ? unknownCommand(tokens[0], COMMAND_NAMES, isFile) : undefined;
    if (mistyped) fail(mistyped);
    const meant = likelyMeaning(message, tokens);
    if (meant) {
      process.stderr.write(`amp-rewrite: error [BAD_OPTION]: ${meant}\n`);
      return process.exit(EXIT_CODES.badInput);
    }
    // yargs writes some messages over two lines ("Invalid values:\n  Argument: ..."): errors are one line.
    const oneLine = unknownOptionMessage(message, tokens).replace(/:?\s*\n\s*/g, ': ');
    process.stderr.write(`amp-rewrite: error [BAD_OPTION]: ${oneLine} (see amp-rewrite --help)\n`);
    return process.exit(EXIT_CODES.badInput);
  };
  const parser = commandLineParser(tokens, {
    handler: (_command, action) => commandHandler(tokens, action),
    fail: (message, error) => failOnCommandLine(message, error),
  });
  try {
    await parser.parseAsync();
  } catch (error) {
    // With a command's builder async, yargs throws its parse errors ("Not enough arguments
    // following: weights") instead of handing them to fail(): they are the user's mistakes all the same.
    if (error instanceof Error && error.name === 'YError') failOnCommandLine(error.message);
    throw error;
  }
}
