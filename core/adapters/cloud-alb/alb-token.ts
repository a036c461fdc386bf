/**
 * Parsing of the load balancer's signed identity header (x-lb-oidc-data). It is a JWT-shaped ES256 token,
 * but its segments are base64url *with* `=` padding, and the signature covers the segments exactly as sent,
 * padding included, so standard JWT libraries refuse it: we parse and verify it ourselves.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (cloud-alb).
 */
import { base64url } from 'jose';
import { PlatformError } from '../../ports/platform-error.ts';

/**
 * A parsed, not yet verified identity token.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (cloud-alb)
 */
export interface AlbToken {
  /** Protected header: alg, kid, signer, exp, iss, client. */
  header: Record<string, unknown>;
  /** Identity claims: sub, email, email_verified, name, exp, iss … */
  claims: Record<string, unknown>;
  /** The exact bytes signed: `<header segment>.<payload segment>` as received. */
  signingInput: Uint8Array;
  /** Raw ECDSA signature (r ‖ s, 64 bytes for P-256). */
  signature: Uint8Array;
}

const MAX_TOKEN_CHARS = 16_384;
const SEGMENT = /^[A-Za-z0-9_\-+/]+={0,2}$/;

/**
 * Splits and decodes the header value. Tolerates `=` padding and the standard base64 alphabet.
 * @throws PlatformError `unauthorized` (401) for anything that is not three decodable segments with JSON objects
 *
 * Source: spec/platform-service.md § Platform sign-in modes (cloud-alb)
 */
export function parseAlbToken(value: string): AlbToken {
  const parts = value.trim().split('.');
  if (value.length > MAX_TOKEN_CHARS || parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) throw refused();
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  return {
    header: jsonObject(decodeSegment(headerPart)),
    claims: jsonObject(decodeSegment(payloadPart)),
    signingInput: new TextEncoder().encode(`${headerPart}.${payloadPart}`),
    signature: decodeSegment(signaturePart),
  };
}

/**
 * Decodes one base64url segment, padded or not, standard alphabet accepted.
 * @throws PlatformError `unauthorized` (401) when it is not base64
 *
 * Source: spec/platform-service.md § Platform sign-in modes (cloud-alb)
 */
export function decodeSegment(segment: string): Uint8Array {
  try {
    return base64url.decode(segment.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'));
  } catch {
    throw refused();
  }
}

function jsonObject(bytes: Uint8Array): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw refused();
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw refused();
  return value as Record<string, unknown>;
}

/**
 * The one refusal of a load-balancer identity that does not verify; it never names token contents.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (cloud-alb)
 */
export function refused(message = "The load balancer's sign-in could not be verified; sign in again."): PlatformError {
  return new PlatformError('unauthorized', message, { status: 401 });
}
