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
export { createTrainer, type Trainer, type TrainerOptions, type TrainerLayout, type StepResult, type NonFiniteReport } from './runtime/trainer.js';
export { splitInitialState, readInitialState, stateSidecarPath } from './passes/training/state-sidecar.js';
