// Child process: opens each model file named on the command line in onnxruntime-node at its default
// session options (every graph optimization, the CPU provider) and prints one JSON line per model. Run
// apart from the test runner so that a crash inside ONNX Runtime ends this process, not the tests. The
// onnxruntime-node it imports is the one test/ resolves (CI links the newest release there).
import ort from 'onnxruntime-node';

for (const file of process.argv.slice(2)) {
  process.stdout.write(`${JSON.stringify({ file, opening: true })}\n`);
  try {
    const session = await ort.InferenceSession.create(file);
    await session.release();
    process.stdout.write(`${JSON.stringify({ file, loaded: true, version: ort.env.versions.node })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ file, loaded: false, error: String(error?.message ?? error).split('\n')[0] })}\n`);
  }
}
