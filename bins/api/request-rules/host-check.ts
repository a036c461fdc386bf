/**
 * The Host check against DNS rebinding: the API answers only its own host names (a loopback name, an IP literal,
 * the host of APP_BASE_URL or of a CORS_ALLOWED_ORIGINS entry, any port) and refuses any other Host with 421
 * before anything else happens, in every sign-in mode. The front proxy applies the same rule (proxy/Caddyfile).
 *
 * Source: docs/decisions.md D17 § 7; spec/platform-service.md § Deployment settings (APP_BASE_URL,
 * CORS_ALLOWED_ORIGINS).
 */
import { isOwnHost, MISDIRECTED_MESSAGE, ownHostNames, requestHost } from '../../../core/auth/own-hosts.ts';
import { PlatformError } from '../../../core/ports/platform-error.ts';

export { MISDIRECTED_MESSAGE, requestHost };

/**
 * Refuses a request whose host is none of the platform's own ({@link isOwnHost}).
 * @param policy - `allowedOrigins`: APP_BASE_URL and CORS_ALLOWED_ORIGINS; `forwardedHostTrusted`: the peer is a
 *   trusted proxy, so its X-Forwarded-Host counts (the request rules' CrossSitePolicy)
 * @throws PlatformError `misdirected_request` (421)
 *
 * Source: docs/decisions.md D17 § 7
 */
export function refuseForeignHost(
  request: Request,
  policy: { allowedOrigins?: readonly string[]; forwardedHostTrusted?: boolean } = {},
): void {
  const host = requestHost(request, policy.forwardedHostTrusted);
  if (host !== undefined && isOwnHost(host, ownHostNames(policy.allowedOrigins ?? []))) return;
  throw new PlatformError('misdirected_request', MISDIRECTED_MESSAGE, { status: 421 });
}
