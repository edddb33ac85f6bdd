/** `amp-rewrite report audit.json -o audit.html`: the visual audit from a JSON audit written earlier. */
import path from 'node:path';
import type { Argv } from 'yargs';
import { AmpError } from '../onnx/errors.js';
import { readTextFile, writeTextAtomically } from '../onnx/io-text.js';
import { checkOutputs } from '../onnx/safe-write.js';
import type { AmpReport } from '../passes/amp.js';
import { renderAuditHtml } from '../report/html/render-html.js';
import { AUDIT_SHAPE, shapeProblem } from '../report/audit-shape.js';
import { printable } from '../onnx/printable.js';

export interface ReportArgs {
  audit: string;
  output: string;
  json?: boolean;
  quiet?: boolean;
}

export function reportOptions(yargs: Argv): Argv<ReportArgs> {
  return yargs
    .positional('audit', { type: 'string', describe: 'audit JSON written by --report audit.json', demandOption: true })
    .option('output', { alias: 'o', type: 'string', describe: 'the HTML file to write', demandOption: true })
    .option('json', { type: 'boolean', default: false, describe: 'print what was written as JSON' })
    .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'print nothing on success' }) as unknown as Argv<ReportArgs>;
}

function readAudit(file: string): AmpReport {
  const text = readTextFile(file, 'the audit');
  let audit: unknown;
  try {
    audit = JSON.parse(text);
  } catch (error) {
    throw new AmpError('NOT_AN_AUDIT', `${file}: not JSON (${(error as Error).message})`, { subject: file });
  }
  return checkAudit(audit, file);
}

/** The fields the page reads; an audit from before the graph fields were added names what is missing. */
export function checkAudit(audit: unknown, file: string): AmpReport {
  const report = audit as Partial<AmpReport> | null;
  if (!report || typeof report !== 'object' || report.pass !== 'amp' || !Array.isArray(report.nodes) || !report.summary || !report.lists) {
    throw new AmpError('NOT_AN_AUDIT', `${file}: not an amp-rewrite audit (write one with --report audit.json)`, { subject: file });
  }
  if (!Array.isArray(report.scopes)) {
    throw new AmpError('NOT_AN_AUDIT', `${file}: the audit has no graph data ('scopes'); write it again with this version's --report audit.json`, { subject: file });
  }
  for (const node of report.nodes) {
    if (node && typeof node === 'object' && typeof node.op === 'string' && typeof node.node === 'string' && !(Array.isArray(node.inputs) && Array.isArray(node.outputs) && Array.isArray(node.subgraphs))) {
      throw new AmpError('NOT_AN_AUDIT', `${printable(file)}: node ${printable(node.op)} '${printable(node.node)}' lacks its edges ('inputs', 'outputs', 'subgraphs'); write the audit again with this version`, { subject: file });
    }
  }
  // Every field the page reads, of the type it reads: a wrong one is named, never drawn broken.
  const problem = shapeProblem(report, AUDIT_SHAPE, '');
  if (problem) throw new AmpError('NOT_AN_AUDIT', `${printable(file)}: not an amp-rewrite audit: ${printable(problem, 300)}`, { subject: file });
  return report as AmpReport;
}

export function runReport(args: ReportArgs, print: (text: string) => void): number {
  if (!args.output.endsWith('.html')) throw new AmpError('BAD_OPTION', `-o ${args.output}: the report must be an .html file`);
  // Through a symlink or a hard link too: the page never replaces the audit it is drawn from.
  checkOutputs([{ path: args.output, role: '-o' }], [{ path: args.audit, role: 'the input audit' }]);
  const report = readAudit(args.audit);
  writeTextAtomically(args.output, renderAuditHtml(report, { title: path.basename(args.audit) }));
  if (args.json) print(`${JSON.stringify({ wrote: args.output, nodes: report.nodes.length }, null, 2)}\n`);
  else if (!args.quiet) print(`wrote ${args.output} (${report.nodes.length} nodes)\n`);
  return 0;
}
