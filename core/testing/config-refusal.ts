/**
 * Test helper: runs `run`, asserts it throws PlatformError `invalid_config` (a boot refusal), and
 * returns the error so a test can check its first line names the variable and holds no value.
 */
import { expect } from 'vitest';
import { isPlatformError } from '../ports/platform-error.ts';

/** The refusal `run` throws. @throws Error when `run` does not throw */
export function configRefusal(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    expect(isPlatformError(error, 'invalid_config')).toBe(true);
    return error as Error;
  }
  throw new Error('expected a refusal');
}
