/**
 * Sign-in and identity settings: PLATFORM_SIGN_IN and its mode's variables, email and domain verification.
 *
 * Source: spec/platform-service.md § Deployment settings; § Platform sign-in modes.
 */
import type { Static } from '@sinclair/typebox';
import { type EnvRecord, flag, invalid, oneOf, optional, required } from './env-values.ts';
import { urlAsWritten } from './net-values.ts';
import type { IdentitySettings, SignInSettings } from './platform-env-model.ts';

/**
 * Sign-in modes.
 *
 * Source: spec/platform-service.md § Platform sign-in modes
 */
export const SIGN_IN_MODES = ['oidc', 'cloud-alb', 'dev-user'] as const;

/**
 * The sign-in mode: PLATFORM_SIGN_IN, or dev-user outside production; undefined in production when unset
 * (the production rule refuses that on dispatching processes).
 * @throws PlatformError `invalid_config` naming PLATFORM_SIGN_IN for a value outside oidc, cloud-alb, dev-user
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_SIGN_IN)
 */
export function parseSignInMode(env: EnvRecord, production: boolean): SignInSettings['mode'] | undefined {
  return oneOf(env, 'PLATFORM_SIGN_IN', SIGN_IN_MODES, production ? undefined : 'dev-user');
}

/**
 * The settings of `mode`; value rules of its variables. Run after the boot rules (they guarantee the required ones).
 * @throws PlatformError `invalid_config` naming the first bad variable
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_OIDC_*, PLATFORM_IDP_*, PLATFORM_CLOUD_ALB_*)
 */
export function parseSignIn(env: EnvRecord, mode: SignInSettings['mode'] | undefined): SignInSettings | undefined {
  if (mode === 'oidc') {
    return {
      mode,
      issuer: urlAsWritten(env, 'PLATFORM_OIDC_ISSUER') ?? required(env, 'PLATFORM_OIDC_ISSUER', 'the issuer URL'),
      clientId: required(env, 'PLATFORM_OIDC_CLIENT_ID', 'the public client id of the web app'),
      ...defined('audience', optional(env, 'PLATFORM_OIDC_AUDIENCE')),
      ...defined('signOutUrl', urlAsWritten(env, 'PLATFORM_OIDC_SIGN_OUT_URL')),
      ...defined('idpDbConnection', optional(env, 'PLATFORM_IDP_DB_CONNECTION')),
    };
  }
  if (mode === 'cloud-alb') {
    const { arn, region } = loadBalancerArn(env);
    return {
      mode,
      albArn: arn,
      albRegion: region,
      signOutUrl: urlAsWritten(env, 'PLATFORM_CLOUD_ALB_SIGN_OUT_URL') ??
        required(env, 'PLATFORM_CLOUD_ALB_SIGN_OUT_URL', 'the logout URL'),
      sessionCookie: cookieName(env, 'PLATFORM_CLOUD_ALB_SESSION_COOKIE', 'LBAuthSessionCookie'),
    };
  }
  return mode === 'dev-user' ? { mode } : undefined;
}

/**
 * Email and domain verification and the managed-domain claim.
 * @param appBaseUrl - the platform's public origin; the default claim is `<origin>/managed_domain`
 * @throws PlatformError `invalid_config` naming the first bad variable
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_EMAIL_VERIFICATION, PLATFORM_DNS_VERIFICATION,
 * PLATFORM_MANAGED_DOMAIN_CLAIM)
 */
export function parseIdentity(env: EnvRecord, appBaseUrl: string | undefined): Static<typeof IdentitySettings> {
  const claim = optional(env, 'PLATFORM_MANAGED_DOMAIN_CLAIM');
  if (claim !== undefined && /\s/.test(claim)) {
    throw invalid(
      'PLATFORM_MANAGED_DOMAIN_CLAIM',
      'must be a claim name without spaces (a URL, a name, or custom:<name>)',
    );
  }
  const origin = appBaseUrl === undefined ? 'http://localhost' : new URL(appBaseUrl).origin;
  return {
    emailVerification: flag(env, 'PLATFORM_EMAIL_VERIFICATION', true),
    dnsVerification: flag(env, 'PLATFORM_DNS_VERIFICATION', true),
    managedDomainClaim: claim ?? `${origin}/managed_domain`,
  };
}

function loadBalancerArn(env: EnvRecord): { arn: string; region: string } {
  const arn = required(env, 'PLATFORM_CLOUD_ALB_ARN', 'the load balancer identifier');
  const match = /^arn:[a-z0-9-]+:[a-z0-9-]+:([a-z0-9-]+):[0-9]*:\S+$/.exec(arn);
  if (!match) {
    throw invalid(
      'PLATFORM_CLOUD_ALB_ARN',
      'must be the load balancer identifier (arn:<partition>:<service>:<region>:<account>:<resource>)',
    );
  }
  return { arn, region: match[1] };
}

function cookieName(env: EnvRecord, name: string, fallback: string): string {
  const value = optional(env, name) ?? fallback;
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(value)) {
    throw invalid(name, "must be a cookie name (letters, digits and !#$%&'*+-.^_`|~)");
  }
  return value;
}

function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
