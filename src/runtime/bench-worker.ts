/**
 * The child process of `bench --isolation process`: reads one framed job and the model's bytes on
 * stdin, times the variant alone in this process (isolated-bench.ts), and writes the framed
 * measurement, with the outputs when asked, to stdout. Its errors go back in the reply, not as exit codes.
 */
import { frame, measureVariant, unframe, VariantFailed, isOutOfMemory, type VariantJob } from './isolated-bench.js';

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
let reply: Buffer;
try {
  const { header, blobs } = unframe(Buffer.concat(chunks));
  const measurement = await measureVariant(header as unknown as VariantJob, blobs[0] as Buffer);
  const { outputs, ...rest } = measurement;
  const names = Object.keys(outputs ?? {});
  reply = frame({ ...rest, outputNames: names }, names.map((name) => (outputs as Record<string, Uint8Array>)[name] as Uint8Array));
} catch (error) {
  const message = (error as Error).message?.split('\n')[0] ?? String(error);
  reply = frame({ error: message, outOfMemory: error instanceof VariantFailed ? error.outOfMemory : isOutOfMemory(message) }, []);
}
process.stdout.write(reply, () => process.exit(0));
