/** `amp-rewrite tune <model.onnx> -o <out.onnx>`: the list-based rewrite, plus the fewest fp32 pins that pass a tolerance. */
import { loadCheckedModel } from '../onnx/load-checked.js';
import { withProgress } from './progress.js';
import path from 'node:path';
import type { Argv } from 'yargs';
import { AmpError } from '../onnx/errors.js';
import { saveModel } from '../onnx/model-io.js';
import { checkOutputs, OutputBatch, yieldToSignals } from '../onnx/safe-write.js';
import { renderAuditJson, renderAuditMarkdown } from '../report/audit.js';
import { renderAuditHtml } from '../report/html/render-html.js';
import { requireNumber } from './numeric-options.js';
import { renderComparison } from './execute-commands.js';
import { ampOptionsFromArgs, inputFilesOf, parseDims, rewriteOptions, saveOptions, type RewriteArgs } from './rewrite-command.js';
import { providersOf, runtimeOptions, type RuntimeArgs } from './runtime-options.js';
import { inputBatches, modelAwareRandomInputs } from '../runtime/calibration.js';
import { DEFAULT_TOLERANCE, TOLERANCE_RULE } from '../runtime/compare.js';
import { defaultNumerics, parseNumerics } from '../runtime/numerics.js';
import { loadOrt } from '../runtime/ort.js';
import { looksLikeTrainingGraph } from '../passes/training/contract.js';
import { writeStderr } from './standard-streams.js';
import { METRICS, overridesFile, tune, type Metric, type TuneResult } from '../runtime/tune.js';

export interface TuneArgs extends RewriteArgs, RuntimeArgs {
  atol: number;
  rtol: number;
  metric: Metric;
  budgetSeconds?: number;
  overrides?: string;
  tuneReport?: string;
}

export function tuneOptions(yargs: Argv): Argv<TuneArgs> {
  return runtimeOptions(rewriteOptions(yargs, 'ONNX model to tune'))
    .option('output', { type: 'string', describe: 'where to write the tuned model (required; written only when it passes)' })
    // The rewrite declared its choices already: yargs would list a second copy of them.
    .option('numerics', { describe: 'emulate: run the candidates rounding every float16 value as a GPU does (the default on cpu); native: what ONNX Runtime computes' })
    .option('atol', { type: 'number', default: 1e-2, describe: 'absolute tolerance, as a fraction of the largest reference magnitude (cosine: 1 - atol is the least cosine)' })
    .option('rtol', { type: 'number', default: 1e-2, describe: 'relative tolerance per element (allclose)' })
    .option('metric', { choices: [...METRICS], default: 'allclose', describe: 'allclose: every element in tolerance; max-abs: the largest error within atol; cosine: cosine similarity' })
    .option('budget-seconds', { type: 'number', describe: 'stop searching after this long' })
    .option('overrides', { type: 'string', describe: 'where to write the --rules file that reproduces the result (default <out>.overrides.json)' })
    .option('tune-report', { type: 'string', describe: 'where to write the tune report, .json or .md (default <out>.tune.json)' })
    .epilogue(`Tolerance (allclose, atol-floor ${DEFAULT_TOLERANCE.atolFloor}): ${TOLERANCE_RULE}. The result holds for the inputs tuned on: pass real inputs with --inputs (files, a folder, or a folder of batch folders).\nExit codes: 0 tuned model written (at worst every node kept fp32, with a warning), 1 not even every node fp32 passes (nothing written), 2 bad input or options.`) as unknown as Argv<TuneArgs>;
}

const stem = (file: string): string => file.replace(/\.onnx$/i, '');

