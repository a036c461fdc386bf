/**
 * Spend caps: a ceiling on a workflow's model cost in USD within one environment over one UTC period (day, week
 * from Monday, month); one cap per period per workflow per environment; the first one reached refuses the turn.
 * Spend is totalled for every period after each model call, so a cap set mid-period counts what was spent before.
 * A workflow's spend includes the spend of the child workflows it calls (at any depth), so an ancestor's cap bounds
 * its children too. Model calls reserve before they run and settle after: core/session/spend-reservations.ts.
 *
 * Source: spec/platform-service.md § Session facts named (Spend cap); docs/decisions.md D7 § Sessions and turns.
 */
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { PlatformError } from '../ports/platform-error.ts';
import { sessionCollections, sessionSchemaVersion } from './model.ts';
import { type SpendCapRecord, type SpendPeriod, spendPeriods, type SpendTotalRecord } from './spend-model.ts';
import { periodStart } from './rules.ts';

/** Where spend is counted: one workflow of one environment of an agent. */
export interface SpendScope {
  orgId: string;
  agentId: string;
  environment: string;
  workflow: string;
}

const capsOf = (docs: DocumentStore) => docs.collection<SpendCapRecord>(sessionCollections.spendCaps);
const totalsOf = (docs: DocumentStore) => docs.collection<SpendTotalRecord>(sessionCollections.spendTotals);
/** `_id` of the cap of one period of a scope: `<agentId>:<environment>:<workflow>:<period>`. */
export const capId = (scope: SpendScope, period: SpendPeriod) =>
  `${scope.agentId}:${scope.environment}:${scope.workflow}:${period}`;
/** `_id` of the spend counter of one period of a scope: the cap id, `:`, the period's start as an ISO date. */
export const totalId = (scope: SpendScope, period: SpendPeriod, start: Date) =>
  `${capId(scope, period)}:${start.toISOString().slice(0, 10)}`;
/** A period as messages name it. */
export const periodWords: Record<SpendPeriod, string> = {
  day: 'UTC day',
  week: 'week (from Monday, UTC)',
  month: 'month (UTC)',
};

/**
 * Every period (day, week, month) of a scope: its cap in USD (null: none) and what was spent in its current
 * period, counted whether or not a cap is set.
 */
export async function spendStatus(
  deps: { docs: DocumentStore; clock: Clock },
  scope: SpendScope,
): Promise<{ period: SpendPeriod; limitUsd: number | null; spentUsd: number; periodStart: Date }[]> {
  const now = deps.clock.now();
  const caps = await capsOf(deps.docs).find(capsFilter(scope));
  return Promise.all(spendPeriods.map(async (period) => {
    const start = periodStart(period, now);
    const total = await totalsOf(deps.docs).findOne({ _id: totalId(scope, period, start) });
    return {
      period,
      limitUsd: caps.find((c) => c.period === period)?.limitUsd ?? null,
      spentUsd: total?.costUsd ?? 0,
      periodStart: start,
    };
  }));
}

/** The caps of `scope`'s workflow in its environment, every period. */
const capsFilter = (scope: SpendScope) => ({
  agentId: scope.agentId,
  environment: scope.environment,
  workflow: scope.workflow,
});

/**
 * Refuses when a cap of the scope is reached (spent ≥ limit in its current period); the first reached, in the
 * order day, week, month, names the message.
 * @throws PlatformError `spend_cap_reached` (429) naming the period, the cap and the spend
 */
export async function checkSpendCaps(deps: { docs: DocumentStore; clock: Clock }, scope: SpendScope): Promise<void> {
  // Most workflows have no cap: one read then; with caps, only the capped periods' totals (docs/decisions.md D24 § 3).
  const caps = await capsOf(deps.docs).find(capsFilter(scope));
  if (caps.length === 0) return;
  const now = deps.clock.now();
  for (const period of spendPeriods) {
    const cap = caps.find((c) => c.period === period);
    if (!cap) continue;
    const total = await totalsOf(deps.docs).findOne({ _id: totalId(scope, period, periodStart(period, now)) });
    const spentUsd = total?.costUsd ?? 0;
    if (spentUsd >= cap.limitUsd) {
      throw new PlatformError(
        'spend_cap_reached',
        `Workflow "${scope.workflow}" reached its spend cap of ${cap.limitUsd} USD for this ${
          periodWords[period]
        } in environment "${scope.environment}" (spent ${
          spentUsd.toFixed(4)
        } USD); it takes no new turn until the period ends or a maintainer raises the cap.`,
        { status: 429 },
      );
    }
  }
}

/**
 * Adds a cost to the scope's totals of every period, spent and committed alike (model calls go through
 * core/session/spend-reservations.ts, which reserves first; this is for a cost known after the fact).
 */
export async function addSpend(
  deps: { docs: DocumentStore; clock: Clock },
  scope: SpendScope,
  costUsd: number,
): Promise<void> {
  if (costUsd <= 0) return;
  const now = deps.clock.now();
  for (const period of spendPeriods) {
    const start = periodStart(period, now);
    await totalsOf(deps.docs).updateOne(
      { _id: totalId(scope, period, start) },
      {
        $inc: { costUsd, committedNano: Math.round(costUsd * 1_000_000_000) },
        $set: {
          schemaVersion: sessionSchemaVersion,
          orgId: scope.orgId,
          agentId: scope.agentId,
          environment: scope.environment,
          workflow: scope.workflow,
          period,
          periodStart: start,
        },
      },
      { upsert: true },
    );
  }
}

/** The cap {@link writeSpendCap} writes, and who set it. */
export interface SpendCapWrite {
  /** The period the cap applies to. */
  period: SpendPeriod;
  /** The most the scope may spend in one period, in US dollars (≥ 0); null removes the cap. */
  limitUsd: number | null;
  /** Who set it (stored with the cap). */
  by: string;
}

/**
 * Sets (or with `limitUsd` null removes) the cap of one period.
 * @throws PlatformError `invalid_argument` (400) for a limit that is not a number ≥ 0
 */
export async function writeSpendCap(
  deps: { docs: DocumentStore; clock: Clock },
  scope: SpendScope,
  { period, limitUsd, by }: SpendCapWrite,
): Promise<void> {
  if (limitUsd === null) {
    await capsOf(deps.docs).deleteOne({ _id: capId(scope, period) });
    return;
  }
  if (typeof limitUsd !== 'number' || !Number.isFinite(limitUsd) || limitUsd < 0) {
    throw new PlatformError('invalid_argument', 'limitUsd must be a number of USD ≥ 0 (null removes the cap).', {
      status: 400,
    });
  }
  await capsOf(deps.docs).updateOne(
    { _id: capId(scope, period) },
    {
      $set: {
        schemaVersion: sessionSchemaVersion,
        orgId: scope.orgId,
        agentId: scope.agentId,
        environment: scope.environment,
        workflow: scope.workflow,
        period,
        limitUsd,
        updatedAt: deps.clock.now(),
        updatedBy: by,
      },
    },
    { upsert: true },
  );
}
