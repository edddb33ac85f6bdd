/**
 * The conversion summary. Its first seven lines follow the summary NVIDIA's TensorFlow builds
 * print for Grappler's auto-mixed-precision pass; the lines after them are ours.
 */
import { printable } from '../onnx/printable.js';
import { renderLayerCasts } from '../passes/amp/casts-per-layer.js';
import type { AmpSummary } from '../passes/amp.js';
import { renderTargetLines, renderTensorCoreLines } from './target-summary.js';
import type { Verification } from '../runtime/result-types.js';
import { renderVerification } from './verification.js';

const percent = (part: number, whole: number): string => `${((100 * part) / whole).toFixed(1)}%`;

/** The pass's summary, with the verdict of the rewrite's verification when one ran (the command line adds it). */
export type VerifiedSummary = AmpSummary & { verification?: Verification };

export function renderSummary(summary: VerifiedSummary): string {
  const verdict = summary.verification ? renderVerification(summary.verification, summary.mode) : '';
  return renderPassSummary(summary) + verdict;
}

function renderPassSummary(summary: AmpSummary): string {
  const low = summary.mode === 'mixed_bfloat16' ? 'BF16' : 'FP16';
  const lines = [
    `Automatic Mixed Precision pass summary (${summary.mode}):`,
    `Total processable nodes: ${summary.processable}`,
    `Recognized nodes available for conversion: ${summary.recognized}`,
    `Total nodes converted: ${summary.converted}`,
    `Total ${low} Cast ops used (excluding Const and Variable casts): ${summary.targetCasts}`,
    `Allowlisted nodes converted: ${summary.allowConverted}`,
    `Denylisted nodes blocking conversion: ${summary.denyBlocking}`,
    `Nodes blocked from conversion by denylisted nodes: ${summary.blockedByDeny}`,
  ];
  const already = (summary.alreadyLowPrecision ?? []).map((a) => `${a.count} ${a.op} in ${a.type}`).join(', ');
  for (const repair of summary.repairs ?? []) lines.push(`Repaired: ${printable(repair, 400)}`);
  const kept = allowKeptText(summary);
  if (summary.nothingToConvert) {
    const written = summary.repairs?.length ? 'the model is written with only the repairs above' : 'the model is written unchanged';
    lines.push(
      already
        ? `Already mixed precision: ${already}; no float32 allow-list op left to convert, ${written}.`
        : kept
          ? `Allow-list ops found but none converted: ${kept}; nothing to convert, ${written}.`
          : `No allow-list ops found: nothing to convert, ${written}.`,
    );
    if (already && kept) lines.push(`Allow-list ops kept FP32: ${kept}`);
    lines.push(...unprocessedLines(summary));
    return `${lines.join('\n')}\n`;
  }
  if (kept) lines.push(`Allow-list ops kept FP32: ${kept}`);
  lines.push(...unprocessedLines(summary));
  if (already) lines.push(`Already in reduced precision before the pass: ${already}`);
  if (summary.kvCacheFp16) {
    lines.push(`KV cache stored in FP16: ${summary.kvCacheFp16.inputs.length} inputs, ${summary.kvCacheFp16.outputs.length} outputs (graph I/O retyped)`);
  }
  if (summary.ioTypes) lines.push(...renderIoTypesLines(summary.ioTypes, low));
  lines.push(`Weight casts to ${low} (Const and Variable casts): ${summary.weightCasts}`);
  lines.push(`Casts back to FP32 (graph outputs included): ${summary.fp32Casts}`);
  if (summary.castsRetargeted) lines.push(`Existing Casts now casting to ${low}: ${summary.castsRetargeted}`);
  if (summary.masksClamped?.length) {
    const first = summary.masksClamped[0] as { value: string; fill: string; cast: string };
    lines.push(
      `Mask fills clamped to ${low}'s lowest finite value (-65504) before entering ${low}: ${summary.masksClamped.length} (e.g. '${printable(first.value)}', from '${printable(first.fill)}', before '${printable(first.cast)}')`,
    );
  }
  if (summary.masksGuarded?.length) {
    const first = summary.masksGuarded[0] as { value: string; readers: string[] };
    lines.push(
      `Mask fills entering ${low} unclamped, before Softmaxes whose fully masked rows the model guards (IsNaN -> Where): ${summary.masksGuarded.length} (e.g. '${printable(first.value)}' into '${printable(first.readers[0] ?? '')}')`,
    );
  }
  if (summary.castsPerLayer) lines.push(renderLayerCasts({ layers: summary.castsPerLayer }));
  if (summary.castsFolded?.length) {
    const first = summary.castsFolded[0] as { cast: string; into: string; chain: string };
    lines.push(`Inserted Casts folded into the model's own Casts: ${summary.castsFolded.length} (e.g. '${printable(first.cast)}' into '${printable(first.into)}', ${first.chain})`);
  }
  if (summary.weightsConverted.length || summary.weightsKeptFp32.length) {
    lines.push(`Weights stored in ${low}: ${summary.weightsConverted.length}`);
    for (const kept of summary.weightsKeptFp32) lines.push(`  kept FP32: '${printable(kept.name)}' ${printable(kept.reason, 300)}`);
  }
  // Null when the caller asked for no figures: then there is no line, rather than a made-up n/a.
  if (summary.matrixFlops) {
    const { lowPrecision, total, unknownNodes, nodes, assumedOne } = summary.matrixFlops;
    const share = total > 0 ? `${percent(lowPrecision, total)} of ${formatFlops(total)}` : 'n/a';
    const unknown = unknownNodes ? `, shapes unknown for ${unknownNodes} of ${nodes} nodes` : '';
    const shown = (assumedOne ?? []).slice(0, 4).map((name) => `${printable(name, 60)}=1`);
    const more = (assumedOne?.length ?? 0) > 4 ? ` and ${(assumedOne?.length ?? 0) - 4} more` : '';
    const assumed = assumedOne?.length ? ` (at ${shown.join(', ')}${more}: give --dim name=size)` : unknownNodes ? ' (give --dim name=size)' : '';
    lines.push(`Matrix FLOPs in ${low} (MatMul, Gemm, Conv, Einsum): ${share}${unknown}${assumed}`);
  }
  if (summary.fp32Reasons.length) {
    lines.push('Top reasons nodes stayed FP32:');
    for (const reason of summary.fp32Reasons.slice(0, 5)) lines.push(`  ${reason.count} ${reason.rule} (e.g. ${printable(reason.example, 300)})`);
  }
  lines.push(...renderTensorCoreLines(summary), ...renderTargetLines(summary));
  return `${lines.join('\n')}\n`;
}

