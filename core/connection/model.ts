/**
 * Incoming connections: the stored record of a connection (protocol, authentication mode, OIDC settings,
 * browser origins, calls per minute, the bearer token's digest, the endpoint address), the never-deleted
 * address records, collection names, and the ports the use cases need.
 *
 * Source: spec/platform-service.md § Incoming connection, § Incoming connection authentication,
 * § Limits; docs/decisions.md D8 § Connections.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';

/** Version of the document shape each connection collection holds (`schemaVersion`). Source: spec § Versioning. */
export const connectionSchemaVersion = 1 as const;

/** Collection names, one place. `addresses` is never deleted from (an address comes back on re-registration). */
export const connectionCollections = {
  connections: 'connections',
  addresses: 'connection_addresses',
} as const;

/** Protocols of an endpoint; fixed for a connection's life. Source: spec § Incoming connection (protocol). */
export const protocols = ['agui', 'mcp', 'webhook'] as const;
/** A connection's protocol. */
export type Protocol = (typeof protocols)[number];
/** Authentication modes; `public` is for AG-UI and webhook only. Source: spec § Incoming connection authentication. */
export const authModes = ['public', 'bearer', 'oidc'] as const;
/** A connection's authentication mode. */
export type AuthMode = (typeof authModes)[number];

/** Fixed prefix of every endpoint token, so secret scanners and people recognise one. */
export const endpointTokenPrefix = 'cairn_ep_';

/**
 * Default calls per minute by protocol: AG-UI and MCP 30 per caller / 300 per endpoint; webhook 600 / 600.
 * Source: spec § Limits.
 */
export const defaultRates: Readonly<Record<Protocol, { perCaller: number; perEndpoint: number }>> = {
  agui: { perCaller: 30, perEndpoint: 300 },
  mcp: { perCaller: 30, perEndpoint: 300 },
  webhook: { perCaller: 600, perEndpoint: 600 },
};

/** OIDC settings of an oidc-mode connection. Source: spec § Incoming connection (issuer, audience, JWKS URL,
 * algorithms). */
export const OidcSettings = Type.Object({
  /** https URL (http only on a loopback host outside production), exactly as the issuer names itself. */
  issuer: Type.String(),
  /** Required: without it any token the issuer signs for any application would be admitted. */
  audience: Type.String(),
  /** Where the keys are; unset: the issuer's discovery document names it. */
  jwksUrl: Type.Optional(Type.String()),
  /** Accepted JWS algorithms (default ['RS256']). */
  algorithms: Type.Array(Type.String()),
});
/** OIDC settings. */
export type OidcSettings = Static<typeof OidcSettings>;

/** Calls per minute per caller and per endpoint. */
export const RateSettings = Type.Object({
  perCaller: Type.Integer({ minimum: 1 }),
  perEndpoint: Type.Integer({ minimum: 1 }),
});
/** Calls per minute. */
export type RateSettings = Static<typeof RateSettings>;

/** The settings of a connection that an edit changes (in effect, or pending until the next publish). */
const editableSettings = {
  auth: Type.Union(authModes.map((a) => Type.Literal(a))),
  oidc: Type.Optional(OidcSettings),
  /** Sites (`scheme://host[:port]`) whose pages may call; [] server-to-server only; ['*'] any site. */
  origins: Type.Array(Type.String()),
  rate: RateSettings,
  /** Lower-case hex SHA-256 of the endpoint token (bearer mode only). */
  tokenDigest: Type.Optional(Type.String()),
};

/** A connection as stored; `_id` is `<agentId>:<environment>:<identifier>`. */
export const ConnectionRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: Type.Literal(connectionSchemaVersion),
  orgId: Type.String(),
  agentId: Type.String(),
  environment: Type.String(),
  identifier: Type.String(),
  protocol: Type.Union(protocols.map((p) => Type.Literal(p))),
  ...editableSettings,
  /** The endpoint address (see {@link AddressRecord}). */
  address: Type.String(),
  /**
   * An edit waiting for the environment's next publish (rule 6: edits take effect on publish): the settings it
   * will put in effect, who made it and when. Token regeneration does not wait.
   */
  pending: Type.Optional(Type.Object({
    ...editableSettings,
    /** Names this edit (the compare-and-set that puts it in effect). */
    id: Type.String(),
    changedAt: Type.Date(),
    changedBy: Type.String(),
  })),
  createdAt: Type.Date(),
  createdBy: Type.String(),
  updatedAt: Type.Date(),
});
/** A stored connection. */
export type ConnectionRecord = Static<typeof ConnectionRecord>;

/** The address minted for `<agentId>:<environment>:<identifier>` (its `_id`); never deleted. */
export const AddressRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: Type.Literal(connectionSchemaVersion),
  address: Type.String(),
  createdAt: Type.Date(),
});
/** A stored address. */
export type AddressRecord = Static<typeof AddressRecord>;

/** The agent environment a caller acts on, resolved and role-checked by {@link ConnectionDeps.scope}. */
export interface ConnectionScope {
  orgId: string;
  agentId: string;
  environment: string;
}

/** The signed-in member managing connections. */
export interface ConnectionCaller {
  subject: string;
}

/** Roles the management use cases ask for: Reader to read, Maintainer to change. */
export type ConnectionRole = 'reader' | 'maintainer';

/** The world the connection use cases need, passed in. */
export interface ConnectionDeps {
  docs: DocumentStore;
  clock: Clock;
  ids: Ids;
  /** Production: an OIDC issuer must be https (no loopback http). */
  production: boolean;
  /**
   * PLATFORM_ALLOW_PRIVATE_URLS (effective: false in production): when true an OIDC issuer or JWKS URL may be
   * plain http or name a local, loopback or private host. Default false.
   */
  allowPrivateUrls?: boolean;
  /**
   * The agent (id or slug) and environment after checking the caller holds `role` on the agent.
   * @throws PlatformError `agent_not_found` / `environment_not_found` (404), `agent_role_required` (403)
   */
  scope(caller: ConnectionCaller, agent: string, environment: string, role: ConnectionRole): Promise<ConnectionScope>;
}
