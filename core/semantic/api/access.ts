/**
 * Request and response shapes of the MCP Access routes (access tokens) and the improvement-request routes
 * under /api/semantic/projects/:slug, shared by the API (bins/api/semantic-routes.ts and
 * bins/api/semantic-access-routes.ts check bodies against them and build their answers as these types) and
 * the web app (web/src/pages/semantic/AccessPage.tsx, ImprovementsPage.tsx), so neither re-declares a shape.
 * Times travel as ISO-8601 strings.
 *
 * Source: spec/semantic-query-service.md § Resources and their fields (access token, improvement
 * request), § Authentication 1–4; docs/decisions.md D9 (MCP Access, Improvement requests).
 */
import { type Static, Type } from '@sinclair/typebox';

/** Lifecycle of a token as listed: `expired` once its expiry has passed, `revoked` once revoked (revocation wins). */
export const TokenState = Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]);
export type TokenState = Static<typeof TokenState>;

/**
 * A token as listed (never its value nor its hash): `displayPrefix` (the fixed `cairn_mcp_` prefix plus six
 * characters) tells tokens apart; `models` is its scope; `lastUsedAt` is exact to the minute; `events30d`
 * counts its tools/call entries of the last 30 days. Absent times are not set (no expiry, never revoked,
 * never used). This is core/semantic/tokens.ts `TokenSummary` as JSON.
 */
export const TokenView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  displayPrefix: Type.String(),
  models: Type.Array(Type.String()),
  createdAt: Type.String(),
  expiresAt: Type.Optional(Type.String()),
  revokedAt: Type.Optional(Type.String()),
  lastUsedAt: Type.Optional(Type.String()),
  events30d: Type.Integer({ minimum: 0 }),
  state: TokenState,
});
export type TokenView = Static<typeof TokenView>;

/** Body of GET …/tokens: the project's tokens, newest first. */
export const TokenList = Type.Object({ tokens: Type.Array(TokenView) });
export type TokenList = Static<typeof TokenList>;

/**
 * Body of POST …/tokens: an optional display name (default "token", at most 200 characters), the model
 * names it may reach (at least one), and an optional expiry: `YYYY-MM-DD` (the end of that UTC day) or an
 * ISO-8601 instant, in the future. Errors: `invalid_argument` (400) for an empty scope, an unreadable or past expiry.
 */
export const CreateTokenBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  models: Type.Array(Type.String(), { minItems: 1 }),
  expiresAt: Type.Optional(Type.String({ description: 'YYYY-MM-DD (end of that UTC day) or an ISO-8601 instant' })),
  value: Type.Optional(Type.String({ maxLength: 100, description: 'a raw value minted elsewhere in the same form' })),
}, { additionalProperties: false });
export type CreateTokenBody = Static<typeof CreateTokenBody>;

/**
 * Body of the 201 from POST …/tokens: the raw `token`, answered this once and never again (only its
 * SHA-256 digest is stored), with the stored id, name, scope, expiry (ISO-8601 or null) and display prefix.
 */
export const CreatedTokenView = Type.Object({
  token: Type.String(),
  id: Type.String(),
  name: Type.String(),
  models: Type.Array(Type.String()),
  expiresAt: Type.Union([Type.String(), Type.Null()]),
  displayPrefix: Type.String(),
});
export type CreatedTokenView = Static<typeof CreatedTokenView>;

/** Body of DELETE …/tokens/:id (idempotent): the revoked token's id. Error: `not_found` (404). */
export const RevokedTokenView = Type.Object({ revoked: Type.String() });
export type RevokedTokenView = Static<typeof RevokedTokenView>;

/** Which improvement requests a list answers: not yet done, done, or all. */
export const ImprovementStatusFilter = Type.Union([Type.Literal('open'), Type.Literal('done'), Type.Literal('all')], {
  description: '"open", "done" or "all"',
});
export type ImprovementStatusFilter = Static<typeof ImprovementStatusFilter>;

/**
 * An improvement request an agent submitted through request_improvement (title ≤ 200, description ≤ 2,000
 * characters), with the token that sent it and its done state: `status` 'done' with `doneAt` (ISO-8601) and
 * `doneBy` (the member's email, else their subject) once a member marked it done, else 'open' with both null.
 */
export const ImprovementView = Type.Object({
  id: Type.String(),
  modelName: Type.String(),
  title: Type.String(),
  description: Type.String(),
  tokenId: Type.String(),
  createdAt: Type.String(),
  status: Type.Union([Type.Literal('open'), Type.Literal('done')]),
  doneAt: Type.Union([Type.String(), Type.Null()]),
  doneBy: Type.Union([Type.String(), Type.Null()]),
});
export type ImprovementView = Static<typeof ImprovementView>;

/** Body of GET …/improvements/list: the requests, newest first (at most the `limit` asked, ≤ 500). */
export const ImprovementList = Type.Object({ improvements: Type.Array(ImprovementView) });
export type ImprovementList = Static<typeof ImprovementList>;

/**
 * Body of POST …/improvements/:id/done (mark done): nothing to send; the body may be absent or `{}`.
 * Who marked it comes from the sign-in. DELETE …/improvements/:id/done reopens and takes no body.
 */
export const MarkImprovementDoneBody = Type.Object({}, { additionalProperties: false });
export type MarkImprovementDoneBody = Static<typeof MarkImprovementDoneBody>;
