/**
 * Object key rules shared by the filesystem object store and the in-memory fake: `/`-separated
 * segments, none empty, `.` or `..`, no leading slash, no backslash or NUL.
 *
 * Source: core/ports/object-store.ts (keys are `/`-separated paths without a leading slash).
 */
import { PlatformError } from '../../ports/platform-error.ts';

/** Prefix of the temporary files the filesystem store writes before renaming; no key segment may start with it. */
export const TEMP_FILE_PREFIX = '.~tmp-';

/**
 * The segments of `key`.
 * @throws PlatformError `invalid_key` (status 400) for an empty key, a leading `/`, an empty, `.` or
 *   `..` segment, a backslash or NUL, or a segment starting with {@link TEMP_FILE_PREFIX}
 */
export function objectKeySegments(key: string): string[] {
  if (key.length === 0) throw invalidKey(key, 'it is empty');
  if (key.includes('\\') || key.includes('\0')) throw invalidKey(key, 'it holds a backslash or NUL');
  if (key.startsWith('/')) throw invalidKey(key, 'it starts with /');
  const segments = key.split('/');
  for (const segment of segments) {
    if (segment.length === 0) throw invalidKey(key, 'it has an empty segment');
    if (segment === '.' || segment === '..') throw invalidKey(key, 'it has a . or .. segment');
    if (segment.startsWith(TEMP_FILE_PREFIX)) throw invalidKey(key, `a segment starts with ${TEMP_FILE_PREFIX}`);
  }
  return segments;
}

/** PlatformError `invalid_key` for `key`. */
export function invalidKey(key: string, reason: string): PlatformError {
  return new PlatformError('invalid_key', `The object key ${JSON.stringify(key)} is not valid: ${reason}.`, {
    status: 400,
  });
}

/** PlatformError `key_conflict`: `key` would be both an object and the folder of another object. */
export function keyConflict(key: string): PlatformError {
  return new PlatformError(
    'key_conflict',
    `The object key ${
      JSON.stringify(key)
    } conflicts with another key: one key cannot be both an object and a folder of objects.`,
    { status: 409 },
  );
}

/** Compares two keys by their UTF-8 bytes (S3's list order). */
export function compareKeys(a: string, b: string): number {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  const length = Math.min(left.length, right.length);
  for (let i = 0; i < length; i++) if (left[i] !== right[i]) return left[i] - right[i];
  return left.length - right.length;
}
