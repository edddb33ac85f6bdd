import { expect } from 'vitest';
import { AmpError } from '../../src/onnx/errors.js';

/** The AmpError that `run` throws; fails the test when it throws something else or nothing. */
export function errorOf(run: () => unknown): AmpError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AmpError);
    return error as AmpError;
  }
  throw new Error('expected an AmpError');
}
