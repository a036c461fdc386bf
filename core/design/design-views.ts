/**
 * What the Design tab and the organization's spend view read: a member's own design chats on an environment (newest
 * first), and the design agent's spend per organization (UTC day, week and month; never counted against workflow
 * caps), with each agent environment's share of the month.
 *
 * Source: issue "The design agent" § Runtime (usage and cost totalled per organization; a separate designAgent
 * spend view), § Front doors.
 */
import { type AgentCaller, agentCollections, type AgentDeps, type AgentRecord } from '../agent/hosting.ts';
import { designWorkflowSlug, sessionCollections, type SessionRecord } from '../session/model.ts';
import { spendPeriods } from '../session/spend-model.ts';
import type { SpendPeriod, SpendTotalRecord } from '../session/spend-model.ts';
import { periodStart } from '../session/rules.ts';
import { designTarget } from './design-chats.ts';
import { type DesignChatRecord, designChatsCollection } from './design-runtime.ts';

/** One design chat of the caller. */
export interface DesignChatView {
  /** Send it as `threadId` to continue the chat (it is also the design session's id). */
  threadId: string;
  /** The session's status (`running`, `awaiting_input`, `failed`, …). */
  status: string;
  /** ISO: when the chat opened, and when its session last changed. */
  startedAt: string;
  lastActivityAt: string;
  /** What the chat has cost so far (USD). */
  costUsd: number;
}

/** The most design chats a list answers. */
export const MAX_DESIGN_CHATS = 20;

/**
 * The caller's own design chats on the environment, newest first (at most {@link MAX_DESIGN_CHATS}).
 * @throws as core/design/design-chats.ts designTarget (404 for anyone below Maintainer)
 */
export async function listDesignChats(
  hosting: AgentDeps,
  caller: AgentCaller,
  ref: { agent: string; envName: string },
): Promise<DesignChatView[]> {
  const { agent, env } = await designTarget(hosting, caller, ref);
  const chats = await hosting.docs.collection<DesignChatRecord>(
    designChatsCollection,
  ).find(
    { agentId: agent._id, envName: env.name, 'caller.subject': caller.subject },
    { sort: { createdAt: -1 }, limit: MAX_DESIGN_CHATS },
  );
  const sessions = new Map(
    (await hosting.docs.collection<SessionRecord>(sessionCollections.sessions)
      .find({
        _id: { $in: chats.map((c) => c._id) },
      })).map((s) => [s._id, s]),
  );
  return chats.flatMap((chat) => {
    const session = sessions.get(chat._id);
    if (!session) return [];
    return [{
      threadId: chat._id,
      status: session.status,
      startedAt: chat.createdAt.toISOString(),
      lastActivityAt: session.updatedAt.toISOString(),
      costUsd: session.usage.costUsd,
    }];
  });
}

/** The design agent's spend of an organization. */
export interface DesignSpendView {
  /** Per period: when it started (ISO) and what the design agent cost in it (USD). */
  periods: { period: SpendPeriod; periodStart: string; costUsd: number }[];
  /** This month's cost per agent environment, largest first (the agent's slug and name; absent once deleted). */
  agents: {
    agentId: string;
    slug?: string;
    name?: string;
    environment: string;
    costUsd: number;
  }[];
}

/** The design agent's spend in organization `orgId` now (the caller's right to see it is checked by the route). */
export async function designSpend(
  deps: Pick<AgentDeps, 'docs' | 'clock'>,
  orgId: string,
): Promise<DesignSpendView> {
  const totals = deps.docs.collection<SpendTotalRecord>(
    sessionCollections.spendTotals,
  );
  const now = deps.clock.now();
  const periods: DesignSpendView['periods'] = [];
  let month: SpendTotalRecord[] = [];
  for (const period of spendPeriods) {
    const start = periodStart(period, now);
    const counters = await totals.find({
      orgId,
      workflow: designWorkflowSlug,
      period,
      periodStart: start,
    });
    if (period === 'month') month = counters;
    const costUsd = counters.reduce((sum, c) => sum + c.costUsd, 0);
    periods.push({ period, periodStart: start.toISOString(), costUsd });
  }
  const spent = month.filter((c) => c.costUsd > 0);
  const records = await deps.docs.collection<AgentRecord>(
    agentCollections.agents,
  ).find({
    _id: { $in: [...new Set(spent.map((c) => c.agentId))] },
  });
  const named = new Map(
    records.map((a) => [a._id, { slug: a.slug, name: a.name }]),
  );
  const agents = spent
    .map((c) => ({
      agentId: c.agentId,
      ...named.get(c.agentId),
      environment: c.environment,
      costUsd: c.costUsd,
    }))
    .sort((a, b) => b.costUsd - a.costUsd);
  return { periods, agents };
}
