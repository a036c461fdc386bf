/**
 * Answer shapes of the spend-cap routes (bins/api/session-routes.ts), shared with the web app.
 * Times are ISO-8601 strings on the wire.
 *
 * Source: spec/platform-service.md (What the service does: spend caps); docs/decisions.md D10.
 */
import { type Static, Type } from '@sinclair/typebox';

/** A workflow's spend cap (null: none) and spend so far in one period (day, week, month); every period is listed,
 * capped or not. */
export const SpendCapView = Type.Object({
  period: Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')]),
  limitUsd: Type.Union([Type.Number(), Type.Null()]),
  spentUsd: Type.Number(),
  periodStart: Type.String(),
});
export type SpendCapView = Static<typeof SpendCapView>;

/** GET …/workflows/:workflow/spend-caps. */
export const SpendCapsAnswer = Type.Object({ caps: Type.Array(SpendCapView) });
export type SpendCapsAnswer = Static<typeof SpendCapsAnswer>;

/** Body of PUT …/spend-caps/:period: dollars, or null to remove the cap. */
export const SpendCapBody = Type.Object({ limitUsd: Type.Union([Type.Number({ minimum: 0 }), Type.Null()]) }, {
  additionalProperties: false,
});
export type SpendCapBody = Static<typeof SpendCapBody>;
