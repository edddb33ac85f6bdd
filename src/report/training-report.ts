/**
 * `train --report train.html`: the seeds' experiment as curves. Per variant: the loss per step
 * (log scale where it spans decades), the loss scale with every skipped step marked, test accuracy
 * per epoch, the step times, where a variant died (its first non-finite value, named), and the
 * final table. Drawn from a TrainingRecord (what `train --json` writes), so the API and a saved
 * JSON give the same page.
 */
import type { TrainingRecord, TrainingVariantResult } from '../runtime/training-record.js';
import { distributionChart, lineChart, variantColors, type Mark, type Series } from './charts/svg.js';
import { escapeHtml, htmlTable, reportPage } from './report-page.js';
import { requireRecordShape, TRAINING_RECORD_SHAPE } from './record-shapes.js';

/** JSON writes NaN and Infinity as null: read back, a null loss is a non-finite one. */
const finiteOrNaN = (value: number | null | undefined): number => (typeof value === 'number' && Number.isFinite(value) ? value : NaN);

interface VariantCurves {
  label: string;
  run: TrainingVariantResult;
  /** Step of the first non-finite loss, if any. */
  diedAt: number | undefined;
}

function curvesOf(run: TrainingVariantResult): VariantCurves {
  const history = run.result?.history ?? [];
  const dead = history.find((s) => !Number.isFinite(finiteOrNaN(s.loss)) && !s.skipped);
  return { label: run.variant, run, diedAt: dead?.step };
}

function nonFiniteText(run: TrainingVariantResult): string | undefined {
  const where = run.result?.firstNonFinite;
  return where ? `first non-finite value at step ${where.step}: output '${where.output}' of ${where.op} node '${where.node}'` : undefined;
}

function lossSeries(curves: readonly VariantCurves[], colors: Map<string, string>): Series[] {
  return curves
    .filter((c) => c.run.result)
    .map((c) => {
      const history = c.run.result!.history;
      const marks: Mark[] = history.filter((s) => s.skipped).map((s) => ({ x: s.step, y: finiteOrNaN(s.loss), kind: 'skip', title: `${c.label}: step ${s.step} skipped (a gradient was not finite), loss scale ${s.lossScale ?? '-'}` }));
      if (c.diedAt !== undefined) marks.push({ x: c.diedAt, y: NaN, kind: 'nonfinite', title: `${c.label}: ${nonFiniteText(c.run) ?? `loss not finite from step ${c.diedAt}`}` });
      return {
        label: c.label,
        color: colors.get(c.label) as string,
        points: history.map((s) => [s.step, finiteOrNaN(s.loss)] as const),
        marks,
        ...(c.diedAt !== undefined ? { note: `loss NaN from step ${c.diedAt}` } : {}),
      };
    });
}

function lossScaleSeries(curves: readonly VariantCurves[], colors: Map<string, string>): Series[] {
  return curves
    .filter((c) => c.run.result?.history.some((s) => s.lossScale !== null))
    .map((c) => {
      const history = c.run.result!.history;
      const skipped = history.filter((s) => s.skipped);
      return {
        label: c.label,
        color: colors.get(c.label) as string,
        points: history.map((s) => [s.step, finiteOrNaN(s.lossScale)] as const),
        marks: skipped.map((s) => ({ x: s.step, y: finiteOrNaN(s.lossScale), kind: 'skip' as const, title: `${c.label}: step ${s.step} skipped at loss scale ${s.lossScale}` })),
        note: `${skipped.length} skipped`,
      };
    });
}

function accuracySeries(curves: readonly VariantCurves[], colors: Map<string, string>): Series[] {
  return curves
    .filter((c) => c.run.result)
    .map((c) => ({
      label: c.label,
      color: colors.get(c.label) as string,
      points: c.run.result!.epochs.map((e) => [e.epoch, 100 * finiteOrNaN(e.testAccuracy)] as const),
      dots: true,
    }));
}

