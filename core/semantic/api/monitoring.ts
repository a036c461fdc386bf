/**
 * Shapes of Monitoring's routes, shared by the API (bins/api/semantic-routes.ts GET …/calls,
 * bins/api/semantic-playground-routes.ts GET …/calls/stats and …/calls/tokens) and the web app's
 * Monitoring page. Times are ISO-8601 strings on the wire.
 *
 * Source: spec/semantic-query-service.md § Resources (call log entry, the filter bar), § Events;
 * docs/decisions.md D9.
 */
import { type Static, Type } from '@sinclair/typebox';

/** One call log entry as GET …/calls answers it (a CallLogRecord, dates as strings). */
export const CallView = Type.Object({
  _id: Type.String(),
  projectId: Type.String(),
  tokenId: Type.String(),
  tool: Type.String(),
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  at: Type.String(),
  plane: Type.Union([Type.Literal('production'), Type.Literal('test')]),
  /** Input arguments, or `{ excerpt, truncated: true, originalChars }` when the log cut them (beyond 65,536 characters
   * of JSON). */
  input: Type.Unknown(),
  /** Tool output (`text`, `structured`), or an excerpt as for input. */
  output: Type.Unknown(),
  durationMs: Type.Number(),
  modelName: Type.Optional(Type.String()),
});
export type CallView = Static<typeof CallView>;

/** Body of GET /api/semantic/projects/:slug/calls: entries newest first, and the tools ever called (the filter's
 * options). */
export const CallList = Type.Object({ calls: Type.Array(CallView), tools: Type.Array(Type.String()) });
export type CallList = Static<typeof CallList>;

/** Query of GET …/calls/stats: the filters of GET …/calls, and `bucketMinutes` (1–10,080; default chosen from the
 * range). */
export const CallStatsQuery = Type.Object({
  tool: Type.Optional(Type.String({ maxLength: 200 })),
  status: Type.Optional(Type.Union([Type.Literal('success'), Type.Literal('error')])),
  token: Type.Optional(Type.String({ maxLength: 200 })),
  from: Type.Optional(Type.String({ maxLength: 40 })),
  to: Type.Optional(Type.String({ maxLength: 40 })),
  bucketMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_080 })),
});
export type CallStatsQuery = Static<typeof CallStatsQuery>;

/** One time bucket: calls and errors, and the p50/p95 duration in ms of its execute_query calls (null without any). */
export const CallStatsBucketView = Type.Object({
  start: Type.String(),
  calls: Type.Integer(),
  errors: Type.Integer(),
  queries: Type.Integer(),
  latencyP50Ms: Type.Union([Type.Number(), Type.Null()]),
  latencyP95Ms: Type.Union([Type.Number(), Type.Null()]),
});
export type CallStatsBucketView = Static<typeof CallStatsBucketView>;

/** Body of GET …/calls/stats. `sampled`: more than 20,000 entries matched and only the newest were counted. */
export const CallStatsView = Type.Object({
  from: Type.String(),
  to: Type.String(),
  bucketMinutes: Type.Integer(),
  buckets: Type.Array(CallStatsBucketView),
  sampled: Type.Boolean(),
});
export type CallStatsView = Static<typeof CallStatsView>;

/** A token as Monitoring names it (every token, playground and revoked ones included; never its hash). */
export const CallTokenView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  displayPrefix: Type.String(),
  playground: Type.Boolean(),
});
export type CallTokenView = Static<typeof CallTokenView>;

/** Body of GET …/calls/tokens. */
export const CallTokenList = Type.Object({ tokens: Type.Array(CallTokenView) });
export type CallTokenList = Static<typeof CallTokenList>;
