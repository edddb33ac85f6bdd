// Child process: opens each model file named on its standard input (one path a line; onnxruntime-node
// 1.29 crashed opening the first model when a few hundred paths came as arguments) in onnxruntime-node at its default
// session options (every graph optimization, the CPU provider) and prints one JSON line per model. Run
// apart from the test runner so that a crash inside ONNX Runtime ends this process, not the tests. The
// onnxruntime-node it imports is the one test/ resolves (CI links the newest release there).
import { readFileSync, writeSync } from 'node:fs';
import ort from 'onnxruntime-node';

// Written synchronously: a pipe's asynchronous writes are lost when ONNX Runtime crashes the process.
const say = (record) => writeSync(1, `${JSON.stringify(record)}\n`);

const files = readFileSync(0, 'utf8').split('\n').filter(Boolean);
for (const file of files) {
  say({ file, opening: true });
  try {
    const session = await ort.InferenceSession.create(file);
    await session.release();
    say({ file, loaded: true, version: ort.env.versions.node });
  } catch (error) {
    say({ file, loaded: false, error: String(error?.message ?? error).split('\n')[0] });
  }
}
