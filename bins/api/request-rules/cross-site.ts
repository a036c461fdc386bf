/**
 * The platform's own-pages rule: a state-changing request sent by another site's page is refused before
 * anything happens. A request counts as another site's when the browser says so (Sec-Fetch-Site cross-site
 * or same-site without an Origin), or its Origin is neither the request's own host nor an allowed origin
 * (APP_BASE_URL, CORS_ALLOWED_ORIGINS). Clients that are not browsers send neither header and pass.
 *
 * Source: spec/platform-service.md § Authentication rule 1; § Errors (state-changing request sent by another site's page: 403).
 */
import { PlatformError } from '../../../core/ports/platform-error.ts';

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
  if ((policy.allowedOrigins ?? []).some((allowed) => sameOrigin(allowed, originUrl))) return false;
  const forwarded = policy.forwardedHostTrusted ? request.headers.get('x-forwarded-host')?.split(',')[0]?.trim() : undefined;
  const host = forwarded || request.headers.get('host');
  return host === null || originUrl.host.toLowerCase() !== host.toLowerCase();
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
