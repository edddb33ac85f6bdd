/**
 * The verification's worker process (verify-process.ts starts it): reads one framed job, and the
 * model's bytes when no path is given, on stdin; loads ONNX Runtime, verifies the rewrite
 * (verify.ts) and writes the framed verdict and figures to stdout. It says each stage on stderr,
 * so that a crash inside ONNX Runtime can be told apart by where it happened. A user's error (an
 * --inputs file that does not fit) comes back as `error` with its code, for the parent to raise.
 */
import { decodeModel } from '../onnx/codec.js';
import { isAmpError } from '../onnx/errors.js';
import { embedExternalData, loadModelFile } from '../onnx/model-io.js';
import { repairTolerated } from '../onnx/repair.js';
import { frame, unframe } from './framed.js';
import { loadOrt } from './ort.js';
import { ampOptionsOf, encodeRanges, NOT_INSTALLED, STAGE_PREFIX, type VerifyJob } from './verify-process.js';
import { verifyRewrite } from './verify.js';
import { inputBatches } from './input-folders.js';
import { openSession } from './session.js';

// A rewrite that ends early (Ctrl-C, a kill) leaves nothing running: this worker ends when its parent does.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(1);
}, 250).unref();

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
let reply: Buffer;
try {
  const { header, blobs } = unframe(Buffer.concat(chunks));
  const job = header as unknown as VerifyJob;
  const model = job.modelPath
    ? loadModelFile(job.modelPath, { allowNewerIr: job.allowNewerIr, allowExternalOutside: job.allowExternalOutside }).model
    : decodeModel(blobs[0] as Buffer, { allowNewerIr: job.allowNewerIr });
  // The runs hand ONNX Runtime the model as bytes (instrumented, rewritten), with its weights in them.
  if (job.modelPath) embedExternalData(model);
  // The rewrite repaired the same faults before its pass: the same model is verified.
  repairTolerated(model, { inPlace: true });
  let ort;
  try {
    ort = await loadOrt();
  } catch {
    ort = undefined;
  }
  if (!ort) {
    reply = frame({ verification: { status: 'not-verified', reason: NOT_INSTALLED }, ranges: [], limit: null }, []);
  } else {
    const result = await verifyRewrite(
      ort,
      model,
      {
        ampOptions: ampOptionsOf(job.amp, process.env),
        inputs: job.inputs,
        dims: new Map(job.dims),
        seed: job.seed,
        ...(job.scale !== undefined ? { scale: job.scale } : {}),
        ...(job.distribution ? { distribution: job.distribution } : {}),
        headroom: job.headroom,
        providers: job.providers,
        ...(job.numerics ? { numerics: job.numerics } : {}),
        tolerance: job.tolerance,
        maxRounds: job.maxRounds,
        open: openSession,
        readInputs: inputBatches,
      },
      (stage) => process.stderr.write(`${STAGE_PREFIX} ${stage}\n`),
    );
    reply = frame({ verification: result.verification, ranges: encodeRanges(result.ranges), limit: result.limit }, []);
  }
} catch (error) {
  const message = (error as Error).message?.split('\n')[0] ?? String(error);
  reply = frame({ error: message, ...(isAmpError(error) ? { code: error.code } : {}) }, []);
}
process.stdout.write(reply, () => process.exit(0));
