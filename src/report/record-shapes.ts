/**
 * The shapes of the records the library's page renderers draw (renderTrainingReport: what
 * `train --json` writes; renderBenchReport: what `bench --out` writes). A record handed to the API
 * may come from anywhere (a JSON file, a user's own code): it is checked field by field before a
 * page is drawn, and the first field that does not fit is a typed error naming it. Every value the
 * pages print is escaped as well; the check is what keeps a number field from being a string.
 */
import { AmpError } from '../onnx/errors.js';
import { printable } from '../onnx/printable.js';
import { fields, list, nullable, optional, recordOf, shapeProblem, type Shape } from './audit-shape.js';

const STEP = fields({ step: 'number', epoch: 'number', loss: nullable('float'), lossScale: nullable('float'), skipped: 'boolean', ms: nullable('float') });
const EPOCH = fields({
  epoch: 'number',
  meanLoss: nullable('float'),
  testAccuracy: nullable('float'),
  msPerStep: nullable('float'),
  steps: 'number',
  skippedSteps: 'number',
  lossScale: nullable('float'),
});

export const TRAINING_RECORD_SHAPE: Shape = fields({
  graph: 'string',
  data: 'string',
  batch: 'number',
  lr: 'number',
  machine: 'string',
  date: 'string',
  results: list(
    fields({
      variant: 'string',
      scaled: optional('boolean'),
      failed: optional('string'),
      result: optional(
        fields({
          provider: 'string',
          epochs: list(EPOCH),
          history: list(STEP),
          firstNonFinite: optional(fields({ step: 'number', node: 'string', op: 'string', output: 'string' })),
        }),
      ),
    }),
  ),
});

export const BENCH_REPORT_SHAPE: Shape = fields({
  model: 'string',
  date: 'string',
  machine: 'string',
  provider: optional('string'),
  device: nullable(fields({ name: 'string', computeCapability: 'number' })),
  cpuOnly: 'boolean',
  method: 'string',
  target: 'string',
  batch: 'number',
  runs: 'number',
  warmup: 'number',
  variants: list(
    fields({
      label: 'string',
      provider: 'string',
      tf32: nullable('boolean'),
      medianMs: nullable('float'),
      p90Ms: nullable('float'),
      itemsPerSecond: nullable('float'),
      rssGrowthMiB: nullable('float'),
      gpuMemoryGrowthMiB: nullable('float'),
      timesMs: optional(list(nullable('float'))),
    }),
  ),
  accuracyByVariant: recordOf(list(fields({ name: 'string', maxAbsError: nullable('float'), maxRelError: nullable('float'), pass: 'boolean' }))),
  speedups: recordOf(nullable('float')),
  batchSearch: optional(
    recordOf(
      fields({
        largest: nullable('number'),
        reachedLimit: 'boolean',
        trials: list(fields({ batch: 'number', fits: 'boolean', itemsPerSecond: optional(nullable('float')) })),
      }),
    ),
  ),
});

/** Throws BAD_RECORD naming the first field of `record` that does not fit `shape`. */
export function requireRecordShape(record: unknown, shape: Shape, what: string): void {
  const problem = shapeProblem(record, shape, '');
  if (problem) throw new AmpError('BAD_RECORD', `${what}: ${printable(problem, 400)}`, { subject: problem.split(':')[0] ?? '' });
}
