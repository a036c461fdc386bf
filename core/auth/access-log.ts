/**
 * The API's access log (ACCESS_LOG): which requests get a line, and the redaction of the secret parts of
 * request URIs and of a Referer naming them.
 *
 * Source: spec/platform-service.md § Events (Operational log lines: Access log); § Authentication rule 9.
 */

/**
 * ACCESS_LOG: errors keeps only responses not 2xx or 3xx; all keeps every request; off keeps none.
 *
 * Source: spec/platform-service.md § Deployment settings (ACCESS_LOG)
 */
export type AccessLogMode = 'errors' | 'all' | 'off';

/**
 * One finished request, as the access log sees it.
 *
 * Source: spec/platform-service.md § Events (Access log)
 */
export interface AccessLogEntry {
  method: string;
  /** Request target: path and query (`/api/x?y=1`), or a full URL. Redacted here. */
  uri: string;
  /** HTTP status answered. */
  status: number;
  /** Time from receiving the request to the response head, milliseconds. */
  durationMs: number;
  /** Client address (the socket peer, or the X-Forwarded-For client a trusted proxy names). */
  clientAddress: string;
  /** Referer header, if any. Redacted here. */
  referer?: string | null;
}

const REDACTED = '[redacted]';
/** Token-bearing path prefixes: the segment after each is the secret (`/invite/`, `/decide/`: the web app's pages). */
const tokenPath = new RegExp(
  String.raw`^(\/+api\/+(?:webhooks|callbacks|agui|mcp|decisions)\/+|\/+api\/+invitations\/+link\/+` +
    String.raw`|\/+(?:invite|decide)\/+)[^/]+`,
  'i',
);
const oauth2Callback = /^\/+api\/+oauth2\/+callback\/*$/i;

/**
 * Redacts a request target: the token of /api/webhooks/<token>, /api/callbacks/<token>, /api/agui/<token>,
 * /api/mcp/<token>, /api/decisions/<token>, /api/invitations/link/<token>, /invite/<token> and /decide/<token>
 * (a decision link's page, named by the Referer of its API calls; docs/decisions.md D26 § 3) becomes `[redacted]`
 * (what follows it is kept); the whole query of /api/oauth2/callback becomes `[redacted]`; on those
 * endpoint paths every query value becomes `[redacted]` (a name alone too), elsewhere the values of secret-looking
 * names (token, key, secret, pass, auth, code, sig, session, credential, jwt) do. Names are kept.
 * @param uri - a path with optional query, or an absolute URL (scheme, host and fragment are kept)
 * @returns the redacted target
 *
 * Source: spec/platform-service.md § Events (Access log: redaction)
 */
export function redactRequestUri(uri: string): string {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(uri);
  const origin = absolute?.[0] ?? '';
  const rest = uri.slice(origin.length);
  const hashAt = rest.indexOf('#');
  const fragment = hashAt >= 0 ? rest.slice(hashAt) : '';
  const target = hashAt >= 0 ? rest.slice(0, hashAt) : rest;
  const queryAt = target.indexOf('?');
  const path = queryAt >= 0 ? target.slice(0, queryAt) : target;
  const query = queryAt >= 0 ? target.slice(queryAt + 1) : undefined;
  const redactedPath = path.replace(tokenPath, (_whole, prefix: string) => `${prefix}${REDACTED}`);
  const queryShown = query === undefined
    ? undefined
    : oauth2Callback.test(path)
    ? REDACTED
    : redactQuery(query, tokenPath.test(path));
  const redactedQuery = queryShown === undefined ? '' : `?${queryShown}`;
  const redactedFragment = fragment && oauth2Callback.test(path) ? `#${REDACTED}` : fragment;
  return `${origin}${redactedPath}${redactedQuery}${redactedFragment}`;
}

/** Query names whose values are secrets on any path (`access_token`, `api_key`, `code`, `sig`, …). */
const secretName = /token|key|secret|pass|auth|code|sig|session|credential|jwt/i;

/**
 * Redacts a query string's values: every value on an endpoint path (`all`: outside callers put credentials there,
 * e.g. `?access_token=…` on a webhook), else the values of secret-looking names. Names are kept so a line still
 * says what was sent; a name that does not decode is redacted as a whole.
 */
function redactQuery(query: string, all: boolean): string {
  return query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq >= 0 ? pair.slice(0, eq) : pair;
    let decoded: string;
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      return REDACTED;
    }
    if (eq < 0) return all && name !== '' ? REDACTED : name;
    return all || secretName.test(decoded) ? `${name}=${REDACTED}` : pair;
  }).join('&');
}

/**
 * The access-log line of a finished request, or null when `mode` keeps none for it.
 * Format: `<client> "<METHOD> <redacted target>" <status> <ms>ms[ referer="<redacted referer>"]`;
 * the referer is JSON-quoted so no header can forge a line.
 *
 * Source: spec/platform-service.md § Events (Access log)
 */
export function accessLogLine(mode: AccessLogMode, entry: AccessLogEntry): string | null {
  if (mode === 'off') return null;
  if (mode === 'errors' && entry.status >= 200 && entry.status < 400) return null;
  const method = /^[A-Z]{1,16}$/i.test(entry.method) ? entry.method.toUpperCase() : 'INVALID';
  const target = redactRequestUri(entry.uri).replace(/[\s"\\]/g, (c) => encodeURIComponent(c));
  const client = entry.clientAddress.replace(/[^0-9a-fA-F:.]/g, '') || '-';
  const referer = entry.referer ? ` referer=${JSON.stringify(redactRequestUri(entry.referer))}` : '';
  return `${client} "${method} ${target}" ${entry.status} ${Math.max(0, Math.round(entry.durationMs))}ms${referer}`;
}
