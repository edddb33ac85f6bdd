/** `compare --per-node`: its options and its table, beside compare's per-output one. */
import type { Argv } from 'yargs';
import { AmpError } from '../onnx/errors.js';
import { printable } from '../onnx/printable.js';
import type { PerNodeResult } from '../runtime/per-node.js';
import { requireNumber } from './numeric-options.js';

export interface PerNodeArgs {
  perNode?: boolean;
  perNodeLimit: number;
}

export const DEFAULT_PER_NODE_LIMIT = 10;

export function perNodeOptions<T>(yargs: Argv<T>): Argv<T & PerNodeArgs> {
  return yargs
    .option('per-node', {
      type: 'boolean',
      default: false,
      describe: 'also run both models with every shared intermediate value exposed and list, in topological order, the first nodes whose outputs leave the tolerance: where the error starts',
    })
    .option('per-node-limit', { type: 'number', default: DEFAULT_PER_NODE_LIMIT, describe: 'how many failing nodes --per-node lists (the count of all is printed)' }) as unknown as Argv<T & PerNodeArgs>;
}

export function checkPerNodeArgs(args: PerNodeArgs & { expected?: string }): void {
  if (!args.perNode) return;
  requireNumber('per-node-limit', args.perNodeLimit, { integer: true, min: 1 });
  if (args.expected !== undefined) {
    throw new AmpError('BAD_OPTION', '--per-node needs two models to run: --expected holds only the outputs; compare the reference and the candidate instead');
  }
}

/** The JSON form: every figure of the first `limit` failing nodes, and how many fail in all. */
export function perNodeJson(result: PerNodeResult, limit: number): Record<string, unknown> {
  const origin = result.failing.find((n) => n.origin);
  return {
    provider: result.provider,
    numerics: result.numerics,
    nodesCompared: result.nodesCompared,
    valuesCompared: result.valuesCompared,
    failingCount: result.failing.length,
    firstOrigin: origin?.node ?? null,
    failing: result.failing.slice(0, limit),
  };
}

const figure = (value: number): string => (Number.isNaN(value) ? 'n/a' : value.toExponential(3));

export function renderPerNode(result: PerNodeResult, limit: number): string {
  const numerics = result.numerics === 'emulate' ? 'emulated' : 'native';
  const head = `per node (${numerics} numerics, ${result.provider}): ${result.nodesCompared} nodes compared over ${result.valuesCompared} shared values`;
  if (!result.failing.length) return `${head}; every node's outputs are within tolerance\n`;
  const shown = result.failing.slice(0, limit);
  const lines = [
    `${head}; ${result.failing.length} leave the tolerance${result.failing.length > shown.length ? `, the first ${shown.length}` : ''} in topological order:`,
    'node                      op                  output                      elements  max abs err  max rel err   outside  nan/inf ref  nan/inf new',
  ];
  for (const node of shown) {
    node.outputs.forEach((row, i) => {
      lines.push(
        [
          (i === 0 ? printable(node.node, 25) : '').padEnd(25).slice(0, 25),
          (i === 0 ? node.op : '').padEnd(19).slice(0, 19),
          printable(row.name, 27).padEnd(27).slice(0, 27),
          String(row.elements).padStart(9),
          figure(row.maxAbsError).padStart(12),
          figure(row.maxRelError).padStart(12),
          String(row.mismatched).padStart(9),
          `${row.referenceNaN}/${row.referenceInf}`.padStart(12),
          `${row.candidateNaN}/${row.candidateInf}`.padStart(12),
          i === 0 && node.origin ? '  <- starts here: its inputs are within tolerance' : '',
        ].join(' ').trimEnd(),
      );
    });
  }
  return `${lines.join('\n')}\n`;
}
