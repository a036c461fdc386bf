/**
 * semantic-mcp's Host check against DNS rebinding, the API's rule (bins/api/request-rules/host-check.ts) for the MCP
 * endpoints when they are reached without the front proxy (its own port, or a deployment where it is its own
 * service): a Host that is a loopback name, an IP literal, or the host of APP_BASE_URL or of a CORS_ALLOWED_ORIGINS
 * entry (any port) is served; any other is answered 421 before anything else happens (no token check, no count).
 *
 * Source: docs/decisions.md D18 § 5 (the MCP endpoints covered by docs/decisions.md D17 § 7's Host check); MCP
 * 2025-06-18 § Transports,
 * Security warning (servers validate where a request comes from, against DNS rebinding).
 */
import { carriesOnlyOwnHosts, MISDIRECTED_MESSAGE } from '../../core/auth/own-hosts.ts';

/**
 * The 421 answer (`misdirected_request`, JSON) when `request`'s Host is none of the platform's own, else undefined.
 * @param names - own host names besides loopback names and IP literals (core/auth/own-hosts.ts `ownHostNames`)
 *
 * Source: docs/decisions.md D18 § 5
 */
export function foreignHostRefusal(request: Request, names: readonly string[]): Response | undefined {
  // The Host header itself: semantic-mcp believes no X-Forwarded-Host, so none can stand in for it.
  if (carriesOnlyOwnHosts(request, names)) return undefined;
  return new Response(JSON.stringify({ error: { code: 'misdirected_request', message: MISDIRECTED_MESSAGE } }), {
    status: 421,
    headers: { 'content-type': 'application/json' },
  });
}
