/**
 * Verifies the identity a sign-in load balancer forwards in x-lb-oidc-data: an ES256 signature by the key
 * named in the header's `kid`, a `signer` equal to the configured load balancer, and an unexpired `exp`.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (cloud-alb); § Deployment settings
 * (PLATFORM_CLOUD_ALB_ARN).
 */
import { PlatformError } from '../../ports/platform-error.ts';
import { createAlbKeyStore, type FetchFunction, regionKeyUrlBase } from './alb-keys.ts';
import { type AlbToken, parseAlbToken, refused } from './alb-token.ts';

/**
 * Options of {@link createAlbVerifier}.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_CLOUD_ALB_ARN)
 */
export interface AlbVerifierOptions {
  /** PLATFORM_CLOUD_ALB_ARN: the only signer trusted; its region names the key host. */
  arn: string;
  /** Overrides `https://public-keys.auth.elb.<region>.amazonaws.com` (tests). */
  keyUrlBase?: string;
  fetch?: FetchFunction;
  /** Allowed clock skew on exp, seconds (default 30). */
  clockToleranceSeconds?: number;
  /** Current time (default the system clock). */
  now?: () => Date;
}

/**
 * A verifier of the load balancer's identity header.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (cloud-alb)
 */
export interface AlbVerifier {
  /**
   * @param value - the x-lb-oidc-data header value
   * @returns the identity claims (sub, email, email_verified, name …)
   * @throws PlatformError `unauthorized` (401) when it does not verify; `sign_in_unavailable` (503) when the
   *   key host cannot be reached
   */
  verify(value: string): Promise<Record<string, unknown>>;
}

/**
 * The region of a load balancer identifier (`arn:<partition>:<service>:<region>:<account>:<resource>`).
 * @throws PlatformError `invalid_config` naming PLATFORM_CLOUD_ALB_ARN
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_CLOUD_ALB_ARN)
 */
export function regionOfArn(arn: string): string {
  const match = /^arn:[a-z0-9-]+:[a-z0-9-]+:([a-z0-9-]+):[0-9]*:\S+$/.exec(arn);
  if (!match) {
    throw new PlatformError(
      'invalid_config',
      'PLATFORM_CLOUD_ALB_ARN must be the load balancer identifier ' +
        '(arn:<partition>:<service>:<region>:<account>:<resource>).',
    );
  }
  return match[1] as string;
}

/**
 * Creates the verifier. Keys are fetched on first use of each key id and cached.
 * @throws PlatformError `invalid_config` when `arn` names no region
 *
 * Source: spec/platform-service.md § Platform sign-in modes (cloud-alb)
 */
export function createAlbVerifier(options: AlbVerifierOptions): AlbVerifier {
  const now = options.now ?? (() => new Date());
  const keyOf = createAlbKeyStore({
    keyUrlBase: options.keyUrlBase ?? regionKeyUrlBase(regionOfArn(options.arn)),
    fetch: options.fetch,
    nowMs: () => now().getTime(),
  });
  const toleranceSeconds = options.clockToleranceSeconds ?? 30;
  return {
    async verify(value) {
      const token = parseAlbToken(value);
      checkHeader(token, options.arn, now().getTime() / 1000 - toleranceSeconds);
      const key = await keyOf(token.header.kid as string);
      if (token.signature.byteLength !== 64) throw refused();
      const valid = await crypto.subtle.verify(
        { name: 'ECDSA', hash: 'SHA-256' },
        key,
        token.signature as BufferSource,
        token.signingInput as BufferSource,
      );
      if (!valid) throw refused();
      return token.claims;
    },
  };
}

/** alg ES256, a key id, our signer, and an exp (header; payload too when present) not before `notBefore`, seconds. */
function checkHeader(token: AlbToken, arn: string, notBefore: number): void {
  const { header, claims } = token;
  if (header.alg !== 'ES256' || typeof header.kid !== 'string') throw refused();
  if (header.signer !== arn) {
    throw refused('The sign-in was signed by another load balancer than PLATFORM_CLOUD_ALB_ARN names.');
  }
  if (typeof header.exp !== 'number' || header.exp < notBefore) {
    throw refused("The load balancer's sign-in has expired; sign in again.");
  }
  if (claims.exp !== undefined && (typeof claims.exp !== 'number' || claims.exp < notBefore)) {
    throw refused("The load balancer's sign-in has expired; sign in again.");
  }
}
