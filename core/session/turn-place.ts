/**
 * Where a turn waits on the fair turn queue (core/ports/job-queue.ts `JobPlace`), read from its records in the trusted
 * process (never from the caller that queues it): its organization (tenant), its agent (group) and its lane.
 * A turn is `interactive` when a person or a caller waits on it: a reply, a decision, or any turn of a session a
 * chat, an AG-UI run, an MCP tool call, an operator or a design chat opened; `background` otherwise: any other turn
 * of a session a webhook, schedule, poll, callback or completion firing opened (a later delivery to it included),
 * and every evaluation's. The kind `delivery` says nothing here: every fired session starts with one.
 * A child session's turn takes its root session's lane.
 *
 * Source: docs/decisions.md D24 § 1 (interactive first: chat, AG-UI, MCP, reply, decision ahead of webhook, schedule,
 * poll, callback, completion firings and evaluations).
 */
import type { JobPlace } from '../ports/job-queue.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { SessionRecord, TurnRecord } from './model.ts';
import { sessionsOf, turnsOf } from './session-store.ts';

/** The trigger types of firings no one waits on (a session's `variables.trigger.type`). */
export const BACKGROUND_TRIGGER_TYPES: ReadonlySet<string> = new Set([
  'webhook',
  'schedule',
  'polling',
  'callback',
  'completion',
]);

/** The place of a turn whose records are gone (the job will find nothing to run). */
const nowhere: JobPlace = { lane: 'background', tenant: '-', group: '-' };

/** The lane of a turn of `kind` in a session whose root is `root`. */
export function turnLane(
  kind: TurnRecord['kind'],
  root: Pick<SessionRecord, 'variables' | 'evaluation'>,
): JobPlace['lane'] {
  if (root.evaluation) return 'background';
  if (kind === 'reply' || kind === 'decision') return 'interactive';
  const trigger = root.variables.trigger as { type?: unknown } | undefined;
  return typeof trigger?.type === 'string' && BACKGROUND_TRIGGER_TYPES.has(trigger.type) ? 'background' : 'interactive';
}

/** Reads turn `turnId` and its session (and root session, for a child) and returns its place. */
export async function turnPlace(docs: DocumentStore, turnId: string): Promise<JobPlace> {
  const turn = await turnsOf({ docs }).findOne({ _id: turnId });
  if (!turn) return nowhere;
  const session = await sessionsOf({ docs }).findOne({ _id: turn.sessionId });
  if (!session) return { ...nowhere, tenant: turn.orgId };
  const root = session.rootId && session.rootId !== session._id
    ? (await sessionsOf({ docs }).findOne({ _id: session.rootId })) ?? session
    : session;
  return { lane: turnLane(turn.kind, root), tenant: turn.orgId, group: session.agentId };
}
