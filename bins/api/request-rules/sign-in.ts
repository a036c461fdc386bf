/**
 * Resolves the platform principal of a request in the deployment's sign-in mode: the fixed dev user, a Bearer
 * access token verified at the OIDC issuer, or the load balancer's signed identity header.
 *
 * Source: spec/platform-service.md § Platform sign-in modes; § Authentication rule 4.
 */
import { admitPrincipal, devUserPrincipal, type Principal } from '../../../core/auth/principal.ts';
import type { AlbVerifier } from '../../../core/adapters/cloud-alb/index.ts';
import type { OidcVerifier } from '../../../core/adapters/oidc/index.ts';

/**
 * The deployment's sign-in mode with its verifier.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (PLATFORM_SIGN_IN)
 */
export type SignInVerification =
  | { mode: 'dev-user' }
  | { mode: 'oidc'; verifier: Pick<OidcVerifier, 'identify'> }
  | { mode: 'cloud-alb'; verifier: Pick<AlbVerifier, 'verify'>; /** default x-lb-oidc-data */ header?: string };

/**
 * Options of {@link createPrincipalResolver}.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_EMAIL_VERIFICATION, PLATFORM_MANAGED_DOMAIN_CLAIM)
 */
export interface PrincipalResolverOptions {
  signIn: SignInVerification;
  /** PLATFORM_EMAIL_VERIFICATION (on by default). */
  emailVerification: boolean;
  /** PLATFORM_MANAGED_DOMAIN_CLAIM. */
  managedDomainClaim?: string;
}

/**
 * Name of the load balancer's signed identity header.
 *
 * Source: spec/platform-service.md § Platform sign-in modes (cloud-alb: x-lb-oidc-data)
 */
export const ALB_IDENTITY_HEADER = 'x-lb-oidc-data';

/**
 * The Bearer token of an Authorization header, if any.
 *
 * Source: RFC 6750 § 2.1
 */
export function bearerToken(request: Request): string | undefined {
  const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(request.headers.get('authorization') ?? '');
  return match?.[1];
}

/**
 * A resolver answering the request's principal, or undefined when the request carries no sign-in at all.
 * @throws (from the resolver) PlatformError `unauthorized` (401) for a sign-in that does not verify;
 *   `email_unverified` (403); `sign_in_unavailable` (503) when the provider or key host cannot be reached
 *
 * Source: spec/platform-service.md § Platform sign-in modes; § Authentication rule 4
 */
export function createPrincipalResolver(options: PrincipalResolverOptions): (request: Request) => Promise<Principal | undefined> {
  const admit = (claims: Record<string, unknown>) => admitPrincipal(claims, options);
  const { signIn } = options;
  if (signIn.mode === 'dev-user') return async () => ({ ...devUserPrincipal });
  if (signIn.mode === 'oidc') {
    return async (request) => {
      const token = bearerToken(request);
      return token === undefined ? undefined : admit(await signIn.verifier.identify(token));
    };
  }
  const header = signIn.header ?? ALB_IDENTITY_HEADER;
  return async (request) => {
    const value = request.headers.get(header);
    return value === null || value === '' ? undefined : admit(await signIn.verifier.verify(value));
  };
}
