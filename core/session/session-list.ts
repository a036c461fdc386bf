/**
 * Sessions across the agents a member can read, filtered and paged: the list of the web app's Sessions page
 * (`GET /api/sessions`). Root sessions only (child sessions show on their parent's page); newest first.
 * A chat session started by another member is not listed (as in {@link listSessions}), except in the organizations
 * where the caller holds sessions:personal.
 *
 * Source: spec/platform-service.md § Session facts named; docs/decisions.md D10 § Sessions (list with filters: agent,
 * environment, workflow, status, date).
 */
import { PlatformError } from '../ports/platform-error.ts';
import type { SessionRecord, SessionStatus } from './model.ts';
import { sessionsOf, type SessionStoreDeps } from './session-store.ts';
import type { SessionCaller } from './session-access.ts';

/** Most sessions on one page. */
export const MAX_SESSION_PAGE = 200;

/** Filters of {@link findSessions}. */
export interface SessionListFilter {
  /** Agents to list (ids); the caller's Reader role on each is checked by the caller of this function. Empty: nothing.
   */
  agentIds: string[];
  environment?: string;
  workflow?: string;
  status?: SessionStatus;
  /** Created at or after (inclusive). */
  from?: Date;
  /** Created before (exclusive). */
  to?: Date;
  /** Sessions skipped (paging); default 0. */
  offset?: number;
  /** Page size, 1 to {@link MAX_SESSION_PAGE}; default 50. */
  limit?: number;
  /** Organizations where the caller holds sessions:personal: every member's chats there are listed. Default none. */
  everyChatIn?: string[];
}

/**
 * A page of root sessions of `filter.agentIds`, newest first, and whether an older page exists.
 * @throws PlatformError `invalid_argument` (400) when `from` is not before `to`
 */
export async function findSessions(
  deps: Pick<SessionStoreDeps, 'docs'>,
  caller: SessionCaller,
  filter: SessionListFilter,
): Promise<{ sessions: SessionRecord[]; hasMore: boolean }> {
  if (filter.agentIds.length === 0) return { sessions: [], hasMore: false };
  if (filter.from && filter.to && filter.from.getTime() >= filter.to.getTime()) {
    throw new PlatformError('invalid_argument', 'The date range is empty: "from" must be before "to".', {
      status: 400,
    });
  }
  const query: Record<string, unknown> = {
    agentId: { $in: filter.agentIds },
    depth: 0,
    $or: [
      { startedBy: { $exists: false } },
      { startedBy: caller.subject },
      ...(filter.everyChatIn?.length ? [{ orgId: { $in: filter.everyChatIn } }] : []),
    ],
  };
  if (filter.environment) query.environment = filter.environment;
  if (filter.workflow) query.workflow = filter.workflow;
  if (filter.status) query.status = filter.status;
  if (filter.from || filter.to) {
    query.createdAt = { ...(filter.from ? { $gte: filter.from } : {}), ...(filter.to ? { $lt: filter.to } : {}) };
  }
  const limit = Math.min(Math.max(filter.limit ?? 50, 1), MAX_SESSION_PAGE);
  const found = await sessionsOf(deps).find(query, {
    sort: { createdAt: -1, _id: -1 },
    skip: filter.offset ?? 0,
    limit: limit + 1,
  });
  return { sessions: found.slice(0, limit), hasMore: found.length > limit };
}
