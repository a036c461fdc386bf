/**
 * The signed-in person a request acts for, and the verified-email rule that admits them.
 *
 * Source: spec/platform-service.md § Authentication (Platform sign-in modes; rules 4–5).
 */
import { PlatformError } from '../ports/platform-error.ts';

/**
 * A person signed in to the platform.
 *
 * Source: spec/platform-service.md § Authentication (Platform sign-in modes)
 */
export interface Principal {
  /** Stable subject identifier the identity provider (or the load balancer) asserts. */
  id: string;
  /** Email address, as the provider supplies it. */
  email: string;
  /** True when the provider says the address is verified (or PLATFORM_EMAIL_VERIFICATION is off). */
  emailVerified: boolean;
  /** Display name, when the provider supplies one. */
  name?: string;
  /** Domain managing the identity, from the managed-domain claim, when asserted. */
  managedDomain?: string;
}

/**
 * The one fixed local user of dev-user sign-in.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (dev-user)
 */
export const devUserPrincipal: Readonly<Principal> = Object.freeze({
  id: 'dev-user',
  email: 'dev@localhost',
  emailVerified: true,
  name: 'Dev User',
});

/**
 * Options of {@link admitPrincipal}.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_EMAIL_VERIFICATION, PLATFORM_MANAGED_DOMAIN_CLAIM)
 */
export interface AdmitOptions {
  /** PLATFORM_EMAIL_VERIFICATION: true (default on) admits only addresses the provider says are verified. */
  emailVerification: boolean;
  /** Claim in which the provider asserts the managing domain (PLATFORM_MANAGED_DOMAIN_CLAIM); `custom:<name>` as
   * written. */
  managedDomainClaim?: string;
}

/**
 * Turns verified identity claims into a principal, admitting only a verified email address.
 * `email_verified` counts when it is `true` or the text `"true"` (as some load balancers forward it).
 * @param claims - claims of a verified token (sub, email, email_verified, name, the managed-domain claim)
 * @returns the principal
 * @throws PlatformError `unauthorized` (401) when the claims name no subject;
 *   `email_unverified` (403) when the provider supplies no email address, or says it is not verified while
 *   `emailVerification` is on
 *
 * Source: spec/platform-service.md § Authentication rule 4
 */
export function admitPrincipal(claims: Readonly<Record<string, unknown>>, options: AdmitOptions): Principal {
  const id = text(claims.sub);
  if (id === undefined) {
    throw new PlatformError('unauthorized', 'The sign-in names no subject; sign in again.', { status: 401 });
  }
  const email = text(claims.email);
  if (email === undefined) {
    throw new PlatformError(
      'email_unverified',
      'Your identity provider did not supply an email address. Add and verify an email address with it, then sign ' +
        'in again.',
      { status: 403 },
    );
  }
  const emailVerified = !options.emailVerification || claims.email_verified === true ||
    claims.email_verified === 'true';
  if (!emailVerified) {
    throw new PlatformError(
      'email_unverified',
      `Verify your email address ${email} with your identity provider, then sign in again.`,
      { status: 403 },
    );
  }
  const name = text(claims.name);
  const managedDomain = options.managedDomainClaim === undefined ? undefined : text(claims[options.managedDomainClaim]);
  return {
    id,
    email,
    emailVerified,
    ...(name === undefined ? {} : { name }),
    ...(managedDomain === undefined ? {} : { managedDomain: managedDomain.toLowerCase() }),
  };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
