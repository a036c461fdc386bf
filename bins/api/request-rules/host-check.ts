/**
 * The Host check against DNS rebinding: the API answers only its own host names (a loopback name, an IP literal,
 * the host of APP_BASE_URL or of a CORS_ALLOWED_ORIGINS entry, any port) and refuses any other Host with 421
 * before anything else happens, in every sign-in mode. Every name a request carries is asked: the Host header
 * itself, and each X-Forwarded-Host entry of a trusted proxy (loopback is one: a rebinding page on the API's own
 * port sends its own name in Host, whatever X-Forwarded-Host it adds). The front proxy applies the same rule
 * (proxy/Caddyfile) and passes the client's Host on unchanged.
 *
 * Source: docs/decisions.md D17 § 7; spec/platform-service.md § Deployment settings (APP_BASE_URL,
 * CORS_ALLOWED_ORIGINS).
 */
import {
  carriesOnlyOwnHosts,
  MISDIRECTED_MESSAGE,
  ownHostNames,
  requestHost,
} from '../../../core/auth/own-hosts.ts';
import { PlatformError } from '../../../core/ports/platform-error.ts';

export { MISDIRECTED_MESSAGE, requestHost };

/**
 * Refuses a request carrying a host name that is none of the platform's own (core/auth/own-hosts.ts
 * `carriesOnlyOwnHosts`: its Host, and each X-Forwarded-Host entry of a trusted proxy).
 * @param policy - `allowedOrigins`: APP_BASE_URL and CORS_ALLOWED_ORIGINS; `forwardedHostTrusted`: the peer is a
 *   trusted proxy, so its X-Forwarded-Host is asked too (the request rules' CrossSitePolicy)
 * @throws PlatformError `misdirected_request` (421)
 *
 * Source: docs/decisions.md D17 § 7
 */
export function refuseForeignHost(
  request: Request,
  policy: { allowedOrigins?: readonly string[]; forwardedHostTrusted?: boolean } = {},
): void {
  const names = ownHostNames(policy.allowedOrigins ?? []);
  if (carriesOnlyOwnHosts(request, names, policy.forwardedHostTrusted)) return;
  throw new PlatformError('misdirected_request', MISDIRECTED_MESSAGE, { status: 421 });
}
