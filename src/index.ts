/** amp-rewrite's public API: the ONNX codec, model files, the graph model, the AMP pass and its reports. */
export { decodeModel, encodeModel, onnx, SUPPORTED_IR_VERSION, type DecodeOptions } from './onnx/codec.js';
export { loadModel, saveModel, type LoadOptions, type SaveOptions, type NewDataFile } from './onnx/model-io.js';
export { AmpError, isAmpError, EXIT_CODES, type AmpErrorCode } from './onnx/errors.js';
export { tensorRawBytes, isExternal } from './onnx/external-data.js';
export { ModelGraph, GraphScope, type ValueUse, type ValueProducer, type Definition } from './onnx/graph.js';
export { schemaFor, schemaVersions, knownOpTypes, typesOf, type OpSchema, type FormalParameter } from './onnx/schema.js';
export { inferElemTypes, ElemTypes, type InferredType } from './onnx/type-inference.js';
export { opsetsOf } from './onnx/opsets.js';
export { DataType, dataTypeName, dataTypeCode } from './onnx/data-types.js';
export { cloneMessage } from './onnx/clone.js';
export { forEachGraph, forEachTensor } from './onnx/walk.js';
export { ampRewrite, ampPassInfo, type AmpOptions, type AmpReport, type AmpSummary, type AmpResult, type NodeAudit } from './passes/amp.js';
export { buildOpLists, readRulesFile, type ListChanges, type ListChangeLayer, type ListName } from './passes/amp/op-lists.js';
export { validateModel, type ValidationProblem } from './passes/validate.js';
export { renderSummary } from './report/summary.js';
export { renderAuditJson, renderAuditMarkdown } from './report/audit.js';
export { TARGETS, type Target, type TargetWarning } from './passes/amp/target-policy.js';
export { type TensorCoreLint, type LintFinding } from './passes/amp/tensor-core-lint.js';
export { rewriteModel, renderTrainingSummary, type RewriteOptions, type RewriteReport } from './passes/pipeline.js';
export { parseLossScale, DEFAULT_DYNAMIC_SCALE, type LossScale, type LossScalingReport } from './passes/loss-scaling.js';
export { runModel, compareModels, benchModel, type ModelSource, type InputOptions, type ExecuteOptions, type RunResult, type CompareResult, type CompareOptions, type BenchOptions, type BenchReport } from './api/execute.js';
export { compareWithExpected, type ExpectedOptions, type ExpectedReport } from './api/compare-expected.js';
export { comparePerNode, type PerNodeOptions, type PerNodeReport, type NodeComparison } from './api/compare-per-node.js';
export type { NumericsChoice } from './api/compare-options.js';
export type { Provider, TensorSummary, BenchResult, VariantResult, Numerics, Metric, NodeEvidence, TuneAttempt, TuneRuns, TrainerLayout, NonFiniteReport } from './api/types.js';
export type { OutputComparison } from './runtime/compare.js';
export { renderAuditHtml, type HtmlReportOptions } from './report/html/render-html.js';
export type { AuditEdge, AuditScope } from './passes/amp/audit-graph.js';
export { checkModel, type CheckOptions } from './onnx/check-model.js';
export { loadModelFile, type SaveResult } from './onnx/model-io.js';
export { printable } from './onnx/printable.js';
export { emulateNumerics, EMULATION_SCOPE, type EmulationReport, type EmulationResult } from './passes/emulate-numerics.js';
// calibrate, tune and the training loop through functions whose declarations name no ONNX Runtime
// type (runtime/calibration.ts, tune.ts and trainer.ts, which take ONNX Runtime tensors, stay internal).
export { calibrate, DEFAULT_HEADROOM, type CalibrateOptions, type Calibration, type CalibrationPin } from './api/calibrate.js';
export type { BatchOptions } from './api/batches.js';
export { tuneModel, METRICS, type TuneModelOptions, type TunedModel } from './api/tune.js';
export { createTrainer, tensorValues, type Trainer, type TrainerOptions, type StepResult, type TensorData, type TensorFeed, type TensorValues } from './api/trainer.js';
export { splitInitialState, readInitialState, stateSidecarPath } from './passes/training/state-sidecar.js';
export { purePrecision, type PureTarget } from './passes/pure-precision.js';
export { parseVariants, variantGraph, VARIANT_NAMES, type Variant, type VariantName } from './passes/training/variants.js';
// The chart reports: a training comparison (what `train --json` writes) and a bench record (bench --out) as self-contained HTML.
export { renderTrainingReport } from './report/training-report.js';
export { renderBenchReport, type BenchReportInput } from './report/bench-report.js';
export type { TrainingRecord, TrainingVariantResult, TrainResult, EpochResult, StepRecord } from './runtime/training-record.js';
export type { ProgressEvent, ProgressListener } from './runtime/activity.js';
