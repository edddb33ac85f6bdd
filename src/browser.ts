/**
 * amp-rewrite's browser entry (`amp-rewrite/browser`): the codec, the pass, the summary and the
 * audits from bytes to bytes, and the verification on an ONNX Runtime the caller hands it
 * (onnxruntime-web), with no Node module in its module graph (test/browser-entry.test.ts bundles it
 * for the browser and runs it where there is no Buffer, process or file system). What needs files
 * or processes (loading from paths, calibration, tune, training) is the Node entry's, `amp-rewrite`.
 */
export {
  rewriteBytes,
  rewriteAndVerifyBytes,
  type BytesRewriteOptions,
  type BytesRewrite,
  type BytesVerifier,
  type VerifiedBytesRewrite,
} from './api/rewrite-bytes.js';
export type { Verification } from './runtime/result-types.js';
/** protobuf's limit on one message: a larger model must keep its weights in external data (the command line). */
export { MAX_PROTOBUF_BYTES as MAX_MODEL_BYTES } from './onnx/byte-limits.js';
export { decodeModel, encodeModel, onnx, SUPPORTED_IR_VERSION, type DecodeOptions } from './onnx/codec.js';
export { AmpError, isAmpError, EXIT_CODES, type AmpErrorCode } from './onnx/errors.js';
export { embedExternalBytes } from './onnx/external-bytes.js';
export { ampRewrite, ampPassInfo, type AmpOptions, type AmpReport, type AmpSummary, type NodeAudit } from './passes/amp.js';
export { rewriteModel, renderTrainingSummary, type RewriteOptions, type RewriteReport } from './passes/pipeline.js';
export { buildOpLists, parseRulesText, LIST_NAMES, type ListChanges, type ListChangeLayer, type ListName } from './passes/amp/op-lists.js';
export { TARGETS, type Target } from './passes/amp/target-policy.js';
export { renderSummary } from './report/summary.js';
export { renderAuditJson, renderAuditMarkdown } from './report/audit.js';
export { renderAuditHtml, type HtmlReportOptions } from './report/html/render-html.js';
export { emulateNumerics, EMULATION_SCOPE, type EmulationReport, type EmulationResult } from './passes/emulate-numerics.js';
