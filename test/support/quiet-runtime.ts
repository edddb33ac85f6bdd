/**
 * Test set-up: ONNX Runtime logs only fatal errors, as the CLI does by default, so a passing run
 * prints none of its warnings or of the errors of sessions that tests expect to fail. Set on the
 * CommonJS copy of onnxruntime-common that onnxruntime-node reads when it starts, without loading
 * the native runtime into workers that never use it.
 */
import { createRequire } from 'node:module';

try {
  const require = createRequire(import.meta.url);
  const fromOrt = createRequire(require.resolve('onnxruntime-node'));
  (fromOrt('onnxruntime-common') as { env: { logLevel: string } }).env.logLevel = 'fatal';
} catch {
  // Without onnxruntime-node (an optional peer dependency) there is nothing to quiet.
}
