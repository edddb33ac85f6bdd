/** `amp-rewrite inspect <model.onnx>`: what a model holds and what the AMP pass would decide for it. */
import type { NodeAudit } from '../passes/amp.js';
import path from 'node:path';
import { statSync } from 'node:fs';
import { dataTypeName, DataType } from '../onnx/data-types.js';
import { AmpError } from '../onnx/errors.js';
import { longToNumber } from '../onnx/external-data.js';
import { loadCheckedModel } from '../onnx/load-checked.js';
import { forEachGraph, forEachTensor } from '../onnx/walk.js';
import { writeTextAtomically } from '../onnx/io-text.js';
import { renderTrainingSummary, rewriteModel } from '../passes/pipeline.js';
import { renderAuditJson, renderAuditMarkdown } from '../report/audit.js';
import { renderSummary } from '../report/summary.js';
import { renderLists } from './render-lists.js';
import { inputFilesOf, listWarnings, patternWarnings, rewriteOptionsFromArgs, trainingJson, type RewriteArgs } from './rewrite-command.js';
import { reportWarnings } from './warnings.js';
import { checkOutputs } from '../onnx/safe-write.js';
import { renderAuditHtml } from '../report/html/render-html.js';
import { compareText } from '../onnx/collation.js';

export function runInspect(args: RewriteArgs, print: (text: string) => void): number {
  for (const report of args.report) {
    if (!/\.(json|md|html)$/.test(report)) throw new AmpError('BAD_OPTION', `--report ${report}: the file name must end in .json, .md or .html`);
  }
  reportWarnings(listWarnings(args), Boolean(args.strict));
  // External weights are located and read only when the analysis asks (the float16 range check);
  // without their data file, inspect still describes the graph and says what it could not check.
  // The gate every model-reading command goes through (the types are the pass's to check): what ONNX
  // Runtime tolerates is repaired first, as the rewrite does, and said below.
  let loaded: ReturnType<typeof loadCheckedModel>;
  let missingData: string | undefined;
  try {
    loaded = loadCheckedModel(args.model, { allowNewerIr: args.allowNewerIr, allowExternalOutside: args.allowExternalOutside ?? false, types: false });
  } catch (error) {
    if (!(error instanceof AmpError) || !error.code.startsWith('EXTERNAL_DATA')) throw error;
    missingData = error.message;
    loaded = loadCheckedModel(args.model, { allowNewerIr: args.allowNewerIr, externalData: 'ignore', types: false });
  }
  const { model, repairs } = loaded;
  // A --report never replaces the model, its data, the --rules file, or another --report.
  checkOutputs(args.report.map((file) => ({ path: file, role: '--report' })), inputFilesOf(args, model));
  const lines: string[] = [];
  lines.push(`model: ${args.model} (${statSync(args.model).size} bytes)`);
  lines.push(`ir_version ${longToNumber(model.ir_version)}, producer ${model.producer_name || '?'} ${model.producer_version || ''}`.trimEnd());
  lines.push(`opsets: ${(model.opset_import ?? []).map((o) => `${o.domain || 'ai.onnx'} ${longToNumber(o.version)}`).join(', ')}`);
  for (const repair of repairs) lines.push(`repaired: ${repair}`);
  let graphs = 0;
  forEachGraph(model, () => void graphs++);
  const tensors = new Map<string, { count: number; elements: number }>();
  forEachTensor(model, (tensor) => {
    const type = dataTypeName(tensor.data_type ?? DataType.UNDEFINED);
    const entry = tensors.get(type) ?? { count: 0, elements: 0 };
    entry.count++;
    entry.elements += (tensor.dims ?? []).reduce<number>((a, d) => a * longToNumber(d), 1);
    tensors.set(type, entry);
  });
  lines.push(`graphs: ${graphs} (main graph and subgraphs)`);
  if (missingData) lines.push(`external data not available (${missingData}): weights not checked against float16's range`);
  lines.push(`stored tensors: ${[...tensors].map(([type, t]) => `${t.count} ${type} (${t.elements} values)`).join(', ') || 'none'}`);

  const { report: rewrite } = rewriteModel(model, { ...rewriteOptionsFromArgs(args), validate: false });
  const report = rewrite.amp;
  reportWarnings(patternWarnings(args, report), Boolean(args.strict));
  for (const file of args.report) {
    const text = file.endsWith('.html')
      ? renderAuditHtml(report, { title: path.basename(args.model), model })
      : file.endsWith('.md')
        ? renderAuditMarkdown(report, rewrite.training)
        : renderAuditJson(report, rewrite.training);
    writeTextAtomically(file, text);
  }
  const byOp = new Map<string, { count: number; list: string; colors: Map<string, number> }>();
  for (const node of report.nodes) {
    const op = node.domain ? `${node.domain}:${node.op}` : node.op;
    const entry = byOp.get(op) ?? { count: 0, list: node.list ?? '-', colors: new Map<string, number>() };
    entry.count++;
    const outcome = inspectOutcome(node);
    entry.colors.set(outcome, (entry.colors.get(outcome) ?? 0) + 1);
    byOp.set(op, entry);
  }
  if (args.quiet) return 0;
  if (args.json) {
    const json = {
      model: args.model,
      bytes: statSync(args.model).size,
      irVersion: longToNumber(model.ir_version),
      producer: { name: model.producer_name ?? '', version: model.producer_version ?? '' },
      opsets: (model.opset_import ?? []).map((o) => ({ domain: o.domain || 'ai.onnx', version: longToNumber(o.version) })),
      graphs,
      storedTensors: [...tensors].map(([type, t]) => ({ type, ...t })),
      ops: [...byOp].map(([op, e]) => ({ op, count: e.count, list: e.list, outcomes: Object.fromEntries(e.colors) })),
      summary: report.summary,
      ...(rewrite.training ? { training: trainingJson(rewrite.training) } : {}),
      ...(args.verbose ? { lists: report.lists } : {}),
    };
    print(`${JSON.stringify(json, null, 2)}\n`);
    return 0;
  }
  lines.push('', 'ops (count, list, what the pass would do):');
  const width = Math.max(4, ...[...byOp.keys()].map((op) => op.length));
  for (const [op, entry] of [...byOp].sort((a, b) => b[1].count - a[1].count || compareText(a[0], b[0]))) {
    const outcomes = [...entry.colors].map(([what, n]) => `${n} ${what}`).join(', ');
    lines.push(`  ${op.padEnd(width)} ${String(entry.count).padStart(5)}  ${entry.list.padEnd(5)}  ${outcomes}`);
  }
  print(`${lines.join('\n')}\n\n${renderSummary(report.summary)}${rewrite.training ? renderTrainingSummary(rewrite.training) : ''}`);
  if (args.verbose) print(renderLists(report.lists));
  return 0;
}

/**
 * What inspect says the pass would make of a node: 'low precision' when it converts it; otherwise
 * what the node computes in and why. A node of a model converted before computes in float16
 * already ("fp16 already (already-low-precision)"), not fp32; one without float data computes in neither.
 */
export function inspectOutcome(node: Pick<NodeAudit, 'color' | 'rule' | 'precision' | 'outputTypes' | 'inputTypes'>): string {
  if (node.color === 'ALLOW') return 'low precision';
  if (node.rule === 'already-low-precision') {
    const types = [...node.outputTypes, ...node.inputTypes];
    const low = types.includes('bf16') && !types.includes('f16') ? 'bf16' : 'fp16';
    return `${low} already (${node.rule})`;
  }
  if (node.precision === '-') return `no float data (${node.rule})`;
  return `fp32 (${node.rule})`;
}
