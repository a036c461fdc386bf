/**
 * Value rules of deployment settings, shared by every process's environment parser.
 * Messages name the variable, never its value.
 *
 * Source: spec/platform-service.md § Deployment settings (value rules).
 */
import { PlatformError } from '../ports/platform-error.ts';

/**
 * A plain record of environment variables (the process environment, read by a bin).
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: value rules)
 */
export type EnvRecord = Record<string, string | undefined>;

/**
 * Non-empty value of `name`, or undefined when unset or empty.
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: value rules)
 */
export function optional(env: EnvRecord, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * The trimmed value of `name`, which must be set.
 * @param hint - what to set, appended to the refusal
 * @throws PlatformError `invalid_config` when `name` is unset or empty
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: value rules)
 */
export function required(env: EnvRecord, name: string, hint: string): string {
  const value = optional(env, name);
  if (value === undefined) throw invalid(name, `is required: ${hint}`);
  return value;
}

/**
 * A positive integer (default when unset). @throws PlatformError `invalid_config`
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: value rules)
 */
export function positiveInteger(env: EnvRecord, name: string, fallback: number): number {
  const value = optional(env, name);
  if (value === undefined) return fallback;
  if (!/^[1-9][0-9]*$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw invalid(name, 'must be a positive whole number');
  }
  return Number(value);
}

/**
 * A TCP port 1–65535 (default when unset). @throws PlatformError `invalid_config`
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: value rules)
 */
export function port(env: EnvRecord, name: string, fallback: number): number {
  const value = positiveInteger(env, name, fallback);
  if (value > 65_535) throw invalid(name, 'must be a port number from 1 to 65535');
  return value;
}

const truthy = new Set(['1', 'true', 'yes', 'on']);
const falsy = new Set(['0', 'false', 'no', 'off']);

/**
 * A boolean in any accepted spelling (1/0, true/false, yes/no, on/off, any case). @throws PlatformError
 * `invalid_config`
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: value rules)
 */
export function flag(env: EnvRecord, name: string, fallback: boolean): boolean {
  const value = optional(env, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (truthy.has(value)) return true;
  if (falsy.has(value)) return false;
  throw invalid(name, 'must be one of 1/0, true/false, yes/no, on/off');
}

/**
 * A URL whose scheme is one of `schemes`. @throws PlatformError `invalid_config`
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: value rules)
 */
export function url(env: EnvRecord, name: string, schemes: string[]): URL | undefined {
  const value = optional(env, name);
  if (value === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw invalid(name, `must be a URL (${schemes.join(', ')})`);
  }
  if (!schemes.includes(parsed.protocol.replace(/:$/, ''))) {
    throw invalid(name, `must use one of the schemes ${schemes.join(', ')}`);
  }
  return parsed;
}

/**
 * The error every rule throws: first line names the variable.
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: value rules)
 */
export function invalid(name: string, rule: string): PlatformError {
  return new PlatformError('invalid_config', `${name} ${rule}.`);
}

/**
 * One of a fixed set of values (default when unset); compared case-sensitively after trimming.
 * @throws PlatformError `invalid_config` naming `name`
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: value rules)
 */
export function oneOf<T extends string>(env: EnvRecord, name: string, values: readonly T[], fallback: T): T;
export function oneOf<T extends string>(
  env: EnvRecord,
  name: string,
  values: readonly T[],
  fallback?: T,
): T | undefined;
export function oneOf<T extends string>(
  env: EnvRecord,
  name: string,
  values: readonly T[],
  fallback?: T,
): T | undefined {
  const value = optional(env, name);
  if (value === undefined) return fallback;
  if (!(values as readonly string[]).includes(value)) throw invalid(name, `must be ${listed(values)}`);
  return value as T;
}

/**
 * `true` or `false` only (any case), default when unset. @throws PlatformError `invalid_config`
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: value rules)
 */
export function trueOrFalse(env: EnvRecord, name: string, fallback: boolean): boolean {
  const value = optional(env, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (value !== 'true' && value !== 'false') throw invalid(name, 'must be true or false');
  return value === 'true';
}

/**
 * A whole number of at least `minimum` (default when unset). @throws PlatformError `invalid_config`
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: value rules)
 */
export function integerAtLeast(env: EnvRecord, name: string, fallback: number, minimum: number): number {
  const value = positiveInteger(env, name, fallback);
  if (value < minimum) throw invalid(name, `must be a whole number of at least ${minimum}`);
  return value;
}

/**
 * A comma-separated list: entries trimmed, empty ones dropped; `fallback` when unset.
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: value rules)
 */
export function commaList(env: EnvRecord, name: string, fallback: readonly string[] = []): string[] {
  const value = optional(env, name);
  if (value === undefined) return [...fallback];
  return value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
}

/**
 * Base64 (standard or URL-safe alphabet, padding optional) decoded to bytes.
 * @param bytes - `exactly` or `atLeast` this many decoded bytes
 * @throws PlatformError `invalid_config` naming `name` when not base64 or of the wrong length
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: value rules)
 */
export function base64Bytes(
  env: EnvRecord,
  name: string,
  bytes: { exactly?: number; atLeast?: number },
): Uint8Array | undefined {
  const value = optional(env, name);
  if (value === undefined) return undefined;
  const decoded = decodeBase64(value);
  const size = bytes.exactly !== undefined ? `exactly ${bytes.exactly}` : `at least ${bytes.atLeast ?? 1}`;
  if (decoded === undefined) throw invalid(name, `must be base64 that decodes to ${size} bytes`);
  if (bytes.exactly !== undefined && decoded.length !== bytes.exactly) {
    throw invalid(name, `must decode to exactly ${bytes.exactly} bytes (base64)`);
  }
  if (bytes.atLeast !== undefined && decoded.length < bytes.atLeast) {
    throw invalid(name, `must decode to at least ${bytes.atLeast} bytes (base64)`);
  }
  return decoded;
}

/**
 * Bytes of a base64 text (standard or URL-safe alphabet, padding optional), or undefined when it is not base64.
 *
 * Source: spec/platform-service.md § Deployment settings (boot rules: value rules)
 */
export function decodeBase64(text: string): Uint8Array | undefined {
  const compact = text.trim().replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.replace(/=+$/, '').length % 4 === 1) return undefined;
  const unpadded = compact.replace(/=+$/, '');
  if (compact.length !== unpadded.length && compact.length % 4 !== 0) return undefined;
  const binary = atob(unpadded + '='.repeat((4 - (unpadded.length % 4)) % 4));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

function listed(values: readonly string[]): string {
  return values.length <= 1 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}
