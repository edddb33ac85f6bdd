import type { InferenceSession } from 'onnxruntime-node';

/**
 * How the verification (verify.ts) and tune open their sessions: the model as written, without
 * ONNX Runtime's graph optimizations. Each op computes what its ONNX definition says (the
 * emulation's rounding Casts are ops of their own), so a model instrumented with every value
 * exposed gives exactly the outputs of the model itself (fused, it would not: fusion differs when
 * intermediates are outputs, and a detector's TopK or score threshold can flip on that), and a big
 * graph's session opens several times faster (12k-node transformer: float32 0.41 s instead of
 * 2.2 s, its float16 rewrite 1.9 s instead of 4.6 s). What this does not see is a crash of one of
 * ONNX Runtime's optimizers at the default level (onnxruntime-releases.md): `compare` opens both
 * models at the default level.
 */
export const AS_WRITTEN: InferenceSession.SessionOptions = { graphOptimizationLevel: 'disabled' };
