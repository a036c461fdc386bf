/**
 * Pure rules of incoming connections: the checks of a connection's settings (each refusal names the field
 * and says what to do), origin matching, URL-safe encoding and constant-time digest comparison.
 *
 * Source: spec/platform-service.md § Incoming connection, § Incoming connection authentication
 * (rule 5), § Limits.
 */
import { outboundUrlProblem } from '../ports/outbound-url.ts';
import { PlatformError } from '../ports/platform-error.ts';
import {
  type AuthMode,
  authModes,
  defaultRates,
  type OidcSettings,
  type Protocol,
  protocols,
  type RateSettings,
} from './model.ts';

/** OIDC settings as given (algorithms optional: RS256 when unset). */
export interface OidcInput {
  issuer: string;
  audience: string;
  jwksUrl?: string;
  algorithms?: string[];
}

/** The settings of a connection as given, before checking. */
export interface ConnectionSettingsInput {
  protocol: string;
  auth: string;
  oidc?: OidcInput;
  origins?: string[];
  rate?: { perCaller: number; perEndpoint: number };
}

/** Checked settings. */
export interface ConnectionSettings {
  protocol: Protocol;
  auth: AuthMode;
  oidc?: OidcSettings;
  origins: string[];
  rate: RateSettings;
}

/** JWS algorithms an oidc connection may accept (asymmetric only: the platform holds no shared secret). */
export const acceptedAlgorithms = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;
const identifierPattern = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const maxRate = 100_000;

/** A 400 `invalid_argument` naming `field`. */
export function invalid(field: string, message: string): PlatformError {
  return new PlatformError('invalid_argument', `${field}: ${message}`, { status: 400 });
}

/**
 * Checks a connection identifier: a slug of at most 60 lowercase letters and digits joined by hyphens.
 * @throws PlatformError `invalid_argument` (400) naming `identifier`
 */
export function checkIdentifier(identifier: string): string {
  if (identifier.length > 60 || !identifierPattern.test(identifier)) {
    throw invalid(
      'identifier',
      `"${
        identifier.slice(0, 60)
      }" is not a slug; use at most 60 lowercase letters and digits joined by hyphens, e.g. "support-chat".`,
    );
  }
  return identifier;
}

/**
 * Checks and completes a connection's settings: public only for agui and webhook; oidc needs issuer and
 * audience (algorithms default ['RS256']); origins only for agui and mcp; rates default by protocol.
 * @param production - when true, an issuer or JWKS URL must be https whatever `allowPrivateUrls` says
 * @param allowPrivateUrls - PLATFORM_ALLOW_PRIVATE_URLS: an issuer or JWKS URL may then be http or name a local or
 *   private host; otherwise it must be https to a public host (core/ports/outbound-url.ts). Default false.
 * @throws PlatformError `invalid_argument` (400) naming the field and saying what to do
 */
export function checkSettings(
  input: ConnectionSettingsInput,
  production: boolean,
  allowPrivateUrls = false,
): ConnectionSettings {
  if (!(protocols as readonly string[]).includes(input.protocol)) {
    throw invalid(
      'protocol',
      `"${input.protocol.slice(0, 40)}" is not a protocol; use one of ${protocols.join(', ')}.`,
    );
  }
  if (!(authModes as readonly string[]).includes(input.auth)) {
    throw invalid(
      'auth',
      `"${input.auth.slice(0, 40)}" is not an authentication mode; use one of ${authModes.join(', ')}.`,
    );
  }
  const protocol = input.protocol as Protocol;
  const auth = input.auth as AuthMode;
  if (auth === 'public' && protocol === 'mcp') {
    throw invalid('auth', 'an MCP connection cannot be public; use bearer or oidc.');
  }
  if (auth !== 'oidc' && input.oidc) {
    throw invalid(
      'oidc',
      `OIDC settings apply only to auth "oidc" (this connection is "${auth}"); drop them or set auth to oidc.`,
    );
  }
  if (auth === 'oidc' && !input.oidc) {
    throw invalid('oidc', 'auth "oidc" needs the OIDC settings: give oidc.issuer and oidc.audience.');
  }
  const origins = checkOrigins(protocol, input.origins ?? []);
  const rate = checkRate(input.rate ?? defaultRates[protocol]);
  const oidc = auth === 'oidc' && input.oidc ? { oidc: checkOidc(input.oidc, allowPrivateUrls && !production) } : {};
  return { protocol, auth, ...oidc, origins, rate };
}

