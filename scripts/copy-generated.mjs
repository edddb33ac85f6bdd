// tsc compiles only TypeScript; the generated protobuf codec is JavaScript with a .d.ts beside it.
import { cpSync, chmodSync } from 'node:fs';
cpSync('src/onnx/generated', 'dist/onnx/generated', { recursive: true });
chmodSync('dist/cli/main.js', 0o755);
