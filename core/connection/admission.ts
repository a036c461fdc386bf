/**
 * Caller admission of an endpoint call (AG-UI, MCP, webhook): the checks every endpoint runs before
 * anything starts, in the spec's order: browser origin (rule 5), a member's own sign-in (rules 1–2), then
 * the connection's mode (public, bearer token of this connection only (rule 4), or an OIDC JWT of the
 * declared issuer and audience, creating no platform user (rule 3)).
 *
 * Source: spec/platform-service.md § Incoming connection authentication, § Errors.
 */
import { isPlatformError } from '../ports/platform-error.ts';
import { type ConnectionRecord, endpointTokenPrefix, type OidcSettings } from './model.ts';
import { originAllowed, sameDigest } from './rules.ts';

/** Verifies a JWT against one connection's OIDC settings (core/adapters/oidc's endpoint verifier). */
export interface EndpointJwtVerifier {
  /**
   * @returns the token's subject (`sub`, else `client_id`/`azp`)
   * @throws PlatformError `unauthorized` (401) for a token that fails signature, issuer, audience, algorithm
   *   or expiry; `identity_provider_unavailable` (503) when the issuer's keys cannot be read
   */
  verify(token: string, settings: OidcSettings): Promise<{ subject: string }>;
}

/** What admission needs. */
export interface AdmissionDeps {
  ids: { sha256Hex(data: string): Promise<string> };
  jwt: EndpointJwtVerifier;
  /** Whether member `subject` holds workflows:use on the agent (the User role or above); false for a non-member. */
  memberMayUse(subject: string, orgId: string, agentId: string): Promise<boolean>;
}

/** The facts of one request the endpoint hands over. */
export interface RequestFacts {
  /** The Authorization header, if any. */
  authorization?: string;
  /** The Origin header, if any (absent: a server-to-server call). */
  origin?: string;
  /** True when the Origin is the platform's own pages (APP_BASE_URL): rule 5 then does not apply. */
  fromPlatformPage?: boolean;
  /** The platform sign-in the request carries; `viaOwnDoing` per rule 2 (bearer token, or a proxy sign-in from the
   * platform's own pages). */
  member?: { subject: string; viaOwnDoing: boolean };
  /** The client address (for the per-caller rate of public and bearer callers). */
  clientAddress?: string;
}

/** Who was admitted; `rateKey` identifies the caller for the per-caller rate of this connection. */
export interface AdmittedCaller {
  kind: 'member' | 'token' | 'oidc' | 'public';
  /** The member's subject, or the OIDC token's subject (no platform user is created for it). */
  subject?: string;
  rateKey: string;
}

/** The outcome: admitted, or refused with the status and code the endpoint answers with. */
export type Admission =
  | { admitted: true; caller: AdmittedCaller }
  | {
    admitted: false;
    status: 401 | 403 | 503;
    code: 'connection_unauthorized' | 'origin_refused' | 'identity_provider_unavailable';
    message: string;
  };

const refused = (
  status: 401 | 403 | 503,
  code: 'connection_unauthorized' | 'origin_refused' | 'identity_provider_unavailable',
  message: string,
): Admission => ({ admitted: false, status, code, message });

/** The Bearer credential of an Authorization header, or undefined. */
export function bearerOf(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1];
}

/**
 * Decides whether a request may call `connection`'s endpoint. The MCP endpoint turns a 401 into a Bearer
 * challenge (rule 7); the others answer the status with `{error: {code, message}}`.
 * @returns admitted with the caller, or refused: 403 `origin_refused` for a page of a site not listed (before
 *   anything else); 401 `connection_unauthorized` for a missing or wrong credential; 503
 *   `identity_provider_unavailable` when the issuer's keys cannot be read
 */
export async function admitCaller(
  deps: AdmissionDeps,
  connection: ConnectionRecord,
  facts: RequestFacts,
): Promise<Admission> {
  if (!facts.fromPlatformPage && !originAllowed(connection.origins, facts.origin)) {
    return refused(
      403,
      'origin_refused',
      "Calls from this site are not allowed on this endpoint; add the site to the connection's browser origins.",
    );
  }
  const member = connection.protocol === 'webhook' ? undefined : facts.member;
  if (member?.viaOwnDoing && (await deps.memberMayUse(member.subject, connection.orgId, connection.agentId))) {
    return { admitted: true, caller: { kind: 'member', subject: member.subject, rateKey: `member:${member.subject}` } };
  }
  if (connection.auth === 'public') {
    return { admitted: true, caller: { kind: 'public', rateKey: `public:${facts.clientAddress ?? 'unknown'}` } };
  }
  const credential = bearerOf(facts.authorization);
  if (connection.auth === 'bearer') return admitToken(deps, connection, credential, facts);
  return admitOidc(deps, connection, credential);
}

async function admitToken(
  deps: AdmissionDeps,
  connection: ConnectionRecord,
  token: string | undefined,
  facts: RequestFacts,
): Promise<Admission> {
  const refusal = refused(
    401,
    'connection_unauthorized',
    'This endpoint needs its endpoint token: send Authorization: Bearer <endpoint token>.',
  );
  if (!token || !token.startsWith(endpointTokenPrefix) || token.length > 200 || !connection.tokenDigest) return refusal;
  if (!sameDigest(await deps.ids.sha256Hex(token), connection.tokenDigest)) return refusal;
  return { admitted: true, caller: { kind: 'token', rateKey: `token:${facts.clientAddress ?? 'unknown'}` } };
}

async function admitOidc(
  deps: AdmissionDeps,
  connection: ConnectionRecord,
  token: string | undefined,
): Promise<Admission> {
  const refusal = refused(
    401,
    'connection_unauthorized',
    'This endpoint needs a token from its identity provider: send Authorization: Bearer <JWT> issued for this ' +
      "endpoint's audience.",
  );
  if (!token || !connection.oidc) return refusal;
  try {
    const { subject } = await deps.jwt.verify(token, connection.oidc);
    return { admitted: true, caller: { kind: 'oidc', subject, rateKey: `oidc:${subject}` } };
  } catch (error) {
    if (isPlatformError(error, 'unauthorized')) {
      return refused(401, 'connection_unauthorized', `${refusal.admitted ? '' : refusal.message} ${error.message}`);
    }
    if (isPlatformError(error, 'identity_provider_unavailable')) {
      return refused(503, 'identity_provider_unavailable', error.message);
    }
    throw error;
  }
}
