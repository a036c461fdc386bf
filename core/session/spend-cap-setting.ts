/**
 * Setting a workflow's spend cap (Maintainer): a cap on a published workflow that calls a model without prices is
 * refused, since it could never be reached.
 *
 * Source: docs/decisions.md D17 § 5; D7 § Operators.
 */
import { PlatformError } from '../ports/platform-error.ts';
import type { SpendPeriod } from './spend-model.ts';
import { writeSpendCap } from './spend.ts';
import type { SessionCaller, SessionDeps } from './session-access.ts';

/** The cap {@link setSpendCap} sets or removes. */
export interface SpendCapSetting {
  /** The period the cap applies to. */
  period: SpendPeriod;
  /** The most the workflow may spend in one period, in US dollars (≥ 0); null removes the cap. */
  limitUsd: number | null;
}

/** Sets or removes a spend cap (Maintainer). @throws PlatformError `invalid_argument` (400) */
export async function setSpendCap(
  deps: SessionDeps,
  caller: SessionCaller,
  ref: { orgId?: string; agent: string; environment: string; workflow: string },
  { period, limitUsd }: SpendCapSetting,
): Promise<void> {
  const agent = await deps.resolveAgent(caller, ref);
  await deps.requireRole(caller, agent.orgId, agent.agentId, 'maintainer');
  if (limitUsd !== null && deps.modelHasPrices) await refuseUnpricedCap(deps, caller, ref, deps.modelHasPrices);
  await writeSpendCap(
    deps,
    { ...agent, environment: ref.environment, workflow: ref.workflow },
    { period, limitUsd, by: caller.subject },
  );
}

/**
 * Refuses a cap on a published workflow that calls a model without prices (it could never be reached); a workflow
 * not published yet is checked when it is published (core/boot/spend-cap-models.ts).
 * @throws PlatformError `spend_cap_unpriced` (422)
 */
async function refuseUnpricedCap(
  deps: SessionDeps,
  caller: SessionCaller,
  ref: Parameters<SessionDeps['resolveWorkflow']>[1],
  priced: (id: string | undefined) => boolean,
): Promise<void> {
  const unpublished = ['not_published', 'workflow_not_found', 'not_found'];
  const published = await deps.resolveWorkflow(caller, ref).catch((error: unknown) => {
    if (error instanceof PlatformError && unpublished.includes(error.code)) return undefined;
    throw error;
  });
  if (!published) return;
  const { view } = published;
  const models = [...new Set([view.model, ...Object.values(view.states).map((s) => s.model ?? view.model)])];
  const unpriced = models.findIndex((m) => !priced(m));
  if (unpriced < 0) return;
  throw new PlatformError(
    'spend_cap_unpriced',
    [
      `Workflow "${view.slug}" runs on model "${models[unpriced] ?? 'default'}", which has no prices in the config`,
      '(not offered, or its input and output prices are 0), so a spend cap could never be reached: give the model',
      'prices in the models section or name a priced model, publish, then set the cap.',
    ].join(' '),
    { status: 422 },
  );
}