function checkOidc(input: OidcInput, allowPrivateUrls: boolean): OidcSettings {
  const issuer = checkIssuerUrl('oidc.issuer', input.issuer, allowPrivateUrls);
  if (input.audience.trim() === '') {
    throw invalid(
      'oidc.audience',
      'the audience is required (without it any token the issuer signs for any application would be admitted); ' +
        'give the audience your tokens carry.',
    );
  }
  const algorithms = input.algorithms === undefined || input.algorithms.length === 0
    ? ['RS256']
    : [...new Set(input.algorithms)];
  for (const alg of algorithms) {
    if (!(acceptedAlgorithms as readonly string[]).includes(alg)) {
      throw invalid(
        'oidc.algorithms',
        `"${alg.slice(0, 20)}" is not accepted; use some of ${acceptedAlgorithms.join(', ')} (or none for RS256).`,
      );
    }
  }
  const jwksUrl = input.jwksUrl ? { jwksUrl: checkIssuerUrl('oidc.jwksUrl', input.jwksUrl, allowPrivateUrls) } : {};
  return { issuer, audience: input.audience.trim(), ...jwksUrl, algorithms };
}

/** An https URL to a public host, unless PLATFORM_ALLOW_PRIVATE_URLS allows http and local or private hosts. */
function checkIssuerUrl(field: string, value: string, allowPrivateUrls: boolean): string {
  const problem = outboundUrlProblem(value, allowPrivateUrls);
  if (problem) throw invalid(field, `${problem}.`);
  return value;
}

/** Origins: agui/mcp only; each `scheme://host[:port]`, or the single entry `*`. */
function checkOrigins(protocol: Protocol, origins: string[]): string[] {
  if (protocol === 'webhook' && origins.length > 0) {
    throw invalid('origins', 'a webhook takes no browser origins; leave origins empty.');
  }
  const unique = [...new Set(origins.map((o) => o.trim()).filter(Boolean))];
  if (unique.includes('*')) {
    if (unique.length > 1) {
      throw invalid('origins', '"*" already allows any site; give either "*" alone or a list of sites.');
    }
    return unique;
  }
  return unique.map((origin) => {
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== origin) {
      throw invalid(
        'origins',
        `"${
          origin.slice(0, 200)
        }" is not a site; give scheme://host[:port] without a path or trailing slash, e.g. https://app.example.com.`,
      );
    }
    return origin;
  });
}

function checkRate(rate: { perCaller: number; perEndpoint: number }): RateSettings {
  for (const [field, value] of [['rate.perCaller', rate.perCaller], ['rate.perEndpoint', rate.perEndpoint]] as const) {
    if (!Number.isInteger(value) || value < 1 || value > maxRate) {
      throw invalid(field, `${value} is not a whole number of calls per minute from 1 to ${maxRate}.`);
    }
  }
  if (rate.perCaller > rate.perEndpoint) {
    throw invalid(
      'rate.perCaller',
      `${rate.perCaller} calls per caller exceed the endpoint's ${rate.perEndpoint}; lower it or raise ` +
        `rate.perEndpoint.`,
    );
  }
  return { perCaller: rate.perCaller, perEndpoint: rate.perEndpoint };
}

/**
 * Whether a request's Origin header passes rule 5: no Origin (server-to-server) passes; otherwise the
 * origin must be listed, or the list be ['*'].
 */
export function originAllowed(origins: readonly string[], origin: string | undefined): boolean {
  if (origin === undefined) return true;
  return origins.includes('*') || origins.includes(origin);
}

/** Base64url (RFC 4648 § 5, no padding) of `bytes`. */
export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Constant-time equality of two strings of equal length (digests); unequal lengths are unequal. */
export function sameDigest(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
