/**
 * Value rules of deployment settings, shared by every process's environment parser.
 * Messages name the variable, never its value.
 *
 * Source: ../shared/spec/platform-service.md § Deployment settings (value rules).
 */
import { PlatformError } from '../ports/platform-error.ts';

/** A plain record of environment variables (the process environment, read by a bin). */
export type EnvRecord = Record<string, string | undefined>;

/** Non-empty value of `name`, or undefined when unset or empty. */
export function optional(env: EnvRecord, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** @throws PlatformError `invalid_config` when `name` is unset or empty */
export function required(env: EnvRecord, name: string, hint: string): string {
  const value = optional(env, name);
  if (value === undefined) throw invalid(name, `is required: ${hint}`);
  return value;
}

/** A positive integer (default when unset). @throws PlatformError `invalid_config` */
export function positiveInteger(env: EnvRecord, name: string, fallback: number): number {
  const value = optional(env, name);
  if (value === undefined) return fallback;
  if (!/^[1-9][0-9]*$/.test(value) || !Number.isSafeInteger(Number(value))) throw invalid(name, 'must be a positive whole number');
  return Number(value);
}

/** A TCP port 1–65535 (default when unset). @throws PlatformError `invalid_config` */
export function port(env: EnvRecord, name: string, fallback: number): number {
  const value = positiveInteger(env, name, fallback);
  if (value > 65_535) throw invalid(name, 'must be a port number from 1 to 65535');
  return value;
}

const truthy = new Set(['1', 'true', 'yes', 'on']);
const falsy = new Set(['0', 'false', 'no', 'off']);

/** A boolean in any accepted spelling (1/0, true/false, yes/no, on/off, any case). @throws PlatformError `invalid_config` */
export function flag(env: EnvRecord, name: string, fallback: boolean): boolean {
  const value = optional(env, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (truthy.has(value)) return true;
  if (falsy.has(value)) return false;
  throw invalid(name, 'must be one of 1/0, true/false, yes/no, on/off');
}

/** A URL whose scheme is one of `schemes`. @throws PlatformError `invalid_config` */
export function url(env: EnvRecord, name: string, schemes: string[]): URL | undefined {
  const value = optional(env, name);
  if (value === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw invalid(name, `must be a URL (${schemes.join(', ')})`);
  }
  if (!schemes.includes(parsed.protocol.replace(/:$/, ''))) throw invalid(name, `must use one of the schemes ${schemes.join(', ')}`);
  return parsed;
}

/** The error every rule throws: first line names the variable. */
export function invalid(name: string, rule: string): PlatformError {
  return new PlatformError('invalid_config', `${name} ${rule}.`);
}
