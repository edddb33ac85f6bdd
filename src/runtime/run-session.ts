/** One inference run whose failure is a one-line typed error naming the model, not an exit 3. */
import type { InferenceSession } from 'onnxruntime-node';
import { AmpError } from '../onnx/errors.js';
import { printable } from '../onnx/printable.js';
import type { Feeds } from './inputs.js';

export async function runSession(session: InferenceSession, feeds: Feeds, model: string): Promise<InferenceSession.OnnxValueMapType> {
  try {
    return await session.run(feeds);
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    throw new AmpError('RUNTIME_FAILED', `${printable(model, 400)}: ONNX Runtime failed to run the model: ${printable(message, 600)}`, { subject: model, cause: error });
  }
}
