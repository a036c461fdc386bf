/**
 * The platform's own-pages rule: a state-changing request sent by another site's page is refused before
 * anything happens. A request counts as another site's when the browser says so (Sec-Fetch-Site cross-site
 * or same-site without an Origin), or its Origin is not one of the platform's origins: an allowed origin
 * (APP_BASE_URL, CORS_ALLOWED_ORIGINS), or the request's own host when that host is one of the platform's own
 * names (core/auth/own-hosts.ts: loopback, an IP literal, a configured origin's host). "Origin equals Host"
 * alone is not enough: a DNS-rebinding page sends its own name in both. Clients that are not browsers send
 * neither header and pass.
 *
 * Source: spec/platform-service.md § Authentication rule 1; § Errors (state-changing request sent by another
 * site's page: 403); docs/decisions.md D17 § 7.
 */
import { isOwnHost, ownHostNames } from '../../../core/auth/own-hosts.ts';
import { PlatformError } from '../../../core/ports/platform-error.ts';
import { requestHost } from './host-check.ts';

/**
 * Who counts as the platform's own pages.
 *
 * Source: spec/platform-service.md § Deployment settings (APP_BASE_URL, CORS_ALLOWED_ORIGINS)
 */
export interface CrossSitePolicy {
  /** Browser origins of the platform's own pages (APP_BASE_URL and CORS_ALLOWED_ORIGINS entries). */
  allowedOrigins?: readonly string[];
  /** Believe X-Forwarded-Host for the request's own host (only when the peer is a trusted proxy). */
  forwardedHostTrusted?: boolean;
}

/**
 * True when the request was sent by another site's page (whatever its method).
 *
 * Source: spec/platform-service.md § Authentication rule 1; § Incoming connection authentication rule 2
 */
export function isCrossSiteRequest(request: Request, policy: CrossSitePolicy = {}): boolean {
  const origin = request.headers.get('origin');
  const site = request.headers.get('sec-fetch-site');
  if (origin === null) return site === 'cross-site' || site === 'same-site';
  if (origin === 'null') return true;
  let originUrl: URL;
  try {
    originUrl = new URL(origin);
  } catch {
    return true;
  }
  const allowed = policy.allowedOrigins ?? [];
  if (allowed.some((origin) => sameOrigin(origin, originUrl))) return false;
  const host = requestHost(request, policy.forwardedHostTrusted);
  if (host === undefined || originUrl.host.toLowerCase() !== host.toLowerCase()) return true;
  return !isOwnHost(host, ownHostNames(allowed));
}

/**
 * Refuses a state-changing request sent by another site's page; GET, HEAD and OPTIONS pass.
 * @throws PlatformError `cross_site_request` (403)
 *
 * Source: spec/platform-service.md § Authentication rule 1
 */
export function refuseCrossSite(request: Request, policy: CrossSitePolicy = {}): void {
  if (['GET', 'HEAD', 'OPTIONS'].includes(request.method)) return;
  if (isCrossSiteRequest(request, policy)) {
    throw new PlatformError('cross_site_request', 'State-changing requests from another site are refused.', { status: 403 });
  }
}

function sameOrigin(allowed: string, origin: URL): boolean {
  try {
    return new URL(allowed).origin === origin.origin;
  } catch {
    return false;
  }
}

/**
 * True when a request's platform sign-in is its member's own doing (incoming connections, rule 2): it comes from
 * one of `platformOrigins` (APP_BASE_URL, CORS_ALLOWED_ORIGINS), or under oidc carries the member's bearer token.
 * Used by the per-user ceiling (member runs) and the AG-UI and MCP endpoints (bins/api/endpoint-rate.ts).
 *
 * Source: spec/platform-service.md § Incoming connection authentication (rule 2); § Limits (per-user ceiling)
 */
export function signInIsOwnDoing(
  request: Request, signInMode: 'oidc' | 'cloud-alb' | 'dev-user', platformOrigins: readonly string[],
): boolean {
  const origin = request.headers.get('origin');
  const fromOwnPage = origin !== null && platformOrigins.includes(origin);
  return fromOwnPage || (signInMode === 'oidc' && /^Bearer\s/i.test(request.headers.get('authorization') ?? ''));
}
