/**
 * Spend caps and the spend counted against them: the periods (UTC), a workflow's cap per period (collection
 * `spend_caps`) and the model cost spent in one period (collection `spend_totals`).
 *
 * Source: spec/platform-service.md § Session facts named (Spend cap); docs/decisions.md D17 § 5.
 */
import type { sessionSchemaVersion } from './model.ts';

/** Spend cap periods (UTC). Source: spec § Session facts named (Spend cap). */
export const spendPeriods = ['day', 'week', 'month'] as const;
/** A spend cap period. */
export type SpendPeriod = typeof spendPeriods[number];

/** A spend cap (collection `spend_caps`, `_id` = `<agentId>:<environment>:<workflow>:<period>`). */
export interface SpendCapRecord {
  _id: string;
  schemaVersion: typeof sessionSchemaVersion;
  orgId: string;
  agentId: string;
  environment: string;
  workflow: string;
  period: SpendPeriod;
  limitUsd: number;
  updatedAt: Date;
  updatedBy: string;
}

/** Model cost spent in one period (collection `spend_totals`, `_id` = cap id + `:` + period start ISO date). */
export interface SpendTotalRecord {
  _id: string;
  schemaVersion: typeof sessionSchemaVersion;
  /** The agent's organization (counters written since the design agent's spend view; absent on older ones). */
  orgId?: string;
  agentId: string;
  environment: string;
  workflow: string;
  period: SpendPeriod;
  periodStart: Date;
  costUsd: number;
}
