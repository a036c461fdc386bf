/**
 * Request and answer shapes of the connection routes (bins/api/connection-routes.ts), shared with the web
 * app (web/src/pages/platform/connections) so neither re-declares them. Times are ISO-8601 strings on the wire.
 *
 * Source: spec/platform-service.md § Incoming connection, § Incoming connection authentication,
 * § Errors; docs/decisions.md D8 § Connections; docs/decisions.md D10 (Connections page).
 */
import { type Static, Type } from '@sinclair/typebox';

const Str = (max: number) => Type.String({ maxLength: max });

/** OIDC settings of a connection in `oidc` mode (`jwksUrl` defaults to the issuer's discovery). */
export const OidcSettings = Type.Object({
  issuer: Str(500),
  audience: Str(500),
  jwksUrl: Type.Optional(Str(500)),
  algorithms: Type.Optional(Type.Array(Str(20), { maxItems: 10 })),
}, { additionalProperties: false });
export type OidcSettings = Static<typeof OidcSettings>;

/** Calls per minute: per caller and for the whole endpoint. */
export const RateLimits = Type.Object({ perCaller: Type.Integer(), perEndpoint: Type.Integer() }, {
  additionalProperties: false,
});
export type RateLimits = Static<typeof RateLimits>;

/** Browser origins allowed to call the endpoint (CORS), at most 100. */
export const Origins = Type.Array(Str(300), { maxItems: 100 });

/** Body of POST …/connections: `protocol` agui | mcp | webhook; `auth` public | bearer | oidc (public: not for mcp). */
export const CreateConnectionBody = Type.Object({
  identifier: Str(100),
  protocol: Str(20),
  auth: Str(20),
  oidc: Type.Optional(OidcSettings),
  origins: Type.Optional(Origins),
  rate: Type.Optional(RateLimits),
}, { additionalProperties: false });
export type CreateConnectionBody = Static<typeof CreateConnectionBody>;

/** Body of PATCH …/connections/:identifier (takes effect on the environment's next publish; `protocol` is fixed). */
export const ChangeConnectionBody = Type.Object({
  protocol: Type.Optional(Str(20)),
  auth: Type.Optional(Str(20)),
  oidc: Type.Optional(OidcSettings),
  origins: Type.Optional(Origins),
  rate: Type.Optional(RateLimits),
}, { additionalProperties: false });
export type ChangeConnectionBody = Static<typeof ChangeConnectionBody>;

/** An edit waiting for the environment's next publish, restore or promotion (rule 6). */
export const PendingChangeView = Type.Object({
  auth: Type.String(),
  oidc: Type.Optional(OidcSettings),
  origins: Type.Array(Type.String()),
  rate: RateLimits,
  changedAt: Type.String(),
  changedBy: Type.String(),
  takesEffect: Type.String(),
});
export type PendingChangeView = Static<typeof PendingChangeView>;

/**
 * A connection as answered (never its token): `url` is its endpoint; `status` serving | not_used | error,
 * `servingCount` the serving deployments naming it, `statusMessage` the failing deployment's message.
 */
export const ConnectionView = Type.Object({
  identifier: Type.String(),
  agentId: Type.String(),
  environment: Type.String(),
  protocol: Type.Union([Type.Literal('agui'), Type.Literal('mcp'), Type.Literal('webhook')]),
  auth: Type.Union([Type.Literal('public'), Type.Literal('bearer'), Type.Literal('oidc')]),
  oidc: Type.Optional(OidcSettings),
  origins: Type.Array(Type.String()),
  rate: RateLimits,
  url: Type.String(),
  status: Type.Union([Type.Literal('serving'), Type.Literal('not_used'), Type.Literal('error')]),
  servingCount: Type.Integer(),
  statusMessage: Type.Union([Type.String(), Type.Null()]),
  pendingChange: Type.Union([PendingChangeView, Type.Null()]),
  createdAt: Type.String(),
  createdBy: Type.String(),
  updatedAt: Type.String(),
});
export type ConnectionView = Static<typeof ConnectionView>;

/** GET …/connections. */
export const ConnectionListAnswer = Type.Object({ connections: Type.Array(ConnectionView) });
export type ConnectionListAnswer = Static<typeof ConnectionListAnswer>;

/** One connection's answer; `token` (bearer mode) only on create, switch to bearer and regenerate-token, shown once. */
export const ConnectionAnswer = Type.Object({
  connection: ConnectionView,
  url: Type.String(),
  token: Type.Optional(Type.String()),
});
export type ConnectionAnswer = Static<typeof ConnectionAnswer>;