export function renderTune(result: TuneResult, holdsFor: string): string {
  const lines: string[] = [];
  const base = result.attempts[0];
  lines.push(`numerics: ${result.numerics}; tuned on ${holdsFor}`);
  lines.push(`list-based rewrite: ${base?.pass ? 'passes' : 'fails'} the tolerance (worst ${base?.worst.toExponential(3)})`);
  if (result.pinned.length) {
    lines.push(`kept fp32 (${result.pinned.length}):`);
    for (const p of result.pinned) lines.push(`  ${p.op} '${p.node}': ${p.evidence}`);
  }
  if (result.pass && result.pinned.length) {
    const { pinned, converted, everything } = result.extent;
    lines.push(everything ? `kept every node fp32: no smaller set of the ${converted} converted nodes passed` : `kept ${pinned} of the ${converted} converted nodes fp32`);
  }
  lines.push(
    `${result.pass ? 'PASS' : 'FAIL'}: ${result.attempts.length - 1} verification attempt(s), ${result.runs.instrumented} instrumented + ${result.runs.full} full runs, ${result.runs.sessions} sessions, ${result.wallSeconds.toFixed(2)} s${result.budgetExhausted ? ' (budget exhausted)' : ''}`,
  );
  lines.push(renderComparison(result.outputs).trimEnd());
  return `${lines.join('\n')}\n`;
}

export function renderTuneMarkdown(result: TuneResult, holdsFor: string): string {
  const out = ['# amp-rewrite tune', '', `- numerics: ${result.numerics}`, `- holds for: ${holdsFor}`, `- result: ${result.pass ? 'passes' : 'fails'} the tolerance`];
  out.push(`- runs: ${result.runs.instrumented} instrumented, ${result.runs.full} full, ${result.runs.sessions} sessions, ${result.wallSeconds.toFixed(2)} s`, '');
  out.push('## Kept fp32', '', '| node | op | evidence |', '|---|---|---|');
  for (const p of result.pinned) out.push(`| ${p.node} | ${p.op} | ${p.evidence.replace(/\|/g, '\\|')} |`);
  out.push('', '## Attempts', '', '| pinned | pass | worst |', '|---|---|---|');
  for (const a of result.attempts) out.push(`| ${a.pinned.length ? a.pinned.join(', ') : '(list-based rewrite)'} | ${a.pass} | ${a.worst.toExponential(3)} |`);
  out.push('', '## Ranking (top 20)', '', '| node | op | evidence |', '|---|---|---|');
  for (const e of result.ranking) out.push(`| ${e.node} | ${e.op} | ${e.evidence.replace(/\|/g, '\\|')} |`);
  return `${out.join('\n')}\n`;
}