function finalTable(record: TrainingRecord): string {
  const rows = record.results.map((run) => {
    const last = run.result?.epochs[run.result.epochs.length - 1];
    const scaling = run.scaled === undefined ? '-' : run.scaled ? 'dynamic' : 'none';
    if (!run.result || !last) return [run.variant, '-', scaling, { text: `could not run: ${run.failed ?? 'no epochs'}`, fail: true }, '', '', '', ''];
    const skipped = run.result.epochs.reduce((n, e) => n + e.skippedSteps, 0);
    const loss = finiteOrNaN(last.meanLoss);
    return [
      run.variant,
      run.result.provider,
      scaling,
      { text: Number.isFinite(loss) ? loss.toFixed(4) : 'NaN', fail: !Number.isFinite(loss) },
      `${(100 * finiteOrNaN(last.testAccuracy)).toFixed(2)}%`,
      finiteOrNaN(last.msPerStep).toFixed(2),
      String(skipped),
      String(last.lossScale ?? '-'),
    ];
  });
  return htmlTable(['variant', 'provider', 'loss scaling', 'final loss', 'test accuracy', 'ms/step', 'skipped', 'loss scale'], rows, 'final-table');
}

export function renderTrainingReport(record: TrainingRecord): string {
  requireRecordShape(record, TRAINING_RECORD_SHAPE, 'renderTrainingReport: the training record');
  const curves = record.results.map(curvesOf);
  const colors = variantColors(curves.map((c) => c.label));
  const providers = [...new Set(record.results.map((r) => r.result?.provider).filter(Boolean))];
  const parts: string[] = [
    `<p class="meta">graph ${escapeHtml(record.graph)} · data ${escapeHtml(record.data)} · batch ${escapeHtml(String(record.batch))} · learning rate ${escapeHtml(String(record.lr))}</p>`,
    `<p class="meta">${escapeHtml(record.machine)} · provider ${escapeHtml(providers.join(', ') || '-')} · ${escapeHtml(record.date)}</p>`,
  ];
  if (providers.includes('cpu')) {
    parts.push(
      `<p class="warning" id="numerics-note">Ran on ONNX Runtime's CPU provider: its float16 kernels compute in float32 internally, so the low-precision variants' curves show the rounding of stored values, not a GPU's float16 arithmetic. Step times here are not GPU evidence.</p>`,
    );
  }
  for (const run of record.results) {
    const text = nonFiniteText(run);
    if (text) parts.push(`<p class="failure">${escapeHtml(run.variant)}: ${escapeHtml(text)}</p>`);
    if (run.failed) parts.push(`<p class="failure">${escapeHtml(run.variant)}: could not run: ${escapeHtml(run.failed)}</p>`);
  }
  parts.push('<h2>Final</h2>', finalTable(record));
  parts.push('<h2>Loss per step</h2>', lineChart({ id: 'loss-chart', title: 'training loss', xLabel: 'step', yLabel: 'loss', series: lossSeries(curves, colors) }));
  const scales = lossScaleSeries(curves, colors);
  parts.push('<h2>Loss scale</h2>');
  parts.push(
    scales.length
      ? lineChart({ id: 'loss-scale-chart', title: 'dynamic loss scale (▲ a skipped step)', xLabel: 'step', yLabel: 'loss scale', series: scales, powersOfTwo: true })
      : '<p class="meta" id="loss-scale-none">No variant ran with dynamic loss scaling.</p>',
  );
  parts.push('<h2>Test accuracy per epoch</h2>', lineChart({ id: 'accuracy-chart', title: 'test accuracy', xLabel: 'epoch', yLabel: 'accuracy %', yScale: 'linear', integerX: true, minSpan: 5, yBounds: [0, 100], series: accuracySeries(curves, colors), height: 240 }));
  parts.push(
    '<h2>Step time</h2>',
    distributionChart({
      id: 'step-time-chart',
      title: 'time in ONNX Runtime per step',
      unit: 'ms',
      groups: curves.filter((c) => c.run.result).map((c) => ({ label: c.label, color: colors.get(c.label) as string, values: c.run.result!.history.map((s) => finiteOrNaN(s.ms)) })),
    }),
  );
  return reportPage(`amp-rewrite training: ${record.graph}`, parts.join('\n'));
}
