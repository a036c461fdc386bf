/**
 * The load balancer's public verification keys: one PEM per key id, fetched from
 * `https://public-keys.auth.elb.<region>.amazonaws.com/<kid>` and cached. A key id is taken from an
 * unverified header, so it must look like an id before it goes into a URL, and failures are remembered
 * briefly so unknown ids cannot make the API fetch without pause.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (cloud-alb); § Deployment settings (PLATFORM_CLOUD_ALB_ARN:
 * its region names the host that serves the verification keys).
 */
import { importSPKI } from 'jose';
import { PlatformError } from '../../ports/platform-error.ts';
import { refused } from './alb-token.ts';

/**
 * A fetch function (the global one by default; tests may pass their own).
 *
 * Source: docs/architecture.md § Conventions (the world comes in as arguments)
 */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Options of {@link createAlbKeyStore}.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_CLOUD_ALB_ARN)
 */
export interface AlbKeyStoreOptions {
  /** Base URL the key id is appended to. */
  keyUrlBase: string;
  fetch?: FetchFunction;
  nowMs: () => number;
  /** Most cached keys (default 64). */
  maxKeys?: number;
  /** How long an unknown key id is refused without asking again, ms (default 60 s; 5 s after an unreachable host). */
  failureMemoryMs?: number;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The default key URL base of the load balancer's region.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_CLOUD_ALB_ARN)
 */
export function regionKeyUrlBase(region: string): string {
  return `https://public-keys.auth.elb.${region}.amazonaws.com`;
}

/**
 * A cached key lookup.
 * @returns `(kid)` → the ES256 public key
 * @throws (from the returned function) PlatformError `unauthorized` (401) for a malformed or unknown key id;
 *   `sign_in_unavailable` (503) when the key host cannot be reached
 *
 * Source: spec/platform-service.md § Platform sign-in modes (cloud-alb)
 */
export function createAlbKeyStore(options: AlbKeyStoreOptions): (kid: string) => Promise<CryptoKey> {
  const keys = new Map<string, Promise<CryptoKey>>();
  const failures = new Map<string, { until: number; error: PlatformError }>();
  const maxKeys = options.maxKeys ?? 64;
  return (kid) => {
    if (!KEY_ID.test(kid)) return Promise.reject(refused());
    const failed = failures.get(kid);
    if (failed && options.nowMs() < failed.until) return Promise.reject(failed.error);
    let key = keys.get(kid);
    if (!key) {
      key = fetchKey(options, kid);
      keys.set(kid, key);
      key.catch((error: PlatformError) => {
        keys.delete(kid);
        const memoryMs = error.code === 'unauthorized' ? options.failureMemoryMs ?? 60_000 : 5_000;
        failures.set(kid, { until: options.nowMs() + memoryMs, error });
        if (failures.size > maxKeys) failures.delete(failures.keys().next().value as string);
      });
      if (keys.size > maxKeys) keys.delete(keys.keys().next().value as string);
    }
    return key;
  };
}

async function fetchKey(options: AlbKeyStoreOptions, kid: string): Promise<CryptoKey> {
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(`${options.keyUrlBase.replace(/\/+$/, '')}/${kid}`, {
      redirect: 'manual',
      signal: AbortSignal.timeout(5_000),
    });
  } catch (cause) {
    throw new PlatformError(
      'sign_in_unavailable',
      "The load balancer's verification key cannot be fetched; try again shortly.",
      { status: 503, cause },
    );
  }
  if (response.status === 403 || response.status === 404) throw refused();
  if (response.status !== 200) {
    throw new PlatformError(
      'sign_in_unavailable',
      `The load balancer's key host answered ${response.status}; try again shortly.`,
      { status: 503 },
    );
  }
  const pem = (await response.text()).trim();
  try {
    return await importSPKI(pem, 'ES256');
  } catch (cause) {
    throw new PlatformError(
      'sign_in_unavailable',
      "The load balancer's key host answered something that is not an ES256 public key.",
      { status: 503, cause },
    );
  }
}