export async function runTune(args: TuneArgs, print: (text: string) => void): Promise<number> {
  if (!args.output) throw new AmpError('BAD_OPTION', 'no output file: pass -o <out.onnx>');
  if (args.budgetSeconds !== undefined && !(args.budgetSeconds > 0)) throw new AmpError('BAD_OPTION', `--budget-seconds ${args.budgetSeconds}: expected a positive number`);
  requireNumber('atol', args.atol, { min: 0 });
  requireNumber('rtol', args.rtol, { min: 0 });
  requireNumber('calibration-batches', args.calibrationBatches, { min: 1, integer: true });
  if (!(requireNumber('input-scale', args.inputScale) > 0)) throw new AmpError('BAD_OPTION', `--input-scale ${args.inputScale}: expected a positive number`);
  const overrides = args.overrides ?? `${stem(args.output)}.overrides.json`;
  const reportFile = args.tuneReport ?? `${stem(args.output)}.tune.json`;
  if (!/\.(json|md)$/.test(reportFile)) throw new AmpError('BAD_OPTION', `--tune-report ${reportFile}: the file name must end in .json or .md`);
  for (const report of args.report) {
    if (!/\.(json|md|html)$/.test(report)) throw new AmpError('BAD_OPTION', `--report ${report}: the file name must end in .json, .md or .html`);
  }
  const save = saveOptions(args.externalData);
  const { model } = loadCheckedModel(args.model, { allowNewerIr: args.allowNewerIr, allowExternalOutside: args.allowExternalOutside ?? false });
  // tune runs the list-based pass alone: a training step would come out without its loss scaling and fp32 state guards.
  if (looksLikeTrainingGraph(model)) {
    throw new AmpError('BAD_OPTION', `${args.model} is a training step graph (an output X.next for an input X): tune checks inference outputs; rewrite it with amp-rewrite ${args.model} -o <out.onnx>`, { subject: args.model });
  }
  // Every output a file of its own, not an input (symlinks and hard links included): checked before anything runs or is written.
  const inputs = inputFilesOf(args, model);
  const texts = [
    { path: overrides, role: '--overrides' },
    { path: reportFile, role: '--tune-report' },
    ...args.report.map((file) => ({ path: file, role: '--report' })),
  ];
  checkOutputs([{ path: args.output, role: '-o' }, ...texts], inputs);
  const ort = await loadOrt();
  const notices: string[] = [];
  const batches = args.inputs.length
    ? inputBatches(ort, model, args.inputs)
    : Array.from({ length: args.calibrationBatches }, (_, i) =>
        modelAwareRandomInputs(ort, model, { dims: parseDims(args.dim), seed: args.seed + i, defaultDim: args.dimDefault, notices, scale: args.inputScale, distribution: args.inputDistribution }),
      );
  const holdsFor = args.inputs.length
    ? `the ${batches.length} batch(es) of --inputs ${args.inputs.join(' ')}`
    : `${batches.length} batch(es) of random inputs (seed ${args.seed}, ${args.inputDistribution} x${args.inputScale}); pass real inputs with --inputs`;
  const providers = providersOf(args);
  const numerics = parseNumerics(args.numerics) ?? defaultNumerics(providers[0] ?? 'cpu');
  const result = await withProgress('tune', args.quiet || Boolean(args.json), (onProgress) => tune(model, {
    onProgress,
    ampOptions: ampOptionsFromArgs(args),
    batches,
    providers,
    numerics,
    atol: args.atol,
    rtol: args.rtol,
    metric: args.metric,
    budgetSeconds: args.budgetSeconds,
  }));
  const { result: amp, ...rest } = result;
  const record = { holdsFor, ...rest, summary: amp.report.summary };
  if (args.json) print(`${JSON.stringify({ ...record, notices, written: result.pass ? [args.output, overrides, reportFile, ...args.report] : [] }, null, 2)}\n`);
  else if (!args.quiet) {
    for (const notice of notices) print(`notice: ${notice}\n`);
    print(renderTune(result, holdsFor));
  }
  if (result.pass && result.extent.everything) {
    // The promise kept, but nothing gained: say so where a pipeline's log shows it.
    writeStderr(`amp-rewrite: warning: tune: no set of fp32 nodes short of all ${result.extent.converted} converted nodes passed; the written model keeps every node float32 (nothing stays converted)\n`);
  }
  if (!result.pass) {
    throw new AmpError('VALIDATION_FAILED', `tune found no set of fp32 nodes that passes the tolerance${result.budgetExhausted ? ' within --budget-seconds' : ''}; nothing written`);
  }
  // Through the door (safe-write.ts): all staged, then committed together, the model last.
  const batch = new OutputBatch();
  try {
    batch.stage(overrides, '--overrides', Buffer.from(overridesFile(result, holdsFor), 'utf8'));
    batch.stage(reportFile, '--tune-report', Buffer.from(reportFile.endsWith('.md') ? renderTuneMarkdown(result, holdsFor) : `${JSON.stringify(record, null, 2)}\n`, 'utf8'));
    for (const file of args.report) {
      const text = file.endsWith('.html')
        ? renderAuditHtml(amp.report, { title: path.basename(args.model), model })
        : file.endsWith('.md')
          ? renderAuditMarkdown(amp.report)
          : renderAuditJson(amp.report);
      batch.stage(file, '--report', Buffer.from(text, 'utf8'));
    }
    saveModel(result.result.model, args.output, { ...save, protect: [...inputs, ...texts], batch });
    await yieldToSignals();
  } catch (error) {
    batch.abort();
    throw error;
  }
  batch.commit();
  if (!args.quiet && !args.json) print(`wrote ${args.output}, ${overrides} (reproduce with --rules ${overrides}), ${reportFile}\n`);
  return 0;
}