/** `3 (2 activation-out-of-range, e.g. MatMul 'mm': ...; 1 unknown-type, e.g. ...)`, or '' when none. */
function allowKeptText(summary: AmpSummary): string {
  const kept = summary.allowKept ?? [];
  if (!kept.length) return '';
  const total = kept.reduce((sum, k) => sum + k.count, 0);
  return `${total} (${kept.map((k) => `${k.count} ${k.rule}, e.g. ${printable(k.example, 300)}`).join('; ')})`;
}

/** The ops the pass could not process (no schema: custom and gradient ops), with their counts. */
function unprocessedLines(summary: AmpSummary): string[] {
  const ops = summary.unprocessedOps ?? [];
  if (!ops.length) return [];
  const shown = ops.slice(0, 10).map((o) => `${o.count} ${printable(o.op, 100)} (${o.rule})`);
  const more = ops.length > 10 ? `, and ${ops.length - 10} more op types (see the audit)` : '';
  return [`Ops left unprocessed: ${shown.join(', ')}${more}`];
}

/** --io-types: which graph inputs and outputs changed type, and each edge Cast that had to stay, with why. */
function renderIoTypesLines(io: NonNullable<AmpSummary['ioTypes']>, low: string): string[] {
  // One Cast per value, however many readers computing float32 share it.
  const kept = new Set(io.edgeCastsKept.map((edge) => `${edge.side}:${edge.value}`)).size;
  const lines = [
    `Graph inputs and outputs in ${low}: ${io.inputs.length} inputs, ${io.outputs.length} outputs (edge Casts removed: ${io.edgeCastsRemoved}, kept: ${kept})`,
  ];
  for (const edge of io.edgeCastsKept) {
    const where = edge.side === 'input' ? `input '${printable(edge.value)}' read by` : `output '${printable(edge.value)}' written by`;
    lines.push(`  kept: ${where} ${printable(edge.op)} '${printable(edge.node)}', which computes FP32 (${edge.rule})`);
  }
  return lines;
}

function formatFlops(flops: number): string {
  const units: Array<[number, string]> = [[1e12, 'TFLOP'], [1e9, 'GFLOP'], [1e6, 'MFLOP'], [1e3, 'kFLOP']];
  for (const [scale, unit] of units) if (flops >= scale) return `${(flops / scale).toFixed(2)} ${unit}`;
  return `${flops} FLOP`;
}
